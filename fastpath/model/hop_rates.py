"""Every rate of one step when flows cross several switches: the single-switch rules of
``fastpath.model.rates`` applied per segment (a flow's bytes inside one switch), chained hop by hop.

A segment's arrival rate is the sending rate of its NIC for the first hop, else the departure rate
of the previous segment from its queue at the step's start (fluid: no propagation delay in the rates,
the cables' delays are added to the flows' latency only). Departures depend on arrivals only where a
queue is empty, so the chain is resolved in one pass over the ports in the order of the port graph
(``hop_layout.port_levels``: every segment after the one feeding it; only the active flows'
segments), or, when routing makes that graph cyclic, by sweeping the whole fabric until nothing
changes (at most max hops + 1 times).

Order, as in the single-switch model: NICs share their lines; a first sweep (no pause, no drops) gives
each PG its drain and demand; PFC's sliding-mode rule then holds the paused PGs' senders: a first-hop
PG holds the NIC (re-shared as today), a PG further on holds the upstream switch's egress queue of
that priority (its service is capped at the share the PG allows, so its own ingress PG fills and
pauses in turn, switch by switch). A second sweep applies the caps and the drops (ingress, WRED,
egress tail drop) hop by hop. The ingress drop fractions use the first sweep's arrivals (as the
single-switch model uses the step's sending rates).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.model import pfc, wred
from fastpath.model.buffers import Occupancy
from fastpath.model.fluid import TINY, bins, departures_now
from fastpath.model.hop_layout import Chain, Level
from fastpath.model.layout import Layout
from fastpath.model.rates import WredColumns, lossy_at_limit, queue_at_limit
from fastpath.model.sched import BIG, fair_share, port_service
from fastpath.model.watchdog import QueueControl
from fastpath.tables import F64, I64, B


@dataclass(frozen=True)
class HopRates:
    """Wire bytes per second: per flow (``send``), per segment, per queue."""

    send: F64          # [F] leaving the NIC
    into: F64          # [S] arriving at the segment's ingress
    keep: F64          # [S] admitted at ingress and past WRED
    adm: F64           # [S] admitted into the egress queue
    dep: F64           # [S] leaving the queue at the step's start
    arrive: F64        # [Q]
    serve: F64         # [Q]
    slide: pfc.Sliding
    held: B            # [S]


@dataclass(frozen=True)
class Sweep:
    into: F64
    keep: F64
    adm: F64
    dep: F64
    arrive: F64
    serve: F64


def _service(seg: Layout, depth: F64, arrive: F64, ctl: QueueControl, qcap: F64 | None) -> F64:
    demand = np.where(depth > TINY, BIG, arrive)
    if qcap is not None:
        demand = np.minimum(demand, qcap)
    if ctl.stalled is not None:
        demand[ctl.stalled] = 0.0
    shape = (seg.n_ports, seg.n_queues)
    return port_service(demand.reshape(shape), seg.port_cap, seg.strict, seg.weight, seg.any_strict).ravel()


def _egress(seg: Layout, occ: Occupancy, keep: F64, arrive: F64, serve: F64, ctl: QueueControl,
            tol: float) -> tuple[F64, F64]:
    q_full = queue_at_limit(seg, occ, arrive, serve, tol)
    if q_full is None and ctl.dropping is None:
        return keep, arrive
    n_q = len(arrive)
    if q_full is None:
        q_full = np.zeros(n_q, dtype=bool)
    p_out = np.where(q_full, 1.0 - np.divide(serve, arrive, out=np.ones(n_q), where=arrive > 0), 0.0)
    if ctl.dropping is not None:
        p_out[ctl.dropping] = 1.0
    adm = keep * (1.0 - p_out[seg.qid])
    return adm, bins(seg.qid, adm, n_q)


def sweep(seg: Layout, ch: Chain, occ: Occupancy, content: F64, first_in: F64, ctl: QueueControl,
          qcap: F64 | None, passed: F64 | None, wt: WredColumns | None, tol: float) -> Sweep:
    """Rates along every path from the NICs' rates ``first_in``; with ``wt`` the drops apply
    (``passed``: the ingress admission share per segment, None = all)."""
    n_q = len(occ.q_wire)
    into = np.zeros(ch.n_segs)
    into[ch.first] = first_in
    wred_keep = None
    if wt is not None and wt.any_drop:
        wred_keep = 1.0 - wred.prob(occ.q_buf, wt.wred_min, wt.wred_max, wt.wred_prob, wt.wred_drop)[seg.qid]
    for _ in range(ch.max_hops + 1):
        keep = into if passed is None else into * passed
        if wred_keep is not None:
            keep = keep * wred_keep
        arrive = bins(seg.qid, keep, n_q)
        serve = _service(seg, occ.q_wire, arrive, ctl, qcap)
        adm, arrive = _egress(seg, occ, keep, arrive, serve, ctl, tol) if wt is not None else (keep, arrive)
        dep = departures_now(content, adm, seg.qid, occ.q_wire, arrive, serve)
        if len(ch.inner) == 0:
            break
        nxt = into.copy()
        nxt[ch.inner] = dep[ch.prev]
        if np.array_equal(nxt, into):
            break
        into = nxt
    return Sweep(into=into, keep=keep, adm=adm, dep=dep, arrive=arrive, serve=serve)


def _level_service(seg: Layout, lv: Level, occ: Occupancy, arrive: F64, ctl: QueueControl,
                   qcap: F64 | None) -> F64:
    demand = np.where(occ.q_wire[lv.queues] > TINY, BIG, arrive)
    if qcap is not None:
        demand = np.minimum(demand, qcap[lv.queues])
    if ctl.stalled is not None:
        demand[ctl.stalled[lv.queues]] = 0.0
    p = lv.ports
    return port_service(demand.reshape(len(p), seg.n_queues), seg.port_cap[p], seg.strict[p], seg.weight[p],
                        seg.any_strict).ravel()


def _level_egress(seg: Layout, lv: Level, local: I64, occ: Occupancy, keep: F64, arrive: F64, serve: F64,
                  ctl: QueueControl, tol: float) -> tuple[F64, F64]:
    q = lv.queues
    dropping = ctl.dropping[q] if ctl.dropping is not None else None
    if not seg.rows_q_limited and dropping is None:
        return keep, arrive
    q_full = (occ.q_buf[q] >= seg.q_reserved[q] + occ.q_th[q] - tol) & (arrive > serve)
    if not (q_full.any() or (dropping is not None and dropping.any())):
        return keep, arrive
    p_out = np.where(q_full, 1.0 - np.divide(serve, arrive, out=np.ones(len(q)), where=arrive > 0), 0.0)
    if dropping is not None:
        p_out[dropping] = 1.0
    adm = keep * (1.0 - p_out[local])
    return adm, bins(local, adm, len(q))


def sweep_levels(seg: Layout, ch: Chain, levels: tuple[Level, ...], occ: Occupancy, content: F64, first_in: F64,
                 ctl: QueueControl, qcap: F64 | None, passed: F64 | None, wt: WredColumns | None, tol: float,
                 active: B) -> Sweep:
    """``sweep`` in one pass, level by level of the port graph (each segment after its predecessor),
    over the ``active`` segments only (those of flows sending or with bytes in the fabric)."""
    n_q = len(occ.q_wire)
    into = np.zeros(ch.n_segs)
    into[ch.first] = first_in
    keep, adm, dep = np.zeros(ch.n_segs), np.zeros(ch.n_segs), np.zeros(ch.n_segs)
    arrive, serve = np.zeros(n_q), np.zeros(n_q)
    wred_on = wt is not None and wt.any_drop
    for lv in levels:
        m = active[lv.segs]
        s, local = lv.segs[m], lv.local[m]
        k = into[s] if passed is None else into[s] * passed[s]
        if wred_on:
            assert wt is not None
            q = seg.qid[s]
            k = k * (1.0 - wred.prob(occ.q_buf[q], wt.wred_min[q], wt.wred_max[q], wt.wred_prob[q], wt.wred_drop[q]))
        a = bins(local, k, len(lv.queues))
        sv = _level_service(seg, lv, occ, a, ctl, qcap)
        ad, a = _level_egress(seg, lv, local, occ, k, a, sv, ctl, tol) if wt is not None else (k, a)
        dp = departures_now(content[s], ad, local, occ.q_wire[lv.queues], a, sv)
        keep[s], adm[s], dep[s] = k, ad, dp
        arrive[lv.queues], serve[lv.queues] = a, sv
        nx = ch.has_next[s]
        into[s[nx] + 1] = dp[nx]
    return Sweep(into=into, keep=keep, adm=adm, dep=dep, arrive=arrive, serve=serve)


def _ingress(seg: Layout, occ: Occupancy, st: pfc.PfcState, slide: pfc.Sliding, into: F64, drain: F64,
             held: B, tol: float) -> F64 | None:
    """Share of each segment's bytes the ingress admits, None when it admits everything."""
    n_pg = len(occ.pg)
    lossy_full = lossy_at_limit(seg, occ, tol)
    paused = st.state != pfc.ON
    any_paused = bool(paused.any())
    if not any_paused and lossy_full is None:
        return None
    arr_pg = bins(seg.pgid, seg.beta * into, n_pg)
    at_room = paused & (occ.room <= tol)
    full = (at_room if lossy_full is None else lossy_full | at_room) & (arr_pg > drain)
    p_in = np.where(full, 1.0 - np.divide(drain, arr_pg, out=np.ones(n_pg), where=arr_pg > 0), 0.0)
    if any_paused:
        p_slide = np.divide(slide.loss, slide.offered, out=np.zeros(n_pg), where=slide.offered > 0)
        return np.asarray((1.0 - p_in[seg.pgid]) * np.where(held, 1.0 - p_slide[seg.pgid], 1.0))
    return np.asarray(1.0 - p_in[seg.pgid])


def compute(flow: Layout, seg: Layout, ch: Chain, levels: tuple[Level, ...] | None, occ: Occupancy, cap: F64,
            content: F64, st: pfc.PfcState, ctl: QueueControl, wt: WredColumns, tau: float, tol: float,
            active: B) -> HopRates:
    """All rates of one step (see the module docstring). ``cap``: each flow's sending cap; ``levels``:
    the port graph's levels (one pass per sweep), None to sweep until nothing changes; ``active``: the
    segments of flows that send or hold bytes (the others have no rate). The first sweep is needed
    only while a PG is paused or a lossy PG is full (it gives their drain)."""
    n_pg, n_q = len(occ.pg), len(occ.q_wire)
    demand = fair_share(cap, flow.src, flow.nic_line, flow.one_per_nic)

    def run_sweep(first_in: F64, qcap: F64 | None, passed: F64 | None, w: WredColumns | None) -> Sweep:
        if levels is None:
            return sweep(seg, ch, occ, content, first_in, ctl, qcap, passed, w, tol)
        return sweep_levels(seg, ch, levels, occ, content, first_in, ctl, qcap, passed, w, tol, active)

    if not (st.state != pfc.ON).any() and lossy_at_limit(seg, occ, tol) is None:
        zero = np.zeros(n_pg)
        idle = pfc.Sliding(offered=zero, loss=zero, frame_rate=zero, fraction=zero, peak=zero)
        two = run_sweep(demand, None, None, wt)
        return HopRates(send=demand, into=two.into, keep=two.keep, adm=two.adm, dep=two.dep, arrive=two.arrive,
                        serve=two.serve, slide=idle, held=np.zeros(ch.n_segs, dtype=bool))
    one = run_sweep(demand, None, None, None)
    drain = bins(seg.pgid, seg.beta * one.dep, n_pg)
    demand_pg = bins(seg.pgid, seg.beta * np.where(seg.pausable, one.into, 0.0), n_pg)
    slide = pfc.sliding(seg, st, occ, drain, demand_pg, tau)
    held = seg.pausable & (st.state[seg.pgid] == pfc.PAUSED) & seg.honours[seg.pgid]
    send, qcap, into = demand, None, one.into
    if held.any():
        scale = np.divide(slide.offered, demand_pg, out=np.ones(n_pg), where=demand_pg > 0)
        held_first = held[ch.first]
        if held_first.any():
            send = fair_share(np.where(held_first, demand * scale[seg.pgid[ch.first]], cap), flow.src, flow.nic_line,
                              flow.one_per_nic)
            into = one.into.copy()
            into[ch.first] = send
        held_inner = ch.inner[held[ch.inner]]
        if len(held_inner):
            up = seg.qid[held_inner - 1]
            qcap = np.full(n_q, np.inf)
            np.minimum.at(qcap, up, one.serve[up] * scale[seg.pgid[held_inner]])
    passed = _ingress(seg, occ, st, slide, into, drain, held, tol)
    two = run_sweep(send, qcap, passed, wt)
    return HopRates(send=send, into=two.into, keep=two.keep, adm=two.adm, dep=two.dep, arrive=two.arrive,
                    serve=two.serve, slide=slide, held=held)
