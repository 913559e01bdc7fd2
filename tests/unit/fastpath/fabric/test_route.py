"""Paths hop by hop through each switch's own tables: ECMP spread, a cut link, the fat tree."""

from __future__ import annotations

from collections import Counter

import numpy as np

from fastpath.fabric import DELIVERED, FabricFlows
from fastpath.fabric.topo import fat_tree, leaf_spine
from tests.unit.fastpath.fabric.kit import hops_of, spine_of


def _leaf_pairs(fabric_hosts: int, per_leaf: int, n_leaves: int) -> FabricFlows:
    src, dst = [], []
    for a in range(n_leaves):
        for b in range(n_leaves):
            if a != b:
                for h in range(per_leaf):
                    for g in range(per_leaf):
                        src.append(a * per_leaf + h)
                        dst.append(b * per_leaf + g)
    return FabricFlows.of(src, dst, 1_000_000)


def test_ecmp_spreads_256_flows_over_both_spines_within_10_percent() -> None:
    fabric = leaf_spine(2, 2, 16)
    src = np.repeat(np.arange(16), 16)
    dst = 16 + np.tile(np.arange(16), 16)
    hops = hops_of(fabric, FabricFlows.of(src, dst, 1_000_000))
    assert set(hops.status) == {DELIVERED}
    assert (np.diff(hops.ptr) == 3).all()                       # leaf, spine, leaf
    count = Counter(spine_of(fabric, hops))
    assert set(count) == {"spine0", "spine1"}
    assert abs(count["spine0"] - 128) <= 12.8
    # each hop is classified by that switch: lossless TC3 -> queue 3, PG 3
    assert set(hops.queue.tolist()) == {3} and set(hops.pg.tolist()) == {3}


def _used(fabric_names: list[str], path: list[tuple[int, int, int]], leaf: str, spine: str) -> bool:
    names = [fabric_names[s] for s, _, _ in path]
    return any({names[i], names[i + 1]} == {leaf, spine} for i in range(len(names) - 1))


def test_cutting_a_spine_link_moves_only_the_flows_that_used_it() -> None:
    flows = _leaf_pairs(16, 4, 4)
    before_fabric = leaf_spine(2, 4, 4)
    after_fabric = leaf_spine(2, 4, 4, down=((0, 0),))          # leaf0 - spine0 cut (both ports down)
    before, after = hops_of(before_fabric, flows), hops_of(after_fabric, flows)
    assert set(after.status) == {DELIVERED}
    names = before_fabric.names()
    moved = kept = 0
    for i in range(flows.n):
        p0, p1 = before.path(i), after.path(i)
        if _used(names, p0, "leaf0", "spine0"):
            assert p1 != p0 and not _used(names, p1, "leaf0", "spine0")
            moved += 1
        else:
            assert p1 == p0
            kept += 1
    assert moved > 20 and kept > 100


def test_fat_tree_paths_are_shortest_up_down_paths() -> None:
    fabric = fat_tree(4)                                       # 20 switches, 16 hosts
    src, dst = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    keep = src != dst
    flows = FabricFlows.of(src[keep], dst[keep], 1)
    hops = hops_of(fabric, flows)
    assert set(hops.status) == {DELIVERED}
    n = np.diff(hops.ptr)
    same_edge = flows.src // 2 == flows.dst // 2
    same_pod = flows.src // 4 == flows.dst // 4
    assert (n[same_edge] == 1).all()
    assert (n[same_pod & ~same_edge] == 3).all()
    assert (n[~same_pod] == 5).all()
    cores = {fabric.names()[int(hops.switch[hops.ptr[i] + 2])] for i in np.flatnonzero(~same_pod)}
    assert cores == {f"core{c}" for c in range(4)}              # ECMP uses every core


def test_an_unroutable_flow_is_dropped_with_the_reason() -> None:
    fabric = leaf_spine(1, 2, 1, down=((0, 0),))                # leaf0's only uplink cut
    hops = hops_of(fabric, FabricFlows.of([0], [1], 1))
    assert hops.status == ("lpm_miss",)
    assert hops.out_port.tolist() == [-1]
