"""Pre-serialised JSON responses for large reads: FastAPI does not re-validate a returned ``Response``
against the route's model (the model still documents it in OpenAPI), which for a 128-port read is most
of the cost of answering."""

from __future__ import annotations

from starlette.background import BackgroundTask
from starlette.responses import Response

from nos.api.json_bytes import json_bytes

MEDIA_TYPE = "application/json"


def json_response(content: object, status: int = 200, background: BackgroundTask | None = None) -> Response:
    return Response(json_bytes(content), status, media_type=MEDIA_TYPE, background=background)


def raw_json(body: bytes, status: int = 200) -> Response:
    return Response(body, status, media_type=MEDIA_TYPE)


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header allows gzip (``gzip`` or ``*``, not with ``q=0``)."""
    for item in (accept_encoding or "").lower().split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip() in ("gzip", "*"):
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def json_variant(plain: bytes, gzipped: bytes, accept_encoding: str | None) -> Response:
    """A kept JSON body, compressed when the client accepts gzip."""
    if accepts_gzip(accept_encoding):
        headers = {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
        return Response(gzipped, 200, headers=headers, media_type=MEDIA_TYPE)
    return Response(plain, 200, headers={"Vary": "Accept-Encoding"}, media_type=MEDIA_TYPE)


__all__ = ["accepts_gzip", "json_bytes", "json_response", "json_variant", "raw_json"]
