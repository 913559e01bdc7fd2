"""Each flow's path through the fabric, hop by hop, by every switch's own tables (pure, vectorised).

A flow's packet is a RoCEv2 packet (UDP to 4791, source port ``l4_src``, TTL 64, the flow's DSCP; the
sender's VLAN tag on the first hop, then the tag it leaves each switch with: its VLAN on a tagged member
such as an MC-LAG peer link, none on untagged members and routed ports) from its sender's MAC and IP to
its receiver's IP. At each switch the packet enters on ``in_port`` with destination MAC = that switch's
router MAC (the receiver's MAC when the switch has no router MAC: a bridge; hosts in one subnet are
routed through the switch too, which only lowers the TTL), and ``fastpath.forward.forward`` runs over
THAT switch's tables, ECMP and LAG hashing included. First every host sends one broadcast frame (as a
NIC's first ARP would), so that each switch's FDB knows the MACs of the hosts on it and its next hops on
VLAN interfaces find them (a copy of its tables; the fabric's own are not changed); a bonded host sends
it on every link, so both switches of an MC-LAG pair learn it on their own member (what the pair's MAC
sync gives them). A bonded host's flow leaves by the link its hash picks (``first_ports``). The egress
port's wiring gives the next switch and its in port (TTL as forwarded), until the port is the
receiver's (delivered). A flow is dropped where the switch drops, traps or floods it, where its egress
port is wired to nothing or to another host, and after ``max_hops`` switches (a loop).

All flows at the same switch go through one ``forward`` call per round: a round costs one call per
switch that holds flows, and there are as many rounds as the longest path has hops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.fabric.spec import Fabric, Wiring
from fastpath.fdb import resolve_vlan_next_hops, with_learnt
from fastpath.forward import ACT_FORWARD, ACTION_NAMES, BROADCAST_MAC, DROP_REASONS, Learned, PacketBatch, forward
from fastpath.hashing import mix64
from fastpath.l2 import MEMBER_TAGGED
from fastpath.tables import I8, I32, I64, U64, Tables
from fastpath.values import mac_text

ROCE_UDP_PORT = 4791
UDP = 17
MAX_HOPS = 16
DELIVERED = "delivered"


@dataclass(frozen=True)
class Hops:
    """Paths as CSR over flows: hop ``h`` of flow ``i`` is row ``ptr[i] + h``; ports are the switch's own
    port indices. ``status[i]`` is ``DELIVERED`` or why the flow was dropped (at its last hop's switch)."""

    ptr: I64
    switch: I32
    in_port: I32
    out_port: I32      # -1 at a hop where the flow was dropped
    tc: I8
    queue: I8          # egress queue (tc_to_queue of that switch's egress port)
    pg: I8             # ingress PG (tc_to_pg of that switch's ingress port)
    status: tuple[str, ...]

    @property
    def delivered(self) -> np.ndarray:
        return np.asarray([s == DELIVERED for s in self.status], dtype=bool)

    def path(self, i: int) -> list[tuple[int, int, int]]:
        """Flow ``i``'s hops as (switch, in port, out port)."""
        lo, hi = int(self.ptr[i]), int(self.ptr[i + 1])
        return [(int(self.switch[k]), int(self.in_port[k]), int(self.out_port[k])) for k in range(lo, hi)]


@dataclass
class _Walk:
    """Flows still travelling: their current switch, in port, TTL, and the hop rows recorded so far."""

    flow: I64
    switch: I32
    in_port: I32
    ttl: I32
    rows: list[tuple[I64, I32, I32, I32, I8, I8, I8]]
    vlan: I32          # the tag the packet carries in (the sender's on the first hop, then untagged)


def _host_frames(fabric: Fabric, wiring: Wiring, s: int) -> Learned | None:
    """What one broadcast frame from each host link on switch ``s`` teaches its bridge (None: nothing)."""
    tables = fabric.switches[s][1]
    mine = np.flatnonzero(wiring.switch_of[wiring.nic_port] == s)
    if not len(mine) or tables.l2 is None:
        return None
    hosts = [fabric.hosts[int(h)] for h in wiring.nic_host[mine]]
    macs = np.asarray([h.mac for h in hosts], dtype=np.uint64)
    batch = PacketBatch.of(len(mine), in_port=wiring.nic_port[mine] - wiring.offset[s],
                           vlan=[h.vlan for h in hosts], src_mac=macs, dst_mac=BROADCAST_MAC)
    return forward(tables, batch).learn


def learnt_tables(fabric: Fabric, wiring: Wiring) -> list[Tables]:
    """Every switch's tables with what one broadcast frame from each of its hosts teaches its FDB."""
    out = []
    for s, (_, tables) in enumerate(fabric.switches):
        learn = _host_frames(fabric, wiring, s)
        out.append(tables if learn is None else resolve_vlan_next_hops(with_learnt(tables, learn)))
    return out


def learnt_macs(fabric: Fabric, wiring: Wiring) -> dict[str, list[tuple[str, str, str]]]:
    """Per switch, the MACs its hosts' frames teach it, in SAI terms (VLAN oid, MAC, bridge port oid):
    what a lab hands each switch's syncd after a run, so that its FDB (and MC-LAG's MAC sync) knows them."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for s, (name, tables) in enumerate(fabric.switches):
        learn = _host_frames(fabric, wiring, s)
        l2 = tables.l2
        if learn is None or l2 is None:
            continue
        rows = []
        for vid, mac, obj in zip(learn.vlan.tolist(), learn.mac.tolist(), learn.obj.tolist(), strict=True):
            bvid = l2.vlan_oid[vid] if 0 <= vid < len(l2.vlan_oid) else ""
            bridge_port = l2.obj_bridge_port[obj] if 0 <= obj < len(l2.obj_bridge_port) else ""
            if bvid and bridge_port:
                rows.append((bvid, mac_text(mac).upper(), bridge_port))
        if rows:
            out[name] = rows
    return out


def first_ports(wiring: Wiring, src: I64, dst: I64, l4_src: I32, ips: U64) -> I64:
    """The global port each flow leaves its sender by: its only link, or for a bonded sender the link
    the hash of (source IP, destination IP, UDP source port) picks among its links."""
    ptr = wiring.host_nic_ptr
    count = (ptr[src + 1] - ptr[src]).astype(np.uint64)
    key = mix64(ips[src] << np.uint64(32) ^ ips[dst] ^ (l4_src.astype(np.uint64) << np.uint64(16)))
    pick = (key % np.maximum(count, np.uint64(1))).astype(np.int64)
    return np.asarray(wiring.nic_port[wiring.host_nic_idx[ptr[src] + pick]], dtype=np.int64)


def _router_macs(fabric: Fabric) -> U64:
    return np.asarray([t.l3.switch_mac if t.l3 is not None else 0 for _, t in fabric.switches], dtype=np.uint64)


def _status(result: object, out: I32, wiring: Wiring, dst: I64) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(delivered, travels on) masks and a reason per flow of one forward call."""
    action = result.action  # type: ignore[attr-defined]
    reason = result.drop_reason  # type: ignore[attr-defined]
    ok = (action == ACT_FORWARD) & (out >= 0)
    host = np.where(ok, wiring.host_at[np.maximum(out, 0)], -1)
    peer = np.where(ok, wiring.peer[np.maximum(out, 0)], -1)
    delivered = ok & (host == dst)
    onward = ok & (host < 0) & (peer >= 0)
    why = []
    for i in range(len(out)):
        if delivered[i] or onward[i]:
            why.append("")
        elif action[i] != ACT_FORWARD:
            why.append(DROP_REASONS[reason[i]] if ACTION_NAMES[action[i]] == "drop" else ACTION_NAMES[action[i]])
        else:
            why.append("wrong_host" if host[i] >= 0 else "unwired_port")
    return delivered, onward, why


def find_hops(fabric: Fabric, wiring: Wiring, src: I64, dst: I64, dscp: I32, l4_src: I32,
              max_hops: int = MAX_HOPS) -> Hops:
    """The path of every flow from host ``src[i]`` to host ``dst[i]`` (see the module docstring)."""
    n = len(src)
    hosts = fabric.hosts
    macs = np.asarray([h.mac for h in hosts], dtype=np.uint64)
    ips = np.asarray([h.ip for h in hosts], dtype=np.uint64)
    router = _router_macs(fabric)
    tables = learnt_tables(fabric, wiring)
    first = first_ports(wiring, src, dst, l4_src, ips)
    walk = _Walk(flow=np.arange(n, dtype=np.int64), switch=wiring.switch_of[first].astype(np.int32),
                 in_port=(first - wiring.offset[wiring.switch_of[first]]).astype(np.int32),
                 ttl=np.full(n, 64, dtype=np.int32), rows=[],
                 vlan=np.asarray([hosts[int(i)].vlan for i in src], dtype=np.int32))
    status = [""] * n
    for _ in range(max_hops):
        if len(walk.flow) == 0:
            break
        walk = _round(tables, wiring, walk, src, dst, dscp, l4_src, macs, ips, router, status)
    for f in walk.flow:
        status[int(f)] = "loop"
    return _csr(n, walk.rows, tuple(status))


def _round(tables_of: list[Tables], wiring: Wiring, walk: _Walk, src: I64, dst: I64, dscp: I32, l4_src: I32, macs: U64,
           ips: U64, router: U64, status: list[str]) -> _Walk:
    keep_flow, keep_sw, keep_in, keep_ttl, keep_vlan = [], [], [], [], []
    for s in np.unique(walk.switch):
        sel = np.flatnonzero(walk.switch == s)
        f = walk.flow[sel]
        tables = tables_of[int(s)]
        mac = np.where(router[s] != 0, router[s], macs[dst[f]]).astype(np.uint64)
        batch = PacketBatch.of(len(f), in_port=walk.in_port[sel], vlan=walk.vlan[sel], src_mac=macs[src[f]],
                               dst_mac=mac, src_ip=ips[src[f]], dst_ip=ips[dst[f]], ip_proto=UDP, l4_src=l4_src[f],
                               l4_dst=ROCE_UDP_PORT, dscp=dscp[f], ttl=walk.ttl[sel])
        r = forward(tables, batch)
        out = r.egress_port.astype(np.int32)
        glob = np.where(out >= 0, wiring.offset[s] + out, -1)
        delivered, onward, why = _status(r, glob.astype(np.int32), wiring, dst[f])
        walk.rows.append((f, np.full(len(f), s, dtype=np.int32), walk.in_port[sel].copy(),
                          np.where(delivered | onward, out, -1).astype(np.int32), r.tc.astype(np.int8),
                          r.queue.astype(np.int8), r.pg.astype(np.int8)))
        for k in np.flatnonzero(~onward):
            status[int(f[k])] = DELIVERED if delivered[k] else why[k]
        nxt = wiring.peer[glob[onward]].astype(np.int64)
        nsw = wiring.switch_of[nxt]
        keep_flow.append(f[onward])
        keep_sw.append(nsw)
        keep_in.append((nxt - wiring.offset[nsw]).astype(np.int32))
        keep_ttl.append(r.out_ttl[onward].astype(np.int32))
        keep_vlan.append(_egress_tag(tables, r.out_vlan[onward], r.egress_obj[onward]))
    z = np.zeros(0, dtype=np.int32)
    if not keep_flow:
        return _Walk(flow=np.zeros(0, dtype=np.int64), switch=z, in_port=z, ttl=z, rows=walk.rows, vlan=z)
    return _Walk(flow=np.concatenate(keep_flow), switch=np.concatenate(keep_sw).astype(np.int32),
                 in_port=np.concatenate(keep_in), ttl=np.concatenate(keep_ttl), rows=walk.rows,
                 vlan=np.concatenate(keep_vlan))


def _egress_tag(tables: Tables, vlan: I32, obj: I32) -> I32:
    """The 802.1Q tag a frame leaves with: its VLAN where the egress port (or LAG) is a tagged member of
    it (an MC-LAG peer link, a trunk), else none (untagged members, routed ports)."""
    l2 = tables.l2
    if l2 is None or not len(vlan):
        return np.zeros(len(vlan), dtype=np.int32)
    ok = (vlan > 0) & (vlan < l2.vlan_member.shape[0]) & (obj >= 0) & (obj < l2.vlan_member.shape[1])
    tagged = np.zeros(len(vlan), dtype=bool)
    tagged[ok] = l2.vlan_member[vlan[ok], obj[ok]] == MEMBER_TAGGED
    return np.where(tagged, vlan, 0).astype(np.int32)


def _csr(n: int, rows: list[tuple[I64, I32, I32, I32, I8, I8, I8]], status: tuple[str, ...]) -> Hops:
    if not rows:
        z = np.zeros(0, dtype=np.int32)
        return Hops(ptr=np.zeros(n + 1, dtype=np.int64), switch=z, in_port=z, out_port=z, tc=z.astype(np.int8),
                    queue=z.astype(np.int8), pg=z.astype(np.int8), status=status)
    cols = [np.concatenate([r[k] for r in rows]) for k in range(7)]
    order = np.argsort(cols[0], kind="stable")      # rounds are in hop order: stable keeps it per flow
    cols = [c[order] for c in cols]
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(cols[0], minlength=n))
    return Hops(ptr=ptr, switch=cols[1], in_port=cols[2], out_port=cols[3], tc=cols[4], queue=cols[5], pg=cols[6],
                status=status)
