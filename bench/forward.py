"""Fast-path forwarding: compile time of an object store with 100,000 IPv4 routes, and the batch
forwarding rate over it.

The store is built in process, as orchagent programs it: ``ports`` routed ports (port router
interfaces, one neighbor and next hop each), ``groups`` ECMP groups of 2-8 of those next hops, and
``routes`` IPv4 routes of lengths /16../32 (/24 most common; 10% longer than /24, so the DIR-24-8
extension buckets are used) pointing at a group (90%) or a single next hop (10%). Routes are put into
the store as restore.py does (no per-object validation): the benchmark measures the compiler, not
the store. Packets: random destinations inside the routes' prefixes, random sources and L4 ports,
on random ingress ports, addressed to the router MAC. Printed: the median of ``runs`` runs each.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from dataclasses import dataclass

import numpy as np

from fastpath.forward import ACT_FORWARD, PacketBatch, forward
from fastpath.tables import Tables
from nos.sai.keys import neighbor_key, route_key
from nos.sai.types import ObjectType as T
from nos.sai.types import make_oid
from syncd_sim.behaviours import AsicBehaviour
from syncd_sim.compile import compile_store
from syncd_sim.objects import ObjectStore, SaiObject
from syncd_sim.platform import Platform

ROUTER_MAC = "02:00:00:00:00:AA"
ECMP_TYPE = "SAI_NEXT_HOP_GROUP_TYPE_DYNAMIC_UNORDERED_ECMP"
LENGTHS = (16, 18, 20, 22, 23, 24, 25, 26, 28, 30, 32)
WEIGHTS = (0.02, 0.03, 0.05, 0.1, 0.1, 0.6, 0.03, 0.02, 0.02, 0.02, 0.01)


@dataclass(frozen=True)
class Setup:
    store: ObjectStore
    prefixes: np.ndarray      # [routes] uint32 network addresses
    lengths: np.ndarray       # [routes] prefix lengths


def _ok(out: object) -> None:
    assert getattr(out, "ok", False), getattr(out, "reason", "")


def build_store(routes: int, groups: int, ports: int, seed: int) -> Setup:
    counter = itertools.count(1)

    def alloc(kind: T, n: int) -> list[str]:
        return [make_oid(kind, next(counter)) for _ in range(n)]

    behaviour = AsicBehaviour(Platform("bench"))
    store = ObjectStore(alloc, behaviour)

    def create(kind: T, *attrs: tuple[str, str]) -> str:
        oid = alloc(kind, 1)[0]
        _ok(store.create(kind, oid, list(attrs)))
        return oid

    switch = create(T.SWITCH, ("SAI_SWITCH_ATTR_INIT_SWITCH", "true"), ("SAI_SWITCH_ATTR_SRC_MAC_ADDRESS", ROUTER_MAC))
    vr = behaviour.defaults.default_vr
    hops = []
    for i in range(ports):
        port = create(T.PORT, ("SAI_PORT_ATTR_HW_LANE_LIST", f"4:{4 * i},{4 * i + 1},{4 * i + 2},{4 * i + 3}"),
                      ("SAI_PORT_ATTR_SPEED", "400000"), ("SAI_PORT_ATTR_ADMIN_STATE", "true"))
        rif = create(T.ROUTER_INTERFACE, ("SAI_ROUTER_INTERFACE_ATTR_VIRTUAL_ROUTER_ID", vr),
                     ("SAI_ROUTER_INTERFACE_ATTR_TYPE", "SAI_ROUTER_INTERFACE_TYPE_PORT"),
                     ("SAI_ROUTER_INTERFACE_ATTR_PORT_ID", port))
        ip = f"10.{i // 256}.{i % 256}.1"
        _ok(store.create(T.NEIGHBOR_ENTRY, neighbor_key(ip, rif, switch),
                         [("SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS", f"00:00:00:00:{i // 256:02X}:{i % 256:02X}")]))
        hops.append(create(T.NEXT_HOP, ("SAI_NEXT_HOP_ATTR_TYPE", "SAI_NEXT_HOP_TYPE_IP"), ("SAI_NEXT_HOP_ATTR_IP", ip),
                           ("SAI_NEXT_HOP_ATTR_ROUTER_INTERFACE_ID", rif)))
    rng = np.random.default_rng(seed)
    group_oids = []
    for _ in range(groups):
        group = create(T.NEXT_HOP_GROUP, ("SAI_NEXT_HOP_GROUP_ATTR_TYPE", ECMP_TYPE))
        for nh in rng.choice(len(hops), size=int(rng.integers(2, 9)), replace=False):
            create(T.NEXT_HOP_GROUP_MEMBER, ("SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID", group),
                   ("SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID", hops[int(nh)]))
        group_oids.append(group)
    lengths = rng.choice(LENGTHS, size=routes * 2, p=WEIGHTS)
    raw = rng.integers(0x0B000000, 0xDF000000, size=routes * 2, dtype=np.uint64)
    masks = (np.uint64(0xFFFFFFFF) << (np.uint64(32) - lengths.astype(np.uint64))) & np.uint64(0xFFFFFFFF)
    nets = raw & masks
    _, first = np.unique(nets.astype(np.uint64) << np.uint64(6) | lengths.astype(np.uint64), return_index=True)
    keep = np.sort(first)[:routes]
    nets, lengths = nets[keep].astype(np.uint32), lengths[keep]
    for net, plen in zip(nets.tolist(), lengths.tolist(), strict=True):
        dest = f"{net >> 24}.{net >> 16 & 255}.{net >> 8 & 255}.{net & 255}/{plen}"
        key = route_key(dest, vr, switch)
        target = group_oids[int(rng.integers(groups))] if rng.random() < 0.9 else hops[int(rng.integers(ports))]
        store.add_builtin(SaiObject(T.ROUTE_ENTRY, key, {"SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID": target},
                                    key=json.loads(key)))
    return Setup(store, nets, lengths)


def packets(setup: Setup, n: int, ports: int, seed: int) -> PacketBatch:
    rng = np.random.default_rng(seed)
    pick = rng.integers(len(setup.prefixes), size=n)
    host_bits = (np.uint64(1) << (np.uint64(32) - setup.lengths[pick].astype(np.uint64))) - np.uint64(1)
    dst = setup.prefixes[pick].astype(np.uint64) | (rng.integers(0, 2**32, size=n, dtype=np.uint64) & host_bits)
    return PacketBatch.of(
        n, in_port=rng.integers(ports, size=n), dst_mac=int(ROUTER_MAC.replace(":", ""), 16),
        src_ip=rng.integers(0, 2**32, size=n, dtype=np.uint64), dst_ip=dst, ip_proto=17,
        l4_src=rng.integers(1024, 65536, size=n), l4_dst=4791, dscp=3, ttl=64)


def run(runs: int = 5, routes: int = 100_000, n_packets: int = 1_000_000, groups: int = 2000,
        ports: int = 64, seed: int = 0) -> dict[str, object]:
    setup = build_store(routes, groups, ports, seed)
    compile_s: list[float] = []
    tables: Tables | None = None
    for version in range(runs):
        start = time.perf_counter()
        tables = compile_store(setup.store, version=version)
        compile_s.append(time.perf_counter() - start)
        del tables
    tables = compile_store(setup.store, version=runs)
    batch = packets(setup, n_packets, ports, seed + 1)
    forward_s: list[float] = []
    forwarded = 0
    for _ in range(runs):
        start = time.perf_counter()
        result = forward(tables, batch)
        forward_s.append(time.perf_counter() - start)
        forwarded = int(np.count_nonzero(result.action == ACT_FORWARD))
    rates = [n_packets / s / 1e6 for s in forward_s]
    return {"routes": len(setup.prefixes), "groups": groups, "ports": ports, "packets": n_packets, "runs": runs,
            "compile_s": compile_s, "compile_median_s": statistics.median(compile_s),
            "forward_s": forward_s, "mlookups_per_s": rates, "mlookups_median": statistics.median(rates),
            "forwarded_share": forwarded / n_packets}


def report(r: dict[str, object]) -> None:
    print(f"Fast-path forwarding, {r['routes']:,} IPv4 routes (/16../32) over {r['groups']:,} ECMP groups, "
          f"{r['ports']} routed ports x {r['runs']} runs (median):")
    print(f"  compile_store (object store -> tables) {r['compile_median_s']:>9.3f} s")
    print(f"  forward(), batch of {r['packets']:,}      {r['mlookups_median']:>9.2f} M lookups/s"
          f"   (target >= 5; {r['forwarded_share']:.0%} forwarded)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.forward")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--routes", type=int, default=100_000)
    parser.add_argument("--packets", type=int, default=1_000_000)
    parser.add_argument("--groups", type=int, default=2000)
    args = parser.parse_args(argv)
    report(run(args.runs, args.routes, args.packets, args.groups))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
