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

Approximations, stated: CNPs act when the step that saw the marks ends (no return-path delay: a few
microseconds against the 50 us CNP spacing), and every DCQCN event is moved to the next point of the
``timer_grid_s`` grid so that flows' events share steps (at most one grid interval late).
Rates here are wire bits per second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.model.inputs import DcqcnParams
from fastpath.tables import F64, I64, B


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


def on_grid(t: F64 | float, grid: float) -> F64:
    """``t`` moved up to the next multiple of ``grid`` (unchanged if already on it)."""
    return np.asarray(np.ceil(np.asarray(t) / grid - 1e-9) * grid)


def due(st: DcqcnState, params: DcqcnParams, rate_bps: F64, mark_rate: F64, now: float, grid: float,
        sending: B) -> float:
    """Time of the next DCQCN event of any ``sending`` flow (on the grid), inf when none is pending.
    ``mark_rate``: expected marked packets per second each flow receives now."""
    marking = st.on & sending & (mark_rate > 0)
    left = np.maximum(st.budget - st.acc, 0.0)
    cnp = np.where(marking, np.maximum(st.cnp_ok, now) + np.divide(left, mark_rate, out=np.zeros_like(left),
                                                                    where=marking), np.inf)
    inc = np.where(st.on & sending, st.next_inc, np.inf)
    times = np.minimum(cnp, inc)
    if params.byte_counter_bytes > 0:
        left = np.maximum(params.byte_counter_bytes - st.bytes_since, 0.0)
        by_bytes = np.where(st.on & sending & np.isfinite(st.next_inc) & (rate_bps > 0),
                            now + left * 8.0 / np.maximum(rate_bps, 1.0), np.inf)
        times = np.minimum(times, by_bytes)
    t = float(times.min(initial=np.inf))
    return float(on_grid(t, grid)) if np.isfinite(t) else np.inf


def cut(st: DcqcnState, params: DcqcnParams, who: B, now: float) -> None:
    """Apply a CNP to the flows ``who`` at ``now``."""
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
    st.budget[who] = st.rng.exponential(size=int(who.sum()))
    st.cnp_ok[who] = now + params.cnp_interval_s
    st.cnps[who] += 1.0


def increase(st: DcqcnState, params: DcqcnParams, who: B) -> None:
    """One rate-increase event for the flows ``who``."""
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


def react(st: DcqcnState, params: DcqcnParams, marked: F64, sent_wire: F64, t0: float, now: float) -> None:
    """Everything due at ``now``, the end of a step from ``t0``: the expected marks ``marked`` of the
    step (counted from when each flow's CNP interval expired), CNPs, timer and byte-counter increases."""
    if len(marked):
        span = max(now - t0, 1e-30)
        after = np.clip((now - np.maximum(st.cnp_ok, t0)) / span, 0.0, 1.0)
        st.acc += np.where(st.on, marked * after, 0.0)
    st.bytes_since += sent_wire
    eps = 1e-12
    cnp = st.on & (st.acc >= st.budget * (1 - 1e-9)) & (st.acc > 0) & (st.cnp_ok <= now + eps)
    if cnp.any():
        cut(st, params, cnp, now)
    timer = st.on & ~cnp & (st.next_inc <= now + eps)
    by_bytes = (st.on & ~cnp & np.isfinite(st.next_inc) & (params.byte_counter_bytes > 0)
                & (st.bytes_since >= params.byte_counter_bytes))
    grow = timer | by_bytes
    if grow.any():
        increase(st, params, grow)
        st.next_inc[timer] += params.rate_increase_period_s * np.maximum(
            np.ceil((now + eps - st.next_inc[timer]) / params.rate_increase_period_s), 1.0)
    at_line = (st.rc >= st.line * (1 - 1e-12)) & (st.rt >= st.line * (1 - 1e-12))
    st.next_inc[st.on & at_line] = np.inf
