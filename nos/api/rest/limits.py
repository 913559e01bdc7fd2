"""Limits on REST request bodies, before any route reads one: size (413) and JSON nesting (400).

``LimitBodies`` is an ASGI middleware (inside ``security.Guard``: a caller is authenticated first).
A request whose ``Content-Length`` is over ``BodyLimits.max_bytes`` is answered 413 at once, its body
never read; one without a length (chunked) is read piece by piece and answered 413 as soon as it
passes the limit, so no more than the limit is ever held. Then a JSON body (``application/json``,
``...+json``) that nests deeper than ``BodyLimits.max_depth`` is answered 400 naming the limit
(``nos.config.limits``: a byte scan, no second parse). The body then goes to the application as one
piece, exactly as read. Requests without a body (GET, HEAD, OPTIONS) pass untouched.

The defaults: 16 MiB, about 80 times the 128-port SKU's config_db.json (214 KB as ``config save``
writes it, 135 KB compact), and 64 levels (a config_db.json nests 4). The REST server's
``--max-body`` and ``--max-depth`` (or ``NOS_REST_MAX_BODY`` / ``NOS_REST_MAX_DEPTH``, which
``nos up`` passes on to it) change them. Cost on a one-row PATCH: a scan of the headers, the one read
the route would make anyway and two byte counts, ~2 us of ~500 us.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nos.api.rest.errors import INVALID_VALUE, entry, respond
from nos.config.limits import MAX_DEPTH, TooDeep, nesting_exceeds

MAX_BODY = 16 << 20
TOO_BIG = "too-big"  # RFC 8040's error-tag for 413
NO_BODY = frozenset({"GET", "HEAD", "OPTIONS"})
_UNITS = {"": 1, "K": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MIB": 1 << 20, "G": 1 << 30, "GIB": 1 << 30}


@dataclass(frozen=True)
class BodyLimits:
    """The largest request body in bytes, and the deepest JSON nesting, that the server reads."""

    max_bytes: int = MAX_BODY
    max_depth: int = MAX_DEPTH

    def __post_init__(self) -> None:
        if self.max_bytes < 1 or self.max_depth < 1:
            raise ValueError(f"body limits must be positive: {self.max_bytes} bytes, {self.max_depth} levels")


def parse_size(text: str) -> int:
    """``16777216``, ``16M``, ``16MiB``, ``512K``, ``1G`` (binary units) as bytes; ValueError otherwise."""
    digits = text.strip().upper()
    number = digits.rstrip("KMGIB")
    unit = _UNITS.get(digits[len(number):])
    if not number.isdigit() or unit is None:
        raise ValueError(f"not a size: {text!r} (use bytes, or K, M, G: 16M)")
    return int(number) * unit


def describe(size: int) -> str:
    """A byte count as people read it: ``16777216 bytes (16 MiB)``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size} bytes ({size // scale} {unit})"
    return f"{size} bytes"


class BodyTooLarge(Exception):
    """Raised (inside ``LimitBodies``) when a request body is over the size limit; ``message`` says so."""


def _framing(headers: list[tuple[bytes, bytes]]) -> tuple[int | None, bool]:
    """The declared Content-Length (None: not given or not a number) and whether the body is JSON."""
    length: int | None = None
    is_json = False
    for name, value in headers:
        if name == b"content-length":
            length = int(value) if value.isdigit() else None
        elif name == b"content-type":
            media = value.partition(b";")[0].strip().lower()
            is_json = media == b"application/json" or media.endswith(b"+json")
    return length, is_json


class LimitBodies:
    """ASGI middleware: every request body within ``limits``, or a RESTCONF 413 / 400 answer."""

    def __init__(self, app: ASGIApp, limits: BodyLimits | None = None) -> None:
        self.app, self.limits = app, limits or BodyLimits()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in NO_BODY:
            return await self.app(scope, receive, send)
        length, is_json = _framing(scope["headers"])
        limits = self.limits
        try:
            if length is not None and length > limits.max_bytes:
                raise BodyTooLarge(f"the request body is {describe(length)}; this server reads at most "
                                   f"{describe(limits.max_bytes)} (the REST server's --max-body)")
            body = await self._read(receive)
            if body is None:
                return  # the client went away while sending
            if is_json and nesting_exceeds(body, limits.max_depth):
                raise TooDeep(limits.max_depth)
        except BodyTooLarge as exc:
            # the rest of the body is never read: the connection is closed after the answer
            return await respond(413, [entry("protocol", TOO_BIG, str(exc))], {"connection": "close"})(
                scope, receive, send)
        except TooDeep as exc:
            return await respond(400, [entry("protocol", INVALID_VALUE, f"body: {exc} (the REST server's --max-depth)",
                                             "body")])(
                scope, receive, send)
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive) -> bytes | None:
        """The whole body (BodyTooLarge once it passes the limit), or None if the client disconnected."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limits.max_bytes:
                raise BodyTooLarge(f"the request body passed {describe(self.limits.max_bytes)} before it "
                                   "ended; that is the most this server reads (the REST server's --max-body)")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the application ``body`` whole, then what the server sends next (a disconnect)."""
    pending = True

    async def replay() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


__all__ = ["MAX_BODY", "BodyLimits", "BodyTooLarge", "LimitBodies", "describe", "parse_size"]
