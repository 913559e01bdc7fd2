"""Sharing a link's capacity: max-min water-filling of flows on a NIC, and a switch port's scheduler
(strict priority, then DWRR/WRR by weight) over its queues, vectorised over NICs and ports.

Fluid approximation, stated: DWRR and WRR are the same weighted water-filling (they differ only in
counting bytes or packets, which is the same with one packet size per queue); a queue that has bytes
buffered demands without limit, an empty one demands what arrives. Strict priority: the higher queue
index is served first (as on Broadcom and Mellanox), strict queues before the weighted ones.
"""

from __future__ import annotations

import numpy as np

from fastpath.model.fluid import bins
from fastpath.tables import F64, I64, B

BIG = 1e30          # "unlimited" demand, finite so that sums stay finite
MAX_ROUNDS = 16


def fair_share(caps: F64, group: I64, capacity: F64, single: bool = False) -> F64:
    """Max-min fair rates of members with ``caps`` sharing ``capacity[group]`` (water-filling);
    ``single``: no group has more than one member (known once per run: then none is counted).

    Each round gives every unsaturated member of a group the group's equal share of what is left and
    saturates the members whose cap is below it; it stops when no member saturates (exact; one round
    per distinct cap level at most)."""
    n_groups = len(capacity)
    active = caps > 0
    if single or (len(group) and int(np.bincount(group[active], minlength=1).max()) <= 1):  # one member per group
        return np.where(active, np.minimum(caps, capacity[group]), 0.0)
    rate = np.zeros(len(caps))
    left = capacity.astype(np.float64).copy()
    level = np.zeros(n_groups)
    for _ in range(MAX_ROUNDS):
        count = bins(group, active.astype(np.float64), n_groups)
        level = np.divide(left, count, out=np.full(n_groups, np.inf), where=count > 0)
        sat = active & (caps <= level[group])
        if not sat.any():
            break
        rate[sat] = caps[sat]
        left -= bins(group[sat], caps[sat], n_groups)
        np.maximum(left, 0.0, out=left)
        active &= ~sat
    rate[active] = level[group[active]]
    return rate


def _strict(demand: F64, capacity: F64, strict: B) -> F64:
    """Strict-priority service: the highest index first; ``min(C, cumsum)`` differences."""
    d = np.where(strict, demand, 0.0)[:, ::-1]
    served_cum = np.minimum(np.cumsum(d, axis=1), capacity[:, None])
    served = np.diff(served_cum, axis=1, prepend=0.0)
    return np.asarray(served[:, ::-1])


def _weighted(demand: F64, left: F64, weight: F64, member: B) -> F64:
    """Weighted water-filling of ``left`` among ``member`` queues by ``weight``."""
    active = member & (demand > 0)
    if int(active.sum(axis=1).max(initial=0)) <= 1:            # one queue per port: it gets what it asks, up to all
        return np.where(active, np.minimum(demand, left[:, None]), 0.0)
    served = np.zeros(demand.shape)
    left = left.copy()
    lam = np.zeros(len(left))
    for _ in range(MAX_ROUNDS):
        wsum = (weight * active).sum(axis=1)
        lam = np.divide(left, wsum, out=np.zeros(len(left)), where=wsum > 0)
        sat = active & (demand <= weight * lam[:, None])
        if not sat.any():
            break
        served += np.where(sat, demand, 0.0)
        left = np.maximum(left - np.where(sat, demand, 0.0).sum(axis=1), 0.0)
        active &= ~sat
    return served + np.where(active, weight * lam[:, None], 0.0)


def port_service(demand: F64, capacity: F64, strict: B, weight: F64, any_strict: bool = True) -> F64:
    """Service rate of each queue ([P, Q]) given its ``demand`` (``BIG`` when backlogged), the port's
    ``capacity`` [P], which queues are ``strict`` and the others' ``weight``; work-conserving."""
    if not any_strict:
        return _weighted(demand, capacity, weight, ~strict)
    served = _strict(demand, capacity, strict)
    left = np.maximum(capacity - served.sum(axis=1), 0.0)
    return served + _weighted(demand, left, weight, ~strict)
