"""The egress ports of flooded frames (pure, vectorised): ``forward`` marks a frame ``ACT_FLOOD`` (an
unknown unicast, broadcast or multicast destination, or a routed frame whose next hop's MAC is not in
the VLAN's FDB); ``flood_ports`` says which ports a copy leaves by.

A flood reaches every member of the egress VLAN (the bridge VLAN, or the VLAN of the routed frame's
router interface) except, for a bridged frame, the port or LAG it came in on and the members it is
isolated from (``fastpath.isolation``: its bridge port's group by object, its port's group by port).
A LAG gets one copy, out of the member its LAG hash picks for the frame (as a known unicast to it
would); none when it has no usable member. Ports that are down get no copy.

The answer is a ``[n, n_ports]`` boolean matrix, so call it on the flooded frames of interest (a
trace, a test), not on a whole traffic batch.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from fastpath.forward import ACT_FLOOD, ForwardResult, PacketBatch
from fastpath.hashing import flow_hash
from fastpath.isolation import isolated_objs, isolated_ports
from fastpath.l2 import HASH_BUCKETS, MEMBER_NONE, L2Tables, empty_l2
from fastpath.tables import I32, B, Tables


def lag_member_ports(l2: L2Tables, b: PacketBatch, rows: npt.NDArray[np.intp]) -> I32:
    """``[k, n_lags]``: the member port of every LAG that each selected frame's hash picks (-1: none)."""
    cols = {"src_ip": b.src_ip[rows], "dst_ip": b.dst_ip[rows], "ip_proto": b.ip_proto[rows],
            "l4_src": b.l4_src[rows], "l4_dst": b.l4_dst[rows], "in_port": b.in_port[rows]}
    h = flow_hash(cols, len(rows), l2.lag_fields, l2.lag_seed)
    bucket = (h & np.uint64(HASH_BUCKETS - 1)).astype(np.int64, copy=False)
    picked: I32 = l2.lag_buckets[:, bucket].T
    return picked


def flood_objects(tables: Tables, batch: PacketBatch, result: ForwardResult, isolate: bool = True) -> B:
    """``[n, n_obj]``: the VLAN members (ports and LAGs) a copy of each flooded frame goes to; all False
    for a frame that is not flooded. ``isolate=False``: before isolation (what a trace compares with)."""
    l2 = tables.l2 if tables.l2 is not None else empty_l2(tables.ports.n)
    flooded = result.action == ACT_FLOOD
    vlan = np.where(flooded, result.out_vlan, 0)
    objs: B = (l2.vlan_member[vlan] != MEMBER_NONE) & flooded[:, None] & (vlan > 0)[:, None]
    bridged = flooded & ~result.routed
    in_obj = l2.port_obj[batch.in_port]
    rows = np.flatnonzero(bridged)
    objs[rows, in_obj[rows]] = False
    if isolate:
        objs[rows] &= ~isolated_objs(l2, in_obj[rows])
    return objs


def flood_ports(tables: Tables, batch: PacketBatch, result: ForwardResult, isolate: bool = True) -> B:
    """``[n, n_ports]``: the ports a copy of each flooded frame leaves by (see the module docstring)."""
    l2 = tables.l2 if tables.l2 is not None else empty_l2(tables.ports.n)
    n_ports = tables.ports.n
    objs = flood_objects(tables, batch, result, isolate)
    out = objs[:, :n_ports].copy()
    rows = np.flatnonzero(objs[:, n_ports:].any(axis=1))
    if len(rows) and l2.n_lags:
        picked = lag_member_ports(l2, batch, rows)
        r, c = np.nonzero(objs[rows, n_ports:] & (picked >= 0))
        out[rows[r], picked[r, c]] = True
    if isolate:
        bridged = np.flatnonzero((result.action == ACT_FLOOD) & ~result.routed)
        out[bridged] &= ~isolated_ports(l2, batch.in_port[bridged])
    up = tables.ports.admin_up & tables.ports.oper_up
    flooded: B = out & up[None, :]
    return flooded
