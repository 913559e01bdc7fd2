"""The FDB a switch would have after learning: a copy of its tables with learn events applied (pure).

``forward`` reports the source MACs a batch would teach the bridge (``Learned``) without changing the
tables; ``with_learnt`` returns tables whose FDB holds them, for paths that need the hosts' MACs known
(``fastpath.paths``, ``fastpath.fabric.route``), and ``resolve_vlan_next_hops`` points the next hops
on VLAN interfaces at where their MAC now is (what a recompilation after the learning would do).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fastpath.forward import Learned
from fastpath.l3 import RIF_VLAN
from fastpath.tables import Tables


def with_learnt(tables: Tables, learnt: Learned) -> Tables:
    """A copy of ``tables`` whose FDB includes the learn events ``learnt`` (new MACs added, moved ones
    pointed at their new port or LAG)."""
    l2 = tables.l2
    if l2 is None or len(learnt.mac) == 0:
        return tables
    keys = (learnt.vlan.astype(np.uint64) << np.uint64(48)) | learnt.mac.astype(np.uint64)
    pos = np.minimum(np.searchsorted(l2.fdb_keys, keys), max(len(l2.fdb_keys) - 1, 0))
    known = (l2.fdb_keys[pos] == keys) if len(l2.fdb_keys) else np.zeros(len(keys), dtype=bool)
    fdb_obj = np.array(l2.fdb_obj, dtype=np.int32)
    fdb_obj[pos[known]] = learnt.obj[known]
    all_keys = np.concatenate([l2.fdb_keys, keys[~known]])
    order = np.argsort(all_keys, kind="stable")
    return replace(tables, l2=replace(
        l2, fdb_keys=all_keys[order], fdb_obj=np.concatenate([fdb_obj, learnt.obj[~known]]).astype(np.int32)[order],
        fdb_static=np.concatenate([l2.fdb_static, np.zeros(int((~known).sum()), dtype=bool)])[order]))


def resolve_vlan_next_hops(tables: Tables) -> Tables:
    """A copy of ``tables`` whose next hops on VLAN router interfaces point at the port or LAG the FDB
    now holds their MAC on (the compiler resolved them against the FDB it had: -1 where the MAC was not
    in it yet, which floods)."""
    l2, l3 = tables.l2, tables.l3
    if l2 is None or l3 is None or len(l3.nh_obj) == 0 or len(l2.fdb_keys) == 0:
        return tables
    rif = np.maximum(l3.nh_rif, 0)
    open_ = (l3.nh_obj < 0) & (l3.nh_rif >= 0) & (l3.rif_kind[rif] == RIF_VLAN)
    if not open_.any():
        return tables
    keys = (l3.rif_vlan[rif].astype(np.uint64) << np.uint64(48)) | l3.nh_mac.astype(np.uint64)
    pos = np.minimum(np.searchsorted(l2.fdb_keys, keys), len(l2.fdb_keys) - 1)
    hit = open_ & (l2.fdb_keys[pos] == keys)
    nh_obj = np.where(hit, l2.fdb_obj[pos], l3.nh_obj).astype(np.int32)
    return replace(tables, l3=replace(l3, nh_obj=nh_obj))
