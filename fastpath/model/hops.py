"""The stepping loop for flows that cross several switches (``Flows.hops``): the same adaptive-step
fluid model as ``fastpath.model.engine``, with a flow's bytes held per segment (one per hop).

Per hop a flow has its own egress queue and ingress PG, counted against that switch's pools and
thresholds (the merged tables keep each switch's pools apart). A PG at a later hop that reaches XOFF
pauses the upstream switch's egress queue of that priority once the pause has crossed the link
(``hop_rates``), so a pause spreads back switch by switch to the NIC. ECN marks at any hop add to the
sender's DCQCN; a loss at any hop opens the sender's go-back-N episode.

Simplifications, stated (beyond those of the single-switch modules):

* fluid hops: a segment's arrival rate is its predecessor's departure rate at the step's start, with
  no propagation delay inside the fabric (cables and cut-through are added to the flow's latency: the
  finish time is the last byte out of the last queue + hops x cut-through + every cable on the path);
  whatever the predecessor really sent during the step (its content-share split moves within a step)
  is added to the segment at the step's end, so no byte is created or lost between hops;
* FIFO completion hop by hop: the last byte leaves hop h when its queue has sent everything that had
  arrived before it, and is then at the tail of hop h + 1; what the content-share split still held
  for the flow at hop h is handed to the other flows in that queue (as the single-switch loop does at
  completion), so the queue's depth stays right and the flow's later-hop counters miss those bytes;
* pause from a switch to a switch stops the peer's egress queue (not its whole port), PFC storms come
  only from NICs, and the watchdog watches queues as in the single-switch model.

Cost: as ``engine``, with the step's sums over segments taken over the live ones only (``Live``: the
segments of the flows sending or with their tail in the fabric; the others are empty and still), so
a chained workload pays for the flows in progress, not for all of its flows' hops.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fastpath.model import dcqcn, hop_rates, nic, pfc, rates, settle, watchdog, wred
from fastpath.model.buffers import Occupancy, occupancy, pool_rates, threshold_rates
from fastpath.model.engine import PROGRESS_EVERY, TOL, _pause_by_priority, _same, marks_ahead
from fastpath.model.fluid import bins, contents, crossing, decay, falling
from fastpath.model.hop_layout import Chain, Level, build_hop_layouts
from fastpath.model.hop_tally import SegState, assemble_hops
from fastpath.model.inputs import Flows, Links, Nics, RunConfig
from fastpath.model.layout import Layout
from fastpath.model.result import Result
from fastpath.model.series import Sampler
from fastpath.model.settle import MIN_STEP
from fastpath.model.tally import Watermarks
from fastpath.tables import F64, I64, B, Tables


@dataclass(frozen=True)
class Live:
    """The segments that may hold bytes or carry a rate in a step: those of the flows sending or with
    their tail in the fabric at its start. Every other segment is empty and still (a flow waiting has
    sent nothing, a finished one has handed its last bytes over hop by hop), so the step's sums over
    segments are taken over these only: the same sums, with the zero terms left out (a few hundred of
    the K = 8 fat tree's 9,600 segments at a time)."""

    segs: I64
    qid: I64
    pgid: I64
    beta: F64
    q_local: I64
    flow: I64

    @classmethod
    def of(cls, run: HopRun) -> Live:
        phase, seg = run.fs.phase, run.seg
        segs = np.flatnonzero(((phase == nic.SENDING) | (phase == nic.TAIL))[run.ch.seg_flow])
        return cls(segs=segs, qid=seg.qid[segs], pgid=seg.pgid[segs], beta=seg.beta[segs], q_local=seg.q_local[segs],
                   flow=run.ch.seg_flow[segs])


@dataclass
class HopRun:
    """Everything that changes during a run across several switches."""

    flow: Layout
    seg: Layout
    ch: Chain
    levels: tuple[Level, ...] | None
    links: Links
    flows: Flows
    cfg: RunConfig
    fs: nic.FlowState
    ss: SegState
    tail: I64            # [F] hop holding a TAIL flow's last byte
    pfc: pfc.PfcState
    dq: dcqcn.DcqcnState
    storms: watchdog.Storms
    wt: rates.WredColumns
    prof: wred.RowProfiles   # the ECN profiles of the segments' queues
    q_arrived: F64
    q_removed: F64
    marks: Watermarks
    sampler: Sampler
    has_storms: bool
    has_wred: bool
    has_dcqcn: bool
    cap: float
    t: float = 0.0
    steps: int = 0
    occ: Occupancy | None = None
    last: hop_rates.HopRates | None = None
    calm: bool = False
    pend: settle.Pending | None = None    # the DCQCN window in progress
    live: Live | None = None              # the step's live segments


def new_run(tables: Tables, nics: Nics, flows: Flows, links: Links, cfg: RunConfig) -> HopRun:
    flow, seg, ch, levels = build_hop_layouts(tables, nics, flows, links, cfg)
    n_q = seg.n_ports * seg.n_queues
    qos = tables.qos
    wt = rates.WredColumns(wred_min=qos.wred_min.astype(np.float64).ravel(),
                           wred_max=qos.wred_max.astype(np.float64).ravel(),
                           wred_prob=qos.wred_prob.astype(np.float64).ravel(), wred_ecn=qos.wred_ecn.ravel().copy(),
                           wred_drop=qos.wred_drop.ravel().copy(), any_drop=bool(qos.wred_drop.any()))
    storms = watchdog.plan_storms(seg, nics, cfg)
    dq = dcqcn.DcqcnState.new(flows.dcqcn & flow.runnable, flow.line * 8.0, cfg.dcqcn,
                              np.random.default_rng(cfg.seed))
    return HopRun(flow=flow, seg=seg, ch=ch, levels=levels, links=links, flows=flows, cfg=cfg,
                  fs=nic.new_flows(flow, flows),
                  ss=SegState.new(ch.n_segs), tail=np.zeros(flows.n, dtype=np.int64),
                  pfc=pfc.PfcState.new(len(seg.pg_port)), dq=dq, storms=storms, wt=wt,
                  prof=wred.RowProfiles.of(seg.qid, wt.wred_min, wt.wred_max, wt.wred_prob, wt.wred_ecn),
                  q_arrived=np.zeros(n_q),
                  q_removed=np.zeros(n_q), marks=Watermarks.new(n_q, seg.n_pools),
                  sampler=Sampler.new(cfg.max_time_s, cfg.sample_s, cfg.max_samples, seg.n_ports, seg.n_queues),
                  has_storms=bool(np.isfinite(storms.start).any()),
                  has_wred=bool((wt.wred_ecn | wt.wred_drop).any()), has_dcqcn=bool(dq.on.any()),
                  cap=cfg.max_step_s)


def _occupancy(run: HopRun) -> Occupancy:
    if run.occ is None:
        run.occ = occupancy(run.seg, run.ss.content, run.pfc.paused(), run.pfc.frozen, _live(run).segs)
    return run.occ


def _live(run: HopRun) -> Live:
    if run.live is None:
        run.live = Live.of(run)
    return run.live


def _control(run: HopRun) -> watchdog.QueueControl:
    if run.has_storms:
        return watchdog.control(run.seg, run.storms, run.t)
    return watchdog.QueueControl(stalled=None, dropping=None)


def _caps(run: HopRun) -> F64:
    sending = run.fs.phase == nic.SENDING
    if not run.has_dcqcn:
        return np.where(sending, run.flow.line, 0.0)
    rc = run.pend.rc if run.pend is not None else run.dq.rc
    return np.where(sending, np.minimum(rc / 8.0, run.flow.line), 0.0)


def _tail_seg(run: HopRun) -> I64:
    return np.asarray(run.ch.first + run.tail)


def _flow_ends(run: HopRun, r: hop_rates.HopRates) -> float:
    """As ``engine._flow_ends``, the last byte's time taken at the queue of the hop that holds it."""
    fs, n = run.fs, run.flows.n
    t_send = np.divide(fs.remaining, r.send, out=np.full(n, np.inf), where=r.send > 0)
    tail = (fs.phase == nic.TAIL) & ~fs.lost_open
    t_last = np.full(n, np.inf)
    if tail.any():
        qid = run.seg.qid[_tail_seg(run)[tail]]
        serve = r.serve[qid]
        gap = np.maximum(fs.mark[tail] - run.q_removed[qid], 0.0)
        t_last[tail] = np.divide(gap, serve, out=np.full(len(gap), np.inf), where=serve > 0)
    ends = np.minimum(t_send, t_last)
    due = np.isfinite(ends)
    if not due.any():
        return float("inf")
    cfg = run.cfg
    slack = np.where(fs.lost_open, 0.0, nic.slack(fs, run.t, cfg.merge_abs_s, cfg.merge_rel))
    limit = float((ends[due] + slack[due]).min())
    return float(ends[due & (ends <= limit)].max())


def _flow_events(run: HopRun, r: hop_rates.HopRates) -> float:
    fs = run.fs
    events = [_flow_ends(run, r), nic.next_start(fs) - run.t]
    if fs.lost_open.any():
        events.append(nic.nak_due(fs) - run.t)
    return min(events)


def _buffer_events(run: HopRun, occ: Occupancy, r: hop_rates.HopRates) -> float:
    seg, tol, lv = run.seg, TOL, _live(run)
    n_q, n_pg = len(occ.q_wire), len(occ.pg)
    net = lv.beta * (r.adm[lv.segs] - r.dep[lv.segs])
    q_rate = bins(lv.qid, net, n_q)
    pg_rate = bins(lv.pgid, net, n_pg)
    paused = run.pfc.paused()
    used_rate, head_rate = pool_rates(seg, occ, pg_rate, q_rate, paused, run.pfc.frozen, tol)
    pg_th_rate, q_th_rate = threshold_rates(seg, used_rate)
    used = seg.q_used                      # a queue no row uses stays empty, at no limit
    events = [float(falling(occ.q_wire[used], r.arrive[used] - r.serve[used], 0.0, 1e-6).min(initial=np.inf)),
              pfc.event_time(seg, run.pfc, occ, pg_rate, pg_th_rate, run.t, tol)]
    if seg.rows_q_limited:
        events.append(float(crossing(occ.q_buf, q_rate, seg.q_reserved + occ.q_th, q_th_rate, tol).min()))
    if seg.rows_lossy:
        events.append(float(crossing(occ.pg, np.where(seg.lossless, 0.0, pg_rate), seg.pg_reserved + occ.pg_th,
                                     pg_th_rate, tol).min()))
    kinks = settle.kinks(run.wt, run.pend)
    if kinks is not None:
        events.append(float(wred.kink_time(occ.q_buf[used], q_rate[used], run.wt.wred_min[used],
                                           run.wt.wred_max[used], kinks[used], tol).min(initial=np.inf)))
    pool_left = seg.pool_xoff_pad - occ.pool_head
    if (head_rate > 0).any():
        ok = (seg.pool_xoff_pad > 0) & (head_rate > 0) & (pool_left > tol)
        events.append(float(np.divide(pool_left, head_rate, out=np.full(len(pool_left), np.inf), where=ok).min()))
    return min(events)


def _marks(run: HopRun, occ: Occupancy, r: hop_rates.HopRates | None) -> Callable[[float], F64]:
    """Expected marked packets per second each flow will receive (summed over its hops) at the rates
    ``r`` (None: none)."""
    seg, n = run.seg, run.flows.n
    if not run.has_wred or r is None:
        zero = np.zeros(n)
        return lambda dt: zero
    return marks_ahead(run.prof, seg.qid, seg.beta, seg.pkt_wire, run.flows.ecn_capable[run.ch.seg_flow], occ.q_buf,
                       r.adm, r.dep, run.ch.seg_flow, n)


def _step_length(run: HopRun, occ: Occupancy, r: hop_rates.HopRates) -> tuple[float, bool]:
    cfg = run.cfg
    events = [_flow_events(run, r), _buffer_events(run, occ, r), cfg.max_time_s - run.t]
    if run.pend is not None:
        events.append(run.pend.end - run.t)
    if run.has_storms:
        events.append(watchdog.next_event(run.storms, run.t) - run.t)
    event = min(events)
    return (max(event, MIN_STEP), False) if event < run.cap else (run.cap, True)


def _rates(run: HopRun, occ: Occupancy, caps: F64) -> hop_rates.HopRates:
    phase = run.fs.phase
    active = ((phase == nic.SENDING) | (phase == nic.TAIL))[run.ch.seg_flow]
    return hop_rates.compute(run.flow, run.seg, run.ch, run.levels, occ, caps, run.ss.content, run.pfc,
                             _control(run), run.wt, run.cap, TOL, active)


def _grow_cap(run: HopRun, r: hop_rates.HopRates, capped: bool) -> None:
    last = run.last
    steady = (capped and run.calm and last is not None and _same(r.send, last.send) and _same(r.dep, last.dep)
              and _same(r.serve, last.serve))
    run.cap = min(run.cap * 2.0, run.cfg.max_steady_step_s) if steady else run.cfg.max_step_s
    run.calm = capped
    run.last = r


def _reconcile(seg: Layout, segs: I64, r: hop_rates.HopRates, dt: float, q1: F64, b1: F64, left: F64,
               added: F64, arrived: F64) -> None:
    """Segments ``segs`` get what their predecessors really sent this step, not the constant rate the
    step assumed: the difference joins the segment's content where its queue holds bytes at the
    step's end (``q1``: the used queues' depths, ``Layout.q_local``), else it passes straight through
    (an empty queue holds nothing)."""
    prev = segs - 1
    into = r.into[segs]
    ratio = np.divide(r.adm[segs], into, out=np.ones(len(segs)), where=into > 0)
    extra = (left[prev] - into * dt) * ratio
    held = q1[seg.q_local[segs]] > TOL
    fix = np.where(held, np.maximum(b1[segs] + extra, 0.0) - b1[segs], 0.0)
    through = np.where(held, 0.0, np.maximum(left[segs] + extra, 0.0) - left[segs])
    b1[segs] += fix
    left[segs] += through
    added[segs] += fix + through
    arrived[segs] = left[prev]


def _integrate(run: HopRun, occ: Occupancy, r: hop_rates.HopRates, dt: float) -> tuple[F64, F64]:
    """Advance the live segments by ``dt`` (the others stay empty); returns (queue frame bytes at the
    end, marked packets per flow)."""
    fs, ss, seg, ch, lv = run.fs, run.ss, run.seg, run.ch, _live(run)
    n_q, n_s, live_segs = len(occ.q_wire), ch.n_segs, lv.segs
    used = seg.q_used                      # a queue no segment uses stays empty
    q0, arrive = occ.q_wire[used], r.arrive[used]
    q1, rho = decay(q0, arrive, r.serve[used], dt)
    c0, adm, into = ss.content[live_segs], r.adm[live_segs], r.into[live_segs]
    b1_live = contents(c0, adm, lv.q_local, q0, q1, arrive, rho)
    b1, left, added, arrived = np.zeros(n_s), np.zeros(n_s), np.zeros(n_s), np.zeros(n_s)
    b1[live_segs] = b1_live
    left[live_segs] = np.maximum(c0 + adm * dt - b1_live, 0.0)
    added[live_segs] = adm * dt
    arrived[live_segs] = into * dt
    live = (fs.phase == nic.SENDING) | (fs.phase == nic.TAIL)
    for segs in ch.by_hop:      # hop order: what passes through one hop reaches the next
        mine = segs[live[ch.seg_flow[segs]]]
        if len(mine):
            _reconcile(seg, mine, r, dt, q1, b1, left, added, arrived)
    b1, left, added, arrived = b1[live_segs], left[live_segs], added[live_segs], arrived[live_segs]
    ss.content[live_segs] = b1
    ss.departed[live_segs] += left
    ss.arrived[live_segs] += arrived
    keep = r.keep[live_segs]
    ss.in_drop[live_segs] += (into - keep) * dt
    ss.out_drop[live_segs] += (keep - adm) * dt
    sent = r.send * dt
    fs.arrived += sent
    fs.sent += sent
    fs.remaining = np.maximum(fs.remaining - sent, 0.0)
    run.q_arrived += bins(lv.qid, added, n_q)
    run.q_removed += bins(lv.qid, left, n_q)
    q_buf1 = bins(lv.qid, lv.beta * b1, n_q)
    if not run.has_wred:
        return q_buf1, np.zeros(run.flows.n)
    p = run.prof.mean_prob(occ.q_buf, q_buf1, live_segs)
    marked = np.where(run.flows.ecn_capable[lv.flow], left * p / seg.pkt_wire[live_segs], 0.0)
    ss.marks[live_segs] += marked
    return q_buf1, bins(lv.flow, marked, run.flows.n)


def _flush(run: HopRun, nics_flushed: B) -> None:
    seg, ss = run.seg, run.ss
    queues = run.storms.qid[nics_flushed]
    hit = np.isin(seg.qid, queues[queues >= 0])
    lost = np.where(hit, ss.content, 0.0)
    ss.out_drop += lost
    run.q_removed += bins(seg.qid, lost, len(run.q_removed))
    ss.content = np.where(hit, 0.0, ss.content)
    lost_f = bins(run.ch.seg_flow, lost, run.flows.n)
    nic.open_losses(run.fs, lost_f, run.fs.sent, 2.0 * run.flow.latency, run.t, run.cfg.timer_grid_s)
    run.occ = None


def _hand_over(run: HopRun, segs: I64) -> None:
    """The flows' last bytes have left these segments: what the content split still gives them goes to
    the others in the same queue (``engine._finish_flows``)."""
    ss, seg = run.ss, run.seg
    n_q = len(run.q_arrived)
    lv = _live(run)                        # only live segments hold bytes
    resid = bins(seg.qid[segs], ss.content[segs], n_q)
    ss.content[segs] = 0.0
    others = bins(lv.qid, ss.content[lv.segs], n_q)
    factor = np.divide(resid, others, out=np.zeros(n_q), where=others > 0)
    ss.content[lv.segs] *= 1.0 + factor[lv.qid]
    run.q_removed += np.where(others > 0, 0.0, resid)


def _advance_tails(run: HopRun) -> bool:
    """Move the last bytes that have left their hop's queue to the next hop, completing the flows
    whose last hop that was; True when something moved."""
    fs, seg, ch = run.fs, run.seg, run.ch
    tail_seg = _tail_seg(run)
    passed = (fs.phase == nic.TAIL) & ~fs.lost_open & (run.q_removed[seg.qid[tail_seg]] >= fs.mark - TOL)
    if not passed.any():
        return False
    _hand_over(run, tail_seg[passed])
    done = passed & (run.tail == ch.n_hops - 1)
    moved = passed & ~done
    run.tail[moved] += 1
    fs.mark[moved] = run.q_arrived[seg.qid[ch.first[moved] + run.tail[moved]]]
    if done.any():
        nic.complete(fs, run.flow, run.flows, done, run.t, run.cfg.cut_through_s)
    run.occ = None
    return True


def _finish_flows(run: HopRun) -> None:
    fs, seg = run.fs, run.seg
    if fs.lost_open.any():
        nic.naks(fs, run.t)
        run.tail[fs.phase == nic.SENDING] = 0
    over = (fs.phase == nic.SENDING) & (fs.remaining <= TOL)
    fs.remaining[over] = 0.0
    fs.phase[over] = nic.TAIL
    run.tail[over] = 0
    fs.mark[over] = run.q_arrived[seg.qid[run.ch.first[over]]]
    for _ in range(run.ch.max_hops):
        if not _advance_tails(run):
            break
    nic.begin(fs, run.flow, run.t)


def _losses(run: HopRun, occ: Occupancy, r: hop_rates.HopRates, sent0: F64, dt: float) -> None:
    seg, n, lv = run.seg, run.flows.n, _live(run)
    lost_seg = (r.into[lv.segs] - r.adm[lv.segs]) * dt
    if not (lost_seg > 0).any():
        return
    lost = bins(lv.flow, lost_seg, n)
    wait = np.where(lost_seg > 0, occ.q_wire[lv.qid] / seg.port_cap[np.maximum(seg.out_port[lv.segs], 0)], 0.0)
    queue_delay = np.zeros(n)
    np.maximum.at(queue_delay, lv.flow, wait)
    nic.open_losses(run.fs, lost, sent0, 2.0 * run.flow.latency + queue_delay, run.t, run.cfg.timer_grid_s)


def step(run: HopRun) -> None:
    """One adaptive step (``engine.step`` over segments)."""
    seg, cfg = run.seg, run.cfg
    run.live = Live.of(run)
    occ = _occupancy(run)
    if run.has_dcqcn and run.pend is None:
        send = run.last.send if run.last is not None else np.zeros(run.flows.n)
        run.pend = settle.open_window(run.dq, cfg.dcqcn, run.fs, _marks(run, occ, run.last)(cfg.dcqcn_window_s), send,
                                      run.t, cfg.dcqcn_window_s)
    caps = _caps(run)
    r = _rates(run, occ, caps)
    dt, capped = _step_length(run, occ, r)
    dt, capped = settle.quiet_step(run.dq, cfg.dcqcn, run.pend, lambda d: _marks(run, occ, r)(d), r.send,
                                     dt, capped)
    r, dt, capped = settle.stretch(run.fs, r, caps, dt, capped, lambda c: _rates(run, occ, c),
                                   lambda rr: _step_length(run, occ, rr))
    _grow_cap(run, r, capped)
    t0, t1 = run.t, run.t + dt
    sent0 = run.fs.sent.copy()
    q_buf1, marked = _integrate(run, occ, r, dt)
    pfc.account(run.pfc, r.slide, occ, dt)
    run.marks.raise_to(occ, q_buf1)
    if run.sampler.due(t0, t1):
        lv = _live(run)
        tx = bins(seg.out_bin[lv.segs], seg.tx_weight[lv.segs] * r.dep[lv.segs], seg.n_ports + 1)[:-1]
        run.sampler.fill(t0, t1, occ.q_buf, q_buf1, tx, _pause_by_priority(seg, run.pfc))
    run.t = t1
    run.steps += 1
    run.occ = None
    _losses(run, occ, r, sent0, dt)
    if run.has_storms:
        watchdog.account(seg, run.storms, t0, t1)
        flush = watchdog.record(seg, run.storms, t1)
        if flush.any():
            _flush(run, flush)
    if run.pend is not None:
        run.dq, run.pend = settle.step_done(run.dq, cfg.dcqcn, run.pend, run.fs, marked, r.send * dt, t1)
    if pfc.transition(seg, run.pfc, _occupancy(run), t1, TOL):
        run.occ = None
    _finish_flows(run)


def finished(run: HopRun) -> bool:
    if run.t >= run.cfg.max_time_s - MIN_STEP:
        return True
    phase = run.fs.phase
    busy = (phase == nic.SENDING) | (phase == nic.TAIL) | ((phase == nic.WAITING) & np.isfinite(run.fs.start_at))
    if busy.any():
        return False
    return not (run.has_storms and np.isfinite(watchdog.next_event(run.storms, run.t)))


def simulate_hops(tables: Tables, nics: Nics, flows: Flows, links: Links, cfg: RunConfig,
                  progress: Callable[[float], None] | None = None) -> Result:
    """Run ``flows`` (with ``hops``) between ``nics`` over the merged ``tables`` wired by ``links``."""
    wall = time.perf_counter()
    run = new_run(tables, nics, flows, links, cfg)
    nic.begin(run.fs, run.flow, 0.0)
    while not finished(run):
        step(run)
        if progress is not None and run.steps % PROGRESS_EVERY == 0:
            progress(min(run.t / cfg.max_time_s, 1.0))
    if progress is not None:
        progress(1.0)
    return assemble_hops(run.flow, run.seg, run.ch, run.links, run.flows, run.fs, run.ss, run.pfc, run.storms,
                         run.marks, run.sampler, run.t, run.steps, time.perf_counter() - wall)
