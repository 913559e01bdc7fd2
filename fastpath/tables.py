"""The compiled tables the fast-path model runs on: immutable numpy arrays indexed by small integers,
built from the object store by ``syncd_sim.compile.compile_store`` and swapped in whole.

This module is the contract between the compiler, the forwarding function
(``fastpath.forward``) and the traffic model (``fastpath.model``): plain frozen
dataclasses of arrays, no behaviour. Tests build them by hand (``fastpath.build``).

Indexing: ports are numbered 0..n_ports-1 in the order of their lanes (front panel order, the CPU
port excluded); queues and priority groups by their SAI index (0..7); pools by position in
``BufferTables.pool_names``. Sizes are bytes, rates bits per second, times seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
U32 = npt.NDArray[np.uint32]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

N_TC = 8          # traffic classes / PFC priorities
NO_POOL = -1      # a PG or queue without a buffer profile

# scheduler kinds (SAI_SCHEDULING_TYPE_*)
SCHED_STRICT, SCHED_WRR, SCHED_DWRR = 0, 1, 2
# buffer threshold modes
TH_DYNAMIC, TH_STATIC = 0, 1
# PFC watchdog actions
WD_DROP, WD_FORWARD, WD_ALERT = 0, 1, 2


@dataclass(frozen=True)
class PortTables:
    """One row per front-panel port."""

    names: tuple[str, ...]     # "Ethernet0", ... (from the port's NETDEV host interface)
    oids: tuple[str, ...]      # the port's SAI object id
    speed_bps: I64             # SAI_PORT_ATTR_SPEED x 1e6
    admin_up: B
    oper_up: B
    mtu: I64                   # SAI_PORT_ATTR_MTU (L2 frame bytes)
    queue_oids: tuple[tuple[str, ...], ...] = ()   # [port][queue index]
    pg_oids: tuple[tuple[str, ...], ...] = ()      # [port][pg index]

    @property
    def n(self) -> int:
        return len(self.names)


@dataclass(frozen=True)
class QosTables:
    """Classification, scheduling and marking per port ([n_ports, ...]); unmapped = identity/0."""

    dscp_to_tc: I8             # [n_ports, 64]
    tc_to_queue: I8            # [n_ports, 8]
    tc_to_pg: I8               # [n_ports, 8]
    pfc_priority_to_queue: I8  # [n_ports, 8]
    pfc_rx: B                  # [n_ports, 8]: the port honours received pause on this priority
    pfc_tx: B                  # [n_ports, 8]: the port sends pause for this priority (lossless PG)
    sched_kind: I8             # [n_ports, n_queues]: SCHED_*; no scheduler = DWRR weight 1
    sched_weight: I64          # [n_ports, n_queues]
    wred_ecn: B                # [n_ports, n_queues]: ECN marking on (ecn_green / ecn_all)
    wred_drop: B               # [n_ports, n_queues]: WRED dropping on (green enabled, not ECN)
    wred_min: I64              # [n_ports, n_queues]: green min threshold, bytes
    wred_max: I64              # [n_ports, n_queues]: green max threshold, bytes
    wred_prob: F64             # [n_ports, n_queues]: green max probability, 0..1


@dataclass(frozen=True)
class BufferTables:
    """Pools, and the profile bound to each PG and queue ([n_ports, 8] arrays)."""

    pool_names: tuple[str, ...]
    pool_size: I64             # bytes
    pool_ingress: B            # True ingress, False egress
    pool_dynamic: B            # threshold mode of the pool
    pool_xoff: I64             # shared headroom pool size (0 = none)
    pg_pool: I32               # [n_ports, 8] pool index or NO_POOL
    pg_reserved: I64           # guaranteed bytes: profile size, less xoff when size >= xoff (compile/buffers.py)
    pg_xoff: I64               # headroom bytes above the XOFF point (0 for lossy PGs)
    pg_xon: I64
    pg_xon_offset: I64
    pg_th_mode: I8             # TH_DYNAMIC / TH_STATIC
    pg_dynamic_th: I64         # alpha = 2 ** dynamic_th
    pg_static_th: I64          # bytes
    q_pool: I32                # [n_ports, n_queues]
    q_reserved: I64
    q_th_mode: I8
    q_dynamic_th: I64
    q_static_th: I64
    pool_oids: tuple[str, ...] = ()   # the pools' SAI object ids (counters); "" for a hand-made pool


@dataclass(frozen=True)
class WatchdogTables:
    """PFC watchdog per queue ([n_ports, n_queues]) from the PFC_WD flex counter rows."""

    enabled: B
    detection_s: F64
    restoration_s: F64
    action: I8                 # WD_*


@dataclass(frozen=True)
class Tables:
    """Everything the fast path needs, compiled at one instant (``version`` counts compilations)."""

    version: int
    ports: PortTables
    qos: QosTables
    buffers: BufferTables
    watchdog: WatchdogTables
    # Forwarding state (VLAN, FDB, LAG, RIF, neighbors, next hops, ECMP, LPM v4/v6) belongs to the
    # forwarding function; its compiled form is defined in fastpath.l2 / l3.
    l2: Any = None
    l3: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
