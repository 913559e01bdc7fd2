"""Compiling the routes: each ROUTE_ENTRY (and each neighbor's implicit host route) to a kind and a
reference (``fastpath.l3`` RK_*), and the per-virtual-router LPM structures over them.

Packet actions: DROP/DENY -> blackhole; TRAP -> to the CPU; FORWARD and LOG forward (LOG's copy to the
CPU is not modelled). The target: a next hop, a group, a router interface (connected subnet), the CPU
port (ip2me: trapped); FORWARD with no target is a blackhole, as SAI specifies.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fastpath.l3 import RK_DROP, RK_GLEAN, RK_GROUP, RK_NEXTHOP, RK_TRAP
from fastpath.lpm import Lpm4, Lpm6, build_lpm4, build_lpm6
from fastpath.tables import I8, I32, U64, B
from fastpath.values import NO_OID, prefix_words
from nos.sai.types import ObjectType as T
from syncd_sim.objects import ObjectStore

DROP_ACTIONS = {"SAI_PACKET_ACTION_DROP", "SAI_PACKET_ACTION_DENY"}
TRAP_ACTIONS = {"SAI_PACKET_ACTION_TRAP"}
ACTION = "SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION"
NEXT_HOP = "SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID"
HostRoute = tuple[int, bool, int, int, int]  # vr, v6, hi, lo, next hop


@dataclass(frozen=True)
class Routes:
    kind: I8
    ref: I32
    vr: I32
    is_v6: B
    addr: U64      # [n, 2]
    length: I32
    v4: tuple[Lpm4, ...]
    v6: tuple[Lpm6, ...]


@dataclass(frozen=True)
class Targets:
    """Where a route's NEXT_HOP_ID may point."""

    next_hops: Mapping[str, int]
    groups: Mapping[str, int]
    rifs: Mapping[str, int]
    cpu_port: str


def _target(action: str, nh: str, targets: Targets) -> tuple[int, int]:
    if action in DROP_ACTIONS:
        return RK_DROP, -1
    if action in TRAP_ACTIONS or (nh and nh == targets.cpu_port):
        return RK_TRAP, -1
    for kind, table in ((RK_NEXTHOP, targets.next_hops), (RK_GROUP, targets.groups), (RK_GLEAN, targets.rifs)):
        index = table.get(nh)
        if index is not None:
            return kind, index
    return RK_DROP, -1


def _v6_words(addr: str, plen: int) -> tuple[int, int]:
    _, hi, lo, _ = prefix_words(f"{addr}/{plen}")
    return hi, lo


def compile_routes(store: ObjectStore, vr_index: Mapping[str, int], targets: Targets,
                   hosts: Sequence[HostRoute]) -> Routes:
    v4: list[tuple[int, int, int, int, int]] = []            # vr, addr, len, kind, ref
    v6: list[tuple[int, int, int, int, int, int]] = []       # vr, hi, lo, len, kind, ref
    memo: dict[tuple[str, str], tuple[int, int]] = {}
    aton, from_bytes = socket.inet_aton, int.from_bytes
    for route in store.of_type(T.ROUTE_ENTRY).values():
        key = route.key or {}
        addr, _, plen_text = key.get("dest", "0.0.0.0/0").partition("/")
        vr = vr_index.get(key.get("vr", ""), 0)
        target = (route.attrs.get(ACTION, ""), route.attrs.get(NEXT_HOP, ""))
        kind_ref = memo.get(target)
        if kind_ref is None:
            kind_ref = memo[target] = _target(target[0], "" if target[1] in NO_OID else target[1], targets)
        if ":" in addr:
            plen = int(plen_text) if plen_text else 128
            v6.append((vr, *_v6_words(addr, plen), plen, *kind_ref))
        else:
            v4.append((vr, from_bytes(aton(addr), "big"), int(plen_text) if plen_text else 32, *kind_ref))
    full4 = {(r[0], r[1]) for r in v4 if r[2] == 32}
    full6 = {(r[0], r[1], r[2]) for r in v6 if r[3] == 128}
    for vr, is_v6, hi, lo, nh in hosts:
        if is_v6 and (vr, hi, lo) not in full6:
            v6.append((vr, hi, lo, 128, RK_NEXTHOP, nh))
        elif not is_v6 and (vr, lo) not in full4:
            v4.append((vr, lo, 32, RK_NEXTHOP, nh))
    return build_routes(v4, v6, max(vr_index.values(), default=0) + 1)


def build_routes(v4: Sequence[tuple[int, int, int, int, int]], v6: Sequence[tuple[int, int, int, int, int, int]],
                 n_vrs: int) -> Routes:
    """Arrays and LPM structures from IPv4 rows (vr, addr, len, kind, ref) and IPv6 rows (vr, hi, lo,
    len, kind, ref): IPv4 routes first, then IPv6; IPv4 addresses are masked to their length here."""
    a4 = np.array(v4, dtype=np.int64).reshape(len(v4), 5)
    n = len(v4) + len(v6)
    vr = np.concatenate([a4[:, 0], np.array([r[0] for r in v6], dtype=np.int64)]).astype(np.int32)
    length = np.concatenate([a4[:, 2], np.array([r[3] for r in v6], dtype=np.int64)]).astype(np.int32)
    is_v6 = np.arange(n) >= len(v4)
    addr = np.zeros((n, 2), dtype=np.uint64)
    all32 = np.uint64(0xFFFFFFFF)
    mask = (all32 << (np.uint64(32) - a4[:, 2].astype(np.uint64))) & all32
    addr[: len(v4), 1] = a4[:, 1].astype(np.uint64) & mask
    addr[len(v4):, 0] = np.array([r[1] for r in v6], dtype=np.uint64)
    addr[len(v4):, 1] = np.array([r[2] for r in v6], dtype=np.uint64)
    kind = np.concatenate([a4[:, 3], np.array([r[4] for r in v6], dtype=np.int64)]).astype(np.int8)
    ref_ = np.concatenate([a4[:, 4], np.array([r[5] for r in v6], dtype=np.int64)]).astype(np.int32)
    index = np.arange(n, dtype=np.int32)
    v4s, v6s = [], []
    for v in range(n_vrs):
        sel4 = (vr == v) & ~is_v6
        sel6 = (vr == v) & is_v6
        v4s.append(build_lpm4(addr[sel4, 1].astype(np.uint32), length[sel4], index[sel4]))
        v6s.append(build_lpm6(addr[sel6], length[sel6], index[sel6]))
    return Routes(kind=kind, ref=ref_, vr=vr, is_v6=is_v6, addr=addr, length=length, v4=tuple(v4s), v6=tuple(v6s))
