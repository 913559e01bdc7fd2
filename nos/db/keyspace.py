"""KeyspaceHub: one keyspace-notification subscription per logical DB, shared by every
SubscriberStateTable of a process.

swss-common gives each SubscriberStateTable its own ``PSUBSCRIBE __keyspace@<db>__:<TABLE><sep>*``.
Redis matches every published event against every pattern of every client, so with dozens of
tables each write costs dozens of pattern matches. Here a process holds one pattern per DB,
``__keyspace@<db>__:*``, and dispatches events to the tables in Python. The wire contract (keyspace
events, full-row reads) is unchanged; only the number of patterns in Redis shrinks.
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
        self._sub.subscribe(patterns=[self.prefix + "*"])

    def register(self, table: str, listener: Listener) -> None:
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
