"""KeyspaceHub: one keyspace-notification connection per logical DB, shared by every
SubscriberStateTable of a process.

As swss-common, each table gets its own pattern ``__keyspace@<db>__:<TABLE><sep>*`` (added on the
hub's one connection when the table's first reader registers), so a process receives the events of the
tables it reads and nothing else. A DB-wide pattern would be fewer patterns for Redis to match, but it
makes a process that reads one small APPL_DB table (orchagent's PFC_WD_TABLE) receive every event of
every ROUTE_TABLE write: that cost orchagent a third of its time in the route benchmark.

The databases that only change when someone configures the switch (``WHOLE_DB``: CONFIG_DB,
FLEX_COUNTER_DB) are the exception: there a process holds one pattern for the whole DB and drops the
events of tables it does not read. Redis matches every notification of every database against every
pattern of every client (and ``AKE`` makes two notifications of each write), so with one pattern per
table the 40-odd patterns of orchagent and cfgmgrd cost each APPL_DB, ASIC_DB and COUNTERS_DB write
about 2.6 us of Redis' one thread (measured on redis 6.2: HSET 1.7 -> 4.3 us); Redis was the route
benchmark's bottleneck.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from nos.db.errors import DbProtocolError, is_wrong_type
from nos.db.subscription import Subscription

if TYPE_CHECKING:
    from nos.db.connector import DBConnector

Listener = Callable[[str, str], None]  # (key within the table, event name)
WRONG_TYPE = "WRONGTYPE"  # what ``read_rows`` gives for a key that is not a hash

WHOLE_DB = frozenset({"CONFIG_DB", "FLEX_COUNTER_DB"})  # low-churn: one pattern for the DB


class KeyspaceHub:
    """The shared subscription, and the rows its readers read (see ``read_rows``)."""

    def __init__(self, db: DBConnector) -> None:
        self.prefix = f"__keyspace@{db.id}__:"
        self.separator = db.separator
        self.whole_db = db.name in WHOLE_DB
        self._listeners: dict[str, list[Listener]] = defaultdict(list)
        self._sub = Subscription(db)
        self._read: dict[str, dict[str, str] | str] = {}  # row name -> its fields, read after its last event
        self._db = db
        self._applied_channel: str | None = None
        self.generation = 0  # the last apply whose events have all been handed to the listeners

    def track_generation(self, channel: str, key: str) -> None:
        """Follow the generation CONFIG_DB applies publish on ``channel`` after their changes (the counter
        ``key`` at the start: what a reader's first read of the tables includes)."""
        if self._applied_channel is None:
            self._sub.subscribe(channels=[channel])
            self._applied_channel = channel
            self.generation = int(self._db.client.get(key) or 0)

    def register(self, table: str, listener: Listener) -> None:
        """From now on ``listener`` gets ``table``'s events (subscribed, and confirmed, before this returns)."""
        if not self._listeners and self.whole_db:
            self._sub.subscribe(patterns=[f"{self.prefix}*"])
        elif table not in self._listeners and not self.whole_db:
            self._sub.subscribe(patterns=[f"{self.prefix}{table}{self.separator}*"])
        self._listeners[table].append(listener)

    def unregister(self, table: str, listener: Listener) -> None:
        if listener in self._listeners.get(table, []):
            self._listeners[table].remove(listener)

    def fileno(self) -> int:
        return self._sub.fileno()

    def drain(self) -> None:
        """Hand every event received so far to the listeners of its table."""
        cut = len(self.prefix)
        for msg in self._sub.drain():
            if msg.pattern is None and msg.channel == self._applied_channel:
                self.generation = max(self.generation, int(msg.data)) if msg.data.isdigit() else self.generation
                continue
            name = msg.channel[cut:]
            table, sep, key = name.partition(self.separator)
            if sep:
                listeners = self._listeners.get(table, ())
                if len(listeners) > 1:
                    self._read.pop(name, None)  # read before this event: stale
                for listener in listeners:
                    listener(key, msg.data)

    def read_rows(self, db: DBConnector, names: list[str]) -> list[dict[str, str] | str]:
        """The rows ``names`` (whole Redis keys), read in one pipeline, except those another reader of
        the same table in this process read after their last event: a change to a table that several
        managers follow (PORT: the port, buffer and RoCE managers) is read once, not once per manager.
        Such a row is as current as the event that made it pending, which is what a level-triggered
        reader needs; a later event makes it pending (and read) again. A key that is not a hash gives
        ``WRONG_TYPE`` in its place: one such key fails nothing else of the pipeline."""
        out: list[dict[str, str] | str | None] = []
        missing: list[int] = []
        for name in names:
            kept = self._read.get(name)
            if kept is not None:
                out.append(kept)
            else:
                out.append(None)
                missing.append(len(out) - 1)
        if missing:
            pipe = db.client.pipeline(transaction=False)
            for at in missing:
                pipe.hgetall(names[at])
            for at, reply in zip(missing, pipe.execute(raise_on_error=False), strict=True):
                row = _row(names[at], reply)
                out[at] = row
                table = names[at].partition(self.separator)[0]
                if len(self._listeners.get(table, ())) > 1:  # only where another reader may want it
                    self._read[names[at]] = row
        return cast(list[dict[str, str] | str], out)

    def close(self) -> None:
        self._sub.close()


def _row(name: str, reply: object) -> dict[str, str] | str:
    if isinstance(reply, dict):
        return reply
    if is_wrong_type(reply):
        return WRONG_TYPE
    raise DbProtocolError(f"hgetall {name}: {reply}")
