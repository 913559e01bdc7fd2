"""A fabric run's outcome, and its counters split back per switch in each switch's own numbering
(what each switch's COUNTERS_DB would hold), as a pure function over the result."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.fabric.flows import FabricFlows
from fastpath.fabric.route import Hops
from fastpath.fabric.spec import Fabric, Wiring
from fastpath.model import Result
from fastpath.tables import F64

PORT_COUNTERS = ("port_rx_bytes", "port_rx_pkts", "port_tx_bytes", "port_tx_pkts", "pfc_tx_frames", "pfc_rx_frames",
                 "pfc_tx_pause_s", "pfc_rx_pause_s", "queue_tx_bytes", "queue_tx_pkts", "queue_drop_bytes",
                 "queue_drop_pkts", "queue_ecn_marked_pkts", "queue_max_bytes", "pg_rx_bytes", "pg_rx_pkts",
                 "pg_max_shared", "pg_max_headroom", "pg_drop_pkts")


@dataclass(frozen=True)
class SwitchCounters:
    """One switch's counters: ``values[name]`` has one row per port of the switch (``ports``), in its
    own port order (``Result``'s names and units); ``pool_max_bytes`` per pool (``pools``)."""

    switch: str
    ports: tuple[str, ...]
    pools: tuple[str, ...]
    values: dict[str, F64]
    pool_max_bytes: F64


@dataclass(frozen=True)
class FabricResult:
    """The model's ``Result`` over the merged index space, with what it was run on."""

    fabric: Fabric
    wiring: Wiring
    flows: FabricFlows
    hops: Hops
    result: Result

    def switch_index(self, name: str) -> int:
        names = self.fabric.names()
        if name not in names:
            raise KeyError(f"fabric result: no switch {name!r} (switches: {', '.join(names)})")
        return names.index(name)

    def counters(self, name: str) -> SwitchCounters:
        """Switch ``name``'s counters in its own port numbering."""
        s = self.switch_index(name)
        lo, hi = int(self.wiring.offset[s]), int(self.wiring.offset[s + 1])
        tables = self.fabric.switches[s][1]
        pool_lo = sum(len(t.buffers.pool_size) for _, t in self.fabric.switches[:s])
        pools = self.result.pool_max_bytes[pool_lo:pool_lo + len(tables.buffers.pool_size)]
        return SwitchCounters(switch=name, ports=tables.ports.names, pools=tables.buffers.pool_names,
                              values={k: np.asarray(getattr(self.result, k)[lo:hi]).copy() for k in PORT_COUNTERS},
                              pool_max_bytes=pools.copy())

    def per_switch(self) -> list[SwitchCounters]:
        return [self.counters(name) for name in self.fabric.names()]
