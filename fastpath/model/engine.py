"""The stepping loop: an adaptive-step fluid model, integrated exactly between events.

Each step takes the state at its start, computes every rate (``rates``), and runs until the nearest
event at those rates: a flow starting or finishing, a queue emptying or crossing a WRED threshold
(``settle.kinks``) or its drop limit, a PG reaching its XOFF point, its XON point or the end of its
headroom, a pause taking effect, the end of a DCQCN window (``settle``: the flows' own DCQCN events do
not end steps), a NAK, a storm or watchdog transition, or ``max_step_s``. The queues are then
integrated exactly (``fluid``), counters added, and the transitions due at the step's end applied.

Cost: a step is a fixed number of numpy operations over flows, queues and PGs, so a run costs
(steps) x (a term linear in flows + ports x 8), independent of the bytes carried; steps grow with the
simulated duration (at least duration / max_step_s) and with the number of distinct events (flow
starts and ends, threshold crossings, DCQCN windows of 25 us while some flow's rate changes). Work
that cannot change anything is left out, with the same results: the queues no flow uses are not
integrated nor searched for events (``Layout.q_used``), the lossy-PG and queue-limit checks only run
when some flow's PG is lossy or queue limited, a queue's ECN probability is computed once for all
its flows (``wred.RowProfiles``), the pause bookkeeping only while a PG is paused, and the port
rates and pause map only for a step that holds a sample.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fastpath.model import dcqcn, nic, pfc, rates, settle, watchdog, wred
from fastpath.model.buffers import Occupancy, occupancy, pool_rates, threshold_rates
from fastpath.model.fluid import bins, contents, crossing, decay, falling
from fastpath.model.inputs import Flows, Nics, RunConfig
from fastpath.model.layout import Layout, build_layout
from fastpath.model.result import Result
from fastpath.model.series import Sampler
from fastpath.model.settle import MIN_STEP
from fastpath.model.tally import Watermarks, assemble
from fastpath.tables import F64, I64, N_TC, B, Tables

TOL = 1.0             # bytes: "at a threshold"
PROGRESS_EVERY = 64   # steps


@dataclass
class Run:
    """Everything that changes during a run."""

    lay: Layout
    flows: Flows
    cfg: RunConfig
    fs: nic.FlowState
    pfc: pfc.PfcState
    dq: dcqcn.DcqcnState
    storms: watchdog.Storms
    wt: rates.WredColumns
    prof: wred.RowProfiles   # the ECN profiles of the flows' queues
    q_arrived: F64       # cumulative admitted wire bytes per queue
    q_removed: F64       # cumulative departed or flushed wire bytes per queue
    marks: Watermarks
    sampler: Sampler
    has_storms: bool
    has_wred: bool
    has_dcqcn: bool
    cap: float           # current step cap (grows while nothing changes)
    t: float = 0.0
    steps: int = 0
    occ: Occupancy | None = None          # occupancy at ``t``, when still valid
    last: rates.Rates | None = None       # the previous step's rates
    calm: bool = False                    # the previous step ended at the cap with nothing changing
    pend: settle.Pending | None = None    # the DCQCN window in progress


def new_run(tables: Tables, nics: Nics, flows: Flows, cfg: RunConfig) -> Run:
    lay = build_layout(tables, nics, flows, cfg)
    n_q = lay.n_ports * lay.n_queues
    qos = tables.qos
    wt = rates.WredColumns(wred_min=qos.wred_min.astype(np.float64).ravel(),
                      wred_max=qos.wred_max.astype(np.float64).ravel(),
                      wred_prob=qos.wred_prob.astype(np.float64).ravel(), wred_ecn=qos.wred_ecn.ravel().copy(),
                      wred_drop=qos.wred_drop.ravel().copy(), any_drop=bool(qos.wred_drop.any()))
    storms = watchdog.plan_storms(lay, nics, cfg)
    dq = dcqcn.DcqcnState.new(flows.dcqcn & lay.runnable, lay.line * 8.0, cfg.dcqcn, np.random.default_rng(cfg.seed))
    return Run(lay=lay, flows=flows, cfg=cfg, fs=nic.new_flows(lay, flows), pfc=pfc.PfcState.new(len(lay.pg_port)),
               dq=dq, storms=storms, wt=wt,
               prof=wred.RowProfiles.of(lay.qid, wt.wred_min, wt.wred_max, wt.wred_prob, wt.wred_ecn),
               q_arrived=np.zeros(n_q), q_removed=np.zeros(n_q),
               marks=Watermarks.new(n_q, lay.n_pools),
               sampler=Sampler.new(cfg.max_time_s, cfg.sample_s, cfg.max_samples, lay.n_ports, lay.n_queues),
               has_storms=bool(np.isfinite(storms.start).any()), has_wred=bool((wt.wred_ecn | wt.wred_drop).any()),
               has_dcqcn=bool(dq.on.any()), cap=cfg.max_step_s)


def _occupancy(run: Run) -> Occupancy:
    if run.occ is None:
        run.occ = occupancy(run.lay, run.fs.content, run.pfc.paused(), run.pfc.frozen)
    return run.occ


def _control(run: Run) -> watchdog.QueueControl:
    if run.has_storms:
        return watchdog.control(run.lay, run.storms, run.t)
    return watchdog.QueueControl(stalled=None, dropping=None)


def _caps(run: Run) -> F64:
    sending = run.fs.phase == nic.SENDING
    if not run.has_dcqcn:
        return np.where(sending, run.lay.line, 0.0)
    rc = run.pend.rc if run.pend is not None else run.dq.rc
    return np.where(sending, np.minimum(rc / 8.0, run.lay.line), 0.0)


def _flow_ends(run: Run, r: rates.Rates) -> float:
    """The step's end for the flows' ends, merged late: each flow's own end (its last byte sent, or
    its last byte out of its queue) is at ``t_i`` and may be taken up to ``slack_i`` later; the step
    runs to the latest ``t_j`` that is no later than every ``t_i + slack_i``, so ends close together
    share a step and none is taken early (``_stretch`` slows the senders that would finish early)."""
    fs, lay = run.fs, run.lay
    t_send = np.divide(fs.remaining, r.send, out=np.full(lay.n_flows, np.inf), where=r.send > 0)
    tail = (fs.phase == nic.TAIL) & ~fs.lost_open
    t_last = np.full(lay.n_flows, np.inf)
    if tail.any():
        serve = r.serve[lay.qid[tail]]
        gap = np.maximum(fs.mark[tail] - run.q_removed[lay.qid[tail]], 0.0)
        t_last[tail] = np.divide(gap, serve, out=np.full(len(gap), np.inf), where=serve > 0)
    ends = np.minimum(t_send, t_last)
    due = np.isfinite(ends)
    if not due.any():
        return float("inf")
    cfg = run.cfg
    slack = np.where(fs.lost_open, 0.0, nic.slack(fs, run.t, cfg.merge_abs_s, cfg.merge_rel))
    limit = float((ends[due] + slack[due]).min())
    return float(ends[due & (ends <= limit)].max())


def _flow_events(run: Run, r: rates.Rates) -> float:
    fs = run.fs
    events = [_flow_ends(run, r), nic.next_start(fs) - run.t]
    if fs.lost_open.any():
        events.append(nic.nak_due(fs) - run.t)
    return min(events)


def _buffer_events(run: Run, occ: Occupancy, r: rates.Rates) -> float:
    lay, tol = run.lay, TOL
    n_q, n_pg = len(occ.q_wire), len(occ.pg)
    net = lay.beta * (r.adm - r.dep)
    q_rate = bins(lay.qid, net, n_q)
    pg_rate = bins(lay.pgid, net, n_pg)
    paused = run.pfc.paused()
    used_rate, head_rate = pool_rates(lay, occ, pg_rate, q_rate, paused, run.pfc.frozen, tol)
    pg_th_rate, q_th_rate = threshold_rates(lay, used_rate)
    used = lay.q_used                      # a queue no row uses stays empty, at no limit
    events = [float(falling(occ.q_wire[used], r.arrive[used] - r.serve[used], 0.0, 1e-6).min(initial=np.inf)),
              pfc.event_time(lay, run.pfc, occ, pg_rate, pg_th_rate, run.t, tol)]
    if lay.rows_q_limited:
        events.append(float(crossing(occ.q_buf, q_rate, lay.q_reserved + occ.q_th, q_th_rate, tol).min()))
    if lay.rows_lossy:
        events.append(float(crossing(occ.pg, np.where(lay.lossless, 0.0, pg_rate), lay.pg_reserved + occ.pg_th,
                                     pg_th_rate, tol).min()))
    kinks = settle.kinks(run.wt, run.pend)
    if kinks is not None:
        events.append(float(wred.kink_time(occ.q_buf[used], q_rate[used], run.wt.wred_min[used],
                                           run.wt.wred_max[used], kinks[used], tol).min(initial=np.inf)))
    pool_left = lay.pool_xoff_pad - occ.pool_head
    if (head_rate > 0).any():
        ok = (lay.pool_xoff_pad > 0) & (head_rate > 0) & (pool_left > tol)
        events.append(float(np.divide(pool_left, head_rate, out=np.full(len(pool_left), np.inf), where=ok).min()))
    return min(events)


def marks_ahead(prof: wred.RowProfiles, qid: I64, beta: F64, pkt_wire: F64, ecn: B, q_buf0: F64,
                adm: F64, dep: F64, owner: I64 | None, n_owners: int) -> Callable[[float], F64]:
    """Expected marked packets per second each flow will receive over a step of ``dt`` from rates
    ``adm``/``dep`` at its start (per row: flows, or segments summed per ``owner``): its departures x the
    mean marking probability over the step, its depth extrapolated linearly from the start's rates."""
    n_q = len(q_buf0)
    q_rate = bins(qid, beta * (adm - dep), n_q)
    per = np.where(ecn, dep / pkt_wire, 0.0)

    def marks(dt: float) -> F64:
        rows = per * prof.mean_prob(q_buf0, np.maximum(q_buf0 + q_rate * dt, 0.0))
        return rows if owner is None else bins(owner, rows, n_owners)
    return marks


def _marks(run: Run, occ: Occupancy, r: rates.Rates | None) -> Callable[[float], F64]:
    """Marks ahead from the rates ``r`` (None: none)."""
    lay = run.lay
    if not run.has_wred or r is None:
        zero = np.zeros(lay.n_flows)
        return lambda dt: zero
    return marks_ahead(run.prof, lay.qid, lay.beta, lay.pkt_wire, run.flows.ecn_capable, occ.q_buf, r.adm,
                       r.dep, None, lay.n_flows)


def _step_length(run: Run, occ: Occupancy, r: rates.Rates) -> tuple[float, bool]:
    """(step length, whether the cap set it); a DCQCN window's end is an event, its flows' events are not."""
    cfg = run.cfg
    events = [_flow_events(run, r), _buffer_events(run, occ, r), cfg.max_time_s - run.t]
    if run.pend is not None:
        events.append(run.pend.end - run.t)
    if run.has_storms:
        events.append(watchdog.next_event(run.storms, run.t) - run.t)
    event = min(events)
    return (max(event, MIN_STEP), False) if event < run.cap else (run.cap, True)


def _rates(run: Run, occ: Occupancy, caps: F64) -> rates.Rates:
    return rates.compute(run.lay, occ, caps, run.fs.content, run.pfc, _control(run), run.wt, run.cap, TOL)


def _same(a: F64, b: F64) -> bool:
    return bool(np.all(np.abs(a - b) <= 1e-9 * np.maximum(np.abs(a), 1.0)))


def _grow_cap(run: Run, r: rates.Rates, capped: bool) -> None:
    """Double the cap while steps end at it with every rate unchanged (a steady state), up to
    ``max_steady_step_s``; back to ``max_step_s`` on any change."""
    last = run.last
    steady = (capped and run.calm and last is not None and _same(r.send, last.send) and _same(r.dep, last.dep)
              and _same(r.serve, last.serve))
    run.cap = min(run.cap * 2.0, run.cfg.max_steady_step_s) if steady else run.cfg.max_step_s
    run.calm = capped
    run.last = r


def _integrate(run: Run, occ: Occupancy, r: rates.Rates, dt: float) -> tuple[F64, F64]:
    """Advance the flows' bytes by ``dt``; returns (queue frame bytes at the end, ECN-marked packets)."""
    fs, lay = run.fs, run.lay
    used = lay.q_used                      # a queue no flow uses stays empty
    q0, arrive = occ.q_wire[used], r.arrive[used]
    q1, rho = decay(q0, arrive, r.serve[used], dt)
    b1 = contents(fs.content, r.adm, lay.q_local, q0, q1, arrive, rho)
    left = np.maximum(fs.content + r.adm * dt - b1, 0.0)
    fs.content = b1
    fs.departed += left
    sent = r.send * dt
    fs.arrived += sent
    fs.sent += sent
    fs.remaining = np.maximum(fs.remaining - sent, 0.0)
    fs.in_drop += (r.send - r.keep) * dt
    fs.out_drop += (r.keep - r.adm) * dt
    n_q = len(occ.q_wire)
    run.q_arrived += r.arrive * dt
    run.q_removed += bins(lay.qid, left, n_q)
    q_buf1 = bins(lay.qid, lay.beta * b1, n_q)
    if not run.has_wred:
        return q_buf1, np.zeros(lay.n_flows)
    p = run.prof.mean_prob(occ.q_buf, q_buf1)
    marked = np.where(run.flows.ecn_capable, left * p / lay.pkt_wire, 0.0)
    fs.marks += marked
    return q_buf1, marked


def _flush(run: Run, nics_flushed: B) -> None:
    """The watchdog's drop action starts: the stopped queues discard what they hold."""
    lay, fs = run.lay, run.fs
    queues = run.storms.qid[nics_flushed]
    hit = np.isin(lay.qid, queues[queues >= 0])
    lost = np.where(hit, fs.content, 0.0)
    fs.out_drop += lost
    run.q_removed += bins(lay.qid, lost, len(run.q_removed))
    fs.content = np.where(hit, 0.0, fs.content)
    nic.open_losses(fs, lost, fs.sent, 2.0 * lay.latency, run.t, run.cfg.timer_grid_s)
    run.occ = None


def _finish_flows(run: Run) -> None:
    fs, lay = run.fs, run.lay
    if fs.lost_open.any():
        nic.naks(fs, run.t)
    nic.end_sending(fs, lay, run.q_arrived, TOL)
    done = nic.completing(fs, lay, run.q_removed, TOL)
    if done.any():
        n_q = len(run.q_arrived)
        resid = bins(lay.qid[done], fs.content[done], n_q)
        fs.content[done] = 0.0
        others = bins(lay.qid, fs.content, n_q)
        factor = np.divide(resid, others, out=np.zeros(n_q), where=others > 0)
        fs.content *= 1.0 + factor[lay.qid]
        run.q_removed += np.where(others > 0, 0.0, resid)
        nic.complete(fs, lay, run.flows, done, run.t, run.cfg.cut_through_s)
        run.occ = None
    nic.begin(fs, lay, run.t)


def _pause_by_priority(lay: Layout, st: pfc.PfcState) -> B:
    paused = st.paused()
    if not paused.any():
        return np.zeros((lay.n_ports, N_TC), dtype=bool)
    return np.asarray((paused[:, None] & lay.pg_prios).reshape(lay.n_ports, N_TC, N_TC).any(axis=1))


def _losses(run: Run, occ: Occupancy, r: rates.Rates, sent0: F64, dt: float) -> None:
    lay = run.lay
    lost = (r.send - r.adm) * dt
    if (lost > 0).any():
        delay = 2.0 * lay.latency + occ.q_wire[lay.qid] / lay.port_cap[np.maximum(lay.out_port, 0)]
        nic.open_losses(run.fs, lost, sent0, delay, run.t, run.cfg.timer_grid_s)


def step(run: Run) -> None:
    """One adaptive step."""
    lay, cfg = run.lay, run.cfg
    occ = _occupancy(run)
    if run.has_dcqcn and run.pend is None:
        send = run.last.send if run.last is not None else np.zeros(lay.n_flows)
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
        tx = bins(lay.out_bin, lay.tx_weight * r.dep, lay.n_ports + 1)[:-1]
        run.sampler.fill(t0, t1, occ.q_buf, q_buf1, tx, _pause_by_priority(lay, run.pfc))
    run.t = t1
    run.steps += 1
    run.occ = None
    _losses(run, occ, r, sent0, dt)
    if run.has_storms:
        watchdog.account(lay, run.storms, t0, t1)
        flush = watchdog.record(lay, run.storms, t1)
        if flush.any():
            _flush(run, flush)
    if run.pend is not None:
        run.dq, run.pend = settle.step_done(run.dq, cfg.dcqcn, run.pend, run.fs, marked, r.send * dt, t1)
    if pfc.transition(lay, run.pfc, _occupancy(run), t1, TOL):
        run.occ = None
    _finish_flows(run)


def finished(run: Run) -> bool:
    """True when nothing can happen any more before ``max_time_s``."""
    if run.t >= run.cfg.max_time_s - MIN_STEP:
        return True
    phase = run.fs.phase
    busy = (phase == nic.SENDING) | (phase == nic.TAIL) | ((phase == nic.WAITING) & np.isfinite(run.fs.start_at))
    if busy.any():
        return False
    return not (run.has_storms and np.isfinite(watchdog.next_event(run.storms, run.t)))


def simulate(tables: Tables, nics: Nics, flows: Flows, cfg: RunConfig,
             progress: Callable[[float], None] | None = None) -> Result:
    """Run ``flows`` between ``nics`` over the switch described by ``tables`` (see the package docstring)."""
    wall = time.perf_counter()
    run = new_run(tables, nics, flows, cfg)
    nic.begin(run.fs, run.lay, 0.0)
    while not finished(run):
        step(run)
        if progress is not None and run.steps % PROGRESS_EVERY == 0:
            progress(min(run.t / cfg.max_time_s, 1.0))
    if progress is not None:
        progress(1.0)
    return assemble(run.lay, run.flows, run.cfg, run.fs, run.pfc, run.storms, run.marks, run.sampler, run.t,
                    run.steps, time.perf_counter() - wall)
