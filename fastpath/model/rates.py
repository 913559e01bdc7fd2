"""Every rate in the network during one step, from the state at its start (rates then stay constant).

Order: each NIC shares its line among its sending flows (capped by DCQCN); the port schedulers give a
first service estimate, hence each PG's drain; paused PGs hold their senders (PFC sliding mode) and the
NIC re-shares what they leave; the ingress admits (a full PG drops what exceeds its drain, a lossless PG
in duty-cycle overshoot loses the excess), WRED may drop, the scheduler serves the queues, a queue at
its limit tail-drops what exceeds its service (and a queue under the watchdog's drop action drops all).

Approximation, stated: the ingress drop fraction of a full PG is computed before the egress drops of
the same bytes (when both limits bind at once, slightly more is dropped than needed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.model import pfc, wred
from fastpath.model.buffers import Occupancy
from fastpath.model.fluid import TINY, bins, departures_now
from fastpath.model.layout import Layout
from fastpath.model.sched import BIG, fair_share, port_service
from fastpath.model.watchdog import QueueControl
from fastpath.tables import F64, B


@dataclass(frozen=True)
class Rates:
    """Wire bytes per second per flow and per queue during one step."""

    send: F64          # [F] leaving the NIC (= arriving at the ingress)
    keep: F64          # [F] admitted at ingress and past WRED
    adm: F64           # [F] admitted into the egress queue
    dep: F64           # [F] leaving the switch, at the step's start
    arrive: F64        # [queues] admitted arrivals
    serve: F64         # [queues] service
    slide: pfc.Sliding
    held: B            # [F] the flow's PG holds it (sliding mode)


@dataclass(frozen=True)
class WredColumns:
    """The per-queue WRED profile columns (from the compiled tables), flattened like the queues."""

    wred_min: F64
    wred_max: F64
    wred_prob: F64
    wred_ecn: B
    wred_drop: B
    any_drop: bool


def _service(lay: Layout, depth: F64, arrive: F64, ctl: QueueControl) -> F64:
    demand = np.where(depth > TINY, BIG, arrive)
    if ctl.stalled is not None:
        demand[ctl.stalled] = 0.0
    shape = (lay.n_ports, lay.n_queues)
    return port_service(demand.reshape(shape), lay.port_cap, lay.strict, lay.weight, lay.any_strict).ravel()


def lossy_at_limit(lay: Layout, occ: Occupancy, tol: float) -> B | None:
    """The lossy PGs at their drop point, None when none is (or no row's PG is lossy: a PG that no
    flow uses admits nothing, so its limit never binds)."""
    if not lay.rows_lossy:
        return None
    full = ~lay.lossless & (occ.pg >= lay.pg_reserved + occ.pg_th - tol)
    return full if full.any() else None


def queue_at_limit(lay: Layout, occ: Occupancy, arrive: F64, serve: F64, tol: float) -> B | None:
    """The queues at their admission limit that receive more than they send, None when none is (or
    no row's queue has a finite limit)."""
    if not lay.rows_q_limited:
        return None
    full = (occ.q_buf >= lay.q_reserved + occ.q_th - tol) & (arrive > serve)
    return full if full.any() else None


def _ingress(lay: Layout, occ: Occupancy, st: pfc.PfcState, slide: pfc.Sliding, send: F64, drain: F64,
             held: B, tol: float) -> F64 | None:
    """Share of each flow's bytes the ingress admits, None when it admits everything."""
    n_pg = len(occ.pg)
    lossy_full = lossy_at_limit(lay, occ, tol)
    paused = st.state != pfc.ON
    any_paused = bool(paused.any())
    if not any_paused and lossy_full is None:
        return None
    arr_pg = bins(lay.pgid, lay.beta * send, n_pg)
    at_room = paused & (occ.room <= tol)
    full = (at_room if lossy_full is None else lossy_full | at_room) & (arr_pg > drain)
    p_in = np.where(full, 1.0 - np.divide(drain, arr_pg, out=np.ones(n_pg), where=arr_pg > 0), 0.0)
    if any_paused:
        p_slide = np.divide(slide.loss, slide.offered, out=np.zeros(n_pg), where=slide.offered > 0)
        return np.asarray((1.0 - p_in[lay.pgid]) * np.where(held, 1.0 - p_slide[lay.pgid], 1.0))
    return np.asarray(1.0 - p_in[lay.pgid])


def compute(lay: Layout, occ: Occupancy, cap: F64, content: F64, st: pfc.PfcState, ctl: QueueControl,
            wt: WredColumns, tau: float, tol: float) -> Rates:
    """All rates of one step (see the module docstring). ``cap``: each flow's sending cap."""
    n_q, n_pg = len(occ.q_wire), len(occ.pg)
    demand = fair_share(cap, lay.src, lay.nic_line, lay.one_per_nic)
    arrive1 = bins(lay.qid, demand, n_q)
    serve1 = _service(lay, occ.q_wire, arrive1, ctl)
    dep1 = departures_now(content, demand, lay.qid, occ.q_wire, arrive1, serve1)
    drain = bins(lay.pgid, lay.beta * dep1, n_pg)
    demand_pg = bins(lay.pgid, lay.beta * np.where(lay.pausable, demand, 0.0), n_pg)
    slide = pfc.sliding(lay, st, occ, drain, demand_pg, tau)
    held = lay.pausable & (st.state[lay.pgid] == pfc.PAUSED) & lay.honours[lay.pgid]
    send = demand
    if held.any():
        scale = np.divide(slide.offered, demand_pg, out=np.ones(n_pg), where=demand_pg > 0)
        send = fair_share(np.where(held, demand * scale[lay.pgid], cap), lay.src, lay.nic_line, lay.one_per_nic)
    keep = send
    passed = _ingress(lay, occ, st, slide, send, drain, held, tol)
    if passed is not None:
        keep = send * passed
    if wt.any_drop:
        keep = keep * (1.0 - wred.prob(occ.q_buf, wt.wred_min, wt.wred_max, wt.wred_prob, wt.wred_drop)[lay.qid])
    if keep is demand:
        arrive2, serve = arrive1, serve1
    else:
        arrive2 = bins(lay.qid, keep, n_q)
        serve = _service(lay, occ.q_wire, arrive2, ctl)
    q_full = queue_at_limit(lay, occ, arrive2, serve, tol)
    adm, arrive = keep, arrive2
    dropped = q_full is not None or ctl.dropping is not None
    if dropped:
        if q_full is None:
            q_full = np.zeros(n_q, dtype=bool)
        p_out = np.where(q_full, 1.0 - np.divide(serve, arrive2, out=np.ones(n_q), where=arrive2 > 0), 0.0)
        if ctl.dropping is not None:
            p_out[ctl.dropping] = 1.0
        adm = keep * (1.0 - p_out[lay.qid])
        arrive = bins(lay.qid, adm, n_q)
    if keep is demand and not dropped:       # nothing held back nor dropped: the first estimate stands
        dep = dep1
    else:
        dep = departures_now(content, adm, lay.qid, occ.q_wire, arrive, serve)
    return Rates(send=send, keep=keep, adm=adm, dep=dep, arrive=arrive, serve=serve, slide=slide, held=held)
