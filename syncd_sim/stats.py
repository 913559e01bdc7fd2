"""The simulated ASIC's statistics: one table of unsigned 64-bit counters per SAI object kind
(ports, queues, priority groups, router interfaces, buffer pools), rows by object id, columns by
SAI stat name. All zeros until something counts: the traffic model (later), or the counter-set
hook (``syncd_sim.counters``).

Pure: no IO. The layout is struct-of-arrays as STYLE.md 5 asks: ``StatTable.values`` is one flat
row-major buffer (``row * width + column``) that a vectorised model can update in place. numpy is
not installed yet, so the buffer is an ``array('Q')`` (the same uint64 layout; ``np.frombuffer``
can view it once numpy is a dependency).

Which stats exist per kind: the union of what SONiC's flex counter groups poll (the lists in
``syncd_sim.flex``, taken from swss orchagent/portsorch.cpp, intfsorch.cpp, bufferorch.cpp,
orchdaemon.cpp) plus a few the model keeps for itself that SONiC does not poll (per-PG packets and
bytes, queue/PG/pool occupancy, PFC TX pause duration).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from nos.sai.types import ObjectType as T

U64_MAX = (1 << 64) - 1

# -- stat names ---------------------------------------------------------------------------------
_SIZES = ("64", "65_TO_127", "128_TO_255", "256_TO_511", "512_TO_1023", "1024_TO_1518", "1519_TO_2047",
          "2048_TO_4095", "4096_TO_9216", "9217_TO_16383")
PRIORITIES = range(8)

# SONiC's port_stat_ids (swss orchagent/portsorch.cpp), in its order.
PORT_STATS: tuple[str, ...] = (
    *(f"SAI_PORT_STAT_{n}" for n in (
        "IF_IN_OCTETS", "IF_IN_UCAST_PKTS", "IF_IN_NON_UCAST_PKTS", "IF_IN_DISCARDS", "IF_IN_ERRORS",
        "IF_IN_UNKNOWN_PROTOS", "IF_OUT_OCTETS", "IF_OUT_UCAST_PKTS", "IF_OUT_NON_UCAST_PKTS", "IF_OUT_DISCARDS",
        "IF_OUT_ERRORS", "IF_OUT_QLEN", "IF_IN_MULTICAST_PKTS", "IF_IN_BROADCAST_PKTS", "IF_OUT_MULTICAST_PKTS",
        "IF_OUT_BROADCAST_PKTS", "ETHER_RX_OVERSIZE_PKTS", "ETHER_TX_OVERSIZE_PKTS")),
    *(f"SAI_PORT_STAT_ETHER_IN_PKTS_{s}_OCTETS" for s in _SIZES),
    *(f"SAI_PORT_STAT_ETHER_OUT_PKTS_{s}_OCTETS" for s in _SIZES),
    *(f"SAI_PORT_STAT_PFC_{p}_TX_PKTS" for p in PRIORITIES),
    *(f"SAI_PORT_STAT_PFC_{p}_RX_PKTS" for p in PRIORITIES),
    *(f"SAI_PORT_STAT_{n}" for n in (
        "PAUSE_RX_PKTS", "PAUSE_TX_PKTS", "ETHER_STATS_TX_NO_ERRORS", "IP_IN_UCAST_PKTS", "ETHER_STATS_JABBERS",
        "ETHER_STATS_FRAGMENTS", "ETHER_STATS_UNDERSIZE_PKTS", "IP_IN_RECEIVES", "IF_IN_FEC_CORRECTABLE_FRAMES",
        "IF_IN_FEC_NOT_CORRECTABLE_FRAMES", "IF_IN_FEC_SYMBOL_ERRORS")),
    *(f"SAI_PORT_STAT_IF_IN_FEC_CODEWORD_ERRORS_S{i}" for i in range(16)),
    "SAI_PORT_STAT_IF_IN_FEC_CORRECTED_BITS",
    "SAI_PORT_STAT_TRIM_PACKETS",
)
PORT_BUFFER_DROP_STATS = ("SAI_PORT_STAT_IN_DROPPED_PKTS", "SAI_PORT_STAT_OUT_DROPPED_PKTS")
PORT_WRED_STATS = ("SAI_PORT_STAT_GREEN_WRED_DROPPED_PACKETS", "SAI_PORT_STAT_YELLOW_WRED_DROPPED_PACKETS",
                   "SAI_PORT_STAT_RED_WRED_DROPPED_PACKETS", "SAI_PORT_STAT_WRED_DROPPED_PACKETS")
PFC_RX_PKTS = tuple(f"SAI_PORT_STAT_PFC_{p}_RX_PKTS" for p in PRIORITIES)
PFC_TX_PKTS = tuple(f"SAI_PORT_STAT_PFC_{p}_TX_PKTS" for p in PRIORITIES)
PFC_RX_PAUSE_US = tuple(f"SAI_PORT_STAT_PFC_{p}_RX_PAUSE_DURATION_US" for p in PRIORITIES)
PFC_TX_PAUSE_US = tuple(f"SAI_PORT_STAT_PFC_{p}_TX_PAUSE_DURATION_US" for p in PRIORITIES)

QUEUE_STATS = ("SAI_QUEUE_STAT_PACKETS", "SAI_QUEUE_STAT_BYTES", "SAI_QUEUE_STAT_DROPPED_PACKETS",
               "SAI_QUEUE_STAT_DROPPED_BYTES", "SAI_QUEUE_STAT_TRIM_PACKETS")
QUEUE_WRED_STATS = ("SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES",
                    "SAI_QUEUE_STAT_WRED_DROPPED_PACKETS", "SAI_QUEUE_STAT_WRED_DROPPED_BYTES")
QUEUE_WATERMARK_STATS = ("SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES",)
QUEUE_OCCUPANCY = "SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES"

PG_DROP_STATS = ("SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS",)
PG_WATERMARK_STATS = ("SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES",
                      "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES")
PG_MODEL_STATS = ("SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS", "SAI_INGRESS_PRIORITY_GROUP_STAT_BYTES",
                  "SAI_INGRESS_PRIORITY_GROUP_STAT_CURR_OCCUPANCY_BYTES")

RIF_STATS = tuple(f"SAI_ROUTER_INTERFACE_STAT_{n}" for n in (
    "IN_PACKETS", "IN_OCTETS", "IN_ERROR_PACKETS", "IN_ERROR_OCTETS",
    "OUT_PACKETS", "OUT_OCTETS", "OUT_ERROR_PACKETS", "OUT_ERROR_OCTETS"))

BUFFER_POOL_WATERMARK_STATS = ("SAI_BUFFER_POOL_STAT_WATERMARK_BYTES", "SAI_BUFFER_POOL_STAT_XOFF_ROOM_WATERMARK_BYTES")
BUFFER_POOL_OCCUPANCY = "SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES"

# Every stat the ASIC keeps, per object kind (the columns of its table).
STATS_BY_KIND: dict[T, tuple[str, ...]] = {
    T.PORT: (*PORT_STATS, *PORT_BUFFER_DROP_STATS, *PORT_WRED_STATS, *PFC_RX_PAUSE_US, *PFC_TX_PAUSE_US),
    T.QUEUE: (*QUEUE_STATS, *QUEUE_WRED_STATS, *QUEUE_WATERMARK_STATS, QUEUE_OCCUPANCY),
    T.INGRESS_PRIORITY_GROUP: (*PG_DROP_STATS, *PG_WATERMARK_STATS, *PG_MODEL_STATS),
    T.ROUTER_INTERFACE: RIF_STATS,
    T.BUFFER_POOL: (*BUFFER_POOL_WATERMARK_STATS, BUFFER_POOL_OCCUPANCY),
}
# A stat name's prefix says which kind of object it belongs to.
KIND_BY_PREFIX: dict[str, T] = {
    "SAI_PORT_STAT_": T.PORT,
    "SAI_QUEUE_STAT_": T.QUEUE,
    "SAI_INGRESS_PRIORITY_GROUP_STAT_": T.INGRESS_PRIORITY_GROUP,
    "SAI_ROUTER_INTERFACE_STAT_": T.ROUTER_INTERFACE,
    "SAI_BUFFER_POOL_STAT_": T.BUFFER_POOL,
}


def kind_of_stat(stat: str) -> T | None:
    """The object kind a stat name belongs to, when it is one the ASIC keeps."""
    for prefix, kind in KIND_BY_PREFIX.items():
        if stat.startswith(prefix):
            return kind if stat in STATS_BY_KIND[kind] else None
    return None


# -- one kind's table ---------------------------------------------------------------------------
@dataclass
class StatTable:
    """Counters of every object of one kind: ``values[row * width + column]``."""

    kind: T
    names: tuple[str, ...]
    columns: dict[str, int] = field(init=False)
    width: int = field(init=False)
    rows: dict[str, int] = field(default_factory=dict)     # object id -> row
    values: array[int] = field(default_factory=lambda: array("Q"))
    _free: list[int] = field(default_factory=list)
    _zeros: array[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.names:
            raise ValueError(f"{self.kind.sai_name}: a stat table needs at least one stat")
        self.columns = {name: i for i, name in enumerate(self.names)}
        self.width = len(self.names)
        self._zeros = array("Q", bytes(8 * self.width))

    # rows ---------------------------------------------------------------------------------------
    def add_row(self, oid: str) -> int:
        """A new object's row, all zeros (an existing object keeps its row)."""
        row = self.rows.get(oid)
        if row is not None:
            return row
        if self._free:
            row = self._free.pop()
        else:
            row = len(self.values) // self.width
            self.values.extend(self._zeros)
        self.rows[oid] = row
        return row

    def remove_row(self, oid: str) -> None:
        row = self.rows.pop(oid, None)
        if row is None:
            return
        base = row * self.width
        self.values[base:base + self.width] = self._zeros
        self._free.append(row)

    def row_of(self, oid: str) -> int | None:
        return self.rows.get(oid)

    def rename(self, old: str, new: str) -> bool:
        """The object now has id ``new`` and keeps its row (its counts); False when ``old`` has none."""
        row = self.rows.pop(old, None)
        if row is None:
            return False
        self.rows[new] = row
        return True

    # values -------------------------------------------------------------------------------------
    def get(self, oid: str, stat: str) -> int:
        """Raises KeyError for an unknown object or stat."""
        return self.values[self.rows[oid] * self.width + self.columns[stat]]

    def set(self, oid: str, stat: str, value: int) -> None:
        """Raises KeyError for an unknown object or stat, OverflowError outside 0..2^64-1."""
        self.values[self.rows[oid] * self.width + self.columns[stat]] = value

    def increment(self, oid: str, stat: str, delta: int) -> int:
        """Add ``delta`` (may be negative); raises OverflowError when the result leaves 0..2^64-1."""
        index = self.rows[oid] * self.width + self.columns[stat]
        self.values[index] = self.values[index] + delta
        return self.values[index]

    def raise_to(self, oid: str, stat: str, value: int) -> None:
        """A watermark: keep the maximum."""
        index = self.rows[oid] * self.width + self.columns[stat]
        if value > self.values[index]:
            self.values[index] = value

    def row_values(self, row: int) -> array[int]:
        base = row * self.width
        return self.values[base:base + self.width]

    def clear_columns(self, columns: Sequence[int]) -> None:
        """Zero some columns in every row (the ASIC's clear-on-read of watermarks)."""
        values, width = self.values, self.width
        for row in self.rows.values():
            base = row * width
            for column in columns:
                if values[base + column]:
                    values[base + column] = 0


# -- every kind ---------------------------------------------------------------------------------
@dataclass
class AsicStats:
    """The ASIC's counters: one ``StatTable`` per object kind."""

    tables: dict[T, StatTable] = field(
        default_factory=lambda: {kind: StatTable(kind, names) for kind, names in STATS_BY_KIND.items()})

    def table(self, kind: T) -> StatTable:
        return self.tables[kind]

    def find(self, oid: str) -> StatTable | None:
        """The table holding an object id (any kind)."""
        for table in self.tables.values():
            if oid in table.rows:
                return table
        return None

    def sync(self, wanted: Mapping[T, Iterable[str]]) -> tuple[list[tuple[T, str]], list[tuple[T, str]]]:
        """Make the rows exactly the objects in ``wanted``; returns (added, removed) as (kind, oid)."""
        added: list[tuple[T, str]] = []
        removed: list[tuple[T, str]] = []
        for kind, table in self.tables.items():
            want = set(wanted.get(kind, ()))
            for oid in [o for o in table.rows if o not in want]:
                table.remove_row(oid)
                removed.append((kind, oid))
            for oid in sorted(want - table.rows.keys()):
                table.add_row(oid)
                added.append((kind, oid))
        return added, removed
