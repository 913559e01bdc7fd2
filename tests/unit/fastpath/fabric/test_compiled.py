"""A fabric of switches compiled the way syncd_sim compiles them (an object store built as orchagent
programs it): hosts in a VLAN behind a VLAN interface, a routed link between the switches, nothing in
the FDB until the hosts' first frames are learnt."""

from __future__ import annotations

import numpy as np

from fastpath.fabric import DELIVERED, Fabric, FabricFlows, Host, Link, run
from fastpath.model import RunConfig
from fastpath.tables import Tables
from fastpath.values import ip_words, mac_int
from syncd_sim.compile import compile_store
from tests.unit.fastpath.fabric.kit import hops_of
from tests.unit.syncd_sim.compile.switchkit import SWITCH_MAC, SwitchKit

HOST_MAC = ("00:00:00:00:01:02", "00:00:00:00:02:02")


def _switch(k: int, with_fdb: bool) -> Tables:
    """Switch ``k`` (1 or 2): its host 10.k.0.2 untagged in VLAN 100 on Ethernet0, the link on Ethernet4
    (10.255.0.k), the other switch's subnet routed over it."""
    kit = SwitchKit(n_ports=2)
    vlan = kit.vlan(100)
    kit.member(vlan, 100, kit.ports[0], tagged=False)
    if with_fdb:
        kit.fdb(vlan, HOST_MAC[k - 1], kit.ports[0])
    vlan_rif = kit.rif_vlan(vlan)
    kit.neighbor(vlan_rif, f"10.{k}.0.2", HOST_MAC[k - 1])
    kit.route(f"10.{k}.0.0/24", vlan_rif)
    link = kit.rif_port(kit.ports[1])
    peer = kit.neighbor(link, f"10.255.0.{3 - k}", SWITCH_MAC)
    kit.route(f"10.{3 - k}.0.0/24", peer)
    return compile_store(kit.store, version=1)


def _fabric(with_fdb: bool) -> Fabric:
    hosts = tuple(Host(f"h{k}", f"sw{k}", "Ethernet0", mac_int(HOST_MAC[k - 1]), ip_words(f"10.{k}.0.2")[2])
                  for k in (1, 2))
    return Fabric(switches=(("sw1", _switch(1, with_fdb)), ("sw2", _switch(2, with_fdb))),
                  links=(Link(("sw1", "Ethernet4"), ("sw2", "Ethernet4")),), hosts=hosts)


def test_hosts_learnt_from_their_first_frame_are_reached_across_a_routed_link() -> None:
    flows = FabricFlows.of([0, 1], [1, 0], 1_000_000)
    hops = hops_of(_fabric(with_fdb=False), flows)
    assert hops.status == (DELIVERED, DELIVERED)
    assert hops.path(0) == [(0, 0, 1), (1, 1, 0)]
    assert hops.path(1) == [(1, 0, 1), (0, 1, 0)]
    r = run(_fabric(with_fdb=False), flows, RunConfig(max_time_s=1e-3))
    assert np.isfinite(r.result.flow_finish_s).all()
    assert r.result.flow_finish_s.max() < 30e-6           # 1 MB at 400G (20.4 us) plus two switches


def test_the_same_switches_with_the_fdb_programmed_give_the_same_paths() -> None:
    flows = FabricFlows.of([0, 1], [1, 0], 1)
    learnt, programmed = hops_of(_fabric(False), flows), hops_of(_fabric(True), flows)
    assert [learnt.path(i) for i in range(2)] == [programmed.path(i) for i in range(2)]
