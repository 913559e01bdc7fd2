"""Exact integration of a FIFO queue's per-flow contents over one step with constant rates.

A queue with depth Q0, total admitted arrival rate A and service rate S holds Q(t) = Q0 + (A - S) t.
Each flow f leaves at its share of the content, S B_f / Q (the FIFO share of a well-mixed queue), so
B_f' = a_f - S B_f / Q(t), whose solution is

    B_f(t) = (a_f / A) Q(t) + (B_f0 - (a_f / A) Q0) rho(t),   rho(t) = (Q(t) / Q0) ** (-S / (A - S))

(rho = exp(-S t / Q0) when A = S; rho = 0 for an empty queue). It keeps every B_f >= 0 and sums to Q(t)
exactly, so steps may be long without the instability of an explicit update.

Approximation, stated: the content-share rule mixes a flow's bytes through the queue, whereas FIFO
serves them in order; the loop corrects the one place where it matters (the last byte of a flow
leaves when everything that arrived before it has left: ``fastpath.model.nic``).
"""

from __future__ import annotations

import numpy as np

from fastpath.tables import F64, I64

TINY = 1e-9     # bytes: a queue below this is empty


def bins(index: I64, weights: F64, n: int) -> F64:
    """``weights`` summed per ``index`` into ``n`` bins (a typed ``np.bincount``)."""
    return np.bincount(index, weights=weights, minlength=n).astype(np.float64, copy=False)


def decay(q0: F64, arrive: F64, serve: F64, dt: float) -> tuple[F64, F64]:
    """(Q(dt), rho(dt)) per queue for constant ``arrive`` and ``serve`` rates."""
    k = arrive - serve
    q1 = np.maximum(q0 + k * dt, 0.0)
    safe_q0 = np.where(q0 > TINY, q0, 1.0)
    balanced = np.abs(k) <= 1e-12 * np.maximum(serve, 1.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        ratio = q1 / safe_q0
        expo = np.where(balanced, 1.0, -serve / np.where(balanced, 1.0, k))
        power = np.where(ratio > 0.0, np.power(np.where(ratio > 0.0, ratio, 1.0), expo), 0.0)
    rho = np.where(balanced, np.exp(-serve * dt / safe_q0), power)
    rho = np.where(q0 > TINY, np.minimum(np.maximum(rho, 0.0), 1.0), 0.0)     # np.clip, without its wrapper
    return q1, rho


def contents(b0: F64, adm: F64, qid: I64, q0: F64, q1: F64, arrive: F64, rho: F64) -> F64:
    """Each flow's bytes in its queue at the end of the step (see the module docstring)."""
    share = np.divide(adm, arrive[qid], out=np.zeros(len(adm)), where=arrive[qid] > 0)
    b1 = share * q1[qid] + (b0 - share * q0[qid]) * rho[qid]
    return np.maximum(b1, 0.0)


def departures_now(b: F64, adm: F64, qid: I64, depth: F64, arrive: F64, serve: F64) -> F64:
    """Each flow's departure rate at the start of a step: its content share of the service, or, in
    an empty queue, its share of the arrivals."""
    backlogged = depth[qid] > TINY
    n = len(b)
    by_content = serve[qid] * np.divide(b, depth[qid], out=np.zeros(n), where=backlogged)
    by_arrival = adm * np.divide(serve[qid], arrive[qid], out=np.zeros(n), where=arrive[qid] > 0)
    return np.where(backlogged, by_content, np.minimum(by_arrival, adm))


def crossing(x0: F64, rate: F64, target0: F64, target_rate: F64, tol: float) -> F64:
    """Time until ``x`` (rising at ``rate`` > 0) reaches ``target`` (moving at ``target_rate``) from
    below; inf when it is already there (within ``tol``), never gets there, or is not rising (a limit
    falling onto a still or draining element is applied at the next step's start)."""
    gap = target0 - x0
    closing = rate - target_rate
    ok = (gap > tol) & (closing > 0) & (rate > 0)
    return np.asarray(np.divide(gap, closing, out=np.full(np.shape(x0), np.inf), where=ok), dtype=np.float64)


def falling(x0: F64, rate: F64, target: F64 | float, tol: float) -> F64:
    """Time until ``x`` falls to ``target``; inf if not falling or already below."""
    gap = x0 - target
    ok = (gap > tol) & (rate < 0)
    return np.asarray(np.divide(gap, -rate, out=np.full(np.shape(x0), np.inf), where=ok), dtype=np.float64)
