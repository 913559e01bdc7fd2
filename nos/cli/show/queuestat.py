"""Queue counter tables: ``show queue counters [-a] [-nz]`` and ``show queue wredcounters``.

As sonic-utilities' ``scripts/queuestat``: one table per port, each followed by an empty line (``show queue
counters`` heads each with queuestat's ``For namespace :`` line: the default namespace is ``''`` on a
single-ASIC switch; ``show queue wredcounters``, sonic-utilities' wredstat, has no such line); a row per
queue (COUNTERS_QUEUE_NAME_MAP, natural order) labelled type + index (``UC0``; ``MC10`` for a multicast
queue of index 10), values from ``COUNTERS:<queue oid>`` with thousands separators, N/A when the stat is
absent. ``-a`` adds the trimming columns; ``-nz`` drops rows whose values are all ``0`` (an N/A row
stays, as in queuestat; wredstat counts N/A as zero).
``--json`` is queuestat's ``-j`` shape: ``{port: {"UC0": {"totalpacket": ...}}}``.
Pure: plain data in, text and records out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from nos.cli.show.counters_db import NA, Counters, queues, stat_value, with_commas
from nos.schema.tables import COUNTERS_TABLE


@dataclass(frozen=True)
class Column:
    header: str
    key: str  # queuestat's JSON key
    stat: str


COUNTERS = (
    Column("Counter/pkts", "totalpacket", "SAI_QUEUE_STAT_PACKETS"),
    Column("Counter/bytes", "totalbytes", "SAI_QUEUE_STAT_BYTES"),
    Column("Drop/pkts", "droppacket", "SAI_QUEUE_STAT_DROPPED_PACKETS"),
    Column("Drop/bytes", "dropbytes", "SAI_QUEUE_STAT_DROPPED_BYTES"),
)
TRIM = (
    Column("Trim/pkts", "trimpacket", "SAI_QUEUE_STAT_TRIM_PACKETS"),
    Column("TrimSent/pkts", "trimsentpacket", "SAI_QUEUE_STAT_TX_TRIM_PACKETS"),
    Column("TrimDrop/pkts", "trimdroppacket", "SAI_QUEUE_STAT_DROPPED_TRIM_PACKETS"),
)
WRED = (
    Column("WredDrp/pkts", "wreddroppacket", "SAI_QUEUE_STAT_WRED_DROPPED_PACKETS"),
    Column("WredDrp/bytes", "wreddropbytes", "SAI_QUEUE_STAT_WRED_DROPPED_BYTES"),
    Column("EcnMarked/pkts", "ecnmarkedpacket", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"),
    Column("EcnMarked/bytes", "ecnmarkedbytes", "SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES"),
)


@dataclass(frozen=True)
class QueueRow:
    port: str
    label: str
    raw: tuple[str, ...]  # decimal strings or N/A

    def cells(self) -> list[str]:
        return [self.port, self.label, *(with_commas(v) for v in self.raw)]


ZERO = frozenset({"0"})             # queuestat -nz: an N/A row stays
WRED_ZERO = frozenset({"0", NA})    # wredstat -nz: N/A counts as zero


def queue_rows(c: Counters, columns: Sequence[Column], port: str | None = None,
               nonzero: bool = False, zero: frozenset[str] = ZERO) -> dict[str, list[QueueRow]]:
    """Port -> its rows (every port in COUNTERS_PORT_NAME_MAP, or just ``port``); with ``nonzero`` only the
    rows with a value not in ``zero``."""
    found: dict[str, list[QueueRow]] = {}
    for name, members in queues(c).items():
        if port is not None and name != port:
            continue
        rows = []
        for queue in members:
            stats = c.stat(COUNTERS_TABLE, queue.oid)
            raw = tuple(stat_value(stats, column.stat) for column in columns)
            if not nonzero or any(value not in zero for value in raw):
                rows.append(QueueRow(name, queue.label, raw))
        found[name] = rows
    return found


NAMESPACE_HEADING = "For namespace :"  # queuestat's f"For namespace {namespace}:" with the default namespace ''


def queue_text(found: Mapping[str, Sequence[QueueRow]], columns: Sequence[Column], heading: str | None = None) -> str:
    """queuestat's output: a table per port with rows, each after ``heading`` (when given) and followed by an
    empty line."""
    header = ["Port", "TxQ", *(column.header for column in columns)]
    first = "" if heading is None else heading + "\n"
    return "".join(first + tabulate([row.cells() for row in rows], header, tablefmt="simple", stralign="right")
                   + "\n\n" for rows in found.values() if rows)


def queue_json(found: Mapping[str, Sequence[QueueRow]], columns: Sequence[Column]) -> dict[str, Any]:
    return {port: {row.label: {column.key: value for column, value in zip(columns, row.cells()[2:], strict=True)}
                   for row in rows} for port, rows in found.items()}


__all__ = ["COUNTERS", "NAMESPACE_HEADING", "TRIM", "WRED", "WRED_ZERO", "ZERO", "Column", "QueueRow", "queue_json",
           "queue_rows", "queue_text"]
