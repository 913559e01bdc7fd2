"""Compiling the LAGs: their members and the member-selection buckets (rendezvous-hashed by the
member port's object id, so removing a member moves only the flows it carried).

A member carries traffic when it is not ``EGRESS_DISABLE`` and its port is oper up (the ASIC's
fast fail-over; teamd would also disable it). A member port's ingress object is its LAG.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from fastpath.hashing import hrw_buckets
from fastpath.l2 import HASH_BUCKETS
from fastpath.tables import I32, B
from fastpath.values import as_bool, ref
from nos.sai.types import ObjectType as T
from nos.sai.types import oid_value
from syncd_sim.objects import ObjectStore

LAG_SALT = 0x4C4147  # "LAG": keeps LAG buckets independent of ECMP buckets for one seed


@dataclass(frozen=True)
class Lags:
    oids: tuple[str, ...]
    members: tuple[tuple[int, ...], ...]
    buckets: I32
    port_lag: I32           # [n_ports] LAG index of each port, -1 when not a member


def compile_lags(store: ObjectStore, port_index: Mapping[str, int], oper_up: B, seed: int) -> Lags:
    lags = sorted(store.of_type(T.LAG))
    lag_index = {oid: k for k, oid in enumerate(lags)}
    port_lag = np.full(len(port_index), -1, dtype=np.int32)
    members: list[list[int]] = [[] for _ in lags]
    for member in store.of_type(T.LAG_MEMBER).values():
        k = lag_index.get(ref(member.attrs, "SAI_LAG_MEMBER_ATTR_LAG_ID"))
        port = port_index.get(ref(member.attrs, "SAI_LAG_MEMBER_ATTR_PORT_ID"))
        if k is None or port is None:
            continue
        port_lag[port] = k
        if not as_bool(member.attrs, "SAI_LAG_MEMBER_ATTR_EGRESS_DISABLE") and oper_up[port]:
            members[k].append(port)
    sorted_members = tuple(tuple(sorted(m)) for m in members)
    flat = np.array([p for m in sorted_members for p in m], dtype=np.int32)
    ptr = np.concatenate([[0], np.cumsum([len(m) for m in sorted_members])]).astype(np.int64)
    port_oids = {i: oid for oid, i in port_index.items()}
    ids = np.array([oid_value(port_oids[int(p)]) for p in flat], dtype=np.uint64)
    buckets = hrw_buckets(ptr, ids, np.ones(len(flat)), flat, HASH_BUCKETS, seed ^ LAG_SALT)
    return Lags(tuple(lags), sorted_members, buckets, port_lag)
