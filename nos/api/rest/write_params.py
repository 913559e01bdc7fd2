"""The parameters of the CONFIG_DB write routes, read from the request by hand and documented by hand.

FastAPI resolves each declared parameter through its dependency machinery; for a one-row PATCH the
JSON body, the ``dry_run`` query flag, the two path parameters and the content-type check cost ~120 us
of the ~500 us the write itself takes (measured in-process on the development VM). The write routes
therefore take the ``Request`` and read them here: the body checked against its media types, parsed
with ``json`` and validated by a pydantic ``TypeAdapter`` of the same model FastAPI would use, the
flag parsed as pydantic parses a bool. A bad value raises ``RequestValidationError`` with the
locations FastAPI gives (``body/0/op``, ``query/dry_run``), so the error bodies are the same. What
the routes take is documented in OpenAPI through ``openapi_extra`` (``operation``), built from the
same models, so the document still says exactly what is accepted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import TypeAdapter, ValidationError

from nos.api.rest.errors import ApiError

_BOOL: TypeAdapter[bool] = TypeAdapter(bool)
REF_TEMPLATE = "#/components/schemas/{model}"


def check_media_type(request: Request, allowed: tuple[str, ...]) -> None:
    """415 (protocol error) unless the request's body is of one of the ``allowed`` media types."""
    given = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if given not in allowed:
        raise ApiError(415, f"Content-Type '{given or '(none)'}' is not accepted here: use {' or '.join(allowed)}",
                       error_type="protocol")


@dataclass(frozen=True)
class Body:
    """A JSON request body: its type, the media types accepted, and its title in OpenAPI."""

    type_: Any
    media_types: tuple[str, ...]
    title: str
    adapter: TypeAdapter[Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "adapter", TypeAdapter(self.type_))

    def schema(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The body's JSON schema (models referenced as components) and the components it refers to."""
        schema = self.adapter.json_schema(ref_template=REF_TEMPLATE)
        components = schema.pop("$defs", {})
        return {**schema, "title": self.title}, components

    async def read(self, request: Request) -> Any:
        """The validated body; 415 for another media type, ``RequestValidationError`` for a bad body."""
        check_media_type(request, self.media_types)
        raw = await request.body()
        if not raw:
            raise RequestValidationError([{"type": "missing", "loc": ("body",), "msg": "Field required",
                                           "input": None}])
        try:
            document = json.loads(raw)
        except json.JSONDecodeError as exc:  # FastAPI's own report of a body that is not JSON
            raise RequestValidationError([{"type": "json_invalid", "loc": ("body", exc.pos), "msg": "JSON decode error",
                                           "input": {}, "ctx": {"error": exc.msg}}]) from None
        except UnicodeDecodeError as exc:
            raise RequestValidationError([{"type": "json_invalid", "loc": ("body", exc.start),
                                           "msg": "JSON decode error", "input": {},
                                           "ctx": {"error": "not UTF-8"}}]) from None
        try:
            return self.adapter.validate_python(document)
        except ValidationError as exc:
            raise RequestValidationError(_located("body", exc)) from None


@dataclass(frozen=True)
class Flag:
    """A boolean query parameter, false when absent."""

    name: str
    description: str

    def read(self, request: Request) -> bool:
        if not request.scope.get("query_string"):
            return False  # the usual write: no query to parse
        value = request.query_params.get(self.name)
        if value is None:
            return False
        try:
            return _BOOL.validate_python(value)
        except ValidationError as exc:
            raise RequestValidationError(_located("query", exc, self.name)) from None

    def parameter(self) -> dict[str, Any]:
        schema = {"type": "boolean", "description": self.description, "default": False,
                  "title": self.name.replace("_", " ").title()}
        return {"name": self.name, "in": "query", "required": False, "schema": schema, "description": self.description}


def path_parameter(name: str) -> dict[str, Any]:
    """OpenAPI for a required string path parameter (``request.path_params[name]``)."""
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string", "title": name.title()}}


def operation(path: tuple[str, ...] = (), flags: tuple[Flag, ...] = (), body: Body | None = None) -> dict[str, Any]:
    """``openapi_extra`` for a route that reads these itself (components: see ``components``)."""
    extra: dict[str, Any] = {"parameters": [*map(path_parameter, path), *(f.parameter() for f in flags)]}
    if body is not None:
        schema, _ = body.schema()
        extra["requestBody"] = {"required": True, "content": {media: {"schema": schema} for media in body.media_types}}
    return extra


def components(*bodies: Body) -> dict[str, Any]:
    """The component schemas the bodies' schemas refer to (for the OpenAPI document)."""
    found: dict[str, Any] = {}
    for body in bodies:
        found.update(body.schema()[1])
    return found


def _located(where: str, exc: ValidationError, *prefix: str) -> list[dict[str, Any]]:
    return [{**error, "loc": (where, *prefix, *error["loc"])} for error in exc.errors(include_url=False)]


__all__ = ["Body", "Flag", "check_media_type", "components", "operation", "path_parameter"]
