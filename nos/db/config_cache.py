"""ConfigCache: a server's in-memory copy of CONFIG_DB, kept current by keyspace notifications.

Reading all of CONFIG_DB (1,800 rows on the 128-port SKU) costs ~20 ms; an API that validates every
write against the running configuration cannot pay that per request. The cache reads CONFIG_DB
once, then re-reads only the rows that keyspace events name. Before each snapshot it publishes a
token on a channel of its own and reads its subscription up to that token: Redis delivers messages
on one connection in order, so every event of a write that completed before the snapshot began has
been seen (a barrier). Writes that bypass this layer (redis-cli HSET) are seen the same way.

Snapshots are immutable: a refresh builds new table dicts for the tables that changed, so a
snapshot handed to one thread is never modified under it. Callers must not modify it either.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable

from nos.db.config_rows import Config, raw_to_typed
from nos.db.connector import DBConnector
from nos.db.errors import DbError, DbProtocolError, map_redis_errors
from nos.db.subscription import Subscription
from nos.schema.tables import CONFIG_DB_GENERATION_KEY

BARRIER_TIMEOUT_S = 2.0


class ConfigCache:
    _ids = itertools.count()

    def __init__(self, db: DBConnector) -> None:
        self.db = db
        self.sep = db.separator
        self._channel = f"NOS_CONFIG_CACHE_BARRIER:{os.getpid()}:{next(self._ids)}"
        self._prefix = f"__keyspace@{db.id}__:"
        self._sub: Subscription | None = None  # subscribed at the first snapshot (Redis may not be up yet)
        self._tokens = itertools.count()
        self._config: Config | None = None
        self._lock = threading.Lock()

    def snapshot(self, full_read: Callable[[], Config]) -> tuple[Config, int]:
        """(configuration, generation), consistent with each other; ``full_read`` reads CONFIG_DB whole."""
        with self._lock:
            try:
                return self._snapshot(full_read)
            except DbError:
                # events may have been lost with the connection: start over with a full read next time
                self._config = None
                self._unsubscribe()
                raise

    def _snapshot(self, full_read: Callable[[], Config]) -> tuple[Config, int]:
        if self._sub is None:
            self._sub = Subscription(self.db)
            self._sub.subscribe(channels=[self._channel], patterns=[self._prefix + "*"])
            self._config = None
        while True:
            before = self._generation()
            dirty = self._barrier(self._sub)
            if self._config is None or dirty is None:
                self._config = full_read()
            elif dirty:
                self._refresh(dirty)
            if self._generation() == before:
                return self._config, before

    def _generation(self) -> int:
        with map_redis_errors(f"get {CONFIG_DB_GENERATION_KEY}"):
            return int(self.db.client.get(CONFIG_DB_GENERATION_KEY) or 0)

    def _barrier(self, sub: Subscription) -> set[str] | None:
        """Row keys (``TABLE|key``) written since the last barrier; None if the barrier was not seen."""
        token = str(next(self._tokens))
        with map_redis_errors("publish cache barrier"):
            self.db.client.publish(self._channel, token)
        dirty: set[str] = set()
        deadline = time.monotonic() + BARRIER_TIMEOUT_S
        while (left := deadline - time.monotonic()) > 0:
            for message in sub.wait(left):
                if message.channel == self._channel:
                    if message.data == token:
                        return dirty
                elif message.channel.startswith(self._prefix):
                    key = message.channel[len(self._prefix):]
                    if self.sep in key:
                        dirty.add(key)
        return None

    def _refresh(self, dirty: set[str]) -> None:
        names = sorted(dirty)
        with map_redis_errors("refresh CONFIG_DB cache"):
            pipe = self.db.client.pipeline(transaction=False)
            for name in names:
                pipe.hgetall(name)
            rows = pipe.execute(raise_on_error=False)
        assert self._config is not None
        config = dict(self._config)
        copied: set[str] = set()
        for name, raw in zip(names, rows, strict=True):
            table, _, key = name.partition(self.sep)
            if table not in copied:
                config[table] = dict(config.get(table, {}))
                copied.add(table)
            if isinstance(raw, dict) and raw:
                config[table][key] = raw_to_typed(raw)
            elif isinstance(raw, Exception) and "WRONGTYPE" not in str(raw):
                raise DbProtocolError(f"refresh {name}: {raw}")
            else:
                config[table].pop(key, None)  # deleted, or not a hash: not a row
        self._config = {table: rows for table, rows in config.items() if rows}

    def _unsubscribe(self) -> None:
        if self._sub is not None:
            sub, self._sub = self._sub, None
            try:
                sub.close()
            except DbError:
                pass

    def close(self) -> None:
        with self._lock:
            self._unsubscribe()


__all__ = ["ConfigCache"]
