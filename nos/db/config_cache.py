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

A transaction's own write need not be read back. ``ConfigDBConnector.apply`` with an expected
generation has its script PUBLISH a marker on the cache's channel after the changes, and tells the
cache (``applied``) the rows it wrote. If the copy was known to be at that generation, it takes the
rows at once; in the subscription that apply's events are the generation key's ``incrby``, then its
rows, then the marker, with nothing in between (a script runs alone), so they are recognised as its
own and not re-read. When the marker is read and no other event came before it since the copy was
known, the copy is known at the next generation (a marker not read by the next barrier's token, which
was published after it, means events went astray: the next snapshot reads everything again).

``recent`` hands out such a copy with no round trip at all (it only drains what has already
arrived), for a transaction whose apply checks that generation: that check catches every apply of
another writer in between, whether or not its events have arrived. What it does not catch, stated:
a write that bypasses this layer (no generation bump) whose event has not reached this process when
the transaction begins. Redis queues a write's events while executing it and sends them in the same
event-loop turn as the writer's reply, so that is a write racing the transaction, which the
generation check never caught either.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nos.db.config_rows import Config, raw_to_typed
from nos.db.connector import DBConnector
from nos.db.errors import DbError, DbProtocolError, is_wrong_type, map_redis_errors
from nos.db.subscription import Message, Subscription
from nos.schema.tables import CONFIG_DB_GENERATION_KEY

BARRIER_TIMEOUT_S = 2.0
GENERATION_EVENT = "incrby"  # what INCR of the generation key notifies

Written = tuple[str, dict[str, str] | None]  # a row an apply wrote: (Redis key, raw fields or None: deleted)


@dataclass
class _OwnApply:
    """An apply of this process whose marker has not been read yet."""

    token: str
    generation: int       # the generation it made
    started: bool = False  # its generation event has been read: what follows, up to the marker, is its own


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
        self._dirty: set[str] = set()  # keys named by events read but not yet re-read (for the next snapshot)
        self._known: int | None = None  # the generation the copy is known at, as far as the events read tell
        self._own: _OwnApply | None = None
        self._lost = False  # an apply's marker never came: what was taken for its events is unsure
        self._lock = threading.Lock()

    def snapshot(self, full_read: Callable[[], tuple[Config, int]]) -> tuple[Config, int]:
        """(configuration, generation), consistent with each other; ``full_read`` reads CONFIG_DB whole
        and the generation it is at."""
        with self._lock:
            try:
                return self._snapshot(full_read)
            except DbError:
                self._reset()
                raise

    def recent(self) -> tuple[Config, int] | None:
        """The copy and its generation with no round trip, when the copy is known at a generation and no
        event other than this process's own applies has arrived since; None otherwise (take a
        ``snapshot``). Only for a transaction whose apply checks that generation (see the docstring)."""
        with self._lock:
            if not self._read_arrived() or self._config is None:
                return None
            if self._own is None and self._known is not None:
                return self._config, self._known
            return None

    def catch_up(self) -> None:
        """Read the events that have already arrived (no waiting), so that the next ``recent`` or
        ``snapshot`` has none left to read: what a server does once it has answered a write."""
        with self._lock:
            self._read_arrived()

    def _read_arrived(self) -> bool:
        """Consume what has arrived; False without a copy, or if the subscription failed (then reset)."""
        if self._sub is None or self._config is None:
            return False
        try:
            self._consume(self._sub.drain())
        except DbError:
            self._reset()  # events may be lost: the snapshot the caller takes instead reads everything
            return False
        return True

    def marker(self) -> tuple[str, str] | None:
        """(channel, token) for an apply to publish after its script (None before the first snapshot)."""
        with self._lock:
            if self._sub is None or self._config is None:
                return None
            return self._channel, f"apply:{next(self._tokens)}"

    def applied(self, written: Sequence[Written], generation: int, token: str, result: Config | None = None) -> None:
        """An apply planned on ``generation`` succeeded (so CONFIG_DB is now at ``generation + 1``),
        wrote ``written`` and published ``token`` in the same script. Taken into the copy when
        the copy is known at ``generation``; else its events are read as anyone else's.

        ``result``, when the caller has it, is the whole configuration at ``generation + 1``: the copy
        at ``generation`` with exactly the written rows changed, the tables it changed its own (a
        transaction's target). It becomes the copy, each written row as CONFIG_DB reads it back,
        without copying the changed tables again (a 128-row table per one-field write)."""
        with self._lock:
            if self._config is None or self._own is not None or self._known != generation:
                return
            if result is None:
                self._apply_rows([name for name, _ in written], [raw or {} for _, raw in written])
            else:
                self._config = self._adopt(result, written)
            self._own = _OwnApply(token, generation + 1)

    def _adopt(self, result: Config, written: Sequence[Written]) -> Config:
        for name, raw in written:
            table, _, key = name.partition(self.sep)
            rows = result.get(table)
            if raw is not None and rows is not None and key in rows:
                read_back = raw_to_typed(raw)
                if read_back != rows[key]:  # a value CONFIG_DB cannot hold as given (a list item with a comma)
                    rows[key] = read_back
        return result

    def _reset(self) -> None:
        """Events may have been lost with the connection: start over with a full read next time."""
        self._config = None
        self._dirty = set()
        self._known = None
        self._own = None
        self._lost = False
        self._unsubscribe()

    def _snapshot(self, full_read: Callable[[], tuple[Config, int]]) -> tuple[Config, int]:
        if self._sub is None:
            self._sub = Subscription(self.db)
            self._sub.subscribe(channels=[self._channel], patterns=[self._prefix + "*"])
            self._config = None
        sub = self._sub
        while True:
            if self._config is None:
                self._dirty, self._own, self._lost = set(), None, False
                before, token = self._read_and_publish([])
                self._await_barrier(sub, token, before, None)  # what it names is read below anyway
                config, at = full_read()
                if at == before:  # no apply in between: consistent
                    self._config = config
                    return config, before
                continue
            # Rows named by events that have already arrived are read in the same round trip as the
            # generation and the token; events that come in before the token mean another round.
            self._consume(sub.drain())
            pending, self._dirty = self._dirty, set()
            before, token = self._read_and_publish(sorted(k for k in pending if self.sep in k))
            named: set[str] = set()
            if not self._await_barrier(sub, token, before, named) or self._lost:
                self._config = None  # the barrier never came back, or an apply's marker: read everything again
            elif not named:
                return self._config, before
            else:
                self._dirty |= named

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

    def _await_barrier(self, sub: Subscription, token: str, generation: int, named: set[str] | None) -> bool:
        """Read the subscription up to ``token``: keys written before it go into ``named`` (None: not
        wanted), those after it are kept for the next snapshot. False if it was not seen in time."""
        seen = False
        deadline = time.monotonic() + BARRIER_TIMEOUT_S
        while not seen and (left := deadline - time.monotonic()) > 0:
            seen = self._consume(sub.wait(left), (token, generation, named))
        return seen

    def _consume(self, messages: list[Message], barrier: tuple[str, int, set[str] | None] | None = None) -> bool:
        """Read events in order. Before the barrier's token a key goes into its ``named`` set; after it
        (or with no barrier) into ``_dirty``. At the token the copy is known at the barrier's
        generation if nothing was named before it. Returns whether the token was read."""
        seen = barrier is None
        for message in messages:
            if message.channel == self._channel:
                if barrier is not None and not seen and message.data == barrier[0]:
                    seen = True
                    self._known = barrier[1] if not barrier[2] else None
                    if self._own is not None:  # its marker was published before this token: lost
                        self._own, self._lost, self._known = None, True, None
                elif self._own is not None and message.data == self._own.token:
                    self._close_own()
                continue
            if not message.channel.startswith(self._prefix):
                continue
            name = message.channel[len(self._prefix):]
            if self._owned(name, message.data):
                continue
            self._known = None
            if seen:
                self._dirty.add(name)
            elif barrier is not None and barrier[2] is not None:
                barrier[2].add(name)
        return seen

    def _owned(self, name: str, event: str) -> bool:
        """Whether an event is one of our pending apply's (they come between its generation event and
        its marker, nothing else in between; the first generation event after the copy was known at
        its generation is its own, or the apply would have been refused)."""
        own = self._own
        if own is None:
            return False
        if not own.started and name == CONFIG_DB_GENERATION_KEY and event == GENERATION_EVENT:
            own.started = True
            return True
        return own.started

    def _close_own(self) -> None:
        assert self._own is not None
        own, self._own = self._own, None
        self._known = own.generation if own.started and self._known == own.generation - 1 else None

    def _apply_rows(self, names: list[str], rows: Sequence[object]) -> None:
        assert self._config is not None
        config = dict(self._config)
        copied: set[str] = set()
        bad_keys = self.db.bad_keys
        wrong: list[tuple[str, str]] = []
        for name, raw in zip(names, rows, strict=True):
            table, _, key = name.partition(self.sep)
            if table not in copied:
                config[table] = dict(config.get(table, {}))
                copied.add(table)
            if isinstance(raw, dict) and raw:
                config[table][key] = raw_to_typed(raw)
            elif isinstance(raw, Exception) and not is_wrong_type(raw):
                raise DbProtocolError(f"refresh {name}: {raw}")
            else:
                config[table].pop(key, None)  # deleted, or not a hash: not a row
                if isinstance(raw, Exception):
                    wrong.append((table, key))
                    continue
            if bad_keys.reported:
                bad_keys.good(self.db.name, table, key)
        self._config = {table: rows for table, rows in config.items() if rows}
        for table, key in wrong:  # reported (a round trip each: bad data only)
            self.db.report_wrong_types(table, [key])

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


__all__ = ["ConfigCache", "Written"]
