"""The REST API's reads of STATE_DB, APPL_DB and COUNTERS_DB, each in a fixed number of pipelined round
trips (never one per port): tables by (DB, name) in two per DB (KEYS, then every HGETALL); counters in
two (the name map, then every ``COUNTERS:<oid>`` hash). A key that is not a hash (garbage written by
hand) reads as no row: one bad key does not fail a listing.

Counters keep SONiC's stat names (``SAI_PORT_STAT_IF_IN_OCTETS``) and are returned as integers. A stat
the hash does not hold is left out, and an object whose hash does not exist yet gets ``{}``: both are
what ``show interfaces counters`` prints as N/A. Nothing is invented as 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import cast

from nos.api.json_bytes import json_bytes
from nos.cli.show import render
from nos.db import DBConnector, raw_to_typed
from nos.db.connector import Databases
from nos.db.errors import map_redis_errors
from nos.db.table import hash_replies
from nos.schema import tables as tbl
from nos.schema.dbconfig import CONFIG_DB

# COUNTERS_DB tables not (yet) in nos.schema.tables (swss-common schema.h names).
USER_WATERMARKS_TABLE = "USER_WATERMARKS"
PERIODIC_WATERMARKS_TABLE = "PERIODIC_WATERMARKS"
PERSISTENT_WATERMARKS_TABLE = "PERSISTENT_WATERMARKS"
WATERMARK_TABLES = {"user": USER_WATERMARKS_TABLE, "periodic": PERIODIC_WATERMARKS_TABLE,
                    "persistent": PERSISTENT_WATERMARKS_TABLE}

PFC_PRIORITIES = range(8)
PFC_STATS = tuple(f"SAI_PORT_STAT_PFC_{p}_{d}_PKTS" for d in ("RX", "TX") for p in PFC_PRIORITIES)

RawRows = dict[str, dict[str, str]]
Stats = dict[str, int | str]


def _glob_escape(text: str) -> str:
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in text)


def read_tables(dbs: Databases, tables: Iterable[render.TableId]) -> render.Snapshot:
    """Every row of the given (DB, table) pairs in two round trips per DB; CONFIG_DB rows typed as
    ConfigDBConnector reads them (``NULL`` dropped, ``field@`` lists split)."""
    by_db: dict[str, list[str]] = {}
    for db, table in dict.fromkeys(tables):
        by_db.setdefault(db, []).append(table)
    read: dict[render.TableId, render.Rows] = {}
    for db_name, names in by_db.items():
        for table, rows in _read_db_tables(dbs[db_name], names).items():
            read[(db_name, table)] = {k: raw_to_typed(v) for k, v in rows.items()} if db_name == CONFIG_DB else rows
    return render.Snapshot(read)


def _read_db_tables(db: DBConnector, tables: list[str]) -> dict[str, RawRows]:
    with map_redis_errors(f"read {db.name} {', '.join(tables)}"):
        pipe = db.client.pipeline(transaction=False)
        for table in tables:
            pipe.keys(_glob_escape(f"{table}{db.separator}") + "*")
        found = cast(list[list[str]], pipe.execute())
        for names in found:
            for name in names:
                pipe.hgetall(name)
        rows = hash_replies(pipe.execute(raise_on_error=False))
    out: dict[str, RawRows] = {}
    values = iter(rows)  # each table takes the next len(names) rows
    for table, names in zip(tables, found, strict=True):
        cut = len(table) + len(db.separator)
        out[table] = {name[cut:]: row for name, row in zip(names, values, strict=False) if row}
    return out


def number(value: str) -> int | str:
    """A counter value as an integer (kept as the string when it is not one)."""
    try:
        return int(value)
    except ValueError:
        return value


def read_name_map(db: DBConnector, name_map: str) -> dict[str, str]:
    """A COUNTERS_DB name map: name -> ``oid:0x...``."""
    with map_redis_errors(f"hgetall {name_map}"):
        pipe = db.client.pipeline(transaction=False)
        pipe.hgetall(name_map)
        return hash_replies(pipe.execute(raise_on_error=False))[0]


def read_stats(db: DBConnector, table: str, oids: Mapping[str, str],
               keep: Callable[[str], bool] | None = None) -> dict[str, Stats]:
    """``<table>:<oid>`` of every named object, in one pipeline, by name in natural order."""
    names = render.natsorted(oids)
    prefix = f"{table}{db.separator}"
    with map_redis_errors(f"read {table} of {len(names)} objects"):
        pipe = db.client.pipeline(transaction=False)
        for name in names:
            pipe.hgetall(prefix + oids[name])
        rows = hash_replies(pipe.execute(raise_on_error=False))
    if keep is None:
        return {name: _numbers(row) for name, row in zip(names, rows, strict=True)}
    return {name: {stat: number(value) for stat, value in row.items() if keep(stat)}
            for name, row in zip(names, rows, strict=True)}


def _numbers(row: dict[str, str]) -> Stats:
    """Every stat as an integer (``number``); a row of integers only at C speed (the all-port read)."""
    try:
        return dict(zip(row, map(int, row.values()), strict=True))
    except ValueError:
        return {stat: number(value) for stat, value in row.items()}


def select(oids: Mapping[str, str], wanted: set[str] | None, *, by_port: bool = False) -> dict[str, str]:
    """The name map restricted to ``wanted`` names (or, ``by_port``, to names ``<port>:<index>`` of them)."""
    if wanted is None:
        return dict(oids)
    if by_port:
        return {name: oid for name, oid in oids.items() if name.partition(":")[0] in wanted}
    return {name: oid for name, oid in oids.items() if name in wanted}


def counters(db: DBConnector, name_map: str, wanted: set[str] | None = None, *, by_port: bool = False,
             table: str = tbl.COUNTERS_TABLE, keep: Callable[[str], bool] | None = None) -> dict[str, Stats]:
    """The stats of the objects of one name map (optionally only some of them)."""
    return read_stats(db, table, select(read_name_map(db, name_map), wanted, by_port=by_port), keep)


def counters_json(db: DBConnector, name_map: str) -> bytes:
    """Every object's counters as one JSON document (the all-ports read, serialised once)."""
    return json_bytes(counters(db, name_map))


__all__ = ["PFC_STATS", "WATERMARK_TABLES", "counters", "counters_json", "number", "read_name_map", "read_stats",
           "read_tables", "select"]
