"""What the traffic model runs: host NICs, flows and the run's configuration (plain frozen data).

Struct-of-arrays, one row per NIC and per flow, built by ``fastpath.workloads.expand`` from a
scenario, or by hand in tests (``Nics.of``, ``Flows.of``). Sizes are bytes, rates bits per second, times
seconds. Nothing here has behaviour beyond filling defaults.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastpath.tables import F64, I8, I32, I64, B

LIGHT_MPS = 1.98e8   # signal speed in the cable, m/s (SONiC's headroom calculation, model-defaults.md 2.2)


@dataclass(frozen=True)
class DcqcnParams:
    """DCQCN reaction-point parameters: the "DCQCN paper-style" column of model-defaults.md 2.3
    (HPCC ns-3 ``dcqcn_paper``: alpha and decrease periods 50 us, rate-increase timer 55 us, g = 1/256,
    F = 1, no target-rate clamp, AI / HAI of 5 / 50 Mb/s per 25 Gb/s of line rate, i.e. 80 / 800 Mb/s
    at 400G). ``byte_counter_bytes`` 0 = the byte counter is off (as in that column)."""

    g: float = 1 / 256
    initial_alpha: float = 1.0
    cnp_interval_s: float = 50e-6          # the receiver sends at most one CNP per flow per interval
    alpha_period_s: float = 50e-6          # alpha decays by (1 - g) per period without a CNP
    rate_increase_period_s: float = 55e-6  # rate-increase timer, reset at every rate cut
    fast_recovery_stages: int = 1          # F
    ai_bps_per_25g: float = 5e6            # additive increase, scaled by line rate / 25 Gb/s
    hai_bps_per_25g: float = 50e6          # hyper increase, scaled likewise
    min_rate_bps: float = 100e6
    clamp_target_rate: bool = False        # ns-3 CLAMP_TARGET_RATE: Rt = Rc on every cut (else only after an increase)
    byte_counter_bytes: float = 0.0        # bytes sent between byte-counter increase events (0 = off)


def _array(value: Any, n: int, dtype: Any) -> Any:
    arr = np.asarray(value, dtype=dtype)
    return np.broadcast_to(arr, (n,)).copy() if arr.ndim == 0 else arr.copy()


@dataclass(frozen=True)
class Nics:
    """One row per host NIC. ``storm_*`` NaN = no storm; during [start, end) the NIC sends continuous
    pause on ``storm_priority`` to its switch port (a PFC storm)."""

    port: I32                 # switch port index the NIC is cabled to
    speed_bps: F64
    cable_m: F64              # cable length; propagation at LIGHT_MPS
    honours_pause: B          # False = the NIC ignores PFC pause from the switch
    storm_start_s: F64
    storm_end_s: F64
    storm_priority: I8

    @property
    def n(self) -> int:
        return len(self.port)

    @classmethod
    def of(cls, port: Any, *, speed_bps: Any = 400e9, cable_m: Any = 5.0, honours_pause: Any = True,
           storm_start_s: Any = math.nan, storm_end_s: Any = math.nan, storm_priority: Any = 3) -> Nics:
        ports = np.atleast_1d(np.asarray(port, dtype=np.int32))
        n = len(ports)
        return cls(port=ports, speed_bps=_array(speed_bps, n, np.float64), cable_m=_array(cable_m, n, np.float64),
                   honours_pause=_array(honours_pause, n, bool),
                   storm_start_s=_array(storm_start_s, n, np.float64),
                   storm_end_s=_array(storm_end_s, n, np.float64),
                   storm_priority=_array(storm_priority, n, np.int8))


@dataclass(frozen=True)
class FlowHops:
    """Each flow's path across several switches merged into one index space (``fastpath.fabric``):
    hop ``h`` of flow ``i`` is row ``ptr[i] + h`` (CSR). Ports are global (switch offset + port), the
    queue is the egress queue on ``out_port`` and the PG the ingress PG on ``in_port``; a flow without
    a usable path has one row with ``out_port`` -1."""

    ptr: I64
    in_port: I32
    out_port: I32
    queue: I8
    pg: I8

    @property
    def n(self) -> int:
        return len(self.in_port)


@dataclass(frozen=True)
class Links:
    """Switch-to-switch cables in the merged index space, one row per port: ``peer`` the port at the
    other end (-1: a NIC or nothing), ``cable_m`` its length."""

    peer: I32
    cable_m: F64


@dataclass(frozen=True)
class Flows:
    """One row per flow (a RoCE queue pair's message). A flow starts at ``start_s``, or when every
    flow in ``dep_idx[dep_ptr[i]:dep_ptr[i+1]]`` has finished plus ``gap_s[i]``, whichever is later."""

    src: I32
    dst: I32                  # NIC indices
    in_port: I32
    out_port: I32             # -1 = unroutable (the flow never runs)
    tc: I8
    queue: I8                 # egress queue on out_port
    pg: I8                    # ingress priority group on in_port
    size: I64                 # payload bytes
    start_s: F64
    dep_ptr: I64
    dep_idx: I32
    gap_s: F64
    dcqcn: B                  # the sender runs DCQCN
    ecn_capable: B
    mtu: I64                  # payload bytes per packet
    group: I32                # workload index
    hops: FlowHops | None = None   # several switches (fastpath.model.hops); None: one hop, the columns above

    @property
    def n(self) -> int:
        return len(self.src)

    @classmethod
    def of(cls, src: Any, dst: Any, in_port: Any, out_port: Any, size: Any, *, tc: Any = 3,
           queue: Any = None, pg: Any = None, start_s: Any = 0.0, deps: list[list[int]] | None = None,
           gap_s: Any = 0.0, dcqcn: Any = False, ecn_capable: Any = True, mtu: Any = 4096,
           group: Any = 0) -> Flows:
        """Flows from columns (scalars broadcast); ``queue`` and ``pg`` default to ``tc`` (pass the
        port's tc_to_queue / tc_to_pg values when they differ); ``deps`` is a list per flow of the
        flows it waits for."""
        srcs = np.atleast_1d(np.asarray(src, dtype=np.int32))
        n = len(srcs)
        tcs = _array(tc, n, np.int8)
        lists = deps if deps is not None else [[] for _ in range(n)]
        ptr = np.zeros(n + 1, dtype=np.int64)
        ptr[1:] = np.cumsum([len(d) for d in lists])
        idx = np.asarray([i for d in lists for i in d], dtype=np.int32)
        return cls(src=srcs, dst=_array(dst, n, np.int32), in_port=_array(in_port, n, np.int32),
                   out_port=_array(out_port, n, np.int32), tc=tcs,
                   queue=tcs.copy() if queue is None else _array(queue, n, np.int8),
                   pg=tcs.copy() if pg is None else _array(pg, n, np.int8),
                   size=_array(size, n, np.int64), start_s=_array(start_s, n, np.float64), dep_ptr=ptr,
                   dep_idx=idx, gap_s=_array(gap_s, n, np.float64), dcqcn=_array(dcqcn, n, bool),
                   ecn_capable=_array(ecn_capable, n, bool), mtu=_array(mtu, n, np.int64),
                   group=_array(group, n, np.int32))


@dataclass(frozen=True)
class RunConfig:
    """How long and how finely to run. ``max_step_s`` caps the adaptive step (the fluid state is
    integrated exactly between events; the cap bounds the error of the per-flow split of a PG and of
    the PFC sliding-mode controller; it doubles up to ``max_steady_step_s`` while nothing changes);
    NAKs fire on a ``timer_grid_s`` grid; DCQCN's events are taken at their own times, in windows of
    ``dcqcn_window_s`` (a flow's rate change is spread over its window); at most ``max_samples``
    samples are kept (``sample_s`` is coarsened to fit). Flow ends close together share a step, merged late, never
    early: a flow's end (its last byte sent, or out of its queue) may be taken up to
    max(``merge_abs_s``, ``merge_rel`` x its age so far) after it, never before; a sender whose end
    is merged sends its rest evenly over the step (slower than it could). No flow ends before its
    bytes can have left at line rate."""

    max_time_s: float
    sample_s: float = 10e-6
    seed: int = 0
    header_bytes: int = 64            # RoCEv2 headers + FCS per packet (htsim's value)
    ifg_bytes: int = 20               # preamble + inter-frame gap
    cut_through_s: float = 600e-9
    dcqcn: DcqcnParams = field(default_factory=DcqcnParams)
    max_step_s: float = 50e-6
    max_steady_step_s: float = 1e-3   # the cap doubles up to this while every rate stays unchanged
    timer_grid_s: float = 5e-6
    dcqcn_window_s: float = 25e-6     # DCQCN's events are taken in windows of this (fastpath.model.settle)
    max_samples: int = 2000
    merge_abs_s: float = 1e-6         # a flow's end may come this much late (or merge_rel of its age)
    merge_rel: float = 0.01           # so that flows ending close together share one step
    pause_quanta: int = 0             # peer response in 512-bit quanta; 0 = IEEE 802.3 31B by speed
    storm_refresh_quanta: int = 65535  # a storming NIC's pause quanta; it refreshes at half of it
