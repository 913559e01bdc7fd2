"""How many requests the REST server is serving right now: ``InFlight``, the outermost ASGI middleware,
counts them in ``Active``.

A small CONFIG_DB write runs on the event loop when nothing else is being served (it saves two thread
hops on a lone client's write), but its Redis round trips then hold the loop: while 10,000 routes
churned, Redis answered in 2 ms at the median and 20-70 ms at p99 (it runs orchagent's and syncd_sim's
scripts), and every request the loop had in hand waited as long (issue 19's soak). So a write goes to
the threadpool whenever another request is in flight (``nos.api.rest.routes.config.write``).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send


@dataclass
class Active:
    """The number of HTTP requests being served (only the event loop's thread changes it)."""

    requests: int = 0

    def alone(self) -> bool:
        """Whether the request asking is the only one in flight."""
        return self.requests <= 1


class InFlight:
    """ASGI middleware: ``active.requests`` counts the HTTP requests from their arrival to their answer."""

    def __init__(self, app: ASGIApp, active: Active) -> None:
        self.app, self.active = app, active

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        self.active.requests += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.active.requests -= 1


__all__ = ["Active", "InFlight"]
