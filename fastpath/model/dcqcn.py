"""DCQCN reaction point per flow (Zhu et al., SIGCOMM 2015; the ns-3 HPCC implementation's rules).

* The receiver returns a CNP for the first ECN-marked packet that arrives once ``cnp_interval_s`` has
  passed since its last CNP for that flow. Marking is per packet with the WRED probability, so the
  first mark comes after a random number of expected marks: each flow draws an Exp(1) budget (from the
  run's seeded generator) and gets its CNP when the expected marks it received since the interval
  expired reach it (this keeps flows from cutting in lockstep, as real marking does).
* On a CNP: Rt = Rc (always with ``clamp_target_rate``, else only if the rate rose since the last cut),
  Rc = max(min_rate, Rc (1 - alpha / 2)), alpha = (1 - g) alpha + g; the increase timer, byte counter
  and stage restart.
* alpha decays by (1 - g) every ``alpha_period_s`` without a CNP (applied lazily at the next CNP).
* Every ``rate_increase_period_s`` (and every ``byte_counter_bytes`` sent, if set) while below line
  rate: stage < F: fast recovery Rc = (Rt + Rc) / 2; stage = F: additive, Rt += AI; stage > F: hyper,
  Rt += HAI; then Rc = (Rt + Rc) / 2 and stage += 1 (Rt capped at line rate).

Events over a window (``advance``): every flow's events in a span of time are taken at their own
times, in order (no grid), from its expected marks and bytes per second over the span; the result is
the state at the span's end and each flow's mean Rc over it. The stepping loops use it in windows of
several steps (``fastpath.model.settle``), so that 64 flows cutting and raising their rates at their
own phases every ~50 us do not each end a step.

Approximations, stated: CNPs act when the marks reach the sender (no return-path delay: a few
microseconds against the 50 us CNP spacing); within a window a flow's marks arrive at a constant rate
(the window's marks / its length); a rate change inside a window is spread over the window (the flow
sends the bytes its Rc allows over the window, evenly: a change takes effect up to one window,
``RunConfig.dcqcn_window_s`` = 25 us, early or late).
Rates here are wire bits per second.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from fastpath.model.inputs import DcqcnParams
from fastpath.tables import F64, I64, B

MAX_EVENTS = 8       # events per flow in one ``advance``; beyond, the window ends at the first one left
EPS_T = 1e-12        # seconds: an event this close after a window's end falls in it (float rounding of t0 + dt)


@dataclass
class DcqcnState:
    """Per-flow reaction-point state."""

    on: B                # the flow runs DCQCN
    line: F64            # line rate, bit/s
    rc: F64              # current rate
    rt: F64              # target rate
    alpha: F64
    alpha_t: F64         # last alpha update
    stage: I64
    budget: F64          # expected marks until the next CNP's mark (Exp(1))
    acc: F64             # expected marks received since ``cnp_ok``
    cnp_ok: F64          # earliest time of the next CNP
    next_inc: F64        # next timer increase (inf: not below line rate)
    bytes_since: F64     # wire bytes sent since the last increase event or cut
    cnps: F64            # CNPs received (diagnostic)

    rng: np.random.Generator

    @classmethod
    def new(cls, on: B, line_bps: F64, params: DcqcnParams, rng: np.random.Generator) -> DcqcnState:
        n = len(on)
        return cls(on=on.copy(), line=line_bps.copy(), rc=line_bps.copy(), rt=line_bps.copy(),
                   alpha=np.full(n, params.initial_alpha), alpha_t=np.zeros(n), stage=np.zeros(n, dtype=np.int64),
                   budget=rng.exponential(size=n), acc=np.zeros(n), cnp_ok=np.zeros(n), next_inc=np.full(n, np.inf),
                   bytes_since=np.zeros(n), cnps=np.zeros(n), rng=rng)


_FIELDS = ("rc", "rt", "alpha", "alpha_t", "stage", "budget", "acc", "cnp_ok", "next_inc", "bytes_since", "cnps")


def _copy(st: DcqcnState) -> DcqcnState:
    return replace(st, **{name: getattr(st, name).copy() for name in _FIELDS})


def cut(st: DcqcnState, params: DcqcnParams, who: Any, now: F64 | float) -> None:
    """Apply a CNP to the flows ``who`` (a mask or indices) at ``now`` (one time, or one per flow)."""
    periods = np.floor(np.maximum(now - st.alpha_t[who], 0.0) / params.alpha_period_s)
    alpha = st.alpha[who] * np.power(1.0 - params.g, periods)
    rose = st.stage[who] > 0
    st.rt[who] = np.where(rose | params.clamp_target_rate, st.rc[who], st.rt[who])
    st.rc[who] = np.maximum(params.min_rate_bps, st.rc[who] * (1.0 - alpha / 2.0))
    st.alpha[who] = (1.0 - params.g) * alpha + params.g
    st.alpha_t[who] = now
    st.stage[who] = 0
    st.next_inc[who] = now + params.rate_increase_period_s
    st.bytes_since[who] = 0.0
    st.acc[who] = 0.0
    st.budget[who] = st.rng.exponential(size=len(st.acc[who]))
    st.cnp_ok[who] = now + params.cnp_interval_s
    st.cnps[who] += 1.0


def increase(st: DcqcnState, params: DcqcnParams, who: Any) -> None:
    """One rate-increase event for the flows ``who`` (a mask or indices)."""
    scale = st.line[who] / 25e9
    stage = st.stage[who]
    f = params.fast_recovery_stages
    step = np.where(stage == f, params.ai_bps_per_25g * scale,
                    np.where(stage > f, params.hai_bps_per_25g * scale, 0.0))
    rt = np.minimum(st.rt[who] + step, st.line[who])
    st.rt[who] = rt
    st.rc[who] = np.minimum((rt + st.rc[who]) / 2.0, st.line[who])
    st.stage[who] = stage + 1
    st.bytes_since[who] = 0.0


@dataclass(frozen=True)
class Window:
    """DCQCN over one step: the state at its end and each flow's mean Rc over it."""

    state: DcqcnState
    mean_rc: F64         # bit/s, time average over [t0, end]
    end: float           # the step's end (earlier than asked when a flow had more than MAX_EVENTS events)
    first: float         # earliest time a flow's Rc changed inside the window (inf: none did)
    rng_state: Mapping[str, Any] | None   # the generator's state after the window's draws (None: none)


def _next(st: DcqcnState, params: DcqcnParams, idx: I64, marks: F64, send: F64, t: F64) -> tuple[F64, B]:
    """(time of the next event, whether it is a CNP) of the flows ``idx`` from their times ``t``."""
    m, now = marks[idx], t[idx]
    left = np.maximum(st.budget[idx] - st.acc[idx], 0.0)
    start = np.maximum(st.cnp_ok[idx], now)
    t_cnp = np.where(m > 0, start + np.divide(left, m, out=np.zeros(len(left)), where=m > 0),
                     np.where(left <= 0, start, np.inf))
    t_ev = np.minimum(t_cnp, st.next_inc[idx])
    if params.byte_counter_bytes > 0:
        s = send[idx]
        ok = np.isfinite(st.next_inc[idx]) & (s > 0)
        gap = np.maximum(params.byte_counter_bytes - st.bytes_since[idx], 0.0)
        t_ev = np.minimum(t_ev, np.where(ok, now + np.divide(gap, s, out=np.zeros(len(gap)), where=ok), np.inf))
    return t_ev, t_cnp <= t_ev


def _accrue(st: DcqcnState, idx: I64, marks: F64, send: F64, t: F64, t_new: F64, area: F64) -> None:
    """Flows ``idx`` move from ``t`` to ``t_new`` with no event between."""
    span = t_new - t[idx]
    area[idx] += st.rc[idx] * span
    st.acc[idx] += marks[idx] * np.maximum(t_new - np.maximum(st.cnp_ok[idx], t[idx]), 0.0)
    st.bytes_since[idx] += send[idx] * span
    t[idx] = t_new


def _apply(st: DcqcnState, params: DcqcnParams, idx: I64, at: F64, is_cnp: B) -> None:
    eps = 1e-12
    if is_cnp.any():
        cut(st, params, idx[is_cnp], at[is_cnp])
    grow, when = idx[~is_cnp], at[~is_cnp]
    if len(grow):
        timer = st.next_inc[grow] <= when + eps
        increase(st, params, grow)
        st.next_inc[grow[timer]] += params.rate_increase_period_s
    at_line = (st.rc[idx] >= st.line[idx] * (1 - 1e-12)) & (st.rt[idx] >= st.line[idx] * (1 - 1e-12))
    st.next_inc[idx[at_line]] = np.inf


def advance(st: DcqcnState, params: DcqcnParams, live: B, marks: F64, send: F64, t0: float, t1: float,
            max_events: int = MAX_EVENTS) -> Window:
    """Every event of the ``live`` flows in (t0, t1], each at its own time: ``marks`` expected marked
    packets per second each flow receives, ``send`` its wire bytes per second (for the byte counter),
    both constant over the window. ``st`` is not changed (nor its generator's state)."""
    n = len(st.on)
    t = np.full(n, t0)
    idx = np.flatnonzero(live & st.on)
    t_ev, is_cnp = _next(st, params, idx, marks, send, t)
    due = t_ev <= t1 + EPS_T
    if not due.any():                 # no event: only the counters move (the arrays are shared, not changed)
        after = np.maximum(t1 - np.maximum(st.cnp_ok, t0), 0.0)
        quiet = replace(st, acc=np.where(st.on, st.acc + marks * after, st.acc),
                        bytes_since=np.where(st.on, st.bytes_since + send * (t1 - t0), st.bytes_since))
        return Window(state=quiet, mean_rc=st.rc, end=t1, first=np.inf, rng_state=None)
    out = _copy(st)
    area = np.zeros(n)
    first = np.inf
    rng_state: Mapping[str, Any] | None = None
    for _ in range(max_events):
        idx, t_ev, is_cnp = idx[due], np.minimum(t_ev[due], t1), is_cnp[due]
        _accrue(out, idx, marks, send, t, t_ev, area)
        before = out.rc[idx].copy()
        if rng_state is None and is_cnp.any():
            rng_state = st.rng.bit_generator.state
        _apply(out, params, idx, t_ev, is_cnp)
        moved = out.rc[idx] != before
        if moved.any():
            first = min(first, float(t_ev[moved].min()))
        t_ev, is_cnp = _next(out, params, idx, marks, send, t)
        due = t_ev <= t1 + EPS_T
        if not due.any():
            break
    else:                             # a flow has more events: end the window at the first one left
        if rng_state is not None:
            st.rng.bit_generator.state = rng_state
        return advance(st, params, live, marks, send, t0, min(float(t_ev[due].min()), t1), max_events + 1)
    every = np.flatnonzero(st.on)
    _accrue(out, every, marks, send, t, np.full(len(every), t1), area)
    mean = out.rc.copy()
    if t1 > t0:
        mean[every] = area[every] / (t1 - t0)
    drawn = None
    if rng_state is not None:
        drawn = st.rng.bit_generator.state
        st.rng.bit_generator.state = rng_state
    return Window(state=out, mean_rc=mean, end=t1, first=first, rng_state=drawn)


def commit(st: DcqcnState, window: Window) -> DcqcnState:
    """The state at the window's end (its generator moved past the window's draws)."""
    new = window.state
    if window.rng_state is not None:
        new.rng.bit_generator.state = window.rng_state
    return new
