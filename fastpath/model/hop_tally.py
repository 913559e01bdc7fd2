"""Per-segment accumulators of a run across several switches, and its ``Result``.

Counters are summed per segment (each segment has one ingress port/PG and one egress port/queue), so
every switch's port, queue and PG counters come out in the merged index space; pause a switch port
sends to another switch is also counted as received on the peer port (``pfc_rx_*``). Flow outcomes
are per flow: delivered is what left its last hop, dropped the sum over its hops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.model import nic, pfc, watchdog
from fastpath.model.fluid import bins
from fastpath.model.hop_layout import Chain
from fastpath.model.inputs import Flows, Links
from fastpath.model.layout import Layout
from fastpath.model.result import Result
from fastpath.model.series import Sampler
from fastpath.model.tally import Watermarks, _by_priority, counters, payload_per_wire
from fastpath.tables import F64, I64


@dataclass
class SegState:
    """Wire bytes per segment."""

    content: F64
    arrived: F64        # at the segment's ingress
    departed: F64       # out of its egress queue
    in_drop: F64
    out_drop: F64
    marks: F64          # ECN-marked packets

    @classmethod
    def new(cls, n: int) -> SegState:
        z = np.zeros(n)
        return cls(content=z.copy(), arrived=z.copy(), departed=z.copy(), in_drop=z.copy(), out_drop=z.copy(),
                   marks=z.copy())


def _flow_outcomes(flow: Layout, ch: Chain, fs: nic.FlowState, ss: SegState, size: I64) -> dict[str, F64]:
    n = len(fs.phase)
    payload = payload_per_wire(size, flow.total_wire)
    dropped = bins(ch.seg_flow, ss.in_drop + ss.out_drop, n)
    departed = ss.departed[ch.first + ch.n_hops - 1]
    useful = np.clip(departed - np.maximum(fs.retrans - dropped, 0.0), 0.0, flow.total_wire)
    useful = np.where(fs.phase == nic.DONE, flow.total_wire, useful)
    return dict(flow_start_s=fs.started, flow_finish_s=fs.finished, flow_delivered=useful * payload,
                flow_dropped=dropped * payload, flow_retransmitted=fs.retrans * payload,
                flow_ecn_marked_pkts=bins(ch.seg_flow, ss.marks, n))


def _peer_rx(links: Links, tx: F64) -> F64:
    """[P, 8] received at each port from its peer switch port's [P, 8] sent."""
    out = np.zeros_like(tx)
    peer = links.peer.astype(np.int64)
    wired = np.flatnonzero(peer >= 0)
    out[peer[wired]] += tx[wired]
    return out


def assemble_hops(flow: Layout, seg: Layout, ch: Chain, links: Links, flows: Flows, fs: nic.FlowState,
                  ss: SegState, st: pfc.PfcState, storms: watchdog.Storms, marks: Watermarks, sampler: Sampler,
                  now: float, steps: int, wall_s: float) -> Result:
    """The run's ``Result`` (ports, queues and PGs of every switch, merged)."""
    finish = fs.finished[np.isfinite(fs.finished)]
    sim_time = max(now, float(finish.max())) if len(finish) else now
    tx_frames = np.round(_by_priority(seg, st.frames))
    tx_pause = _by_priority(seg, st.pause_s)
    return Result(
        **_flow_outcomes(flow, ch, fs, ss, flows.size),
        **counters(seg, ss.arrived, ss.departed, ss.in_drop, ss.out_drop, ss.marks),
        pfc_tx_frames=tx_frames, pfc_rx_frames=np.round(storms.rx_frames) + _peer_rx(links, tx_frames),
        pfc_tx_pause_s=tx_pause, pfc_rx_pause_s=storms.rx_pause_s + _peer_rx(links, tx_pause),
        queue_max_bytes=marks.queue.reshape(seg.n_ports, seg.n_queues),
        pg_max_shared=st.max_shared.reshape(seg.n_ports, -1), pg_max_headroom=st.max_head.reshape(seg.n_ports, -1),
        pool_max_bytes=marks.pool.copy(), series=sampler.series(now), sim_time_s=sim_time, steps=steps,
        wall_s=wall_s, watchdog_events=sorted(storms.events))
