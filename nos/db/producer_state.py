"""ProducerStateTable: the writer side of SONiC's APPL_DB transport (swss-common semantics).

For table ``T`` in DB ``n``: pending keys in the set ``T_KEY_SET``, pending deletes in ``T_DEL_SET``,
pending fields in the state hash ``_T<sep><key>``, and a ``G`` published on ``T_CHANNEL@n`` when a
key newly enters the key set. Each operation is one Lua script, so it is atomic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from nos.db.connector import DBConnector
from nos.db.errors import map_redis_errors
from nos.db.lua import lua

UPDATE_PAYLOAD = "G"  # SWSS_TABLE_UPDATE_NOTIFICATION
FLUSH_EVERY = 128      # commands per pipeline flush when buffered (swss-common RedisPipeline default)
MAX_KEYS_PER_SCRIPT = 512  # keys per Lua call: keeps unpack() within Lua's C stack


def key_set_name(table: str) -> str:
    return f"{table}_KEY_SET"


def del_set_name(table: str) -> str:
    return f"{table}_DEL_SET"


def channel_name(table: str, db_id: int) -> str:
    return f"{table}_CHANNEL@{db_id}"


def state_hash_prefix(table: str, separator: str) -> str:
    return f"_{table}{separator}"


class ProducerStateTable:
    """Writes changes for a ConsumerStateTable to pop. ``buffered`` defers them to ``flush()``."""

    def __init__(self, db: DBConnector, table_name: str, *, buffered: bool = False) -> None:
        self.db = db
        self.name = table_name
        self.buffered = buffered
        self.key_set = key_set_name(table_name)
        self.del_set = del_set_name(table_name)
        self.channel = channel_name(table_name, db.id)
        self.state_prefix = state_hash_prefix(table_name, db.separator)
        self._set = db.script("producer_state_set", lua("producer_state_set"))
        self._del = db.script("producer_state_del", lua("producer_state_del"))
        self._clear = db.script("producer_state_clear", lua("producer_state_clear"))
        self._pipe: Any = None
        self._queued = 0
        # keys this producer set since it was made, while its DB tracks writes (``DBConnector.producers``)
        self.written: set[str] | None = set() if db.tracking else None
        if db.tracking:
            db.producers.append(self)

    # -- writes --------------------------------------------------------------------------------
    def set(self, key: str, fields: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        """Queue a SET of ``fields`` for ``key`` (merged with fields already pending)."""
        self.set_many([(key, fields)])

    def set_many(self, entries: Sequence[tuple[str, Mapping[str, str] | Iterable[tuple[str, str]]]]) -> None:
        """Several SETs, in scripts of at most ``MAX_KEYS_PER_SCRIPT`` keys (swss-common's batched set)."""
        if self.written is not None:
            self.written.update(key for key, _ in entries)
        for start in range(0, len(entries), MAX_KEYS_PER_SCRIPT):
            chunk = entries[start:start + MAX_KEYS_PER_SCRIPT]
            args: list[str] = [UPDATE_PAYLOAD, str(len(chunk))]
            extend = args.extend
            for key, fields in chunk:
                pairs = fields.items() if isinstance(fields, Mapping) else list(fields)
                if not pairs:
                    raise ValueError(f"{self.name}:{key}: a SET needs at least one field (empty = DEL)")
                extend((key, str(len(pairs))))
                for field, value in pairs:
                    extend((field, value))
            self._run(self._set, [self.channel, self.key_set, self.state_prefix], args)

    def delete(self, key: str) -> None:
        """Queue a DEL of ``key`` (drops fields pending for it)."""
        self.delete_many([key])

    def delete_many(self, keys: Iterable[str]) -> None:
        all_keys = list(keys)
        if self.written is not None:
            self.written.difference_update(all_keys)
        for start in range(0, len(all_keys), MAX_KEYS_PER_SCRIPT):
            args = [UPDATE_PAYLOAD, *all_keys[start:start + MAX_KEYS_PER_SCRIPT]]
            self._run(self._del, [self.channel, self.key_set, self.del_set, self.state_prefix], args)

    def _run(self, script: Any, keys: list[str], args: list[str]) -> None:
        with map_redis_errors(f"producer {self.name}"):
            if not self.buffered:
                script(keys=keys, args=args)
                return
            if self._pipe is None:
                self._pipe = self.db.client.pipeline(transaction=False)
            script(keys=keys, args=args, client=self._pipe)
            self._queued += 1
            if self._queued >= FLUSH_EVERY:
                self.flush()

    def flush(self) -> None:
        """Send everything buffered."""
        if self._pipe is not None and self._queued:
            with map_redis_errors(f"producer {self.name} flush"):
                self._pipe.execute()
        self._queued = 0

    # -- housekeeping --------------------------------------------------------------------------
    def count(self) -> int:
        """Keys with pending changes (``SCARD T_KEY_SET``)."""
        with map_redis_errors(f"producer {self.name} count"):
            return int(self.db.client.scard(self.key_set))

    def clear(self) -> None:
        """Abandon all pending changes (consumers may have been notified and will pop nothing)."""
        with map_redis_errors(f"producer {self.name} clear"):
            self._clear(keys=[self.key_set, self.del_set], args=[self.state_prefix])
