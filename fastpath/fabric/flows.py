"""What runs on a fabric: flows between its hosts (plain data), and the ring AllReduce builder.

A ``FabricFlows`` row is one RoCE message from host ``src`` to host ``dst`` (host indices in the
fabric's order); it starts at ``start_s``, or when every flow it depends on has finished plus
``gap_s`` (CSR ``dep_ptr``/``dep_idx``, as ``fastpath.model.Flows``). ``l4_src`` is the UDP source port
its packets carry (what ECMP hashes on besides the addresses).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastpath.allreduce import allreduce_index
from fastpath.fabric.errors import FabricError
from fastpath.fabric.topo import ROCE_DSCP
from fastpath.tables import F64, I32, I64, B

FIRST_L4_SRC = 49152


def _col(value: Any, n: int, dtype: Any) -> Any:
    arr = np.asarray(value, dtype=dtype)
    return np.broadcast_to(arr, (n,)).copy() if arr.ndim == 0 else arr.copy()


@dataclass(frozen=True)
class FabricFlows:
    src: I32
    dst: I32
    size: I64                 # payload bytes
    dscp: I32
    start_s: F64
    dep_ptr: I64
    dep_idx: I32
    gap_s: F64
    l4_src: I32
    dcqcn: B
    ecn_capable: B
    mtu: I64
    group: I32

    @property
    def n(self) -> int:
        return len(self.src)

    @classmethod
    def of(cls, src: Any, dst: Any, size: Any, *, dscp: Any = ROCE_DSCP, start_s: Any = 0.0,
           deps: list[list[int]] | None = None, gap_s: Any = 0.0, l4_src: Any = None, dcqcn: Any = False,
           ecn_capable: Any = True, mtu: Any = 4096, group: Any = 0) -> FabricFlows:
        """Flows from columns (scalars broadcast); ``l4_src`` defaults to 49152 + the flow's index."""
        s = np.atleast_1d(np.asarray(src, dtype=np.int32))
        n = len(s)
        lists = deps if deps is not None else [[] for _ in range(n)]
        ptr = np.zeros(n + 1, dtype=np.int64)
        ptr[1:] = np.cumsum([len(d) for d in lists])
        return cls(src=s, dst=_col(dst, n, np.int32), size=_col(size, n, np.int64), dscp=_col(dscp, n, np.int32),
                   start_s=_col(start_s, n, np.float64), dep_ptr=ptr,
                   dep_idx=np.asarray([i for d in lists for i in d], dtype=np.int32), gap_s=_col(gap_s, n, np.float64),
                   l4_src=_col(FIRST_L4_SRC + np.arange(n) % 16384 if l4_src is None else l4_src, n, np.int32),
                   dcqcn=_col(dcqcn, n, bool), ecn_capable=_col(ecn_capable, n, bool), mtu=_col(mtu, n, np.int64),
                   group=_col(group, n, np.int32))


def ring_allreduce(rings: list[list[int]], steps: int, chunk_bytes: int, *, step_gap_s: float = 0.0,
                   start_s: float = 0.0, l4_src: Any = None, **kw: Any) -> FabricFlows:
    """Ring AllReduce on every ring of ``rings`` (host indices, GPU k sends to GPU k+1): ``steps``
    chained steps of ``chunk_bytes`` per GPU, laid out per ring as ``fastpath.allreduce`` (one
    iteration of ``steps`` steps; a ring of N GPUs does 2(N-1) steps per AllReduce). GPU k's send of
    step s waits for the chunk it received in step s-1 and for its own send of step s-1, plus
    ``step_gap_s``. ``group`` is the ring's index."""
    src, dst, dep_ptr, dep_idx, group = [], [], [0], [], []
    base = 0
    for r, ring in enumerate(rings):
        n = len(ring)
        for s in range(steps):
            for k in range(n):
                src.append(ring[k])
                dst.append(ring[(k + 1) % n])
                group.append(r)
                if s > 0:
                    dep_idx += [base + int(allreduce_index(n, 0, s - 1, (k - 1) % n)),
                                base + int(allreduce_index(n, 0, s - 1, k))]
                dep_ptr.append(len(dep_idx))
        base += steps * n
    m = len(src)
    first = np.zeros(m, dtype=bool)
    first[np.asarray(dep_ptr[1:]) == np.asarray(dep_ptr[:-1])] = True
    flows = FabricFlows.of(src, dst, chunk_bytes, start_s=start_s, gap_s=np.where(first, 0.0, step_gap_s),
                           l4_src=l4_src, group=group, **kw)
    return FabricFlows(**{**flows.__dict__, "dep_ptr": np.asarray(dep_ptr, dtype=np.int64),
                          "dep_idx": np.asarray(dep_idx, dtype=np.int32)})


def chain_allreduce(nodes: int, group_size: int, chunk_bytes: int, *, seed: int, locality: bool = False,
                    groups: int | None = None, **kw: Any) -> FabricFlows:
    """htsim's ring AllReduce matrix (the semantics of its ``gen_allreduce.py``): the hosts shuffled
    (Python's ``random`` seeded with ``seed``, so the groups are the generator's for the same seed),
    ``groups`` groups (default nodes // group_size) of ``group_size`` consecutive shuffled hosts,
    sorted when ``locality``. In each group every member starts a chunk of ``chunk_bytes`` that goes
    2(N-1) hops round the ring: the hop from member k to k+1 starts when the chunk's previous hop has
    finished (htsim triggers it on that flow's send done). Chains depend only on themselves, so a
    ring's members do not wait for each other. ``group`` is the ring's index. ``FabricError`` when the
    groups do not fit the nodes."""
    n_groups = nodes // group_size if group_size > 0 and groups is None else (groups or 0)
    if group_size < 2 or n_groups < 1 or n_groups * group_size > nodes:
        raise FabricError([f"chain AllReduce: {n_groups} groups of {group_size} hosts do not fit {nodes} nodes "
                           "(a group needs at least 2 hosts)"])
    order = list(range(nodes))
    random.Random(seed).shuffle(order)
    src: list[int] = []
    dst: list[int] = []
    group: list[int] = []
    deps: list[list[int]] = []
    for g in range(n_groups):
        members = order[g * group_size:(g + 1) * group_size]
        if locality:
            members.sort()
        for s in range(group_size):
            for d in range(1, 2 * group_size):
                deps.append([] if d == 1 else [len(src) - 1])
                src.append(members[(s + d - 1) % group_size])
                dst.append(members[(s + d) % group_size])
                group.append(g)
    return FabricFlows.of(src, dst, chunk_bytes, deps=deps, group=group, **kw)
