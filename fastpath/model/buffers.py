"""Shared-buffer accounting: ingress PG and egress queue occupancy against their pools, dynamic and
static thresholds, headroom, and the admission limits where bytes are dropped.

The same buffered bytes are counted twice, as a shared-buffer MMU does: at ingress against the PG of
the port they came in on (``pgid``) and at egress against the queue they wait in (``qid``).

* A PG holds ``reserved`` bytes of its own, then shares its pool up to a threshold T: static
  (``static_th``) or dynamic, T = alpha x (pool size - pool bytes in use), alpha = 2 ** dynamic_th.
  Its XOFF point (lossless) or drop point (lossy) is reserved + T.
* Above the XOFF point a paused PG fills its headroom (``pg_xoff``), also bounded by the pool's shared
  headroom (``pool_xoff``) when there is one; beyond that bytes are lost.
* A queue admits up to reserved + T of its egress pool (dynamic or static) and tail-drops beyond.

Approximation, stated: while a PG is paused its shared threshold is held at the value it had when XOFF
was sent (``frozen``); bytes above it are headroom. Elements without a pool have no limit, and neither
has a static threshold at or above its pool's size (SONiC sets lossless egress queues and the lossy PG
so, 167,546,528 B over a 165,660,324 B pool, to mean "not limited here"): the physical buffer is not
modelled beyond the pools.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.model.fluid import bins
from fastpath.model.layout import Layout
from fastpath.tables import F64, I64, B


@dataclass(frozen=True)
class Occupancy:
    """Occupancy at one instant (frame bytes unless said)."""

    q_wire: F64        # [queues] wire bytes
    q_buf: F64         # [queues]
    pg: F64            # [PGs]
    pg_shared: F64     # [PGs] part counted against the pool
    pg_head: F64       # [PGs] part in headroom
    pool_used: F64     # [pools + 1] shared bytes in use (last bin: no pool)
    pool_head: F64     # [pools + 1] headroom in use
    pg_th: F64         # [PGs] current shared threshold T
    q_th: F64          # [queues] current shared threshold
    room: F64          # [PGs] headroom left: own pg_xoff less used, bounded by the pool's shared headroom


def thresholds(lay: Layout, pool_used: F64) -> tuple[F64, F64]:
    """Current shared thresholds (T) of every PG and queue; inf without a pool or a binding limit."""
    free = np.maximum(lay.pool_size_pad - pool_used, 0.0)
    pg_th = np.where(lay.pg_dynamic, lay.pg_alpha * free[lay.pg_members], lay.pg_static_eff)
    q_th = np.where(lay.q_dynamic, lay.q_alpha * free[lay.q_members], lay.q_static_eff)
    return pg_th, q_th


def occupancy(lay: Layout, content: F64, paused: B, frozen: F64, rows: I64 | None = None) -> Occupancy:
    """Occupancy from each flow's bytes in the switch (``content``, wire bytes); ``rows``: the only rows
    that may hold bytes (None: any), the others' content being zero."""
    n_q = len(lay.q_members)
    n_bins = lay.n_pools + 1
    qid, pgid, beta = lay.qid, lay.pgid, lay.beta
    if rows is not None:
        content, qid, pgid, beta = content[rows], qid[rows], pgid[rows], beta[rows]
    frame = content * beta
    q_wire = bins(qid, content, n_q)
    q_buf = bins(qid, frame, n_q)
    pg = bins(pgid, frame, len(lay.pg_members))
    above = np.maximum(pg - lay.pg_reserved, 0.0)
    shared = np.minimum(above, np.where(paused, frozen, np.inf))
    head = above - shared
    used = (bins(lay.pg_members, shared, n_bins)
            + bins(lay.q_members, np.maximum(q_buf - lay.q_reserved, 0.0), n_bins))
    pool_head = bins(lay.pg_members, head, n_bins)
    pg_th, q_th = thresholds(lay, used)
    own = np.maximum(lay.pg_headroom - head, 0.0)
    pool_left = np.where(lay.pool_xoff_pad > 0, np.maximum(lay.pool_xoff_pad - pool_head, 0.0), np.inf)
    return Occupancy(q_wire=q_wire, q_buf=q_buf, pg=pg, pg_shared=shared, pg_head=head, pool_used=used,
                     pool_head=pool_head, pg_th=pg_th, q_th=q_th, room=np.minimum(own, pool_left[lay.pg_members]))


def pool_rates(lay: Layout, occ: Occupancy, pg_rate: F64, q_rate: F64, paused: B, frozen: F64,
               tol: float) -> tuple[F64, F64]:
    """(rate of change of each pool's shared use, of its headroom use) from the PG and queue rates.

    Linearised at the step's start: a PG's bytes go to the pool while it is above its reserve (or filling
    towards it: the reserve is small) and below its frozen threshold, to headroom once paused above it;
    a queue's likewise."""
    n_bins = lay.n_pools + 1
    at_cap = paused & (occ.pg_shared >= frozen - tol)
    in_shared = ((occ.pg >= lay.pg_reserved - tol) | (pg_rate > 0)) & ~at_cap
    q_shared = (occ.q_buf >= lay.q_reserved - tol) | (q_rate > 0)
    used = (bins(lay.pg_members, np.where(in_shared, pg_rate, 0.0), n_bins)
            + bins(lay.q_members, np.where(q_shared, q_rate, 0.0), n_bins))
    head = bins(lay.pg_members, np.where(at_cap, pg_rate, 0.0), n_bins)
    return used, head


def threshold_rates(lay: Layout, used_rate: F64) -> tuple[F64, F64]:
    """How fast each PG's and queue's dynamic threshold moves (-alpha x pool fill rate)."""
    used = used_rate.copy()
    used[-1] = 0.0
    pg = np.where(lay.pg_dynamic, -lay.pg_alpha * used[lay.pg_members], 0.0)
    q = np.where(lay.q_dynamic, -lay.q_alpha * used[lay.q_members], 0.0)
    return pg, q
