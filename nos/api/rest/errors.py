"""RESTCONF error bodies (RFC 8040 section 7.1, as sonic-mgmt-framework answers) and the handlers that
turn every failure into one.

Body: ``{"ietf-restconf:errors": {"error": [{"error-type", "error-tag", "error-path", "error-message"}]}}``.
Status and tag follow sonic-mgmt-framework's table (reference ecosystem.md 2.1): 400 invalid-value,
401/403 access-denied, 404 invalid-value, 405 operation-not-supported, 409 in-use (a commit conflict)
or resource-denied (POST on an existing resource), 415 invalid-value (bad content type); FastAPI's 422
for a malformed body is answered as 400. A refused configuration gives one entry per problem, its
``error-path`` the JSON pointer of the field (``/TABLE/key/field``, ``/`` in a key written ``~1``).
A client's mistake never gets a 500; the catch-all logs a real bug and answers 500 without details.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from nos.api.auth import AuthError
from nos.config.checkpoint import CheckpointError
from nos.config.errors import ConfigError, ConfigFileError, ConfigValidationError, UnreadableConfig
from nos.config.transaction import PatchError
from nos.db.configdb import ConfigConflict
from nos.db.errors import DbError, WrongTypeError

log = logging.getLogger(__name__)

INVALID_VALUE = "invalid-value"
ACCESS_DENIED = "access-denied"
NOT_SUPPORTED = "operation-not-supported"
IN_USE = "in-use"
RESOURCE_DENIED = "resource-denied"
OPERATION_FAILED = "operation-failed"

_TAG_OF_STATUS = {400: INVALID_VALUE, 401: ACCESS_DENIED, 403: ACCESS_DENIED, 404: INVALID_VALUE,
                  405: NOT_SUPPORTED, 409: IN_USE, 415: INVALID_VALUE}
MEDIA_TYPE = "application/json"


class ErrorEntry(BaseModel):
    """One error (RFC 8040 ``error`` list member)."""

    model_config = ConfigDict(populate_by_name=True)

    error_type: str = Field(alias="error-type", description="protocol (HTTP level) or application (data)")
    error_tag: str = Field(alias="error-tag", description="invalid-value, access-denied, in-use, ...")
    error_path: str | None = Field(default=None, alias="error-path",
                                   description="what is wrong: /TABLE/key/field, an operation path, a parameter")
    error_message: str = Field(alias="error-message")


class ErrorList(BaseModel):
    error: list[ErrorEntry]


class ErrorBody(BaseModel):
    """The body of every error response."""

    model_config = ConfigDict(populate_by_name=True)

    errors: ErrorList = Field(alias="ietf-restconf:errors")


class ApiError(Exception):
    """Raised by a route for an answer other than success; becomes a RESTCONF error body."""

    def __init__(self, status: int, message: str, *, path: str | None = None, tag: str | None = None,
                 error_type: str = "application", headers: Mapping[str, str] | None = None) -> None:
        self.status, self.message, self.path = status, message, path
        self.tag = tag or _TAG_OF_STATUS.get(status, OPERATION_FAILED)
        self.error_type = error_type
        self.headers = dict(headers or {})
        super().__init__(message)

    def entries(self) -> list[dict[str, str]]:
        return [entry(self.error_type, self.tag, self.message, self.path)]


def entry(error_type: str, tag: str, message: str, path: str | None = None) -> dict[str, str]:
    out = {"error-type": error_type, "error-tag": tag}
    if path is not None:
        out["error-path"] = path
    out["error-message"] = message
    return out


def body(entries: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    return {"ietf-restconf:errors": {"error": list(entries)}}


def respond(status: int, entries: Sequence[Mapping[str, str]], headers: Mapping[str, str] | None = None) -> Response:
    return Response(json.dumps(body(entries)), status, headers=dict(headers or {}), media_type=MEDIA_TYPE)


# ---- conversions (pure) ----------------------------------------------------------------------------

def escape(token: str) -> str:
    """One JSON pointer token (RFC 6901): ``~`` -> ``~0``, ``/`` -> ``~1``."""
    return token.replace("~", "~0").replace("/", "~1")


def config_error_path(error: ConfigError) -> str:
    parts = [error.table] + ([error.key] if error.key else []) + ([error.field] if error.field else [])
    return "/" + "/".join(escape(p) for p in parts)


def validation_entries(exc: ConfigValidationError) -> list[dict[str, str]]:
    """One entry per problem, located by its JSON pointer."""
    return [entry("application", INVALID_VALUE, str(e), config_error_path(e)) for e in exc.errors]


def patch_entries(exc: PatchError) -> list[dict[str, str]]:
    return [entry("application", INVALID_VALUE, str(exc), exc.path or None)]


def file_entries(exc: ConfigFileError) -> list[dict[str, str]]:
    parts = [p for p in (exc.table, exc.key, exc.field) if p is not None]
    path = "/" + "/".join(escape(p) for p in parts) if parts else None
    return [entry("application", INVALID_VALUE, str(exc), path)]


def request_validation_entries(errors: Sequence[Any]) -> list[dict[str, str]]:
    """FastAPI's validation errors: where (``body/0/op``, ``query/dry_run``) and why."""
    out = []
    for error in errors:
        loc = "/".join(str(part) for part in error.get("loc", ()))
        message = str(error.get("msg", "invalid"))
        ctx = error.get("ctx") or {}
        if error.get("type") == "json_invalid" and ctx.get("error"):
            message = f"the body is not valid JSON: {ctx['error']} at position {error['loc'][-1]}"
        out.append(entry("protocol", INVALID_VALUE, f"{loc}: {message}" if loc else message, loc or None))
    return out


def known_failure(exc: Exception) -> tuple[int, list[dict[str, str]]] | None:
    """Status and entries for the errors a write or an operation may raise; None for anything else.
    Shared by the exception handlers and by jobs, which report the same entries."""
    if isinstance(exc, ApiError):
        return exc.status, exc.entries()
    if isinstance(exc, ConfigValidationError):
        return 400, validation_entries(exc)
    if isinstance(exc, PatchError):
        return 400, patch_entries(exc)
    if isinstance(exc, ConfigFileError):
        return 400, file_entries(exc)
    if isinstance(exc, CheckpointError):
        return 400, [entry("application", INVALID_VALUE, str(exc))]
    if isinstance(exc, DbError | UnreadableConfig):
        return _database_failure(exc)
    if isinstance(exc, AuthError):
        return 503, [entry("protocol", OPERATION_FAILED, f"credentials unusable: {exc}")]
    return None


def _database_failure(exc: DbError | UnreadableConfig) -> tuple[int, list[dict[str, str]]]:
    if isinstance(exc, ConfigConflict):
        return 409, [entry("application", IN_USE, str(exc))]
    if isinstance(exc, UnreadableConfig):  # CONFIG_DB holds keys that are not rows: saving would lose them
        return 409, [entry("application", OPERATION_FAILED, bad.reason, f"/{escape(bad.table)}/{escape(bad.key)}")
                     for bad in exc.unreadable]
    if isinstance(exc, WrongTypeError):  # bad data in Redis, not a database that is down
        return 409, [entry("application", OPERATION_FAILED, str(exc))]
    return 503, [entry("application", OPERATION_FAILED, f"the switch's database: {exc}")]


# ---- handlers --------------------------------------------------------------------------------------

async def _api_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return respond(exc.status, exc.entries(), exc.headers)


async def _known(_request: Request, exc: Exception) -> Response:
    found = known_failure(exc)
    assert found is not None
    if found[0] >= 500:
        log.warning("rest.unavailable error=%s", exc)
    return respond(*found)


async def _http(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    tag = _TAG_OF_STATUS.get(status, OPERATION_FAILED)
    message = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
    if status == 404 and message == "Not Found":
        message = "no such resource (see /docs for the API)"
    return respond(status, [entry("protocol", tag, message)], exc.headers)


async def _request_validation(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return respond(400, request_validation_entries(exc.errors()))


async def _bug(request: Request, exc: Exception) -> Response:
    log.error("rest.bug method=%s path=%s error=%r", request.method, request.url.path, exc, exc_info=exc)
    return respond(500, [entry("application", OPERATION_FAILED, "internal error (logged by the server)")])


def install(app: FastAPI) -> None:
    """Answer every failure with a RESTCONF body."""
    app.add_exception_handler(ApiError, _api_error)
    for kind in (ConfigValidationError, PatchError, ConfigFileError, CheckpointError, ConfigConflict, DbError,
                 AuthError, UnreadableConfig):
        app.add_exception_handler(kind, _known)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(RequestValidationError, _request_validation)
    app.add_exception_handler(Exception, _bug)


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in ((400, "invalid value, malformed body or refused configuration"),
                         (401, "authentication required"), (403, "the admin role is required"),
                         (404, "no such resource"), (409, "conflict"), (413, "request body over the size limit"),
                         (415, "bad content type"))
}

__all__ = ["ApiError", "ERROR_RESPONSES", "ErrorBody", "ErrorEntry", "body", "entry", "escape", "install",
           "known_failure", "respond"]
