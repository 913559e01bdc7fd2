"""Every port's counters as one JSON body, read from COUNTERS_DB again only after it changed.

``GET /api/v1/counters/interfaces`` is what monitoring polls, many clients at once. Reading and
serialising 128 ports x ~100 stats costs ~12 ms (the pipelined read ~8 ms, orjson ~1 ms); the counters
change only when syncd's flex counter poll writes them (1 s for ports on SONiC). So the body is kept
and rebuilt only after a keyspace notification for a ``COUNTERS:*`` hash or the port name map, on one
subscription (nos.db) drained by each request before it answers (a poll of the socket, microseconds).

The body is kept gzip-compressed too (level 1, compressed once per build), for the clients that accept it:
it is a few times smaller (tens of times when most counters are zero), and moving ~0.6 MB per answer is
what costs most once the body is kept.

Consistency: a request answers with a body built after every change whose notification had reached
this process when the request arrived. A client whose write to COUNTERS_DB was acknowledged before it
sent the request therefore sees the write (Redis sends the notification before the writer's reply).
Concurrent requests share one build (at most one runs; a request waits for at most two). If the
subscription fails, every request reads afresh until it can subscribe again.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool

from nos.db import DBConnector
from nos.db.errors import DbError
from nos.db.subscription import Subscription

log = logging.getLogger(__name__)


class CountersCache:
    """One JSON document built by ``build`` and the keys whose changes make it stale."""

    def __init__(self, db: DBConnector, patterns: tuple[str, ...], build: Callable[[], bytes]) -> None:
        self.db, self.build = db, build
        self.patterns = tuple(f"__keyspace@{db.id}__:{p}" for p in patterns)
        self._sub: Subscription | None = None
        self._changes = 1        # bumped for every batch of notifications seen
        self._built_at = 0       # value of _changes when the kept body's build started
        self._body: tuple[bytes, bytes] | None = None  # (plain, gzip)
        self._building: asyncio.Future[None] | None = None

    def _watch(self) -> bool:
        """Drain notifications (counting changes); False while there is no working subscription."""
        try:
            if self._sub is None:
                self._sub = Subscription(self.db)
                self._sub.subscribe(patterns=self.patterns)
                self._changes += 1  # anything may have changed while unsubscribed
            if self._sub.drain():
                self._changes += 1
            return True
        except DbError as exc:
            log.warning("rest.counters_cache.unsubscribed error=%s", exc)
            self.close()
            return False

    def _build_both(self) -> tuple[bytes, bytes]:
        plain = self.build()
        return plain, gzip.compress(plain, compresslevel=1, mtime=0)

    async def _build(self) -> None:
        started = self._changes
        try:
            body = await run_in_threadpool(self._build_both)
        finally:
            self._building = None
        self._body, self._built_at = body, started

    async def get(self) -> tuple[bytes, bytes]:
        """The current document, plain and gzip-compressed (see the module docstring for what current means)."""
        if not self._watch():
            return await run_in_threadpool(self._build_both)
        needed = self._changes
        while self._body is None or self._built_at < needed:
            if self._building is None:
                self._building = asyncio.ensure_future(self._build())
            await asyncio.shield(self._building)
        return self._body

    def close(self) -> None:
        if self._sub is not None:
            self._sub.close()
            self._sub = None


__all__ = ["CountersCache"]
