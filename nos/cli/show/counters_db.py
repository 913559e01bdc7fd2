"""What the counter commands read from COUNTERS_DB, and the objects (ports, queues, PGs) in it.

COUNTERS_DB as SONiC lays it out: name maps are single hashes (``COUNTERS_PORT_NAME_MAP`` {name: oid},
``COUNTERS_QUEUE_NAME_MAP`` {``Ethernet0:3``: oid}, ``COUNTERS_QUEUE_PORT_MAP`` / ``_INDEX_MAP`` /
``_TYPE_MAP`` {oid: ...}, the PG maps alike); statistics are hashes ``<TABLE>:<oid>`` (``COUNTERS``,
``RATES``, ``USER_WATERMARKS``, ``PERSISTENT_WATERMARKS``, ``PERIODIC_WATERMARKS``) with SAI stat names
as fields. :func:`read_counters` reads the maps a command names and the stat hashes of the objects in
them, in two pipelines; the rest of this module is pure (plain data in, objects out).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from nos.cli.common import connect, fail
from nos.cli.show.interfaces import read_snapshot
from nos.cli.show.render import Snapshot, TableId, natsorted, natural_key
from nos.db import DbError
from nos.db.connector import Databases
from nos.db.errors import map_redis_errors
from nos.db.table import hash_replies
from nos.schema import tables as tbl
from nos.schema.dbconfig import COUNTERS_DB

RATES_TABLE = "RATES"
USER_WATERMARKS = "USER_WATERMARKS"
PERSISTENT_WATERMARKS = "PERSISTENT_WATERMARKS"
NA = "N/A"

QUEUE_MAPS = (tbl.COUNTERS_PORT_NAME_MAP, tbl.COUNTERS_QUEUE_NAME_MAP, tbl.COUNTERS_QUEUE_PORT_MAP,
              tbl.COUNTERS_QUEUE_INDEX_MAP, tbl.COUNTERS_QUEUE_TYPE_MAP)
PG_MAPS = (tbl.COUNTERS_PORT_NAME_MAP, tbl.COUNTERS_PG_NAME_MAP, tbl.COUNTERS_PG_PORT_MAP, tbl.COUNTERS_PG_INDEX_MAP)
QUEUE_TYPES = {"SAI_QUEUE_TYPE_UNICAST": "UC", "SAI_QUEUE_TYPE_MULTICAST": "MC", "SAI_QUEUE_TYPE_ALL": "ALL",
               "SAI_QUEUE_TYPE_UNICAST_VOQ": "VOQ"}

Fields = Mapping[str, str]


class CountersError(ValueError):
    """Raised when COUNTERS_DB's maps are incomplete (a queue without a port or type, as queuestat says)."""


@dataclass(frozen=True)
class Counters:
    """COUNTERS_DB maps and stat hashes, and the rows of other DBs a command also needs."""

    maps: Mapping[str, Fields] = field(default_factory=dict)
    stats: Mapping[str, Mapping[str, Fields]] = field(default_factory=dict)
    rows: Snapshot = field(default_factory=Snapshot)

    def map(self, name: str) -> Fields:
        return self.maps.get(name, {})

    def stat(self, table: str, oid: str) -> Fields | None:
        """The ``<table>:<oid>`` hash; None when it does not exist."""
        return self.stats.get(table, {}).get(oid)

    def ports(self) -> list[str]:
        """Every port in COUNTERS_PORT_NAME_MAP, naturally sorted."""
        return natsorted(self.map(tbl.COUNTERS_PORT_NAME_MAP))


@dataclass(frozen=True)
class Member:
    """A queue or PG of a port: its name (``Ethernet0:3``), oid, index and (queues) type label."""

    port: str
    name: str
    oid: str
    index: int
    kind: str = ""

    @property
    def label(self) -> str:
        """queuestat's TxQ column (``UC3``, ``MC10``)."""
        return f"{self.kind}{self.index}"


def _members(c: Counters, name_map: str, port_map: str, index_map: str,
             type_map: str | None) -> dict[str, list[Member]]:
    port_of_oid = {oid: port for port, oid in c.map(tbl.COUNTERS_PORT_NAME_MAP).items()}
    found: dict[str, list[Member]] = {port: [] for port in c.ports()}
    for name, oid in sorted(c.map(name_map).items(), key=lambda kv: natural_key(kv[0])):
        port_oid = c.map(port_map).get(oid)
        port = port_of_oid.get(port_oid or "", name.rpartition(":")[0])
        index = c.map(index_map).get(oid, name.rpartition(":")[2])
        if not index.isdigit():
            raise CountersError(f"index is not available for {name} ({oid})")
        kind = ""
        if type_map is not None:
            raw = c.map(type_map).get(oid)
            if raw not in QUEUE_TYPES:
                raise CountersError(f"Queue Type is not available for {name} ({oid}): {raw}")
            kind = QUEUE_TYPES[raw]
        found.setdefault(port, []).append(Member(port, name, oid, int(index), kind))
    return found


def queues(c: Counters) -> dict[str, list[Member]]:
    """Port -> its queues (COUNTERS_QUEUE_NAME_MAP with the port, index and type maps)."""
    return _members(c, tbl.COUNTERS_QUEUE_NAME_MAP, tbl.COUNTERS_QUEUE_PORT_MAP, tbl.COUNTERS_QUEUE_INDEX_MAP,
                    tbl.COUNTERS_QUEUE_TYPE_MAP)


def priority_groups(c: Counters) -> dict[str, list[Member]]:
    """Port -> its priority groups."""
    return _members(c, tbl.COUNTERS_PG_NAME_MAP, tbl.COUNTERS_PG_PORT_MAP, tbl.COUNTERS_PG_INDEX_MAP, None)


def stat_value(fields: Fields | None, *names: str) -> str:
    """The sum of the named stats as a decimal string; N/A when the hash or any of them is missing."""
    if fields is None or any(name not in fields for name in names):
        return NA
    try:
        return str(sum(_integer(fields[name]) for name in names))
    except ValueError:
        return NA


def _integer(text: str) -> int:
    """A counter value: a decimal string (exact, 64-bit counters exceed a float's precision) or a float."""
    return int(text) if text.isdecimal() else int(float(text))


def with_commas(value: str) -> str:
    """``1234567`` -> ``1,234,567`` (N/A and other text unchanged), netstat's format_number_with_comma."""
    return f"{int(value):,}" if value.isdecimal() else value


def read_counters(dbs: Databases, maps: Iterable[str], stats: Iterable[tuple[str, str]] = (),
                  tables: Iterable[TableId] = (), db_order: bool = False) -> Counters:
    """The named map hashes, the ``<table>:<oid>`` hashes of every oid in the map named with each stats
    table, and the other DBs' tables (``read_snapshot``, in the database's key order with ``db_order``)."""
    client = dbs[COUNTERS_DB].client
    map_names = list(dict.fromkeys([*maps, *(m for _, m in stats)]))
    with map_redis_errors("read COUNTERS_DB maps"):
        pipe = client.pipeline(transaction=False)
        for name in map_names:
            pipe.hgetall(name)
        read_maps = dict(zip(map_names, hash_replies(pipe.execute(raise_on_error=False)), strict=True))
    wanted = [(table, oid) for table, source in stats for oid in read_maps[source].values()]
    with map_redis_errors("read COUNTERS_DB stats"):
        pipe = client.pipeline(transaction=False)
        for table, oid in wanted:
            pipe.hgetall(f"{table}:{oid}")
        values = hash_replies(pipe.execute(raise_on_error=False))  # a hash that is garbage: no row
    read_stats: dict[str, dict[str, Fields]] = {}
    for (table, oid), fields in zip(wanted, values, strict=True):
        if fields:
            read_stats.setdefault(table, {})[oid] = fields
    return Counters(read_maps, read_stats, read_snapshot(dbs, tables, db_order))


def load_counters(run_dir: str | None, maps: Iterable[str], stats: Iterable[tuple[str, str]] = (),
                  tables: Iterable[TableId] = ()) -> Counters:
    """``read_counters`` from the switch running in ``run_dir``; a clear error when it cannot be read."""
    _, dbs = connect(run_dir)
    try:
        return read_counters(dbs, maps, stats, tables)
    except DbError as exc:
        fail(f"cannot read the switch's databases: {exc}")
    finally:
        dbs.close()


__all__ = ["Counters", "CountersError", "Member", "NA", "PERSISTENT_WATERMARKS", "PG_MAPS", "QUEUE_MAPS", "RATES_TABLE",
           "USER_WATERMARKS", "load_counters", "priority_groups", "queues", "read_counters", "stat_value",
           "with_commas"]
