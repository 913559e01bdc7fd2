"""The fabric description: validation names every bad item; the merged tables keep pools apart."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fastpath.build import build_tables
from fastpath.fabric import Fabric, FabricError, Host, Link, merge_tables, validate, wire
from fastpath.fabric.topo import fat_tree_plan, leaf_spine
from fastpath.tables import NO_POOL


def _two() -> Fabric:
    t = build_tables(n_ports=2)
    return Fabric(switches=(("a", t), ("b", t)), links=(Link(("a", "Ethernet4"), ("b", "Ethernet4"), 10.0),),
                  hosts=(Host("h0", "a", "Ethernet0", 1, 1), Host("h1", "b", "Ethernet0", 2, 2)))


def test_a_good_fabric_wires_ports_both_ways() -> None:
    w = wire(_two())
    assert w.peer.tolist() == [-1, 3, -1, 1]
    assert w.cable_m.tolist() == [5.0, 10.0, 5.0, 10.0]
    assert w.host_port.tolist() == [0, 2]
    assert w.switch_of.tolist() == [0, 0, 1, 1]


def test_every_problem_is_named() -> None:
    f = _two()
    links = f.links + (Link(("a", "Ethernet4"), ("c", "Ethernet0")), Link(("b", "Ethernet8"), ("a", "Ethernet0")))
    bad = replace(f, links=links, hosts=f.hosts + (Host("h0", "b", "Ethernet0", 3, 3),))
    problems = validate(bad)
    text = "\n".join(problems)
    assert "host 'h0' is listed twice" in text
    assert "port a:Ethernet4 is already wired" in text
    assert "unknown switch 'c'" in text
    assert "switch 'b' has no port 'Ethernet8'" in text
    assert "host 'h0': port b:Ethernet0 is already wired" in text
    with pytest.raises(FabricError, match="unknown switch 'c'"):
        wire(bad)


def test_merged_tables_offset_ports_and_pools() -> None:
    f = leaf_spine(2, 2, 2)
    merged = merge_tables(f.switches)
    sizes = [t.ports.n for _, t in f.switches]
    assert merged.ports.n == sum(sizes)
    assert merged.ports.names[sizes[0]] == "leaf1:Ethernet0"
    assert len(merged.buffers.pool_size) == 2 * len(f.switches)
    pools = merged.buffers.pg_pool[sizes[0]]          # leaf1's first port
    assert set(pools[pools != NO_POOL].tolist()) == {2}   # leaf1's ingress pool is the third pool
    assert merged.buffers.pool_names[2] == "leaf1:ingress_lossless_pool"


def test_fat_tree_k8_is_htsims() -> None:
    plan = fat_tree_plan(8)
    assert len(plan.names) == 80 and len(plan.hosts) == 128
    assert sum(n.startswith("core") for n in plan.names) == 16
    assert set(plan.n_ports) == {8}
    assert len(plan.links) == 2 * 8 * 4 * 4
    degree = np.zeros(80, dtype=int)
    for a, _, b, _ in plan.links:
        degree[a] += 1
        degree[b] += 1
    np.add.at(degree, [s for s, _ in plan.hosts], 1)
    assert (degree == 8).all()                         # every port used, none twice
