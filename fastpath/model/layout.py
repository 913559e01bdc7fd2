"""The run's fixed structure: index arrays and constants derived once from the tables, NICs and flows.

Everything the stepping loop needs that does not change during a run: which queue (``qid`` =
port x n_queues + queue) and which ingress PG (``pgid`` = port x 8 + pg) each flow uses, framing factors,
line rates in wire bytes per second, buffer profiles flattened per queue and per PG, the PFC pause
delays of each PG and the storm/watchdog bindings.

Rates inside the model are wire bytes per second (payload + headers + FCS + preamble/IFG, so a port's
capacity is speed / 8); buffer occupancy is frame bytes (no preamble/IFG): ``beta`` converts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.model.inputs import LIGHT_MPS, Flows, Nics, RunConfig
from fastpath.tables import F64, I64, N_TC, NO_POOL, SCHED_STRICT, TH_DYNAMIC, B, Tables

QUANTUM_BITS = 512


def response_quanta(speed_bps: F64) -> F64:
    """IEEE 802.3 Annex 31B peer response in pause quanta, by port speed (model-defaults.md 2.2)."""
    return np.select([speed_bps >= 400e9, speed_bps >= 200e9, speed_bps >= 100e9, speed_bps >= 25e9],
                     [905.0, 453.0, 394.0, 118.0], 67.0)


@dataclass(frozen=True)
class Layout:
    """Fixed arrays of one run (see the module docstring for units and index conventions)."""

    n_ports: int
    n_queues: int
    n_flows: int
    n_pools: int
    port_cap: F64            # [P] wire B/s
    # flows
    qid: I64
    pgid: I64
    src: I64
    dst: I64
    in_port: I64
    out_port: I64
    prio: I64                # the flow's traffic class (its PFC priority)
    runnable: B              # routed, both ports up
    pausable: B              # its ingress port sends pause for its priority
    wire_per_payload: F64
    beta: F64                # frame bytes per wire byte
    pkt_wire: F64            # wire bytes per full packet
    pkt_frame: F64           # frame bytes per full packet
    total_wire: F64          # wire bytes of the whole message
    line: F64                # NIC send rate, wire B/s
    d_in: F64                # cable propagation, sender side
    d_out: F64               # cable propagation, receiver side
    latency: F64             # d_in + cut-through + d_out
    out_bin: I64             # out_port, n_ports for flows that never run
    tx_weight: F64           # frame bits per wire byte, 0 for flows that never run
    nic_line: F64            # [n_nics] wire B/s
    # queues [P * n_queues]
    q_port: I64
    q_pool: I64
    q_reserved: F64
    q_dynamic: B
    q_alpha: F64
    q_static: F64
    strict: B                # [P, n_queues]
    any_strict: bool
    weight: F64              # [P, n_queues]
    # PGs [P * 8]
    pg_port: I64
    lossless: B
    pg_pool: I64
    pg_reserved: F64
    pg_headroom: F64
    pg_xon: F64
    pg_xon_offset: F64
    pg_dynamic: B
    pg_alpha: F64
    pg_static: F64
    pg_prios: B              # [P * 8, 8]: priorities this PG pauses
    pause_delay: F64         # XOFF sent -> last byte sent before the pause arrives at the ingress
    resume_delay: F64        # XON sent -> first byte after it arrives
    honours: B               # the NIC on the PG's port obeys pause
    pg_line: F64             # the line rate into the PG's port, wire B/s
    # pools
    pool_size: F64
    pool_ingress: B
    pool_xoff: F64
    # derived: pool membership (n_pools = none), thresholds that never bind made inf
    pg_members: I64
    q_members: I64
    pg_static_eff: F64
    q_static_eff: F64
    pool_size_pad: F64       # [pools + 1], inf for "no pool"
    pool_xoff_pad: F64       # [pools + 1], 0 for "no pool"
    # storms (per NIC) and the watchdog (per queue)
    storm_qid: I64           # queue the storm stops, -1 none
    storm_prio: I64
    storm_port: I64
    wd_enabled: B
    wd_detect: F64
    wd_restore: F64
    wd_action: I64
    # what the rows (flows, or segments) use: the loops skip work that unused elements cannot need
    q_used: I64              # the queues some row waits in, sorted
    q_local: I64             # [rows] each row's index into ``q_used``
    rows_lossy: bool         # some row's ingress PG is lossy (else no lossy PG ever fills or drops)
    rows_q_limited: bool     # some row's queue has a finite admission limit (else none ever tail-drops)
    one_per_nic: bool        # no NIC sends more than one row (its line is not shared)


def _flow_arrays(tables: Tables, nics: Nics, flows: Flows, cfg: RunConfig, n_queues: int) -> dict[str, object]:
    in_port = flows.in_port.astype(np.int64)
    out_port = flows.out_port.astype(np.int64)
    routed = out_port >= 0
    safe_out = np.where(routed, out_port, 0)
    up = tables.ports.admin_up & tables.ports.oper_up
    mtu = flows.mtu.astype(np.float64)
    per_pkt = float(cfg.header_bytes + cfg.ifg_bytes)
    size = flows.size.astype(np.float64)
    n_pkts = np.ceil(size / mtu)
    speed = tables.ports.speed_bps.astype(np.float64)
    src, dst = flows.src.astype(np.int64), flows.dst.astype(np.int64)
    prio = flows.tc.astype(np.int64)
    d_in = nics.cable_m[src] / LIGHT_MPS
    d_out = nics.cable_m[dst] / LIGHT_MPS
    runnable = routed & up[in_port] & up[safe_out] & (size > 0)
    return dict(
        qid=safe_out * n_queues + flows.queue.astype(np.int64), pgid=in_port * N_TC + flows.pg.astype(np.int64),
        src=src, dst=dst, in_port=in_port, out_port=out_port, prio=prio,
        runnable=runnable,
        pausable=tables.qos.pfc_tx[in_port, prio],
        wire_per_payload=(mtu + per_pkt) / mtu, beta=(mtu + cfg.header_bytes) / (mtu + per_pkt),
        pkt_wire=mtu + per_pkt, pkt_frame=mtu + cfg.header_bytes, total_wire=size + n_pkts * per_pkt,
        line=np.minimum(nics.speed_bps[src], speed[in_port]) / 8.0, d_in=d_in, d_out=d_out,
        latency=d_in + cfg.cut_through_s + d_out, out_bin=np.where(runnable, out_port, len(up)),
        tx_weight=np.where(runnable, 8.0 * (mtu + cfg.header_bytes) / (mtu + per_pkt), 0.0))


def _alpha(dynamic_th: I64) -> F64:
    return np.power(2.0, dynamic_th.astype(np.float64))


def _queue_arrays(tables: Tables) -> dict[str, object]:
    buf, qos = tables.buffers, tables.qos
    n_ports, n_queues = qos.sched_kind.shape
    weight = qos.sched_weight.astype(np.float64)
    return dict(
        q_port=np.repeat(np.arange(n_ports, dtype=np.int64), n_queues),
        q_pool=buf.q_pool.astype(np.int64).ravel(), q_reserved=buf.q_reserved.astype(np.float64).ravel(),
        q_dynamic=(buf.q_th_mode == TH_DYNAMIC).ravel(), q_alpha=_alpha(buf.q_dynamic_th).ravel(),
        q_static=buf.q_static_th.astype(np.float64).ravel(),
        strict=qos.sched_kind == SCHED_STRICT, any_strict=bool((qos.sched_kind == SCHED_STRICT).any()),
        weight=np.where(weight > 0, weight, 1.0))


def _pg_prios(tables: Tables) -> B:
    """[P * 8, 8]: priority t is paused by PG g of port p when tc_to_pg[p, t] == g and pfc_tx[p, t]."""
    qos = tables.qos
    n_ports = qos.tc_to_pg.shape[0]
    out = np.zeros((n_ports, N_TC, N_TC), dtype=bool)
    ports, prios = np.nonzero(qos.pfc_tx)
    out[ports, qos.tc_to_pg[ports, prios].astype(np.int64), prios] = True
    return out.reshape(n_ports * N_TC, N_TC)


def _pg_arrays(tables: Tables, nics: Nics, cfg: RunConfig) -> dict[str, object]:
    buf = tables.buffers
    n_ports = tables.ports.n
    speed = tables.ports.speed_bps.astype(np.float64)
    nic_of_port = np.full(n_ports, -1, dtype=np.int64)
    nic_of_port[nics.port.astype(np.int64)] = np.arange(nics.n)
    has = nic_of_port >= 0
    cable = np.where(has, nics.cable_m[np.maximum(nic_of_port, 0)], 0.0) / LIGHT_MPS
    quanta = np.full(n_ports, float(cfg.pause_quanta)) if cfg.pause_quanta else response_quanta(speed)
    frame = tables.ports.mtu.astype(np.float64) * 8.0 / speed
    pause = frame + 2.0 * cable + quanta * QUANTUM_BITS / speed
    nic_speed = np.where(has, nics.speed_bps[np.maximum(nic_of_port, 0)], speed)
    prios = _pg_prios(tables)
    return dict(
        pg_port=np.repeat(np.arange(n_ports, dtype=np.int64), N_TC), lossless=prios.any(axis=1),
        pg_pool=buf.pg_pool.astype(np.int64).ravel(),
        pg_reserved=np.maximum(buf.pg_reserved, 0).astype(np.float64).ravel(),
        pg_headroom=buf.pg_xoff.astype(np.float64).ravel(), pg_xon=buf.pg_xon.astype(np.float64).ravel(),
        pg_xon_offset=buf.pg_xon_offset.astype(np.float64).ravel(), pg_dynamic=(buf.pg_th_mode == TH_DYNAMIC).ravel(),
        pg_alpha=_alpha(buf.pg_dynamic_th).ravel(), pg_static=buf.pg_static_th.astype(np.float64).ravel(),
        pg_prios=prios, pause_delay=np.repeat(pause, N_TC), resume_delay=np.repeat(frame + 2.0 * cable, N_TC),
        honours=np.repeat(np.where(has, nics.honours_pause[np.maximum(nic_of_port, 0)], True), N_TC),
        pg_line=np.repeat(np.minimum(nic_speed, speed) / 8.0, N_TC))


def _storm_arrays(tables: Tables, nics: Nics, n_queues: int) -> dict[str, object]:
    port = nics.port.astype(np.int64)
    prio = nics.storm_priority.astype(np.int64) % N_TC
    stormy = np.isfinite(nics.storm_start_s) & tables.qos.pfc_rx[port, prio]
    queue = tables.qos.pfc_priority_to_queue[port, prio].astype(np.int64)
    wd = tables.watchdog
    return dict(storm_qid=np.where(stormy, port * n_queues + queue, -1), storm_prio=prio, storm_port=port,
                wd_enabled=wd.enabled.ravel().copy(), wd_detect=wd.detection_s.astype(np.float64).ravel(),
                wd_restore=wd.restoration_s.astype(np.float64).ravel(), wd_action=wd.action.astype(np.int64).ravel())


def _derived(tables: Tables) -> dict[str, object]:
    """Pool membership with a spare bin for "no pool"; static thresholds at or above their pool's size
    (SONiC's way of saying "not limited here") and elements without a pool become inf."""
    buf = tables.buffers
    n_pools = len(buf.pool_size)
    size = np.append(buf.pool_size.astype(np.float64), np.inf)
    pg_members = pool_members(buf.pg_pool.astype(np.int64).ravel(), n_pools)
    q_members = pool_members(buf.q_pool.astype(np.int64).ravel(), n_pools)
    pg_static = buf.pg_static_th.astype(np.float64).ravel()
    q_static = buf.q_static_th.astype(np.float64).ravel()
    return dict(pg_members=pg_members, q_members=q_members,
                pg_static_eff=np.where((pg_static >= size[pg_members]) | (pg_members == n_pools), np.inf, pg_static),
                q_static_eff=np.where((q_static >= size[q_members]) | (q_members == n_pools), np.inf, q_static),
                pool_size_pad=size, pool_xoff_pad=np.append(buf.pool_xoff.astype(np.float64), 0.0))


def _row_use(rows: dict[str, object], queues: dict[str, object], pgs: dict[str, object],
             derived: dict[str, object]) -> dict[str, object]:
    """Which queues the rows use, and whether any of their PGs is lossy or any of their queues limited.
    An element no row uses holds nothing and has no rate, so its events are never due; the loops leave
    it out (the same results, less work)."""
    qid, pgid = np.asarray(rows["qid"]), np.asarray(rows["pgid"])
    q_used, q_local = np.unique(qid, return_inverse=True)
    limited = np.asarray(queues["q_dynamic"])[q_used] | np.isfinite(np.asarray(derived["q_static_eff"])[q_used])
    src = np.asarray(rows["src"])
    return dict(q_used=q_used.astype(np.int64), q_local=q_local.astype(np.int64),
                one_per_nic=bool(len(src) and int(np.bincount(src).max()) <= 1),
                rows_lossy=bool((~np.asarray(pgs["lossless"])[pgid]).any()), rows_q_limited=bool(limited.any()))


def build_layout(tables: Tables, nics: Nics, flows: Flows, cfg: RunConfig) -> Layout:
    """The fixed arrays for running ``flows`` from ``nics`` over ``tables``."""
    n_queues = int(tables.qos.sched_kind.shape[1])
    buf = tables.buffers
    rows, queues, pgs, derived = (_flow_arrays(tables, nics, flows, cfg, n_queues), _queue_arrays(tables),
                                  _pg_arrays(tables, nics, cfg), _derived(tables))
    return Layout(
        n_ports=tables.ports.n, n_queues=n_queues, n_flows=flows.n, n_pools=len(buf.pool_size),
        port_cap=tables.ports.speed_bps.astype(np.float64) / 8.0,
        nic_line=np.minimum(nics.speed_bps, tables.ports.speed_bps[nics.port.astype(np.int64)]) / 8.0,
        pool_size=buf.pool_size.astype(np.float64), pool_ingress=buf.pool_ingress.copy(),
        pool_xoff=buf.pool_xoff.astype(np.float64),
        **rows,  # type: ignore[arg-type]
        **queues,  # type: ignore[arg-type]
        **pgs,  # type: ignore[arg-type]
        **_storm_arrays(tables, nics, n_queues),  # type: ignore[arg-type]
        **derived,  # type: ignore[arg-type]
        **_row_use(rows, queues, pgs, derived),  # type: ignore[arg-type]
    )


def pool_members(pool: I64, n_pools: int) -> I64:
    """Pool index per element, ``n_pools`` (a spare bin) for elements without a pool."""
    return np.where(pool == NO_POOL, n_pools, pool).astype(np.int64)
