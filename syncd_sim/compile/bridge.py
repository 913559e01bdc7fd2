"""Compiling the bridge: ingress objects (ports and LAGs), PVIDs, bridge ports and their learning
mode, VLAN membership with tagging mode, the FDB as sorted ``vlan << 48 | mac`` keys, and the isolation
groups (``syncd_sim.compile.isolation``).

A bridge port that is admin down is treated as no member of any VLAN. FDB entries whose VLAN or
bridge port is unknown are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fastpath.l2 import MEMBER_TAGGED, MEMBER_UNTAGGED, N_VLAN, L2Tables
from fastpath.values import as_bool, as_int, mac_int, ref
from nos.sai.types import ObjectType as T
from syncd_sim.compile.isolation import compile_isolation
from syncd_sim.compile.lag import Lags
from syncd_sim.objects import ObjectStore

LEARN_HW = "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_HW"
LEARNING = {LEARN_HW, "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_FDB_NOTIFICATION"}
BP_PORT = "SAI_BRIDGE_PORT_TYPE_PORT"
STATIC = "SAI_FDB_ENTRY_TYPE_STATIC"


def vlan_ids(store: ObjectStore) -> dict[str, int]:
    """VLAN oid -> VID."""
    return {oid: as_int(v.attrs, "SAI_VLAN_ATTR_VLAN_ID") for oid, v in store.of_type(T.VLAN).items()}


def object_index(port_index: Mapping[str, int], lags: Lags) -> dict[str, int]:
    """Port or LAG oid -> ingress/egress object index."""
    n = len(port_index)
    return {**port_index, **{oid: n + k for k, oid in enumerate(lags.oids)}}


def _bridge_ports(store: ObjectStore, objects: Mapping[str, int], n_obj: int
                  ) -> tuple[dict[str, int], list[str], np.ndarray[tuple[int], np.dtype[np.bool_]]]:
    bp_obj: dict[str, int] = {}
    names = [""] * n_obj
    learn = np.ones(n_obj, dtype=bool)
    for oid, bp in store.of_type(T.BRIDGE_PORT).items():
        obj = objects.get(ref(bp.attrs, "SAI_BRIDGE_PORT_ATTR_PORT_ID"))
        if obj is None or bp.attrs.get("SAI_BRIDGE_PORT_ATTR_TYPE", BP_PORT) != BP_PORT:
            continue
        names[obj] = oid
        learn[obj] = bp.attrs.get("SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE", LEARN_HW) in LEARNING
        if as_bool(bp.attrs, "SAI_BRIDGE_PORT_ATTR_ADMIN_STATE"):
            bp_obj[oid] = obj
    return bp_obj, names, learn


def _fdb(store: ObjectStore, vids: Mapping[str, int], bp_obj: Mapping[str, int]
         ) -> tuple[list[int], list[int], list[bool]]:
    keys, dst, static = [], [], []
    for entry in store.of_type(T.FDB_ENTRY).values():
        key = entry.key or {}
        vid = vids.get(key.get("bvid", ""))
        obj = bp_obj.get(ref(entry.attrs, "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID"))
        if vid is None or obj is None:
            continue
        keys.append(vid << 48 | mac_int(key.get("mac", "")))
        dst.append(obj)
        static.append(entry.attrs.get("SAI_FDB_ENTRY_ATTR_TYPE") == STATIC)
    return keys, dst, static


def compile_l2(store: ObjectStore, port_index: Mapping[str, int], lags: Lags, seed: int, fields: int) -> L2Tables:
    n_ports = len(port_index)
    objects = object_index(port_index, lags)
    n_obj = len(objects)
    port_obj = np.where(lags.port_lag >= 0, n_ports + lags.port_lag, np.arange(n_ports)).astype(np.int32)
    pvid = np.ones(n_obj, dtype=np.int32)
    for oid, obj in objects.items():
        found = store.find(T.PORT, oid) or store.find(T.LAG, oid)
        if found is not None:
            attr = "SAI_PORT_ATTR_PORT_VLAN_ID" if obj < n_ports else "SAI_LAG_ATTR_PORT_VLAN_ID"
            pvid[obj] = as_int(found.attrs, attr, 1)
    bp_obj, bp_names, learn = _bridge_ports(store, objects, n_obj)
    vids = vlan_ids(store)
    member = np.zeros((N_VLAN, n_obj), dtype=np.int8)
    for m in store.of_type(T.VLAN_MEMBER).values():
        vid = vids.get(ref(m.attrs, "SAI_VLAN_MEMBER_ATTR_VLAN_ID"), 0)
        member_obj = bp_obj.get(ref(m.attrs, "SAI_VLAN_MEMBER_ATTR_BRIDGE_PORT_ID"))
        if member_obj is not None and 0 < vid < N_VLAN:
            tagged = m.attrs.get("SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE", "SAI_VLAN_TAGGING_MODE_UNTAGGED")
            member[vid, member_obj] = MEMBER_TAGGED if tagged == "SAI_VLAN_TAGGING_MODE_TAGGED" else MEMBER_UNTAGGED
    vlan_oid = [""] * N_VLAN
    vlan_learn = np.ones(N_VLAN, dtype=bool)
    for oid, vid in vids.items():
        if 0 < vid < N_VLAN:
            vlan_oid[vid] = oid
            vlan_learn[vid] = not as_bool(store.of_type(T.VLAN)[oid].attrs, "SAI_VLAN_ATTR_LEARN_DISABLE")
    keys, dst, static = _fdb(store, vids, bp_obj)
    isolation = compile_isolation(store, port_index, {oid: obj for obj, oid in enumerate(bp_names) if oid}, n_obj)
    key_arr = np.array(keys, dtype=np.uint64)
    order = np.argsort(key_arr, kind="stable")
    return L2Tables(
        n_ports=n_ports, port_obj=port_obj, obj_pvid=pvid, obj_learn=learn, obj_bridge_port=tuple(bp_names),
        vlan_member=member, vlan_oid=tuple(vlan_oid), vlan_learn=vlan_learn, fdb_keys=key_arr[order],
        fdb_obj=np.array(dst, dtype=np.int32)[order], fdb_static=np.array(static, dtype=bool)[order],
        lag_oids=lags.oids, lag_members=lags.members, lag_buckets=lags.buckets, lag_seed=seed, lag_fields=fields,
        **isolation)
