"""What a path selects in the database: a whole DB, a table, one row or one field.

``select(address, separator)`` is pure; the selections ask Redis (through a Reader) only when read.
Each selection answers three questions:

* ``entries(reader)``: the entries that exist now (a Get of a single row that does not exist gets
  none, and answers NOT_FOUND);
* ``affected(reader, table, key)``: which entries a change to ``<table><sep><key>`` touches (for
  ON_CHANGE; a row that is gone still yields its entry, so the change can be sent as a delete);
* ``tables``: the tables whose changes can matter at all (None: every table), for the change feed.

Key vs field is decided when read, as sonic-gnmi's probing does: ``[K1, K2]`` after the table is the row
``K1<sep>K2`` if it exists, else the field ``K2`` of row ``K1``; one element is a row, or a field of a
key-less hash such as ``COUNTERS_PORT_NAME_MAP``. A lone key element with ``*`` is a glob over keys.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Protocol

from nos.api.gnmi.errors import InvalidArgument
from nos.api.gnmi.paths import Address, Elem, has_wildcard, join_key
from nos.api.gnmi.reader import Entry, Reader
from nos.api.gnmi.virtual import NameMaps, VirtualSelection, virtual_of


class Selection(Protocol):
    """The entries one request path selects (see the module docstring)."""

    @property
    def db(self) -> str: ...

    @property
    def collection(self) -> bool:
        """The answer is an object keyed by label (possibly empty), not one value."""

    def entries(self, reader: Reader) -> list[Entry]: ...

    def affected(self, reader: Reader, table: str, key: str) -> list[Entry]: ...

    @property
    def tables(self) -> frozenset[str] | None: ...


@dataclass(frozen=True)
class DbScan:
    """Every row of every table of one database."""

    db: str
    full: tuple[Elem, ...]
    separator: str
    collection: bool = True

    def _entry(self, table: str, key: str) -> Entry:
        return Entry(self.db, f"{table}{self.separator}{key}", None, (table, key),
                     self.full + (Elem(table), Elem(key)))

    def entries(self, reader: Reader) -> list[Entry]:
        out = []
        for name in reader.keys(self.db, f"*{self.separator}*"):
            table, _, key = name.partition(self.separator)
            if table and not table.startswith("_"):  # _TABLE:key: pending producer-state rows
                out.append(self._entry(table, key))
        return out

    def affected(self, reader: Reader, table: str, key: str) -> list[Entry]:
        return [self._entry(table, key)] if key and not table.startswith("_") else []

    @property
    def tables(self) -> frozenset[str] | None:
        return None


@dataclass(frozen=True)
class TableScan:
    """The rows of one table (all, or those whose key matches a glob); a key-less hash (a COUNTERS_DB
    name map) when the table has no rows but a hash of its own name exists."""

    db: str
    table: str
    full: tuple[Elem, ...]
    separator: str
    pattern: str | None = None
    collection: bool = True

    def _row(self, key: str) -> Entry:
        path = self.full[:-1] + (Elem(key),) if self.pattern is not None else self.full + (Elem(key),)
        return Entry(self.db, f"{self.table}{self.separator}{key}", None, (key,), path)

    def _keyless(self) -> Entry:
        return Entry(self.db, self.table, None, (), self.full)

    def entries(self, reader: Reader) -> list[Entry]:
        prefix = f"{_glob_escape(self.table)}{self.separator}"
        names = reader.keys(self.db, prefix + (self.pattern or "*"))
        if names:
            cut = len(self.table) + len(self.separator)
            return [self._row(name[cut:]) for name in names]
        if self.pattern is None and reader.existing(self.db, [(self.table, None)])[0]:
            return [self._keyless()]
        return []

    def affected(self, reader: Reader, table: str, key: str) -> list[Entry]:
        if table != self.table:
            return []
        if not key:
            return [self._keyless()] if self.pattern is None else []
        if self.pattern is not None and not fnmatch.fnmatchcase(key, self.pattern):
            return []
        return [self._row(key)]

    @property
    def tables(self) -> frozenset[str] | None:
        return frozenset({self.table})


@dataclass(frozen=True)
class Probe:
    """One row or one field, whichever of the candidate readings exists first."""

    db: str
    candidates: tuple[tuple[str, str | None], ...]  # (hash, field) in order of preference
    full: tuple[Elem, ...]
    separator: str
    collection: bool = False

    def _entry(self, candidate: tuple[str, str | None]) -> Entry:
        return Entry(self.db, candidate[0], candidate[1], (), self.full)

    def entries(self, reader: Reader) -> list[Entry]:
        found = reader.existing(self.db, self.candidates)
        for candidate, exists in zip(self.candidates, found, strict=True):
            if exists:
                return [self._entry(candidate)]
        return []

    def affected(self, reader: Reader, table: str, key: str) -> list[Entry]:
        name = f"{table}{self.separator}{key}" if key else table
        if all(name != candidate[0] for candidate in self.candidates):
            return []
        return self.entries(reader) or [self._entry(self.candidates[0])]

    @property
    def tables(self) -> frozenset[str] | None:
        return frozenset(c[0].partition(self.separator)[0] for c in self.candidates)


def select(address: Address, separator: str) -> Selection:
    """The selection of a (non-virtual) address."""
    full = address.full
    if address.table is None:
        return DbScan(address.db, full, separator)
    table = address.table
    if address.keyed is not None:
        row = f"{table}{separator}{address.keyed}"
        return Probe(address.db, ((row, address.parts[0] if address.parts else None),), full, separator)
    parts = address.parts
    if not parts:
        return TableScan(address.db, table, full, separator)
    wild = [has_wildcard(p) for p in parts]
    if any(wild):
        if len(parts) == 1:
            return TableScan(address.db, table, full, separator, parts[0])
        raise InvalidArgument(f"{address.text}: a wildcard may only be a whole key element, as {table}/Ethernet*")
    if len(parts) == 1:
        candidates: tuple[tuple[str, str | None], ...] = ((f"{table}{separator}{parts[0]}", None), (table, parts[0]))
    else:
        candidates = ((f"{table}{separator}{join_key(parts, separator)}", None),
                      (f"{table}{separator}{join_key(parts[:-1], separator)}", parts[-1]))
    return Probe(address.db, candidates, full, separator)


def resolve(address: Address, separator: str, maps: NameMaps) -> Selection:
    """The selection of any read address: a virtual COUNTERS_DB path, or a plain one."""
    vpath = virtual_of(address)
    if vpath is not None:
        return VirtualSelection(vpath, maps)
    return select(address, separator)


def _glob_escape(text: str) -> str:
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in text)


__all__ = ["DbScan", "Probe", "Selection", "TableScan", "resolve", "select"]
