"""A host bonded to two switches (an MC-LAG partner's side of it): its flows leave by both links as the
bond's hash picks them, reach their receivers, and the bond carries twice one link's rate."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fastpath.fabric import Fabric, FabricFlows, run, wire
from fastpath.fabric.route import first_ports
from fastpath.fabric.topo import leaf_spine
from fastpath.model import RunConfig


def bonded() -> Fabric:
    """leaf_spine(2, 2, 2) with h0 bonded to leaf0 and to leaf1's second host port (h3 leaves)."""
    fabric = leaf_spine(2, 2, 2)
    h0, h1, h2, h3 = fabric.hosts
    return replace(fabric, hosts=(replace(h0, also=((h3.switch, h3.port),)), h1, h2))


def test_the_bond_is_wired_as_two_links_of_one_host() -> None:
    wiring = wire(bonded())
    assert list(wiring.host_nic_ptr) == [0, 2, 3, 4] and len(wiring.nic_port) == 4
    assert list(wiring.nic_host) == [0, 1, 2, 0]
    assert wiring.host_at[wiring.nic_port[3]] == 0


def test_flows_spread_over_both_links_of_the_bond() -> None:
    fabric = bonded()
    wiring = wire(fabric)
    n = 2000
    ips = np.asarray([h.ip for h in fabric.hosts], dtype=np.uint64)
    ports = first_ports(wiring, np.zeros(n, dtype=np.int64), np.full(n, 2, dtype=np.int64),
                        (49152 + np.arange(n)).astype(np.int32), ips)
    share = np.mean(ports == wiring.nic_port[0])
    assert set(ports.tolist()) == {int(wiring.nic_port[0]), int(wiring.nic_port[3])} and abs(share - 0.5) < 0.05
    one = first_ports(wiring, np.ones(n, dtype=np.int64), np.full(n, 2, dtype=np.int64),
                      (49152 + np.arange(n)).astype(np.int32), ips)
    assert set(one.tolist()) == {int(wiring.nic_port[1])}           # a single-homed host has one link


def _l4(fabric: Fabric, dst: int, link: int) -> int:
    """A UDP source port whose hash sends a flow from h0 to ``dst`` by NIC link ``link``."""
    wiring = wire(fabric)
    ips = np.asarray([h.ip for h in fabric.hosts], dtype=np.uint64)
    l4 = (49152 + np.arange(64)).astype(np.int32)
    ports = first_ports(wiring, np.zeros(64, dtype=np.int64), np.full(64, dst, dtype=np.int64), l4, ips)
    return int(l4[np.flatnonzero(ports == wiring.nic_port[link])[0]])


def test_two_flows_on_the_two_links_take_one_links_time_and_are_delivered() -> None:
    fabric = bonded()
    size = 8_000_000
    apart = [_l4(fabric, 1, 0), _l4(fabric, 2, 3)]       # to h1 by the leaf0 link, to h2 by the leaf1 link
    together = [_l4(fabric, 1, 0), _l4(fabric, 2, 0)]    # both by the leaf0 link
    both = run(fabric, FabricFlows.of([0, 0], [1, 2], size, l4_src=apart), RunConfig(max_time_s=0.01))
    same = run(fabric, FabricFlows.of([0, 0], [1, 2], size, l4_src=together), RunConfig(max_time_s=0.01))
    assert all(s == "delivered" for s in both.hops.status + same.hops.status)
    t_both, t_same = both.result.flow_finish_s.max(), same.result.flow_finish_s.max()
    one_link = size * 8 / 400e9
    assert t_both < 1.3 * one_link and t_same > 1.8 * one_link      # two links: 800G; one: the two share 400G
    assert [both.hops.path(i)[0][0] for i in range(2)] == [0, 1]    # left by leaf0 and by leaf1
