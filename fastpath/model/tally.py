"""From the run's per-flow and per-PG accumulators to the ``Result``: counters per port, queue, PG and
priority, watermarks, flow outcomes.

Each flow uses one ingress port/PG and one egress port/queue, so per-flow totals, summed with
``bincount``, give every counter. Packets are ``ceil(frame bytes / (mtu + header))`` per flow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fastpath.model import nic, pfc, watchdog
from fastpath.model.buffers import Occupancy
from fastpath.model.fluid import bins
from fastpath.model.inputs import Flows, RunConfig
from fastpath.model.layout import Layout
from fastpath.model.result import Result
from fastpath.model.series import Sampler
from fastpath.tables import F64, I64, N_TC


@dataclass
class Watermarks:
    """Peaks seen at step boundaries (queue depth is linear within a step, so its peak is at an end)."""

    queue: F64
    pool: F64

    @classmethod
    def new(cls, n_queues: int, n_pools: int) -> Watermarks:
        return cls(queue=np.zeros(n_queues), pool=np.zeros(n_pools))

    def raise_to(self, occ: Occupancy, q_buf_end: F64) -> None:
        np.maximum(self.queue, np.maximum(occ.q_buf, q_buf_end), out=self.queue)
        np.maximum(self.pool, (occ.pool_used + occ.pool_head)[:-1], out=self.pool)


def _sum(index: I64, values: F64, n: int) -> F64:
    return bins(index, values, n)


def _pkts(frame_bytes: F64, lay: Layout) -> F64:
    return np.asarray(np.ceil(frame_bytes / lay.pkt_frame - 1e-9))


def _by_priority(lay: Layout, per_pg: F64) -> F64:
    """[P * 8] per PG -> [P, 8] per priority (each priority its PG pauses gets the PG's value)."""
    out = per_pg[:, None] * lay.pg_prios
    return np.asarray(out.reshape(lay.n_ports, N_TC, N_TC).sum(axis=1))


def payload_per_wire(size: Any, total_wire: F64) -> F64:
    """Each flow's payload bytes per wire byte, exact over its whole message (its last packet is short:
    the full-packet ratio would count its headers' share of the missing bytes as payload)."""
    return np.asarray(np.divide(np.asarray(size, dtype=np.float64), total_wire,
                                out=np.zeros(len(total_wire)), where=total_wire > 0))


def _flow_outcomes(lay: Layout, fs: nic.FlowState, size: Any) -> dict[str, F64]:
    payload = payload_per_wire(size, lay.total_wire)
    dropped = fs.in_drop + fs.out_drop
    useful = np.clip(fs.departed - np.maximum(fs.retrans - dropped, 0.0), 0.0, lay.total_wire)
    useful = np.where(fs.phase == nic.DONE, lay.total_wire, useful)
    return dict(flow_start_s=fs.started, flow_finish_s=fs.finished, flow_delivered=useful * payload,
                flow_dropped=dropped * payload, flow_retransmitted=fs.retrans * payload,
                flow_ecn_marked_pkts=fs.marks)


def _counters(lay: Layout, fs: nic.FlowState) -> dict[str, F64]:
    return counters(lay, fs.arrived, fs.departed, fs.in_drop, fs.out_drop, fs.marks)


def counters(lay: Layout, arrived: F64, departed: F64, in_drop: F64, out_drop: F64, marks: F64) -> dict[str, F64]:
    """Port, queue and PG counters from per-row totals (wire bytes; rows are flows, or segments)."""
    n_q, n_pg, p = lay.n_ports * lay.n_queues, lay.n_ports * N_TC, lay.n_ports
    run = lay.runnable
    rx, tx = arrived * lay.beta, departed * lay.beta
    qdrop, pgdrop = out_drop * lay.beta, in_drop * lay.beta
    in_port, out_port = lay.in_port[run], lay.out_port[run]
    qid, pgid = lay.qid[run], lay.pgid[run]
    shape_q, shape_pg = (p, lay.n_queues), (p, N_TC)
    return dict(
        port_rx_bytes=_sum(in_port, rx[run], p), port_rx_pkts=_sum(in_port, _pkts(rx, lay)[run], p),
        port_tx_bytes=_sum(out_port, tx[run], p), port_tx_pkts=_sum(out_port, _pkts(tx, lay)[run], p),
        queue_tx_bytes=_sum(qid, tx[run], n_q).reshape(shape_q),
        queue_tx_pkts=_sum(qid, _pkts(tx, lay)[run], n_q).reshape(shape_q),
        queue_drop_bytes=_sum(qid, qdrop[run], n_q).reshape(shape_q),
        queue_drop_pkts=_sum(qid, _pkts(qdrop, lay)[run], n_q).reshape(shape_q),
        queue_ecn_marked_pkts=_sum(qid, marks[run], n_q).reshape(shape_q),
        pg_rx_bytes=_sum(pgid, rx[run], n_pg).reshape(shape_pg),
        pg_rx_pkts=_sum(pgid, _pkts(rx, lay)[run], n_pg).reshape(shape_pg),
        pg_drop_pkts=_sum(pgid, _pkts(pgdrop, lay)[run], n_pg).reshape(shape_pg))


def assemble(lay: Layout, flows: Flows, cfg: RunConfig, fs: nic.FlowState, st: pfc.PfcState,
             storms: watchdog.Storms, marks: Watermarks, sampler: Sampler, now: float, steps: int,
             wall_s: float) -> Result:
    """The run's ``Result``."""
    finish = fs.finished[np.isfinite(fs.finished)]
    sim_time = max(now, float(finish.max())) if len(finish) else now
    events = sorted(storms.events)
    return Result(
        **_flow_outcomes(lay, fs, flows.size), **_counters(lay, fs),
        pfc_tx_frames=np.round(_by_priority(lay, st.frames)), pfc_rx_frames=np.round(storms.rx_frames),
        pfc_tx_pause_s=_by_priority(lay, st.pause_s), pfc_rx_pause_s=storms.rx_pause_s,
        queue_max_bytes=marks.queue.reshape(lay.n_ports, lay.n_queues),
        pg_max_shared=st.max_shared.reshape(lay.n_ports, N_TC), pg_max_headroom=st.max_head.reshape(lay.n_ports, N_TC),
        pool_max_bytes=marks.pool.copy(), series=sampler.series(now), sim_time_s=sim_time, steps=steps,
        wall_s=wall_s, watchdog_events=events)
