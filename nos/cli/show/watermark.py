"""Watermark and PG-drop tables: ``show queue watermark unicast|multicast|all``, ``show priority-group
watermark shared|headroom`` (and their ``persistent-watermark`` forms), ``show priority-group drop counters``.

As sonic-utilities' ``scripts/watermarkstat`` and ``scripts/pg-drop``: a title line, then one row per port
and one column per queue/PG index (``UC0..UC7``, ``PG0..PG7``), the value from ``USER_WATERMARKS:<oid>``
(``PERSISTENT_WATERMARKS`` for the persistent form) or ``COUNTERS:<pg oid>``; ``0`` where a port has no
object of that index, N/A where the stat is absent. Like SONiC, these bytes/packets are printed without
thousands separators. ``--json`` is watermarkstat's ``-j`` shape (a list of ``{"Port": ..., "UC0": ...}``).
Pure: plain data in, text and records out.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabulate import tabulate

from nos.cli.show.counters_db import Counters, Member, priority_groups, queues, stat_value


@dataclass(frozen=True)
class Kind:
    """One watermark (or drop) view: its title, objects, column prefix and SAI stat."""

    title: str
    objects: str  # "queue" or "pg"
    prefix: str  # column prefix, and for queues the queue type shown
    stat: str
    empty: str = "Object map is empty!"
    empty_is_error: bool = True


_Q_WM = "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"
KINDS = {
    "q_shared_uni": Kind("Egress shared pool occupancy per unicast queue:", "queue", "UC", _Q_WM),
    "q_shared_multi": Kind("Egress shared pool occupancy per multicast queue:", "queue", "MC", _Q_WM,
                           "Object map from the COUNTERS_DB is empty because the multicast queues are not "
                           "configured in the CONFIG_DB!", False),
    "q_shared_all": Kind("Egress shared pool occupancy per all queues:", "queue", "ALL", _Q_WM),
    "pg_shared": Kind("Ingress shared pool occupancy per PG:", "pg", "PG",
                      "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES"),
    "pg_headroom": Kind("Ingress headroom per PG:", "pg", "PG",
                        "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES"),
    "pg_drop": Kind("Ingress PG dropped packets:", "pg", "PG", "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS",
                    "Header info is not available!"),
}


class EmptyObjectMap(Exception):
    """Raised when no port has an object of the asked kind; ``error`` says whether SONiC calls it a failure."""

    def __init__(self, message: str, error: bool) -> None:
        super().__init__(message)
        self.error = error


@dataclass(frozen=True)
class Grid:
    """The table: header (``Port`` then one column per index) and one row per port."""

    header: list[str]
    rows: list[list[str]]

    def text(self, title: str) -> str:
        return title + "\n" + tabulate(self.rows, self.header, tablefmt="simple", stralign="right")

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.header, row, strict=True)) for row in self.rows]


def _objects(c: Counters, kind: Kind) -> dict[str, list[Member]]:
    if kind.objects == "pg":
        return priority_groups(c)
    return {port: [q for q in members if q.kind == kind.prefix] for port, members in queues(c).items()}


def grid(c: Counters, kind: Kind, table: str) -> Grid:
    """The per-port, per-index table of ``kind.stat`` read from ``<table>:<oid>``."""
    objects = _objects(c, kind)
    indexes = sorted({int(m.name.rpartition(":")[2]) for members in objects.values() for m in members
                      if m.name.rpartition(":")[2].isdigit()})
    if not indexes:
        raise EmptyObjectMap(kind.empty, kind.empty_is_error)
    position = {index: i for i, index in enumerate(indexes)}
    rows = []
    for port in c.ports():
        values = ["0"] * len(indexes)
        for member in objects.get(port, []):
            if member.index in position:
                values[position[member.index]] = stat_value(c.stat(table, member.oid), kind.stat)
        rows.append([port, *values])
    return Grid(["Port", *(f"{kind.prefix}{i}" for i in indexes)], rows)


__all__ = ["EmptyObjectMap", "Grid", "KINDS", "Kind", "grid"]
