"""Who is calling: HTTP Basic or ``Authorization: Bearer <token>`` against the credentials file, and the
role a request needs (reads: any user; PUT/POST/PATCH/DELETE, operations included: admin).

With no credentials configured the listener is loopback-only (checked at start-up) and every caller is
the anonymous admin, the lab default. Secrets are never logged; a failed attempt logs the user name
and the scheme only.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Awaitable, Callable

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from nos.api.auth import ANONYMOUS_ADMIN, Authenticator, Principal
from nos.api.rest.errors import ACCESS_DENIED, ApiError

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


def authenticator_dependency(auth: Authenticator | None) -> Callable[[Request], Awaitable[Principal]]:
    """The dependency every route except health runs: the caller, allowed for this method, or 401/403."""

    async def authenticate(request: Request) -> Principal:
        if auth is None or not auth.required:
            return ANONYMOUS_ADMIN
        principal = await _principal(auth, request.headers.get("authorization"))
        if request.method in WRITE_METHODS and not principal.can_write:
            raise ApiError(403, f"'{principal.name}' has the {principal.role} role; {request.method} needs admin",
                           tag=ACCESS_DENIED, error_type="protocol")
        return principal

    return authenticate


__all__ = ["CHALLENGE", "WRITE_METHODS", "authenticator_dependency", "parse_basic"]
