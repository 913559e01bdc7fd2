"""Kept bodies that monitoring polls, answered without FastAPI's routing: ``HotReads``, an ASGI middleware.

``GET /api/v1/counters/interfaces`` is what many collectors poll at once. Its body is kept
(``counters_cache``), so answering it is all framework: under 90 closed-loop clients the REST server
spent ~0.2 ms of CPU a request, two thirds of it below the authentication middleware (FastAPI's
exception and exit-stack middlewares, matching the path against every route, solving the route's
``Accept-Encoding`` parameter, building a ``Response`` and passing its messages back up through each
layer), and the requests queued behind one another on the event loop for that CPU (py-spy; issue 19's
soak). ``HotReads`` sits inside ``Guard`` and ``LimitBodies``, so a request has been authenticated and
authorised exactly as for any route, and answers a registered path itself: a GET without a query
string, with the kept body (gzip-compressed when ``Accept-Encoding`` allows it) and the headers the
route sends. Anything else (another method, a query string), and a read that fails with a database
error, goes on to the application, whose route for the same path answers it (and describes it in
OpenAPI). The data is the kept body's, with its consistency rule: nothing is served staler than
through the route.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from nos.api.rest.responses import MEDIA_TYPE, accepts_gzip
from nos.db.errors import DbError

KeptRead = Callable[[], Awaitable[tuple[bytes, bytes]]]  # the current body: plain and gzip-compressed
_VARY = (b"vary", b"Accept-Encoding")
_TYPE = (b"content-type", MEDIA_TYPE.encode())
_GZIP = (b"content-encoding", b"gzip")


def _accept_encoding(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"accept-encoding":
            return str(value.decode("latin-1"))
    return None


class HotReads:
    """ASGI middleware: answers a GET of a path in ``reads`` (path -> its kept read) without a query
    string; passes every other request to ``app``. ``reads`` may be filled after the middleware is made
    (the routers register their kept reads while the application is built)."""

    def __init__(self, app: ASGIApp, reads: dict[str, KeptRead]) -> None:
        self.app, self.reads = app, reads

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        read = self.reads.get(scope["path"]) if scope["type"] == "http" else None
        if read is None or scope["method"] != "GET" or scope["query_string"]:
            return await self.app(scope, receive, send)
        try:
            plain, gzipped = await read()
        except DbError:  # the route reads again and answers with its error handling
            return await self.app(scope, receive, send)
        if accepts_gzip(_accept_encoding(scope)):
            body, headers = gzipped, [_GZIP, _VARY]
        else:
            body, headers = plain, [_VARY]
        headers += [(b"content-length", str(len(body)).encode()), _TYPE]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


__all__ = ["HotReads", "KeptRead"]
