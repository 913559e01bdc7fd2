"""One keyspace subscription per database for the whole gNMI process, shared by every stream.

ON_CHANGE streams register a :class:`Watcher` (which tables of which DB they care about); one thread
holds a single ``__keyspace@<db>__:*`` pattern per DB that any stream watches (the same shape as
``nos.db.keyspace.KeyspaceHub``, which this cannot use directly: it needs every table, key-less
hashes such as ``COUNTERS_PORT_NAME_MAP`` included, and registration from many RPC threads) and hands
each event's ``(table, key)`` to the watchers of that table. Watchers only mark keys dirty; each
stream re-reads the rows itself, so this thread never waits on a slow client.
"""

from __future__ import annotations

import logging
import os
import select
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.db.subscription import Subscription

log = logging.getLogger(__name__)

Notify = Callable[[str, str, str], None]   # (db, table, key); key "" for a key-less hash
Broken = Callable[[str], None]             # the feed of a DB failed (message)


@dataclass(eq=False)
class Watcher:
    """A stream's interest: tables of one DB (None = every table) and where to send events."""

    db: str
    tables: frozenset[str] | None
    notify: Notify
    broken: Broken = field(default=lambda message: None)


class ChangeFeed:
    """Keyspace events of the switch's databases, fanned out to watchers (see the module docstring)."""

    def __init__(self, dbs: Databases) -> None:
        self.dbs = dbs
        self._lock = threading.Lock()
        self._subs: dict[str, Subscription] = {}
        self._watchers: dict[str, list[Watcher]] = {}
        self._wake_r, self._wake_w = os.pipe()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="gnmi-keyspace", daemon=True)
        self._thread.start()

    def watch(self, watcher: Watcher) -> None:
        """Start delivering events to ``watcher`` (subscribing to its DB first if nobody did yet).
        Events that happen after this returns are delivered; raises DbError if Redis is down."""
        with self._lock:
            if watcher.db not in self._subs:
                sub = Subscription(self.dbs[watcher.db])
                sub.subscribe(patterns=[f"__keyspace@{self.dbs[watcher.db].id}__:*"])
                self._subs[watcher.db] = sub
                os.write(self._wake_w, b"x")
            self._watchers.setdefault(watcher.db, []).append(watcher)

    def unwatch(self, watcher: Watcher) -> None:
        with self._lock:
            found = self._watchers.get(watcher.db, [])
            if watcher in found:
                found.remove(watcher)

    def watcher_count(self) -> int:
        with self._lock:
            return sum(len(w) for w in self._watchers.values())

    def close(self) -> None:
        self._stopped = True
        os.write(self._wake_w, b"x")
        self._thread.join(timeout=2.0)
        with self._lock:
            for sub in self._subs.values():
                sub.close()
            self._subs.clear()
        os.close(self._wake_r)
        os.close(self._wake_w)

    # -- the feed thread ----------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stopped:
            with self._lock:
                subs = dict(self._subs)
            fds = {self._wake_r: ""}
            for db, sub in subs.items():
                try:
                    fds[sub.fileno()] = db
                except DbError as error:
                    self._fail(db, str(error))
            try:
                ready, _, _ = select.select(list(fds), [], [], 1.0)
            except (OSError, ValueError):  # a subscription closed under us: look again
                continue
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            for fd in ready:
                if fd != self._wake_r and not self._stopped:
                    self._drain(fds[fd], subs[fds[fd]])

    def _drain(self, db: str, sub: Subscription) -> None:
        try:
            messages = sub.drain()
        except DbError as error:
            self._fail(db, str(error))
            return
        head = f"__keyspace@{self.dbs[db].id}__:"
        separator = self.dbs[db].separator
        with self._lock:
            watchers = list(self._watchers.get(db, ()))
        if not watchers:
            return
        for message in messages:
            table, _, key = message.channel[len(head):].partition(separator)
            for watcher in watchers:
                if watcher.tables is None or table in watcher.tables:
                    watcher.notify(db, table, key)

    def _fail(self, db: str, message: str) -> None:
        log.error("gnmi.keyspace.failed db=%s error=%s", db, message)
        with self._lock:
            sub = self._subs.pop(db, None)
            watchers = self._watchers.pop(db, [])
        if sub is not None:
            sub.close()
        for watcher in watchers:
            watcher.broken(f"{db} change notifications stopped: {message}")


__all__ = ["ChangeFeed", "Watcher"]
