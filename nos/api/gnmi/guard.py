"""Who may call the gNMI server: a gRPC interceptor over ``nos.api.auth.Authenticator``.

Credentials are gRPC metadata, as gNMI specifies (reference ecosystem.md 1.4): ``username`` and
``password`` on every call (a token may be given as the password of its name), or
``authorization: Bearer <token>`` (pygnmi's ``token=``, gnmic's ``--token``). While credentials are
not required (a loopback-only lab whose credentials file has never held a user or token), every caller
is admin. Otherwise (``Authenticator.required``: a listener beyond loopback, or a credential seen at
start or since; it never relaxes while the server runs, even when every credential is deleted) a call
without valid credentials answers UNAUTHENTICATED, and a read-only principal calling Set
PERMISSION_DENIED. A credentials file that cannot be used answers every call UNAVAILABLE (the reason
is in the server log). Secrets are never logged or echoed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc

from nos.api.auth import ANONYMOUS_ADMIN, Authenticator, AuthError, Principal

WRITE_METHODS = ("/gnmi.gNMI/Set",)


def principal_of(auth: Authenticator, metadata: Iterable[tuple[str, str]]) -> Principal | None:
    """The caller, or None when credentials are required and missing or wrong."""
    if not auth.required:
        return ANONYMOUS_ADMIN
    found = {key.lower(): value for key, value in metadata if isinstance(value, str)}
    bearer = found.get("authorization", "")
    if bearer.lower().startswith("bearer "):
        return auth.token(bearer[7:].strip())
    user, password = found.get("username", ""), found.get("password", "")
    if user and password:
        return auth.password(user, password)
    return None


class AuthInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]
    """Refuses calls without valid credentials, and Set from read-only principals."""

    def __init__(self, auth: Authenticator) -> None:
        self.auth = auth

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = continuation(details)
        if handler is None:
            return None
        try:
            principal = principal_of(self.auth, details.invocation_metadata or ())
        except AuthError:  # logged by the Authenticator, once per problem
            return _refusal(handler, grpc.StatusCode.UNAVAILABLE,
                            "the server's credentials file cannot be used; see the server log")
        if principal is None:
            return _refusal(handler, grpc.StatusCode.UNAUTHENTICATED,
                            "credentials required: send username and password metadata (or authorization: "
                            "Bearer <token>); the ones given are missing or wrong")
        if details.method in WRITE_METHODS and not principal.can_write:
            return _refusal(handler, grpc.StatusCode.PERMISSION_DENIED,
                            f"user '{principal.name}' is {principal.role}: Set needs the admin role")
        return handler


def _refusal(handler: Any, code: Any, message: str) -> Any:
    """A handler of the same shape as ``handler`` that only ends the call with ``code``."""
    def unary(request: Any, context: Any) -> Any:
        context.abort(code, message)

    def streaming(request: Any, context: Any) -> Any:
        context.abort(code, message)
        yield  # pragma: no cover - abort raises

    kwargs = {"request_deserializer": handler.request_deserializer,
              "response_serializer": handler.response_serializer}
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(unary, **kwargs)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(streaming, **kwargs)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(unary, **kwargs)
    return grpc.stream_stream_rpc_method_handler(streaming, **kwargs)


__all__ = ["AuthInterceptor", "principal_of"]
