"""sonic-gnmi's virtual COUNTERS_DB paths: port names -> counter OIDs through the name maps.

Served with target COUNTERS_DB (or natively under /COUNTERS_DB/localhost), after
sonic-gnmi ``sonic_data_client/virtual_db.go``:

=========================================================  ======================================
``COUNTERS/Ethernet*``, ``COUNTERS/Ethernet<N>``            port counters (``COUNTERS:<port oid>``)
``COUNTERS/Ethernet*/<counter>``                            one counter of every port
``COUNTERS/Ethernet*/Queues``, ``COUNTERS/Ethernet<N>/Queues``  queue counters, keyed ``<port>:<index>``
``COUNTERS/Ethernet*/Pfcwd``                                 the queues PFC watchdog guards
``PERIODIC_WATERMARKS/Ethernet*/PriorityGroups``             PG watermarks (also ``/Queues``, and the
                                                            PERSISTENT_ and USER_WATERMARKS tables)
=========================================================  ======================================

As in sonic-gnmi, a wildcard answer is keyed by the port's alias (CONFIG_DB ``PORT|<name>`` field
``alias``; ``etp1`` for ``Ethernet0`` on the 128x400G SKU) where the port has one, and a single port
may be named by name or alias. A single port's row or counter is the value itself; queues and PGs are
always keyed. The PFC-watchdog queues of a port are those of the priorities in its ``PORT_QOS_MAP``
``pfc_enable``, mapped to queues by its ``pfc_to_queue_map`` (identity without one), for ports with a
``PFC_WD`` row (sonic-gnmi reads the first PORT_QOS_MAP row and the AZURE map for every port).

Name maps are read at most once a second per process (:class:`NameMaps`), shared by every stream.
"""

from __future__ import annotations

import fnmatch
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Literal, cast

from nos.api.gnmi.errors import InvalidArgument
from nos.api.gnmi.paths import Address, Elem, has_wildcard
from nos.api.gnmi.reader import Entry, Reader, db_errors
from nos.schema.dbconfig import CONFIG_DB, COUNTERS_DB
from nos.schema.tables import (
    CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME,
    CFG_PFC_WD_TABLE_NAME,
    CFG_PORT_QOS_MAP_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
    COUNTERS_PG_NAME_MAP,
    COUNTERS_PORT_NAME_MAP,
    COUNTERS_QUEUE_NAME_MAP,
    COUNTERS_TABLE,
)

WATERMARK_TABLES = ("PERIODIC_WATERMARKS", "PERSISTENT_WATERMARKS", "USER_WATERMARKS")
QUEUES, PFCWD, PRIORITY_GROUPS = "Queues", "Pfcwd", "PriorityGroups"
CACHE_S = 1.0

Kind = Literal["port", "port_field", "queues", "pfcwd", "pgs"]


@dataclass(frozen=True)
class VirtualPath:
    """A virtual path: what it reads (``table``), for which ports, and which element names the port."""

    kind: Kind
    table: str
    port: str
    field: str | None
    full: tuple[Elem, ...]
    port_index: int


def virtual_of(address: Address) -> VirtualPath | None:
    """The virtual path an address names, or None for a plain COUNTERS_DB path (``COUNTERS/oid:0x...``)."""
    if address.db != COUNTERS_DB or address.keyed is not None or not address.parts:
        return None
    port, rest = address.parts[0], address.parts[1:]
    if port.startswith("oid:"):
        return None
    where = address.lead + 1
    if address.table == COUNTERS_TABLE:
        if not rest:
            return VirtualPath("port", COUNTERS_TABLE, port, None, address.full, where)
        if len(rest) == 1:
            kind: Kind = {QUEUES: "queues", PFCWD: "pfcwd"}.get(rest[0], "port_field")  # type: ignore[assignment]
            return VirtualPath(kind, COUNTERS_TABLE, port, rest[0] if kind == "port_field" else None,
                               address.full, where)
        raise InvalidArgument(f"{address.text}: COUNTERS/<port>[/<counter>|/Queues|/Pfcwd]")
    if address.table in WATERMARK_TABLES and len(rest) == 1 and rest[0] in (PRIORITY_GROUPS, QUEUES):
        kind = "pgs" if rest[0] == PRIORITY_GROUPS else "queues"
        return VirtualPath(kind, address.table, port, None, address.full, where)
    return None


@dataclass(frozen=True)
class Maps:
    """The name maps at one moment (``version`` changes when any of them does)."""

    ports: dict[str, str]
    queues: dict[str, str]
    pgs: dict[str, str]
    aliases: dict[str, str]      # port name -> alias
    names: dict[str, str]        # alias -> port name
    pfcwd: dict[str, list[str]]  # port name -> guarded queue indexes
    version: int = 0
    port_queues: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # port -> [(index, oid)]
    port_pgs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


def by_port(table: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """``{"Ethernet0:3": oid}`` as ``{"Ethernet0": [("3", oid), ...]}``, indexes in order."""
    grouped: dict[str, list[tuple[str, str]]] = {}
    for name, oid in table.items():
        owner, _, index = name.rpartition(":")
        grouped.setdefault(owner, []).append((index, oid))
    for items in grouped.values():
        items.sort(key=lambda item: natural(item[0]))
    return grouped


class NameMaps:
    """The COUNTERS_DB name maps and port aliases, re-read at most once per ``CACHE_S``."""

    def __init__(self, reader: Reader, cache_s: float = CACHE_S) -> None:
        self.reader = reader
        self.cache_s = cache_s
        self._lock = threading.Lock()
        self._maps: Maps | None = None
        self._read_at = 0.0

    def get(self) -> Maps:
        with self._lock:
            now = time.monotonic()
            if self._maps is None or now - self._read_at >= self.cache_s:
                fresh = self._read()
                old = self._maps
                same = old is not None and (fresh.ports, fresh.queues, fresh.pgs, fresh.aliases, fresh.pfcwd) == (
                    old.ports, old.queues, old.pgs, old.aliases, old.pfcwd)
                version = (old.version if same else old.version + 1) if old is not None else 1
                self._maps = Maps(fresh.ports, fresh.queues, fresh.pgs, fresh.aliases, fresh.names, fresh.pfcwd,
                                  version, by_port(fresh.queues), by_port(fresh.pgs))
                self._read_at = now
            return self._maps

    def _read(self) -> Maps:
        with db_errors("read the COUNTERS_DB name maps"):
            return self._read_maps()

    def _read_maps(self) -> Maps:
        counters = self.reader.client(COUNTERS_DB)
        pipe = counters.pipeline(transaction=False)
        for name in (COUNTERS_PORT_NAME_MAP, COUNTERS_QUEUE_NAME_MAP, COUNTERS_PG_NAME_MAP):
            pipe.hgetall(name)
        ports, queues, pgs = cast(list[dict[str, str]], pipe.execute())
        config = self.reader.client(CONFIG_DB)
        sep = self.reader.separator(CONFIG_DB)
        port_rows = self.reader.keys(CONFIG_DB, f"{CFG_PORT_TABLE_NAME}{sep}*")
        pipe = config.pipeline(transaction=False)
        for row in port_rows:
            pipe.hget(row, "alias")
        aliases = {row.partition(sep)[2]: alias for row, alias in zip(port_rows, pipe.execute(), strict=True)
                   if alias}
        names = {alias: name for name, alias in aliases.items()}
        return Maps(ports, queues, pgs, aliases, names, self._pfcwd(sep))

    def _pfcwd(self, sep: str) -> dict[str, list[str]]:
        guarded = [k.partition(sep)[2] for k in self.reader.keys(CONFIG_DB, f"{CFG_PFC_WD_TABLE_NAME}{sep}*")]
        guarded = [p for p in guarded if p != "GLOBAL"]
        if not guarded:
            return {}
        config = self.reader.client(CONFIG_DB)
        pipe = config.pipeline(transaction=False)
        for port in guarded:
            pipe.hgetall(f"{CFG_PORT_QOS_MAP_TABLE_NAME}{sep}{port}")
        qos = dict(zip(guarded, pipe.execute(), strict=True))
        out: dict[str, list[str]] = {}
        for port, row in qos.items():
            priorities = [p for p in (row or {}).get("pfc_enable", "").split(",") if p]
            mapping: dict[str, str] = {}
            if (row or {}).get("pfc_to_queue_map"):
                mapping = config.hgetall(f"{CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME}{sep}{row['pfc_to_queue_map']}")
            out[port] = [mapping.get(p, p) for p in priorities]
        return out


def natural(name: str) -> tuple[str | int, ...]:
    """Sort key that puts Ethernet4 before Ethernet16."""
    return tuple(int(part) if part.isdecimal() else part for part in re.split(r"(\d+)", name))


@dataclass
class VirtualSelection:
    """The entries of a virtual path, resolved against the current name maps whenever read."""

    vpath: VirtualPath
    maps: NameMaps
    db: str = COUNTERS_DB
    _index: tuple[int, dict[str, list[Entry]]] = field(default=(0, {}), repr=False)

    @property
    def collection(self) -> bool:
        return self.vpath.kind in ("queues", "pfcwd", "pgs") or has_wildcard(self.vpath.port)

    @property
    def tables(self) -> frozenset[str] | None:
        return frozenset({self.vpath.table})

    def entries(self, reader: Reader) -> list[Entry]:
        return entries_for(self.vpath, self.maps.get())

    def affected(self, reader: Reader, table: str, key: str) -> list[Entry]:
        if table != self.vpath.table:
            return []
        maps = self.maps.get()
        version, index = self._index
        if version != maps.version or not index:
            index = {}
            for entry in entries_for(self.vpath, maps):
                index.setdefault(entry.hash, []).append(entry)
            self._index = (maps.version, index)
        return index.get(f"{table}:{key}", [])


def _ports(vpath: VirtualPath, maps: Maps) -> list[tuple[str, str]]:
    """(port name, label) of the ports a path names."""
    if has_wildcard(vpath.port):
        chosen = [n for n in maps.ports if fnmatch.fnmatchcase(n, vpath.port)
                  or fnmatch.fnmatchcase(maps.aliases.get(n, n), vpath.port)]
        return [(n, maps.aliases.get(n, n)) for n in sorted(chosen, key=natural)]
    name = maps.names.get(vpath.port, vpath.port)
    return [(name, vpath.port)] if name in maps.ports else []


def entries_for(vpath: VirtualPath, maps: Maps) -> list[Entry]:
    """The entries of a virtual path under the given maps (pure)."""
    single = not has_wildcard(vpath.port)
    out: list[Entry] = []
    for name, label in _ports(vpath, maps):
        path = vpath.full[:vpath.port_index] + (Elem(label),) + vpath.full[vpath.port_index + 1:]
        if vpath.kind in ("port", "port_field"):
            where: tuple[str, ...] = () if single else (label,)
            if vpath.field is not None and not single:
                where = (label, vpath.field)
            out.append(Entry(COUNTERS_DB, f"{vpath.table}:{maps.ports[name]}", vpath.field, where, path))
            continue
        for index, oid in _sub_objects(vpath.kind, name, maps):
            item = f"{label}:{index}"
            out.append(Entry(COUNTERS_DB, f"{vpath.table}:{oid}", None, (item,), path + (Elem(item),)))
    return out


def _sub_objects(kind: Kind, port: str, maps: Maps) -> list[tuple[str, str]]:
    """(index, oid) of a port's queues, PFC-watchdog queues or priority groups."""
    if kind == "pfcwd":
        return [(q, maps.queues[f"{port}:{q}"]) for q in maps.pfcwd.get(port, []) if f"{port}:{q}" in maps.queues]
    return (maps.port_pgs if kind == "pgs" else maps.port_queues).get(port, [])


__all__ = ["Maps", "NameMaps", "VirtualPath", "VirtualSelection", "WATERMARK_TABLES", "entries_for", "natural",
           "virtual_of"]
