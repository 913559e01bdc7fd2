"""Fabrics built from plain data, without daemons: a two-tier leaf-spine and htsim's three-tier K-ary
fat tree, each switch with its own compiled tables (``fastpath.build`` defaults: TH5 buffers, AZURE
maps, PFC on priorities 3 and 4) and routes.

Every switch has only the ports it needs, all at ``speed``. Addressing: the hosts of edge (leaf)
switch ``e`` are in 10.(e >> 8).(e & 255).0/24, host ``h`` of it at .(h + 1). Routing is what BGP with
ECMP would converge to: each switch routes every other edge's /24 over ALL its ports on a shortest
path to that edge (up/down paths in both topologies; a cut link is simply not a path), and its own
hosts by /32 host routes; every port is a routed port (a router interface, the switch's router MAC),
next hops resolved to the neighbour's MAC. ECMP buckets are rendezvous-hashed over the member ports
with a seed per switch (``seed`` mixes in the switch index, so switches do not polarise).

Lossless RoCE as the single-switch tests configure it: PFC on priority 3 (and 4), ECN marking on
queue 3 at NVIDIA's RoCE thresholds (150 KB / 1.5 MB, 100 %), flows sent on DSCP 3 (TC 3).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastpath.build import build_tables
from fastpath.fabric.spec import DEFAULT_CABLE_M, Fabric, Host, Link
from fastpath.hashing import hrw_buckets, mix64
from fastpath.l2 import HASH_BUCKETS, N_VLAN
from fastpath.l3 import RK_GROUP, RK_NEXTHOP, L3Tables
from fastpath.lpm import build_lpm4, build_lpm6
from fastpath.tables import Tables

ECN_MIN, ECN_MAX, ECN_PROB = 150_000, 1_500_000, 1.0
ROCE_DSCP = 3
ROUTER_MAC_BASE = 0x0200_0000_0000
HOST_MAC_BASE = 0x0400_0000_0000


@dataclass(frozen=True)
class Plan:
    """A topology before tables: switch names and port counts, switch links by port index, hosts as
    (switch index, port index) in order, and which switches are edges (with their host subnets)."""

    names: tuple[str, ...]
    n_ports: tuple[int, ...]
    links: tuple[tuple[int, int, int, int], ...]     # (switch a, port a, switch b, port b)
    hosts: tuple[tuple[int, int], ...]
    edges: tuple[int, ...]                            # switch index of each edge, in subnet order
    down: frozenset[tuple[int, int]] = frozenset()   # (switch, port) cut


def subnet(edge: int) -> int:
    return (10 << 24) | ((edge >> 8) << 16) | ((edge & 255) << 8)


def _neighbours(plan: Plan) -> list[dict[int, tuple[int, int]]]:
    """Per switch: port -> (peer switch, peer port) over the links that are up."""
    out: list[dict[int, tuple[int, int]]] = [{} for _ in plan.names]
    for a, pa, b, pb in plan.links:
        if (a, pa) in plan.down or (b, pb) in plan.down:
            continue
        out[a][pa] = (b, pb)
        out[b][pb] = (a, pa)
    return out


def _distances(nbr: list[dict[int, tuple[int, int]]], target: int) -> list[int]:
    dist = [-1] * len(nbr)
    dist[target] = 0
    todo = deque([target])
    while todo:
        s = todo.popleft()
        for t, _ in nbr[s].values():
            if dist[t] < 0:
                dist[t] = dist[s] + 1
                todo.append(t)
    return dist


def _routes(plan: Plan) -> list[list[tuple[int, int, tuple[int, ...]]]]:
    """Per switch: (prefix, length, ECMP ports) for every other edge's /24 and its own hosts' /32."""
    nbr = _neighbours(plan)
    out: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in plan.names]
    for e, edge in enumerate(plan.edges):
        dist = _distances(nbr, edge)
        for s in range(len(plan.names)):
            if s == edge or dist[s] < 0:
                continue
            ports = tuple(sorted(p for p, (t, _) in nbr[s].items() if dist[t] == dist[s] - 1))
            out[s].append((subnet(e), 24, ports))
    for h, (s, p) in enumerate(plan.hosts):
        out[s].append((host_ip(plan, h), 32, (p,)))
    return out


def host_ip(plan: Plan, h: int) -> int:
    s, _ = plan.hosts[h]
    e = plan.edges.index(s)
    rank = sum(1 for k in range(h) if plan.hosts[k][0] == s)
    return subnet(e) + rank + 1


def _l3(n_ports: int, mac: int, nh_mac: list[int], routes: list[tuple[int, int, tuple[int, ...]]],
        seed: int) -> L3Tables:
    groups: dict[tuple[int, ...], int] = {}
    kind, ref = [], []
    for _, _, ports in routes:
        if len(ports) == 1:
            kind.append(RK_NEXTHOP)
            ref.append(ports[0])
        else:
            kind.append(RK_GROUP)
            ref.append(groups.setdefault(ports, len(groups)))
    members = tuple(groups)
    ptr = np.concatenate([[0], np.cumsum([len(m) for m in members])]).astype(np.int64)
    flat = np.asarray([p for m in members for p in m], dtype=np.int32)
    buckets = hrw_buckets(ptr, (flat + 1).astype(np.uint64), np.ones(len(flat)), flat, HASH_BUCKETS, seed)
    n_r = len(routes)
    addr = np.asarray([r[0] for r in routes], dtype=np.uint32)
    length = np.asarray([r[1] for r in routes], dtype=np.int32)
    i32 = np.arange(n_ports, dtype=np.int32)
    words = np.zeros((n_r, 2), dtype=np.uint64)
    words[:, 1] = addr
    return L3Tables(
        switch_mac=mac, vr_oids=("oid:vr",), rif_oids=tuple(f"oid:rif{p}" for p in range(n_ports)),
        rif_kind=np.zeros(n_ports, dtype=np.int8), rif_obj=i32, rif_vlan=np.zeros(n_ports, dtype=np.int32),
        rif_mac=np.full(n_ports, mac, dtype=np.uint64), rif_vr=np.zeros(n_ports, dtype=np.int32), obj_rif=i32,
        sub_rif_keys=np.zeros(0, dtype=np.uint64), sub_rif=np.zeros(0, dtype=np.int32),
        vlan_rif=np.full(N_VLAN, -1, dtype=np.int32), nh_oids=tuple(f"oid:nh{p}" for p in range(n_ports)),
        nh_rif=i32, nh_ip=np.zeros((n_ports, 2), dtype=np.uint64), nh_is_v6=np.zeros(n_ports, dtype=bool),
        nh_resolved=np.ones(n_ports, dtype=bool), nh_mac=np.asarray(nh_mac, dtype=np.uint64), nh_obj=i32,
        nhg_oids=tuple(f"oid:nhg{g}" for g in range(len(members))), nhg_members=members,
        nhg_buckets=buckets, route_kind=np.asarray(kind, dtype=np.int8), route_ref=np.asarray(ref, dtype=np.int32),
        route_vr=np.zeros(n_r, dtype=np.int32), route_is_v6=np.zeros(n_r, dtype=bool), route_addr=words,
        route_len=length, v4=(build_lpm4(addr, length, np.arange(n_r, dtype=np.int32)),),
        v6=(build_lpm6(np.zeros((0, 2), dtype=np.uint64), np.zeros(0, dtype=np.int32),
                       np.zeros(0, dtype=np.int32)),),
        ecmp_seed=seed)


def _tables(plan: Plan, s: int, speed: float, seed: int, routes: list[tuple[int, int, tuple[int, ...]]],
            nh_mac: list[int], overrides: Mapping[str, Any]) -> Tables:
    n = plan.n_ports[s]
    ecn = np.zeros((n, 8), dtype=bool)
    ecn[:, 3] = True
    up = np.asarray([(s, p) not in plan.down for p in range(n)], dtype=bool)
    switch_seed = int(mix64(np.asarray([seed * 1_000_003 + s], dtype=np.uint64))[0])
    fields: dict[str, Any] = dict(wred_ecn=ecn, wred_min=ECN_MIN, wred_max=ECN_MAX, wred_prob=ECN_PROB, admin_up=up,
                                  oper_up=up)
    fields.update(overrides)
    return build_tables(n_ports=n, speed_bps=speed, l3=_l3(n, ROUTER_MAC_BASE | (s + 1) << 8, nh_mac, routes,
                                                            switch_seed), **fields)


def build(plan: Plan, speed: float = 400e9, cable_m: float = DEFAULT_CABLE_M, seed: int = 0,
          overrides: Mapping[str, Any] | None = None) -> Fabric:
    """The ``Fabric`` of ``plan``: tables, links (``cable_m``) and hosts (``speed``); ``overrides`` go to
    every switch's ``build_tables`` (``pool_size=...``, ``pg_dynamic_th=...``)."""
    routes = _routes(plan)
    nh_mac = [[0] * n for n in plan.n_ports]
    for a, pa, b, pb in plan.links:
        nh_mac[a][pa] = ROUTER_MAC_BASE | (b + 1) << 8
        nh_mac[b][pb] = ROUTER_MAC_BASE | (a + 1) << 8
    for h, (s, p) in enumerate(plan.hosts):
        nh_mac[s][p] = HOST_MAC_BASE | h
    switches = tuple((plan.names[s], _tables(plan, s, speed, seed, routes[s], nh_mac[s], overrides or {}))
                     for s in range(len(plan.names)))
    port = [t.ports.names for _, t in switches]
    links = tuple(Link((plan.names[a], port[a][pa]), (plan.names[b], port[b][pb]), cable_m)
                  for a, pa, b, pb in plan.links)
    hosts = tuple(Host(f"h{h}", plan.names[s], port[s][p], HOST_MAC_BASE | h, host_ip(plan, h), speed, cable_m)
                  for h, (s, p) in enumerate(plan.hosts))
    return Fabric(switches=switches, links=links, hosts=hosts)


def leaf_spine_plan(n_spines: int, n_leaves: int, hosts_per_leaf: int,
                    down: tuple[tuple[int, int], ...] = ()) -> Plan:
    """Leaves 0.. then spines; leaf ports 0..hosts-1 to hosts, then one per spine; spine port l to
    leaf l. ``down``: (leaf, spine) links cut (both ports down)."""
    names = tuple(f"leaf{i}" for i in range(n_leaves)) + tuple(f"spine{j}" for j in range(n_spines))
    n_ports = (hosts_per_leaf + n_spines,) * n_leaves + (n_leaves,) * n_spines
    links = tuple((leaf, hosts_per_leaf + j, n_leaves + j, leaf) for leaf in range(n_leaves) for j in range(n_spines))
    hosts = tuple((leaf, h) for leaf in range(n_leaves) for h in range(hosts_per_leaf))
    cut = frozenset(end for leaf, j in down for end in ((leaf, hosts_per_leaf + j), (n_leaves + j, leaf)))
    return Plan(names, n_ports, links, hosts, tuple(range(n_leaves)), cut)


def leaf_spine(n_spines: int, n_leaves: int, hosts_per_leaf: int, speed: float = 400e9, *,
               down: tuple[tuple[int, int], ...] = (), cable_m: float = DEFAULT_CABLE_M, seed: int = 0,
               overrides: Mapping[str, Any] | None = None) -> Fabric:
    """A two-tier leaf-spine fabric (see ``leaf_spine_plan``); hosts ``h0..`` leaf by leaf."""
    return build(leaf_spine_plan(n_spines, n_leaves, hosts_per_leaf, down), speed, cable_m, seed, overrides)


def fat_tree_plan(k: int) -> Plan:
    """htsim's K-ary fat tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores, k/2 hosts
    per edge (k^3/4 hosts). Edge ports 0..k/2-1 to hosts, k/2 + j to aggregation j of its pod;
    aggregation ports 0..k/2-1 to the pod's edges, k/2 + i to core j x k/2 + i; core port p to pod p."""
    if k < 2 or k % 2:
        raise ValueError(f"fat_tree: k must be even and >= 2, not {k}")
    half = k // 2
    edges = [(p, e) for p in range(k) for e in range(half)]
    names = (tuple(f"edge{p}_{e}" for p, e in edges) + tuple(f"agg{p}_{j}" for p, j in edges)
             + tuple(f"core{c}" for c in range(half * half)))
    n_edge = len(edges)
    agg0, core0 = n_edge, 2 * n_edge
    links = []
    for p in range(k):
        for e in range(half):
            for j in range(half):
                links.append((p * half + e, half + j, agg0 + p * half + j, e))
        for j in range(half):
            for i in range(half):
                links.append((agg0 + p * half + j, half + i, core0 + j * half + i, p))
    hosts = tuple((s, h) for s in range(n_edge) for h in range(half))
    return Plan(names, (k,) * len(names), tuple(links), hosts, tuple(range(n_edge)))


def fat_tree(k: int, speed: float = 400e9, *, cable_m: float = DEFAULT_CABLE_M, seed: int = 0,
             overrides: Mapping[str, Any] | None = None) -> Fabric:
    """htsim's K-ary fat tree (see ``fat_tree_plan``): K = 8 gives 80 switches and 128 hosts."""
    return build(fat_tree_plan(k), speed, cable_m, seed, overrides)
