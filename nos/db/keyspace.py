"""KeyspaceHub: one keyspace-notification connection per logical DB, shared by every
SubscriberStateTable of a process.

As swss-common, each table gets its own pattern ``__keyspace@<db>__:<TABLE><sep>*`` (added on the
hub's one connection when the table's first reader registers), so a process receives the events of the
tables it reads and nothing else. A DB-wide pattern would be fewer patterns for Redis to match, but it
makes a process that reads one small APPL_DB table (orchagent's PFC_WD_TABLE) receive every event of
every ROUTE_TABLE write: that cost orchagent a third of its time in the route benchmark.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from nos.db.subscription import Subscription

if TYPE_CHECKING:
    from nos.db.connector import DBConnector

Listener = Callable[[str, str], None]  # (key within the table, event name)


class KeyspaceHub:
    def __init__(self, db: DBConnector) -> None:
        self.prefix = f"__keyspace@{db.id}__:"
        self.separator = db.separator
        self._listeners: dict[str, list[Listener]] = defaultdict(list)
        self._sub = Subscription(db)

    def register(self, table: str, listener: Listener) -> None:
        """From now on ``listener`` gets ``table``'s events (subscribed, and confirmed, before this returns)."""
        if table not in self._listeners:
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
            table, sep, key = msg.channel[cut:].partition(self.separator)
            if sep:
                for listener in self._listeners.get(table, ()):
                    listener(key, msg.data)

    def close(self) -> None:
        self._sub.close()
