"""WRED / ECN: the marking (or dropping) probability of a queue from its depth, as the profile says.

p(Q) = 0 below ``min``, rising linearly to ``prob`` at ``max``, 1 above ``max`` (RED's "mark or drop
everything above the maximum threshold"). Depth is the instantaneous queue depth in frame bytes (no
averaging: the ASICs SONiC programs use weight 0). ECN marks are applied as packets leave (so they reach
the receiver, and its CNPs the sender, with the departures: a stopped queue returns no CNP); WRED drops
as they arrive.

Within a step a queue's depth moves linearly and ``mean_prob`` is the exact mean of p over it, also
across ``min`` and ``max``, so the marks counted need no step to end there. Drops are taken at the
probability of the step's start, so the stepping loop ends a step where a dropping profile's depth
crosses ``min`` or ``max`` (``kink_time``), and where an ECN profile's does while a quiet DCQCN window
is open (``fastpath.model.settle.kinks``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.tables import F64, I64, B


def prob(depth: F64, lo: F64, hi: F64, pmax: F64, on: B) -> F64:
    """Marking/dropping probability per queue (0 where ``on`` is False)."""
    span = np.maximum(hi - lo, 1e-9)
    ramp = np.minimum(np.maximum((depth - lo) / span, 0.0), 1.0) * pmax
    p = np.where(depth > hi, 1.0, np.where(depth > lo, ramp, 0.0))
    return np.where(on, p, 0.0)


def _integral(depth: F64, lo: F64, hi: F64, pmax: F64) -> F64:
    """The integral of p from 0 to ``depth`` (bytes)."""
    span = np.maximum(hi - lo, 1e-9)
    ramp = np.minimum(np.maximum(depth - lo, 0.0), span)
    return np.asarray(pmax * ramp * ramp / (2.0 * span) + np.maximum(depth - hi, 0.0))


def mean_prob(depth0: F64, depth1: F64, lo: F64, hi: F64, pmax: F64, on: B) -> F64:
    """Mean probability over a step whose depth moves linearly from ``depth0`` to ``depth1`` (exact)."""
    change = depth1 - depth0
    moving = np.abs(change) > 1e-6
    by_area = np.divide(_integral(depth1, lo, hi, pmax) - _integral(depth0, lo, hi, pmax), change,
                        out=np.zeros(np.shape(change)), where=moving)
    return np.where(on, np.where(moving, by_area, prob(depth0, lo, hi, pmax, on)), 0.0)


def kink_time(depth: F64, rate: F64, lo: F64, hi: F64, on: B, tol: float) -> F64:
    """Time until the depth (moving at ``rate`` bytes/s) crosses ``lo`` or ``hi``; inf if never."""
    out = np.full(depth.shape, np.inf)
    for level in (lo, hi):
        gap = level - depth
        moving = on & (np.abs(gap) > tol) & (gap * rate > 0)
        t = np.divide(gap, rate, out=np.full(depth.shape, np.inf), where=moving)
        np.minimum(out, t, out=out)
    return out


@dataclass(frozen=True)
class RowProfiles:
    """The ECN profile of every queue that some row (a flow, or a flow's segment) waits in, gathered
    once per run. A queue's marking probability depends on the queue only, so the stepping loops compute
    it once per used queue and read it per row (``local``) instead of once per row: the same numbers,
    fewer of them (one queue for a 64-to-1 incast's 64 flows)."""

    queues: I64        # the used queue ids, sorted
    local: I64         # [rows] each row's index into ``queues``
    lo: F64
    hi: F64
    pmax: F64
    on: B

    @classmethod
    def of(cls, qid: I64, wred_min: F64, wred_max: F64, wred_prob: F64, wred_ecn: B) -> RowProfiles:
        queues, local = np.unique(qid, return_inverse=True)
        return cls(queues=queues, local=local.astype(np.int64), lo=wred_min[queues], hi=wred_max[queues],
                   pmax=wred_prob[queues], on=wred_ecn[queues])

    def mean_prob(self, q_buf0: F64, q_buf1: F64, rows: I64 | None = None) -> F64:
        """Each row's (or each of ``rows``') ``mean_prob`` over a step whose queues move linearly from
        ``q_buf0`` to ``q_buf1`` (per queue, all queues)."""
        q = self.queues
        local = self.local if rows is None else self.local[rows]
        return mean_prob(q_buf0[q], q_buf1[q], self.lo, self.hi, self.pmax, self.on)[local]
