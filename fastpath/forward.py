"""Batch forwarding over the compiled tables: packet headers in, egress port, queue, priority group,
action and drop reason out, plus the source MACs to learn. Pure and vectorised (gathers,
``searchsorted``, masks); ``trace`` explains one packet by calling this with a batch of one.

Pipeline, per packet (the first drop reason wins):

1. ingress port admin and oper up, else ``port_down``; a multicast source MAC is ``smac_multicast``;
2. a router interface on the port (or on the port and VLAN for a sub-port) takes the frame to L3 when the
   destination MAC is the router MAC, else ``router_mac_miss``;
3. otherwise the bridge: VLAN = the tag, or the port's PVID when untagged; the port (its LAG) must be
   a member of that VLAN, and an untagged frame needs an untagged membership (``ingress_vlan_filter``);
   an unknown source MAC (or one that moved, unless static) is learned when the bridge port and VLAN
   learn; the router MAC of the VLAN's router interface goes to L3; else an FDB hit forwards to its
   port/LAG (``same_port`` when that is where it came from; ``egress_vlan_filter`` when not a member;
   ``isolated`` when the frame entered a bridge port bound to an isolation group the destination's
   bridge port is a member of), a miss or a broadcast/multicast floods (``ACT_FLOOD``; the ports a
   flood reaches, isolation applied, are ``fastpath.flood.flood_ports``);
4. L3: TTL <= 1 is ``ttl_expired``; LPM in the interface's virtual router (``lpm_miss``); blackhole
   routes drop (``blackhole_route``), trap/ip2me routes and connected subnets without a neighbor trap;
   ECMP picks a member from the group's buckets by the flow hash (``ecmp_group_empty``); an unresolved
   next hop drops (``unresolved_next_hop``); a VLAN next hop whose MAC is not in the FDB floods;
   the TTL is decremented;
5. a LAG egress picks a member by the LAG hash (``lag_no_member``); a bridged frame that entered a port
   bound to a port isolation group is dropped when that member (or egress port) is in the group
   (``isolated``); an egress port that is down drops (``egress_port_down``);
6. classification: TC from the ingress port's DSCP->TC map, PG from its TC->PG map, queue from the
   egress port's TC->queue map (the ingress port's when there is no single egress port).

Isolation applies to bridged frames only (a routed frame leaves through a router interface, not out
of the bridge port it entered). Not modelled (stated): ACLs, storm control, MTU checks, L2 multicast
groups, tunnels (VXLAN), IP header checks, RIF admin state, the copy to the CPU of ``LOG`` actions,
non-IP frames (every frame has the IP header columns; DSCP 0 when not given).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from fastpath.hashing import flow_hash
from fastpath.isolation import isolated_obj, isolated_port
from fastpath.l2 import HASH_BUCKETS, MEMBER_NONE, MEMBER_UNTAGGED, N_VLAN, L2Tables, empty_l2
from fastpath.l3 import RIF_VLAN, RK_DROP, RK_GLEAN, RK_GROUP, RK_NEXTHOP, RK_TRAP, L3Tables, empty_l3
from fastpath.lpm import lookup_lpm4, lookup_lpm6
from fastpath.tables import I8, I32, U64, B, Tables

ACT_FORWARD, ACT_DROP, ACT_TRAP, ACT_FLOOD = 0, 1, 2, 3
ACTION_NAMES = ("forward", "drop", "trap", "flood")
DROP_REASONS: tuple[str, ...] = (
    "none", "port_down", "smac_multicast", "router_mac_miss", "ingress_vlan_filter", "same_port",
    "egress_vlan_filter", "ttl_expired", "lpm_miss", "blackhole_route", "ecmp_group_empty",
    "unresolved_next_hop", "lag_no_member", "egress_port_down", "isolated")
TRAP_REASONS: tuple[str, ...] = ("none", "route_trap", "neighbor_miss")
R = {name: i for i, name in enumerate(DROP_REASONS)}
BROADCAST_MAC = 0xFFFFFFFFFFFF
MULTICAST_BIT = np.uint64(1 << 40)
_48 = np.uint64(48)
_12 = np.uint64(12)


@dataclass(frozen=True)
class PacketBatch:
    """Header columns of ``n`` packets (MACs as 48-bit integers, IPs as [n, 2] hi/lo words)."""

    in_port: I32
    vlan: I32          # 802.1Q VID, 0 = untagged
    src_mac: U64
    dst_mac: U64
    is_v6: B
    src_ip: U64        # [n, 2]; IPv4 in the low word
    dst_ip: U64
    ip_proto: I32
    l4_src: I32
    l4_dst: I32
    dscp: I32
    ttl: I32

    @property
    def n(self) -> int:
        return len(self.in_port)

    @classmethod
    def of(cls, n: int, **columns: Any) -> PacketBatch:
        """A batch from the given columns (scalars broadcast; 1-D IPs go to the low word); the rest
        default to port 0, untagged, source 02:00:00:00:00:01, broadcast destination, IPv4 0.0.0.0,
        UDP, ports 0, DSCP 0, TTL 64."""
        unknown = set(columns) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"PacketBatch.of: unknown column(s) {sorted(unknown)}")
        defaults: dict[str, tuple[Any, Any]] = {
            "in_port": (0, np.int32), "vlan": (0, np.int32), "src_mac": (0x020000000001, np.uint64),
            "dst_mac": (BROADCAST_MAC, np.uint64), "is_v6": (False, np.bool_), "ip_proto": (17, np.int32),
            "l4_src": (0, np.int32), "l4_dst": (0, np.int32), "dscp": (0, np.int32), "ttl": (64, np.int32)}
        out: dict[str, Any] = {}
        for name, (default, dtype) in defaults.items():
            value = np.asarray(columns.get(name, default))
            out[name] = np.ascontiguousarray(np.broadcast_to(value.astype(dtype), (n,)))
        for name in ("src_ip", "dst_ip"):
            value = np.asarray(columns.get(name, 0)).astype(np.uint64, copy=False)
            if value.ndim < 2:
                words = np.zeros((n, 2), dtype=np.uint64)
                words[:, 1] = value
                value = words
            out[name] = np.ascontiguousarray(np.broadcast_to(value, (n, 2)))
        return cls(**out)


@dataclass(frozen=True)
class Learned:
    """New or moved source MACs, one row per distinct (vlan, mac) in the batch (its first packet)."""

    vlan: I32
    mac: U64
    port: I32          # ingress port index
    obj: I32           # ingress object: the port, or n_ports + LAG index
    move: B            # the MAC was in the FDB on another port/LAG


@dataclass(frozen=True)
class ForwardResult:
    egress_port: I32   # -1 when not forwarded to a single port
    tc: I8
    queue: I8
    pg: I8             # ingress priority group
    action: I8         # ACT_*
    drop_reason: I8    # index into DROP_REASONS
    learn: Learned
    # diagnostics
    trap_reason: I8    # index into TRAP_REASONS
    vlan: I32          # bridge VLAN (tag or PVID; 0 on a routed port)
    fdb_hit: B
    routed: B          # went through L3
    rif: I32           # ingress router interface (-1)
    route: I32         # matched route index (-1)
    next_hop: I32      # next hop index (-1)
    flow_hash: U64     # ECMP hash (0 when no group)
    egress_obj: I32    # port, or n_ports + LAG index (-1)
    out_ttl: I32
    out_dst_mac: U64
    out_vlan: I32      # egress VLAN (VLAN router interface / bridge VLAN; 0 = untagged or routed port)


class _State:
    """Mutable working columns of one ``forward`` call."""

    def __init__(self, n: int) -> None:
        self.action = np.zeros(n, dtype=np.int8)
        self.reason = np.zeros(n, dtype=np.int8)
        self.trap = np.zeros(n, dtype=np.int8)
        self.live = np.ones(n, dtype=bool)        # still being forwarded (no drop/trap/flood yet)

    def drop(self, mask: B, reason: str) -> None:
        hit = mask & self.live
        self.action[hit] = ACT_DROP
        self.reason[hit] = R[reason]
        self.live &= ~hit

    def stop(self, mask: B, action: int, trap: int = 0) -> None:
        hit = mask & self.live
        self.action[hit] = action
        self.trap[hit] = trap
        self.live &= ~hit


def _find(keys: U64, query: U64) -> tuple[I32, B]:
    """Position and exact-hit mask of each query in the sorted ``keys``."""
    if len(keys) == 0:
        return np.zeros(len(query), dtype=np.int32), np.zeros(len(query), dtype=bool)
    pos = np.minimum(np.searchsorted(keys, query), len(keys) - 1).astype(np.int32, copy=False)
    return pos, keys[pos] == query


def _learn(l2: L2Tables, b: PacketBatch, ok: B, vlan: I32, obj: I32) -> Learned:
    key = (vlan.astype(np.uint64, copy=False) << _48) | b.src_mac
    pos, hit = _find(l2.fdb_keys, key)
    moved = np.zeros(len(key), dtype=bool)
    if len(l2.fdb_keys):
        moved = hit & (l2.fdb_obj[pos] != obj) & ~l2.fdb_static[pos]
    want = ok & l2.obj_learn[obj] & l2.vlan_learn[vlan] & (~hit | moved)
    idx = np.flatnonzero(want)
    _, first = np.unique(key[idx], return_index=True)
    idx = idx[np.sort(first)]
    return Learned(vlan=vlan[idx].astype(np.int32, copy=False), mac=b.src_mac[idx].copy(), port=b.in_port[idx].copy(),
                   obj=obj[idx].astype(np.int32, copy=False), move=moved[idx])


def _bridge(l2: L2Tables, l3: L3Tables, b: PacketBatch, s: _State, obj: I32, bridged: B) -> dict[str, Any]:
    vlan = np.where(b.vlan == 0, l2.obj_pvid[obj], b.vlan).astype(np.int32, copy=False)
    vlan = np.where((vlan > 0) & (vlan < N_VLAN), vlan, 0).astype(np.int32, copy=False)
    member = l2.vlan_member[vlan, obj]
    ok = np.where(b.vlan == 0, member == MEMBER_UNTAGGED, member != MEMBER_NONE) & (vlan > 0)
    s.drop(bridged & ~ok, "ingress_vlan_filter")
    here = bridged & s.live
    learned = _learn(l2, b, here, vlan, obj)
    rif = l3.vlan_rif[vlan]
    has_rif = rif >= 0
    rif_mac = np.where(has_rif, l3.rif_mac[np.maximum(rif, 0)] if len(l3.rif_mac) else 0, 0)
    to_l3 = here & has_rif & ((b.dst_mac == rif_mac) | (b.dst_mac == np.uint64(l3.switch_mac)))
    switched = here & ~to_l3
    pos, hit = _find(l2.fdb_keys, (vlan.astype(np.uint64, copy=False) << _48) | b.dst_mac)
    hit &= (b.dst_mac & MULTICAST_BIT) == 0
    out_obj = np.where(switched & hit, l2.fdb_obj[pos] if len(l2.fdb_obj) else -1, -1).astype(np.int32, copy=False)
    s.stop(switched & ~hit, ACT_FLOOD)
    s.drop(switched & (out_obj == obj), "same_port")
    s.drop(switched & (l2.vlan_member[vlan, np.maximum(out_obj, 0)] == MEMBER_NONE), "egress_vlan_filter")
    if l2.n_iso:
        s.drop(switched & isolated_obj(l2, obj, out_obj), "isolated")
    return {"vlan": np.where(bridged, vlan, 0).astype(np.int32, copy=False), "learn": learned, "to_l3": to_l3,
            "rif": np.where(to_l3, rif, -1).astype(np.int32, copy=False), "out_obj": out_obj, "fdb_hit": switched & hit}


def _subset(mask: B) -> Any:
    """Index of the selected packets: a full slice (views, no copies) when all are selected."""
    return slice(None) if mask.all() else np.flatnonzero(mask)


def _lpm(l3: L3Tables, b: PacketBatch, routed: B, rif: I32) -> I32:
    route = np.full(b.n, -1, dtype=np.int32)
    if len(l3.v4) == 1:
        vr = np.zeros(b.n, dtype=np.int32)
        vrs = [0]
    else:
        vr = l3.rif_vr[np.maximum(rif, 0)]
        vrs = [int(v) for v in np.unique(vr[routed])]
    for v in vrs:
        here = routed & (vr == v)
        v4 = here & ~b.is_v6
        if v4.any():
            sel = _subset(v4)
            route[sel] = lookup_lpm4(l3.v4[v], b.dst_ip[sel, 1])
        v6 = here & b.is_v6
        if v6.any():
            sel = np.flatnonzero(v6)
            route[sel] = lookup_lpm6(l3.v6[v], b.dst_ip[sel])
    return route


def _gather(table: Any, index: Any, default: Any) -> Any:
    """``table[index]`` with ``default`` where index is -1: the default is appended to the table, so
    index -1 picks it (one gather, no mask)."""
    return np.append(table, np.asarray(default, dtype=table.dtype))[index]


def _ecmp(l3: L3Tables, b: PacketBatch, group: B, ref: I32, nh: I32) -> U64:
    """Next hop of every packet whose route is a group (written into ``nh``); returns the flow hashes."""
    h = np.zeros(b.n, dtype=np.uint64)
    count = int(np.count_nonzero(group))
    if count:
        # hashing every packet over views is cheaper than copying the columns of most of them
        sel = np.flatnonzero(group) if count < b.n // 4 else slice(None)
        h[sel] = flow_hash(_columns(b, sel), len(h[sel]), l3.ecmp_fields, l3.ecmp_seed)
        h[~group] = 0
        bucket = (h & np.uint64(HASH_BUCKETS - 1)).astype(np.int64, copy=False)
        member = l3.nhg_buckets.ravel()[np.where(group, ref, 0).astype(np.int64, copy=False) * HASH_BUCKETS + bucket]
        nh[group] = member[group]
    return h


def _route(l3: L3Tables, b: PacketBatch, s: _State, routed: B, rif: I32) -> dict[str, Any]:
    s.drop(routed & (b.ttl <= 1), "ttl_expired")
    routed = routed & s.live
    route = _lpm(l3, b, routed, rif)
    s.drop(routed & (route < 0), "lpm_miss")
    kind = _gather(l3.route_kind, route, RK_DROP)
    ref = _gather(l3.route_ref, route, -1)
    s.drop(routed & (kind == RK_DROP), "blackhole_route")
    s.stop(routed & (kind == RK_TRAP), ACT_TRAP, 1)
    s.stop(routed & (kind == RK_GLEAN), ACT_TRAP, 2)
    live = routed & s.live
    nh = np.where(live & (kind == RK_NEXTHOP), ref, -1).astype(np.int32, copy=False)
    group = live & (kind == RK_GROUP)
    h = _ecmp(l3, b, group, ref, nh)
    s.drop(group & (nh < 0), "ecmp_group_empty")
    s.drop(live & ~_gather(l3.nh_resolved, nh, False), "unresolved_next_hop")
    has_nh = routed & s.live
    nh = np.where(has_nh, nh, -1).astype(np.int32, copy=False)
    out_obj = _gather(l3.nh_obj, nh, -1).astype(np.int32, copy=False)
    s.stop(has_nh & (out_obj < 0), ACT_FLOOD)
    nh_rif = _gather(l3.nh_rif, nh, -1)
    vlan_rif = _gather(l3.rif_kind, nh_rif, -1) == RIF_VLAN
    return {"route": route, "next_hop": nh, "hash": h, "out_obj": out_obj,
            "dst_mac": _gather(l3.nh_mac, nh, 0).astype(np.uint64, copy=False),
            "out_vlan": np.where(vlan_rif, _gather(l3.rif_vlan, nh_rif, 0), 0)}


def _columns(b: PacketBatch, idx: Any) -> dict[str, Any]:
    return {"src_ip": b.src_ip[idx], "dst_ip": b.dst_ip[idx], "ip_proto": b.ip_proto[idx],
            "l4_src": b.l4_src[idx], "l4_dst": b.l4_dst[idx], "in_port": b.in_port[idx]}


def _egress(tables: Tables, l2: L2Tables, b: PacketBatch, s: _State, out_obj: I32, bridged: B) -> I32:
    n_ports = tables.ports.n
    port = np.where(s.live & (out_obj < n_ports), out_obj, -1).astype(np.int32, copy=False)
    lag = s.live & (out_obj >= n_ports)
    if lag.any():
        idx = np.flatnonzero(lag)
        h = flow_hash(_columns(b, idx), len(idx), l2.lag_fields, l2.lag_seed)
        bucket = (h & np.uint64(HASH_BUCKETS - 1)).astype(np.int64, copy=False)
        lag_row = (out_obj[idx] - n_ports).astype(np.int64, copy=False)
        port[idx] = l2.lag_buckets.ravel()[lag_row * HASH_BUCKETS + bucket]
        s.drop(lag & (port < 0), "lag_no_member")
    if l2.n_iso:
        s.drop(bridged & isolated_port(l2, b.in_port, port), "isolated")
    up = tables.ports.admin_up & tables.ports.oper_up
    s.drop((port >= 0) & ~up[np.maximum(port, 0)], "egress_port_down")
    return np.where(s.live, port, -1).astype(np.int32, copy=False)


def _ingress_rif(l3: L3Tables, b: PacketBatch, obj: I32) -> I32:
    """The port (untagged) or sub-port (tagged) router interface each frame arrives on, -1 when none."""
    if len(l3.obj_rif) == 0:   # no router interfaces (empty_l3)
        return np.full(b.n, -1, dtype=np.int32)
    untagged_obj = np.where(b.vlan == 0, obj, -1)
    rif: I32 = _gather(l3.obj_rif, untagged_obj, -1).astype(np.int32, copy=False)
    if len(l3.sub_rif_keys):
        key = (obj.astype(np.uint64) << _12) | b.vlan.astype(np.uint64)
        pos, hit = _find(l3.sub_rif_keys, key)
        rif = np.where(hit & (b.vlan != 0), l3.sub_rif[pos], rif).astype(np.int32, copy=False)
    return rif


def _classify(tables: Tables, b: PacketBatch, egress: I32) -> tuple[I8, I8, I8]:
    q = tables.qos
    port = b.in_port.astype(np.int64, copy=False)
    tc = q.dscp_to_tc.ravel()[port * q.dscp_to_tc.shape[1] + (b.dscp & 63)]
    tc64 = tc.astype(np.int64, copy=False)
    width = q.tc_to_queue.shape[1]
    queue = q.tc_to_queue.ravel()[np.where(egress >= 0, egress, port) * width + tc64]
    pg = q.tc_to_pg.ravel()[port * q.tc_to_pg.shape[1] + tc64]
    return tc, queue, pg


def _no_bridge(n: int) -> dict[str, Any]:
    none = np.zeros(0, dtype=np.int32)
    return {"vlan": np.zeros(n, dtype=np.int32), "to_l3": np.zeros(n, dtype=bool),
            "rif": np.full(n, -1, dtype=np.int32), "out_obj": np.full(n, -1, dtype=np.int32),
            "fdb_hit": np.zeros(n, dtype=bool),
            "learn": Learned(vlan=none, mac=np.zeros(0, dtype=np.uint64), port=none, obj=none,
                             move=np.zeros(0, dtype=bool))}


def forward(tables: Tables, batch: PacketBatch) -> ForwardResult:
    """Forward every packet of ``batch`` over ``tables`` (see the module docstring)."""
    l2: L2Tables = tables.l2 if tables.l2 is not None else empty_l2(tables.ports.n)
    l3: L3Tables = tables.l3 if tables.l3 is not None else empty_l3()
    b = batch
    s = _State(b.n)
    up = tables.ports.admin_up & tables.ports.oper_up
    s.drop(~up[b.in_port], "port_down")
    s.drop((b.src_mac & MULTICAST_BIT) != 0, "smac_multicast")
    obj = l2.port_obj[b.in_port]
    in_rif = _ingress_rif(l3, b, obj)
    port_rif = in_rif >= 0
    rif_mac = _gather(l3.rif_mac, in_rif, 0)
    s.drop(port_rif & (b.dst_mac != rif_mac) & (b.dst_mac != np.uint64(l3.switch_mac)), "router_mac_miss")
    bridged = ~port_rif & s.live
    bridge = _bridge(l2, l3, b, s, obj, bridged) if bridged.any() else _no_bridge(b.n)
    routed = (port_rif | bridge["to_l3"]) & s.live
    rif = np.where(port_rif, in_rif, bridge["rif"]).astype(np.int32, copy=False)
    l3r = _route(l3, b, s, routed, rif)
    out_obj = np.where(routed, l3r["out_obj"], bridge["out_obj"]).astype(np.int32, copy=False)
    egress = _egress(tables, l2, b, s, out_obj, bridge["fdb_hit"] & ~routed)
    tc, queue, pg = _classify(tables, b, egress)
    return ForwardResult(
        egress_port=egress, tc=tc, queue=queue, pg=pg, action=s.action,
        drop_reason=s.reason, learn=bridge["learn"], trap_reason=s.trap, vlan=bridge["vlan"],
        fdb_hit=bridge["fdb_hit"], routed=routed, rif=np.where(routed, rif, -1).astype(np.int32, copy=False),
        route=l3r["route"], next_hop=l3r["next_hop"], flow_hash=l3r["hash"], egress_obj=out_obj,
        out_ttl=np.where(routed, b.ttl - 1, b.ttl).astype(np.int32, copy=False),
        out_dst_mac=np.where(routed, l3r["dst_mac"], b.dst_mac).astype(np.uint64, copy=False),
        out_vlan=np.where(routed, l3r["out_vlan"], bridge["vlan"]).astype(np.int32, copy=False))
