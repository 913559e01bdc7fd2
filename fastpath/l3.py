"""Compiled layer-3 forwarding state: router interfaces, next hops (resolved to neighbor MAC and
egress object at compile time), ECMP groups as rendezvous-hashed buckets, and the routes with their
LPM structures per virtual router.

Route kinds: ``RK_NEXTHOP`` (``route_ref`` = next hop), ``RK_GROUP`` (= ECMP group), ``RK_GLEAN``
(connected subnet: ``route_ref`` = router interface; a destination without a neighbor is trapped to
the CPU, as an ASIC does to resolve it), ``RK_TRAP`` (to the CPU: ip2me), ``RK_DROP`` (blackhole).
A neighbor also installs its host route (/32 or /128) unless ``NO_HOST_ROUTE`` is set or a route of
that prefix exists, as SAI neighbor entries do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.hashing import DEFAULT_FIELDS
from fastpath.l2 import HASH_BUCKETS, N_VLAN
from fastpath.lpm import Lpm4, Lpm6, build_lpm4, build_lpm6
from fastpath.tables import I8, I32, U64, B

RIF_PORT, RIF_VLAN, RIF_SUB_PORT, RIF_LOOPBACK = 0, 1, 2, 3
RK_NEXTHOP, RK_GROUP, RK_GLEAN, RK_TRAP, RK_DROP = 0, 1, 2, 3, 4
ROUTE_KIND_NAMES = ("nexthop", "ecmp_group", "connected", "trap", "blackhole")


@dataclass(frozen=True)
class L3Tables:
    switch_mac: int
    vr_oids: tuple[str, ...]
    rif_oids: tuple[str, ...]
    rif_kind: I8               # RIF_*
    rif_obj: I32               # port/LAG object of a port or sub-port RIF (-1 otherwise)
    rif_vlan: I32              # VID of a VLAN RIF, outer VLAN of a sub-port RIF (0 otherwise)
    rif_mac: U64
    rif_vr: I32
    obj_rif: I32               # [n_obj] port RIF of each port/LAG object (untagged frames; -1 = none)
    sub_rif_keys: U64          # sorted obj << 12 | outer VID of the sub-port RIFs
    sub_rif: I32
    vlan_rif: I32              # [4096] RIF of each VLAN (-1 = none)
    nh_oids: tuple[str, ...]
    nh_rif: I32
    nh_ip: U64                 # [n, 2]
    nh_is_v6: B
    nh_resolved: B             # a neighbor entry exists for (rif, ip)
    nh_mac: U64
    nh_obj: I32                # egress object (port, LAG; -1 = VLAN RIF whose neighbor MAC is not in the FDB)
    nhg_oids: tuple[str, ...]
    nhg_members: tuple[tuple[int, ...], ...]   # next hop indices
    nhg_buckets: I32           # [n_groups, HASH_BUCKETS] next hop index (-1 = empty group)
    route_kind: I8
    route_ref: I32
    route_vr: I32
    route_is_v6: B
    route_addr: U64            # [n, 2] masked prefix (IPv4 in the low word)
    route_len: I32
    v4: tuple[Lpm4, ...]       # per VR
    v6: tuple[Lpm6, ...]       # per VR
    ecmp_seed: int = 0
    ecmp_fields: int = DEFAULT_FIELDS


def _i32(n: int = 0) -> I32:
    return np.zeros(n, dtype=np.int32)


def empty_l3() -> L3Tables:
    """No router interfaces, no routes: every packet stays on layer 2."""
    none4 = build_lpm4(np.zeros(0, dtype=np.uint32), _i32(), _i32())
    none6 = build_lpm6(np.zeros((0, 2), dtype=np.uint64), _i32(), _i32())
    return L3Tables(
        switch_mac=0, vr_oids=("",), rif_oids=(), rif_kind=np.zeros(0, dtype=np.int8), rif_obj=_i32(),
        rif_vlan=_i32(), rif_mac=np.zeros(0, dtype=np.uint64), rif_vr=_i32(),
        obj_rif=_i32(), sub_rif_keys=np.zeros(0, dtype=np.uint64), sub_rif=_i32(),
         vlan_rif=np.full(N_VLAN, -1, dtype=np.int32),
        nh_oids=(), nh_rif=_i32(), nh_ip=np.zeros((0, 2), dtype=np.uint64), nh_is_v6=np.zeros(0, dtype=bool),
        nh_resolved=np.zeros(0, dtype=bool), nh_mac=np.zeros(0, dtype=np.uint64), nh_obj=_i32(),
        nhg_oids=(), nhg_members=(), nhg_buckets=np.zeros((0, HASH_BUCKETS), dtype=np.int32),
        route_kind=np.zeros(0, dtype=np.int8), route_ref=_i32(), route_vr=_i32(),
        route_is_v6=np.zeros(0, dtype=bool), route_addr=np.zeros((0, 2), dtype=np.uint64), route_len=_i32(),
        v4=(none4,), v6=(none6,),
    )
