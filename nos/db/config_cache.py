"""ConfigCache: a server's in-memory copy of CONFIG_DB, kept current by keyspace notifications.

Reading all of CONFIG_DB (1,800 rows on the 128-port SKU) costs ~20 ms; an API that validates every
write against the running configuration cannot pay that per request. The cache reads CONFIG_DB
once, then re-reads only the rows that keyspace events name. Before each snapshot it publishes a
token on a channel of its own and reads its subscription up to that token: Redis delivers messages
on one connection in order, so every event of a write that completed before the snapshot began has
been seen (a barrier). Writes that bypass this layer (redis-cli HSET) are seen the same way.

Round trips: the events already received name the rows to re-read; those rows, the generation and
the token go in one pipeline (in this order). If no further event arrives before the token, the
copy and that generation agree: every write that completed before the token had its event read
before the pipeline ran, so its rows were read after it (and an apply in between would have sent
an event). Otherwise the new events' rows are read in another round. So a snapshot costs one round
trip plus the token's delivery while the configuration is quiet.
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
        self._after_token: set[str] = set()  # events read past a barrier's token (they count for the next)
        self._lock = threading.Lock()

    def snapshot(self, full_read: Callable[[], Config]) -> tuple[Config, int]:
        """(configuration, generation), consistent with each other; ``full_read`` reads CONFIG_DB whole."""
        with self._lock:
            try:
                return self._snapshot(full_read)
            except DbError:
                # events may have been lost with the connection: start over with a full read next time
                self._config = None
                self._after_token = set()
                self._unsubscribe()
                raise

    def _snapshot(self, full_read: Callable[[], Config]) -> tuple[Config, int]:
        if self._sub is None:
            self._sub = Subscription(self.db)
            self._sub.subscribe(channels=[self._channel], patterns=[self._prefix + "*"])
            self._config = None
        sub = self._sub
        while True:
            if self._config is None:
                before, token = self._read_and_publish([])
                self._await_barrier(sub, token)  # what it names is read below anyway
                config = full_read()
                if self._generation() == before:  # no apply in between: consistent
                    self._config = config
                    return config, before
                continue
            # Rows named by events that have already arrived are read in the same round trip as the
            # generation and the token; events that come in before the token mean another round.
            pending = self._after_token | {m.channel[len(self._prefix):] for m in sub.drain()
                                           if m.channel.startswith(self._prefix)}
            self._after_token = set()
            before, token = self._read_and_publish(sorted(k for k in pending if self.sep in k))
            dirty = self._await_barrier(sub, token)
            if dirty is None:
                self._config = None  # the barrier never came back: read everything again
            elif not dirty:
                return self._config, before
            else:
                self._after_token |= dirty

    def _generation(self) -> int:
        with map_redis_errors(f"get {CONFIG_DB_GENERATION_KEY}"):
            return int(self.db.client.get(CONFIG_DB_GENERATION_KEY) or 0)

    def _read_and_publish(self, names: list[str]) -> tuple[int, str]:
        """Re-read the ``names`` rows into the copy, then read the generation and publish a barrier
        token, in one round trip (in this order); returns (generation, token)."""
        token = str(next(self._tokens))
        with map_redis_errors("refresh CONFIG_DB cache"):
            pipe = self.db.client.pipeline(transaction=False)
            for name in names:
                pipe.hgetall(name)
            pipe.get(CONFIG_DB_GENERATION_KEY)
            pipe.publish(self._channel, token)
            *rows, generation, _ = pipe.execute(raise_on_error=False)
        if isinstance(generation, Exception):
            raise DbProtocolError(f"get {CONFIG_DB_GENERATION_KEY}: {generation}")
        if names:
            self._apply_rows(names, rows)
        return int(generation or 0), token

    def _await_barrier(self, sub: Subscription, token: str) -> set[str] | None:
        """Keys written between the last drain and the token (``TABLE|key`` rows, and the generation
        key itself); None if the barrier was not seen in time. Events read past the token are kept
        for the next snapshot."""
        dirty: set[str] = set()
        seen = False
        deadline = time.monotonic() + BARRIER_TIMEOUT_S
        while not seen and (left := deadline - time.monotonic()) > 0:
            for message in sub.wait(left):
                if message.channel == self._channel:
                    seen = seen or message.data == token
                elif message.channel.startswith(self._prefix):
                    (self._after_token if seen else dirty).add(message.channel[len(self._prefix):])
        return dirty if seen else None

    def _apply_rows(self, names: list[str], rows: list[object]) -> None:
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
