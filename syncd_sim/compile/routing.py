"""Compiling the router: virtual routers, router interfaces, neighbors, next hops (resolved to the
neighbor's MAC and an egress port/LAG), ECMP groups (rendezvous-hashed buckets over the members' next
hop ids, weighted by ``SAI_NEXT_HOP_GROUP_MEMBER_ATTR_WEIGHT``) and routes with their LPM structures.

Simplifications, stated: a next hop of a VLAN router interface is resolved through the FDB at compile
time (a neighbor MAC not in the FDB floods in the VLAN); next hops other than ``SAI_NEXT_HOP_TYPE_IP``
(tunnels, MPLS) are unresolved (trapped); a route and a neighbor's host route for the same prefix: the
route wins; the switch's hash field lists are not read (src/dst IP, protocol, L4 ports are hashed).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from fastpath.hashing import DEFAULT_FIELDS, hrw_buckets
from fastpath.l2 import HASH_BUCKETS, N_VLAN, L2Tables
from fastpath.l3 import (
    RIF_LOOPBACK,
    RIF_PORT,
    RIF_SUB_PORT,
    RIF_VLAN,
    L3Tables,
)
from fastpath.values import as_bool, as_int, ip_words, mac_int, ref
from nos.sai.types import ObjectType as T
from nos.sai.types import oid_value
from syncd_sim.compile.routes import Targets, compile_routes
from syncd_sim.objects import ObjectStore, SaiObject

RA = "SAI_ROUTER_INTERFACE_ATTR_"
RIF_KINDS = {"SAI_ROUTER_INTERFACE_TYPE_PORT": RIF_PORT, "SAI_ROUTER_INTERFACE_TYPE_VLAN": RIF_VLAN,
             "SAI_ROUTER_INTERFACE_TYPE_SUB_PORT": RIF_SUB_PORT, "SAI_ROUTER_INTERFACE_TYPE_LOOPBACK": RIF_LOOPBACK}
DROP_ACTIONS = {"SAI_PACKET_ACTION_DROP", "SAI_PACKET_ACTION_DENY"}
TRAP_ACTIONS = {"SAI_PACKET_ACTION_TRAP"}
ECMP_SALT = 0x45434D50  # "ECMP"
NeighKey = tuple[int, bool, int, int]   # rif, v6, hi, lo
Groups = tuple[tuple[str, ...], tuple[tuple[int, ...], ...], np.ndarray[Any, np.dtype[np.int32]]]


def _rifs(store: ObjectStore, objects: Mapping[str, int], vids: Mapping[str, int], vr_index: Mapping[str, int],
          switch_mac: int) -> dict[str, Any]:
    """The router interface columns (``L3Tables`` rif_*, obj_rif, sub_rif_*, vlan_rif)."""
    oids = sorted(store.of_type(T.ROUTER_INTERFACE))
    cols: dict[str, list[int]] = {"kind": [], "obj": [], "vlan": [], "mac": [], "vr": []}
    in_keys: list[int] = []
    in_rif: list[int] = []
    obj_rif = np.full(len(objects), -1, dtype=np.int32)
    vlan_rif = np.full(N_VLAN, -1, dtype=np.int32)
    for i, oid in enumerate(oids):
        a = store.of_type(T.ROUTER_INTERFACE)[oid].attrs
        kind = RIF_KINDS.get(a.get(RA + "TYPE", ""), RIF_LOOPBACK)
        vr_oid = ref(a, RA + "VIRTUAL_ROUTER_ID")
        vr = store.find(T.VIRTUAL_ROUTER, vr_oid)
        mac = mac_int(a.get(RA + "SRC_MAC_ADDRESS", "")) or (
            mac_int(vr.attrs.get("SAI_VIRTUAL_ROUTER_ATTR_SRC_MAC_ADDRESS", "")) if vr else 0) or switch_mac
        obj = objects.get(ref(a, RA + "PORT_ID"), -1) if kind in (RIF_PORT, RIF_SUB_PORT) else -1
        vlan = vids.get(ref(a, RA + "VLAN_ID"), 0) if kind == RIF_VLAN else as_int(a, RA + "OUTER_VLAN_ID")
        if kind == RIF_VLAN and 0 < vlan < N_VLAN:
            vlan_rif[vlan] = i
        if obj >= 0 and kind == RIF_PORT:
            obj_rif[obj] = i
        elif obj >= 0:
            in_keys.append(obj << 12 | vlan)
            in_rif.append(i)
        for name, value in (("kind", kind), ("obj", obj), ("vlan", vlan), ("mac", mac),
                            ("vr", vr_index.get(vr_oid, 0))):
            cols[name].append(value)
    keys = np.array(in_keys, dtype=np.uint64)
    order = np.argsort(keys, kind="stable")
    return {"rif_oids": tuple(oids), "rif_kind": np.array(cols["kind"], dtype=np.int8),
            "rif_obj": np.array(cols["obj"], dtype=np.int32), "rif_vlan": np.array(cols["vlan"], dtype=np.int32),
            "rif_mac": np.array(cols["mac"], dtype=np.uint64), "rif_vr": np.array(cols["vr"], dtype=np.int32),
            "obj_rif": obj_rif, "sub_rif_keys": keys[order], "sub_rif": np.array(in_rif, dtype=np.int32)[order],
            "vlan_rif": vlan_rif}


def _egress_obj(rif: int, mac: int, rifs: Mapping[str, Any], l2: L2Tables) -> int:
    """Where a neighbor behind ``rif`` is: the RIF's port/LAG, or its FDB entry in the VLAN."""
    if rifs["rif_kind"][rif] != RIF_VLAN:
        return int(rifs["rif_obj"][rif])
    key = np.uint64(int(rifs["rif_vlan"][rif]) << 48 | mac)
    pos = int(np.searchsorted(l2.fdb_keys, key))
    return int(l2.fdb_obj[pos]) if pos < len(l2.fdb_keys) and l2.fdb_keys[pos] == key else -1


class _NextHops:
    """Next hop rows as they are collected (real ones first, then the neighbors' host routes)."""

    def __init__(self) -> None:
        self.oids: list[str] = []
        self.rows: list[tuple[int, bool, int, int, bool, int, int]] = []  # rif, v6, hi, lo, resolved, mac, obj

    def add(self, oid: str, row: tuple[int, bool, int, int, bool, int, int]) -> int:
        self.oids.append(oid)
        self.rows.append(row)
        return len(self.rows) - 1


def _neighbors(store: ObjectStore, rif_index: Mapping[str, int]) -> dict[NeighKey, tuple[int, bool]]:
    """(rif, v6, hi, lo) -> (mac, installs a host route)."""
    out = {}
    for n in store.of_type(T.NEIGHBOR_ENTRY).values():
        key = n.key or {}
        rif = rif_index.get(key.get("rif", ""))
        if rif is None or n.attrs.get("SAI_NEIGHBOR_ENTRY_ATTR_PACKET_ACTION", "") in DROP_ACTIONS:
            continue
        out[(rif, *ip_words(key.get("ip", "0.0.0.0")))] = (
            mac_int(n.attrs.get("SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS", "")),
            not as_bool(n.attrs, "SAI_NEIGHBOR_ENTRY_ATTR_NO_HOST_ROUTE"))
    return out


def _next_hops(store: ObjectStore, rif_index: Mapping[str, int], neigh: Mapping[NeighKey, tuple[int, bool]],
               rifs: Mapping[str, Any], l2: L2Tables) -> tuple[_NextHops, dict[str, int]]:
    hops = _NextHops()
    index = {}
    for oid in sorted(store.of_type(T.NEXT_HOP)):
        a = store.of_type(T.NEXT_HOP)[oid].attrs
        rif = rif_index.get(ref(a, "SAI_NEXT_HOP_ATTR_ROUTER_INTERFACE_ID"), -1)
        v6, hi, lo = ip_words(a.get("SAI_NEXT_HOP_ATTR_IP", "0.0.0.0"))
        found = neigh.get((rif, v6, hi, lo))
        ip_type = a.get("SAI_NEXT_HOP_ATTR_TYPE", "SAI_NEXT_HOP_TYPE_IP") == "SAI_NEXT_HOP_TYPE_IP"
        resolved = found is not None and rif >= 0 and ip_type
        mac = found[0] if found else 0
        obj = _egress_obj(rif, mac, rifs, l2) if resolved else -1
        index[oid] = hops.add(oid, (rif, v6, hi, lo, resolved, mac, obj))
    return hops, index


def _groups(store: ObjectStore, nh_index: Mapping[str, int], seed: int) -> Groups:
    oids = sorted(store.of_type(T.NEXT_HOP_GROUP))
    g_index = {oid: i for i, oid in enumerate(oids)}
    members: list[list[tuple[int, str, float]]] = [[] for _ in oids]
    for m in store.of_type(T.NEXT_HOP_GROUP_MEMBER).values():
        g = g_index.get(ref(m.attrs, "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID"))
        nh_oid = ref(m.attrs, "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID")
        if g is not None and nh_oid in nh_index:
            weight = float(as_int(m.attrs, "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_WEIGHT", 1))
            members[g].append((nh_index[nh_oid], nh_oid, weight))
    for row in members:
        row.sort()
    flat = [x for row in members for x in row]
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in members])]).astype(np.int64)
    buckets = hrw_buckets(ptr, np.array([oid_value(x[1]) for x in flat], dtype=np.uint64),
                          np.array([max(x[2], 1.0) for x in flat]), np.array([x[0] for x in flat], dtype=np.int32),
                          HASH_BUCKETS, seed ^ ECMP_SALT)
    return tuple(oids), tuple(tuple(x[0] for x in row) for row in members), buckets


def compile_l3(store: ObjectStore, objects: Mapping[str, int], vids: Mapping[str, int], l2: L2Tables,
               switch: SaiObject | None, cpu_port: str) -> L3Tables:
    attrs = switch.attrs if switch else {}
    switch_mac = mac_int(attrs.get("SAI_SWITCH_ATTR_SRC_MAC_ADDRESS", ""))
    seed = as_int(attrs, "SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_SEED")
    vr_oids = sorted(store.of_type(T.VIRTUAL_ROUTER)) or [""]
    vr_index = {oid: i for i, oid in enumerate(vr_oids)}
    rifs = _rifs(store, objects, vids, vr_index, switch_mac)
    rif_index = {oid: i for i, oid in enumerate(rifs["rif_oids"])}
    neigh = _neighbors(store, rif_index)
    hops, nh_index = _next_hops(store, rif_index, neigh, rifs, l2)
    hosts = []
    for (rif, v6, hi, lo), (mac, host_route) in neigh.items():
        if host_route:
            nh = hops.add(f"neighbor:{rifs['rif_oids'][rif]}", (rif, v6, hi, lo, True, mac,
                                                                 _egress_obj(rif, mac, rifs, l2)))
            hosts.append((int(rifs["rif_vr"][rif]), v6, hi, lo, nh))
    nhg_oids, nhg_members, nhg_buckets = _groups(store, nh_index, seed)
    routes = compile_routes(store, vr_index, Targets(nh_index, {o: i for i, o in enumerate(nhg_oids)}, rif_index,
                                                     cpu_port), hosts)
    rows = hops.rows
    nh_ip = np.zeros((len(rows), 2), dtype=np.uint64)
    nh_ip[:, 0] = [r[2] for r in rows]
    nh_ip[:, 1] = [r[3] for r in rows]
    return L3Tables(
        switch_mac=switch_mac, vr_oids=tuple(vr_oids), **rifs,
        nh_oids=tuple(hops.oids), nh_rif=np.array([r[0] for r in rows], dtype=np.int32), nh_ip=nh_ip,
        nh_is_v6=np.array([r[1] for r in rows], dtype=bool), nh_resolved=np.array([r[4] for r in rows], dtype=bool),
        nh_mac=np.array([r[5] for r in rows], dtype=np.uint64), nh_obj=np.array([r[6] for r in rows], dtype=np.int32),
        nhg_oids=nhg_oids, nhg_members=nhg_members, nhg_buckets=nhg_buckets,
        route_kind=routes.kind, route_ref=routes.ref, route_vr=routes.vr, route_is_v6=routes.is_v6,
        route_addr=routes.addr, route_len=routes.length, v4=routes.v4, v6=routes.v6,
        ecmp_seed=seed, ecmp_fields=DEFAULT_FIELDS)
