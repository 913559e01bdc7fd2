"""SubscriberStateTable: follow a CONFIG_DB/STATE_DB table through keyspace notifications.

As swss-common: keyspace events of ``<TABLE><sep>*`` (through the DB's shared KeyspaceHub: one
pattern per DB and process instead of one per table), then every existing row queued as a SET
(the initial dump, taken after the subscription is confirmed). A ``del`` event gives DEL; any other
event re-reads the whole row and gives SET with the complete current contents ("level triggered");
a row already gone again is skipped.
Events for one key that arrive before a pop are coalesced by the orchagent rule: DEL supersedes,
and a SET after a DEL is kept after it.

A key that is not a row (not a hash, or not UTF-8 text) gives no task: it is reported
(``nos.db.baddata``), and the reader goes on; what the consumer had of the row stays as it was. The
report is cleared when the key is next read as a row or deleted.
"""

from __future__ import annotations

from nos.db.baddata import BadKey, not_text_reason, unreadable
from nos.db.connector import DBConnector
from nos.db.errors import map_redis_errors
from nos.db.keyops import KeyOpFieldsValues
from nos.db.table import Table

DEFAULT_POP_BATCH_SIZE = 128
# Events that mean the row is gone. swss-common treats only "del" so; expiry/eviction of a row is a
# deletion for every reader, so they are treated the same here.
_GONE_EVENTS = frozenset({"del", "expired", "evicted"})


class SubscriberStateTable:
    """Full-row change feed of one table; a selectable for ``Select``."""

    def __init__(self, db: DBConnector, table_name: str, pop_batch_size: int = DEFAULT_POP_BATCH_SIZE) -> None:
        self.db = db
        self.name = table_name
        self.pop_batch_size = pop_batch_size
        self.table = Table(db, table_name)
        # key -> [delete pending, set pending]; dict keeps arrival order
        self._pending: dict[str, list[bool]] = {}
        self._hub = db.keyspace_hub()
        self._hub.register(table_name, self._on_event)
        for key in self.table.keys():  # initial dump, after the subscription is confirmed
            self._pending[key] = [False, True]

    # -- Selectable ----------------------------------------------------------------------------
    def fileno(self) -> int:
        return self._hub.fileno()

    def read_messages(self) -> None:
        self._hub.drain()

    def _on_event(self, key: str, event: str) -> None:
        if event in _GONE_EVENTS:
            self._pending[key] = [True, False]
        else:
            self._pending.setdefault(key, [False, False])[1] = True

    def has_work(self) -> bool:
        return bool(self._pending)

    # -- popping -------------------------------------------------------------------------------
    def pops(self) -> list[KeyOpFieldsValues]:
        """Up to ``pop_batch_size`` keys' changes, rows read at pop time in one pipeline."""
        batch = list(self._pending.items())[: self.pop_batch_size]
        for key, _ in batch:
            del self._pending[key]
        to_read = [key for key, (_, is_set) in batch if is_set]
        with map_redis_errors(f"subscriber {self.name} pops"):
            read = self._hub.read_rows(self.db, [self.table.key_name(key) for key in to_read]) if to_read else []
            rows = dict(zip(to_read, read, strict=True))
        out = []
        wrong: list[str] = []
        for key, (is_del, is_set) in batch:
            if is_del:
                out.append(KeyOpFieldsValues.delete(key))
            row = rows.get(key) if is_set else None
            if isinstance(row, str):  # WRONG_TYPE
                wrong.append(key)
                continue
            if row:
                out.append(KeyOpFieldsValues.set(key, row))
            elif is_set and unreadable(key, row):
                self.db.bad_keys.report(BadKey(self.db.name, self.name, key,
                                               not_text_reason(self.db.name, self.table.key_name(key))))
                continue
            if self.db.bad_keys.reported:
                self.db.bad_keys.good(self.db.name, self.name, key)  # a row, or gone: no longer bad
        if wrong:
            with map_redis_errors(f"subscriber {self.name} pops"):
                self.db.report_wrong_types(self.name, wrong)
        return out

    def close(self) -> None:
        self._hub.unregister(self.name, self._on_event)


class TableKeys:
    """The row keys of one table, read once and then kept from the keyspace events of the process's
    hub: consulting it costs no round trip (the port manager asks which ports are LAG members on every
    port change; a KEYS walks the whole database). As current as the events drained so far. A key of
    the table that is not a hash is not a row, so not a key here: at start the types are read once,
    and afterwards the event says it (a hash command's event starts with ``h``; ``set``, ``lpush``,
    ``sadd``... make a key of another type)."""

    def __init__(self, db: DBConnector, table_name: str) -> None:
        self.name = table_name
        self._hub = db.keyspace_hub()
        self._hub.register(table_name, self._on_event)  # subscribed first, then read: nothing missed
        table = Table(db, table_name)
        keys = table.keys()
        with map_redis_errors(f"types of {table_name}"):
            pipe = db.client.pipeline(transaction=False)
            for key in keys:
                pipe.type(table.key_name(key))
            types = pipe.execute()
        self.keys: set[str] = {key for key, kind in zip(keys, types, strict=True) if kind == "hash"}

    def _on_event(self, key: str, event: str) -> None:
        if event in _GONE_EVENTS or event in _LEFT_EVENTS:
            self.keys.discard(key)
        elif event.startswith("h") or event in _ARRIVED_EVENTS:
            self.keys.add(key)
        elif event not in _TIMER_EVENTS:  # a command of another type wrote the key: not a row
            self.keys.discard(key)

    def close(self) -> None:
        self._hub.unregister(self.name, self._on_event)


_LEFT_EVENTS = frozenset({"rename_from", "move_from"})  # the key left under another name or DB
_ARRIVED_EVENTS = frozenset({"rename_to", "restore", "copy_to", "move_to"})  # of any type: taken as a row
_TIMER_EVENTS = frozenset({"expire", "persist"})  # the key's type is what it was
