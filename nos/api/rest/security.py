"""Who is calling: HTTP Basic or ``Authorization: Bearer <token>`` against the credentials file, and the
role a request needs (reads: any user; PUT/POST/PATCH/DELETE, operations included: admin).

With no credentials configured the listener is loopback-only (checked at start-up) and every caller is
the anonymous admin, the lab default. Once credentials are required (``Authenticator.required``: a
listener beyond loopback, or a credential seen at start or since) they stay required while the server
runs, even after every user and token is deleted. A credentials file that cannot be used answers
every request 503 (the reason goes to the server log, not to the caller). Secrets are never logged;
a failed attempt logs the user name and the scheme only.

The check is ``Guard``, an ASGI middleware in front of the routes: every request but those for the
``PUBLIC`` paths (health and the API's own documentation) is checked once, before routing. A route
dependency did the same check through FastAPI's dependency machinery, ~100,000 instructions of a
one-row PATCH (measured with callgrind, against ~1.1 million for the whole request). A path that no
route serves is checked too: a caller without credentials learns nothing of what exists (401, not 404).
"""

from __future__ import annotations

import base64
import binascii
import logging

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from nos.api.auth import ANONYMOUS_ADMIN, Authenticator, AuthError, Principal
from nos.api.rest.errors import ACCESS_DENIED, OPERATION_FAILED, ApiError, entry, known_failure, respond

log = logging.getLogger(__name__)

WRITE_METHODS = frozenset({"PUT", "POST", "PATCH", "DELETE"})
CHALLENGE = {"WWW-Authenticate": 'Basic realm="nos", Bearer'}


def parse_basic(credentials: str) -> tuple[str, str] | None:
    """``user:password`` from the base64 part of a Basic header; None when it is not that."""
    try:
        text = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    user, colon, password = text.partition(":")
    return (user, password) if colon and user else None


def _denied(message: str) -> ApiError:
    return ApiError(401, message, tag=ACCESS_DENIED, error_type="protocol", headers=CHALLENGE)


async def _principal(auth: Authenticator, header: str | None) -> Principal:
    if not header:
        raise _denied("authentication required: use HTTP Basic or 'Authorization: Bearer <token>'")
    scheme, _, credentials = header.partition(" ")
    scheme = scheme.lower()
    found: Principal | None = None
    if scheme == "basic":
        pair = parse_basic(credentials)
        if pair is not None:
            found = await run_in_threadpool(auth.password, *pair)  # scrypt: tens of ms the first time
        if found is None:
            log.info("rest.auth.refused scheme=basic user=%s", pair[0] if pair else "?")
    elif scheme == "bearer":
        found = auth.token(credentials.strip())
        if found is None:
            log.info("rest.auth.refused scheme=bearer")
    else:
        raise _denied(f"unsupported authorization scheme {scheme!r}: use Basic or Bearer")
    if found is None:
        raise _denied("wrong user name, password or token")
    return found


UNUSABLE = (503, [entry("protocol", OPERATION_FAILED,
                         "the server's credentials file cannot be used; see the server log")])
PUBLIC = frozenset({"/api/v1/health", "/docs", "/docs/oauth2-redirect", "/openapi.json", "/redoc"})


class Guard:
    """ASGI middleware: the caller of every HTTP request but ``PUBLIC`` ones, allowed for its method, or
    a RESTCONF 401/403 answer (503 when the credentials file cannot be read). The caller is left in
    the request's state as ``principal``."""

    def __init__(self, app: ASGIApp, auth: Authenticator | None) -> None:
        self.app, self.auth = app, auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PUBLIC:
            return await self.app(scope, receive, send)
        try:
            principal = await self.caller(scope)
        except ApiError as exc:
            found = known_failure(exc)
            assert found is not None
            return await respond(*found, exc.headers)(scope, receive, send)
        except AuthError:  # logged by the Authenticator, once per problem
            return await respond(*UNUSABLE)(scope, receive, send)
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)

    async def caller(self, scope: Scope) -> Principal:
        auth = self.auth
        if auth is None or not auth.required:
            return ANONYMOUS_ADMIN
        header = next((value.decode("latin-1") for name, value in scope["headers"] if name == b"authorization"), None)
        principal = await _principal(auth, header)
        if scope["method"] in WRITE_METHODS and not principal.can_write:
            raise ApiError(403, f"'{principal.name}' has the {principal.role} role; {scope['method']} needs admin",
                           tag=ACCESS_DENIED, error_type="protocol")
        return principal


__all__ = ["CHALLENGE", "PUBLIC", "WRITE_METHODS", "Guard", "parse_basic"]
