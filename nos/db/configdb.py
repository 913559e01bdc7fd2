"""ConfigDBConnector: SONiC's Python view of CONFIG_DB (swss-common ``configdb.py`` semantics).

* A row with no fields is stored as the placeholder ``NULL``=``NULL``; readers drop it.
* A field whose name ends in ``@`` holds a comma-joined list and reads back as a Python list.
* ``set_entry`` replaces a row (fields it lacks are deleted), ``mod_entry`` merges, ``None`` deletes.
* ``mod_config`` merges a whole configuration: a table given as None is deleted, ``{}`` is a no-op.

Deviations, stated: keys are ``|``-joined strings everywhere (tuples are accepted on input), where
SONiC's Python API returns tuples for multi-part keys; that is the config_db.json form. Table names
are used exactly as given (``nos.schema.tables.table_name_problem``: case-exact, no ``|``), where
swss-common upper-cases the name a call is given but not the names ``get_config`` reads back; that
split made a write to ``port`` land on ``PORT``. ``apply`` refuses a change whose table name breaks
the rule (``ValueError``) before anything is written.
Multi-row changes go through one Lua script (``apply``), so readers never see half of them.
Every apply bumps ``NOS_CONFIG_GENERATION`` (a plain key, not a table); a transaction planned on a
generation is applied only if no other apply came in between (``ConfigConflict`` otherwise). Writes
that bypass this layer (redis-cli HSET) do not bump it.

A key of CONFIG_DB that is not a row (not a hash: ``redis-cli set 'PORT|Ethernet24' x``) is left out of
every read, and reported (``nos.db.baddata``); ``read_config`` also returns such keys, for a caller that
must not lose them unawares (``config save`` refuses to write a configuration without them). A write
of that row replaces the key (``config_apply.lua``).

With a cache (``cached=True``), an apply with an expected generation also has the script publish the
cache's marker after its changes (still one script, one round trip) and hands the cache the rows it
wrote, so the cache need not read them back and the next transaction can plan with no round trip
(``recent_snapshot``; see ``ConfigCache``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, NamedTuple, cast

from nos.db.baddata import BadKey, not_text_reason, unreadable, wrong_type_reason
from nos.db.config_cache import ConfigCache, Written
from nos.db.config_rows import CONFIG_SEPARATOR as CONFIG_SEPARATOR
from nos.db.config_rows import LIST_SUFFIX as LIST_SUFFIX
from nos.db.config_rows import NULL_FIELD as NULL_FIELD
from nos.db.config_rows import Config as Config
from nos.db.config_rows import Row as Row
from nos.db.config_rows import Value as Value
from nos.db.config_rows import raw_to_typed as raw_to_typed
from nos.db.config_rows import typed_to_raw as typed_to_raw
from nos.db.connector import DBConnector
from nos.db.errors import DbError, map_redis_errors
from nos.db.lua import lua
from nos.db.table import Table
from nos.schema.tables import (
    CONFIG_APPLIED_CHANNEL,
    CONFIG_DB_GENERATION_KEY,
    CONFIG_DB_INITIALIZED_KEY,
    table_name_problem,
)

log = logging.getLogger(__name__)

Key = str | tuple[str, ...]
READ_ATTEMPTS = 20  # whole reads of CONFIG_DB before giving up on one without an apply in between


def join_key(key: Key) -> str:
    return CONFIG_SEPARATOR.join(key) if isinstance(key, tuple) else key


Mode = Literal["replace", "merge", "delete"]


class ConfigConflict(DbError):
    """CONFIG_DB changed (another apply) since the generation a transaction was planned on."""


class ConfigRead(NamedTuple):
    """A whole read of CONFIG_DB: its rows, the generation they are at, and the keys that are not rows."""

    config: Config
    generation: int
    unreadable: list[BadKey]


@dataclass(frozen=True, slots=True)
class RowChange:
    """One row change for ``ConfigDBConnector.apply``."""

    table: str
    key: str
    mode: Mode
    row: Row | None = None


class ConfigDBConnector:
    """CONFIG_DB reads and writes with SONiC's semantics."""

    def __init__(self, db: DBConnector, *, cached: bool = False) -> None:
        """``cached``: keep an in-memory copy for ``snapshot`` (long-lived API servers; see ConfigCache)."""
        self.db = db
        self.sep = db.separator
        self._apply = db.script("config_apply", lua("config_apply"))
        self.cache = ConfigCache(db) if cached else None

    def _hash(self, table: str, key: Key) -> str:
        return f"{table}{self.sep}{join_key(key)}"

    # -- reads ---------------------------------------------------------------------------------
    def get_entry(self, table: str, key: Key) -> Row:
        with map_redis_errors(f"get {self._hash(table, key)}"):
            return raw_to_typed(cast(dict[str, str], self.db.client.hgetall(self._hash(table, key))))

    def get_keys(self, table: str) -> list[str]:
        return Table(self.db, table).keys()

    def get_table(self, table: str) -> dict[str, Row]:
        return {key: raw_to_typed(raw) for key, raw in Table(self.db, table).get_all().items()}

    def get_config(self) -> Config:
        """The whole of CONFIG_DB as a config_db.json document, as it was between two applies (keys
        that are not rows left out, and reported)."""
        return self._read_all()[0]

    def read_config(self) -> ConfigRead:
        """``get_config``, with its generation and the keys left out as not rows (each reported)."""
        read = self._read_once()
        for bad in read.unreadable:
            self.db.bad_keys.report(bad)
        return read

    def _read_all(self) -> tuple[Config, int]:
        read = self.read_config()
        return read.config, read.generation

    def _read_once(self) -> ConfigRead:
        """Every row and the generation they are at. The generation is read with the first and the
        last of the three round trips; an apply in between (it bumps the generation) means a read
        again, so no reader sees half of an apply (``ConfigConflict`` after ``READ_ATTEMPTS`` reads that
        each had one in between). A key gone before its HGETALL is not a row."""
        for _ in range(READ_ATTEMPTS):
            with map_redis_errors("dump CONFIG_DB"):
                pipe = self.db.client.pipeline(transaction=False)
                pipe.get(CONFIG_DB_GENERATION_KEY)
                pipe.keys("*")
                before, keys = pipe.execute()
                names = [n for n in cast(list[str], keys) if self.sep in n]
                for name in names:
                    pipe.type(name)
                types = pipe.execute()
                hashes = [n for n, t in zip(names, types, strict=True) if t == "hash"]
                for name in hashes:
                    pipe.hgetall(name)
                pipe.get(CONFIG_DB_GENERATION_KEY)
                *rows, after = pipe.execute()
            if before == after:
                break
        else:
            raise ConfigConflict(f"CONFIG_DB kept changing while it was read: gave up after {READ_ATTEMPTS} reads")
        config: Config = {}
        bad = [self._bad(name, kind) for name, kind in zip(names, types, strict=True) if kind not in ("hash", "none")]
        for name, raw in zip(hashes, rows, strict=True):
            if raw:
                table, _, key = name.partition(self.sep)
                config.setdefault(table, {})[key] = raw_to_typed(raw)
            elif unreadable(name, raw):
                bad.append(self._bad(name, ""))
        return ConfigRead(config, int(before or 0), bad)

    def _bad(self, name: str, kind: str) -> BadKey:
        table, _, key = name.partition(self.sep)
        reason = wrong_type_reason(self.db.name, name, kind) if kind else not_text_reason(self.db.name, name)
        return BadKey(self.db.name, table, key, reason)

    # -- writes --------------------------------------------------------------------------------
    def set_entry(self, table: str, key: Key, data: Row | None) -> None:
        mode: Mode = "delete" if data is None else "replace"
        self.apply([RowChange(table, join_key(key), mode, data)])

    def mod_entry(self, table: str, key: Key, data: Row | None) -> None:
        mode: Mode = "delete" if data is None else "merge"
        self.apply([RowChange(table, join_key(key), mode, data)])

    def delete_table(self, table: str) -> None:
        self.apply([RowChange(table, key, "delete") for key in self.get_keys(table)])

    def mod_config(self, config: Mapping[str, Mapping[str, Row | None] | None]) -> None:
        """Merge a configuration, atomically."""
        changes: list[RowChange] = []
        for table, rows in config.items():
            if rows is None:
                changes += [RowChange(table, key, "delete") for key in self.get_keys(table)]
                continue
            for key, row in rows.items():
                changes.append(RowChange(table, join_key(key), "delete" if row is None else "merge", row))
        self.apply(changes)

    def generation(self) -> int:
        """The apply counter (0 before the first apply)."""
        with map_redis_errors(f"get {CONFIG_DB_GENERATION_KEY}"):
            return int(self.db.client.get(CONFIG_DB_GENERATION_KEY) or 0)

    def snapshot(self) -> tuple[Config, int]:
        """The whole of CONFIG_DB and the generation it is at (re-read if an apply came in between).
        From the cache when there is one: then the result is shared and must not be modified."""
        if self.cache is not None:
            return self.cache.snapshot(self._read_all)
        return self._read_all()

    def warm(self) -> bool:
        """Read CONFIG_DB into the cache now rather than on the first transaction (~30 ms on the
        128-port SKU; servers call it at start). Best effort: False, logged, if Redis does not answer
        (the first transaction reads it then)."""
        try:
            self.snapshot()
        except DbError as error:
            log.warning("configdb.warm.skipped error=%s", error)
            return False
        return True

    def recent_snapshot(self) -> tuple[Config, int] | None:
        """The cache's copy and generation with no round trip when nothing but this connector's own
        applies changed CONFIG_DB since it was last known (``ConfigCache.recent``); None otherwise, or
        without a cache. Only for a transaction that applies with ``expect_generation``: that check
        is what catches the applies of other writers whose events have not arrived yet."""
        return self.cache.recent() if self.cache is not None else None

    def catch_up(self) -> None:
        """Let the cache read the events that have arrived (``ConfigCache.catch_up``); nothing without one."""
        if self.cache is not None:
            self.cache.catch_up()

    def apply(self, changes: Iterable[RowChange], *, expect_generation: int | None = None,
              result: Config | None = None) -> int:
        """Apply row changes in one atomic script; returns rows touched. With ``expect_generation``,
        raise ``ConfigConflict`` (and apply nothing) unless CONFIG_DB is still at that generation.
        ``result``: what the changes make of the configuration at that generation, the tables they
        change the caller's own copies (a transaction's target), for the cache to keep (``ConfigCache.applied``)."""
        cache = self.cache if expect_generation is not None else None
        marker = cache.marker() if cache is not None else None  # the script publishes it after the changes
        args: list[str] = ["" if expect_generation is None else str(expect_generation), *(marker or ("", ""))]
        written: list[Written] = []
        exact = True  # a merge's result depends on the row's fields: the cache reads those back
        for change in changes:
            if (problem := table_name_problem(change.table)) is not None:
                raise ValueError(f"table name {change.table!r}: {problem}; nothing applied")
            raw = {} if change.mode == "delete" else typed_to_raw(change.row)
            name = self._hash(change.table, change.key)
            args += [name, change.mode, str(len(raw))]
            for field, value in raw.items():
                args += [field, value]
            written.append((name, None if change.mode == "delete" else raw))
            exact = exact and change.mode != "merge"
        if len(args) == 3:
            return 0
        with map_redis_errors("apply CONFIG_DB changes"):
            touched = int(self._apply(keys=[CONFIG_DB_GENERATION_KEY, CONFIG_APPLIED_CHANNEL], args=args))
        if touched < 0:
            raise ConfigConflict(f"CONFIG_DB changed since generation {expect_generation}; nothing applied")
        if marker is not None and exact and cache is not None and expect_generation is not None:
            cache.applied(written, expect_generation, marker[1], result)
        return touched

    def close(self) -> None:
        """Release the cache's subscription (the DB connection itself belongs to its owner)."""
        if self.cache is not None:
            self.cache.close()
            self.cache = None

    # -- the init indicator --------------------------------------------------------------------
    def set_initialized(self) -> None:
        with map_redis_errors("set CONFIG_DB_INITIALIZED"):
            self.db.client.set(CONFIG_DB_INITIALIZED_KEY, "1")

    def is_initialized(self) -> bool:
        with map_redis_errors("get CONFIG_DB_INITIALIZED"):
            return bool(self.db.client.get(CONFIG_DB_INITIALIZED_KEY))
