"""NeighOrch on real Redis and syncd_sim: neighbour entries, next hops, MAC changes, removal, oper state."""

from __future__ import annotations

import json

import pytest

from orchagent.core.events import NextHopChanged, OperChanged
from tests.integration.orchagent.test_intf_orch import appl, asic_objects, l3_agent, route_interface

pytestmark = pytest.mark.integration


def neighbors(raw):
    entries = asic_objects(raw, "NEIGHBOR_ENTRY").items()
    return {(k["ip"], k["rif"]): v for k, v in ((json.loads(i), a) for i, a in entries)}


def test_neighbour_waits_for_its_rif_then_gets_entry_and_next_hop(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    neigh = appl(dbs, "NEIGH_TABLE")
    neigh.set("Ethernet8:10.0.0.2", {"neigh": "00:01:02:03:04:05", "family": "IPv4"})
    agent.settle()
    assert asic_objects(raw, "NEXT_HOP") == {}
    rif = route_interface(agent, dbs, "Ethernet8", "10.0.0.1/24")
    agent.drive(lambda: ("10.0.0.2", "Ethernet8") in agent.deps.l3.next_hops)
    assert neighbors(raw)[("10.0.0.2", rif)] == {"SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS": "00:01:02:03:04:05"}
    nh = agent.deps.l3.next_hops[("10.0.0.2", "Ethernet8")]
    assert asic_objects(raw, "NEXT_HOP")[nh.oid] == {
        "SAI_NEXT_HOP_ATTR_TYPE": "SAI_NEXT_HOP_TYPE_IP",
        "SAI_NEXT_HOP_ATTR_IP": "10.0.0.2",
        "SAI_NEXT_HOP_ATTR_ROUTER_INTERFACE_ID": rif,
    }
    assert nh.up


def test_mac_change_is_a_set_and_delete_removes_both(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    rif = route_interface(agent, dbs, "Ethernet0", "10.0.0.0/31")
    neigh = appl(dbs, "NEIGH_TABLE")
    neigh.set("Ethernet0:10.0.0.1", {"neigh": "00:00:00:00:00:01", "family": "IPv4"})
    agent.drive(lambda: ("10.0.0.1", rif) in neighbors(raw))
    nh = agent.deps.l3.next_hops[("10.0.0.1", "Ethernet0")].oid
    neigh.set("Ethernet0:10.0.0.1", {"neigh": "00:00:00:00:00:aa", "family": "IPv4"})
    agent.drive(lambda: neighbors(raw)[("10.0.0.1", rif)]["SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS"]
                == "00:00:00:00:00:AA")
    assert agent.deps.l3.next_hops[("10.0.0.1", "Ethernet0")].oid == nh
    # the RIF cannot go while the neighbour holds it
    intf = appl(dbs, "INTF_TABLE")
    intf.delete("Ethernet0:10.0.0.0/31")
    intf.delete("Ethernet0")
    agent.settle()
    assert rif in asic_objects(raw, "ROUTER_INTERFACE")
    neigh.delete("Ethernet0:10.0.0.1")
    agent.drive(lambda: rif not in asic_objects(raw, "ROUTER_INTERFACE"))
    assert neighbors(raw) == {} and asic_objects(raw, "NEXT_HOP") == {}


def test_ipv6_and_bad_rows(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    rif = route_interface(agent, dbs, "Ethernet4", "10.0.0.2/31")
    neigh = appl(dbs, "NEIGH_TABLE")
    neigh.set("Ethernet4:fc00::0001", {"neigh": "52:54:00:00:00:01", "family": "IPv6"})
    neigh.set("Ethernet4:not-an-ip", {"neigh": "52:54:00:00:00:02", "family": "IPv4"})
    agent.drive(lambda: ("fc00::1", rif) in neighbors(raw))
    consumer = next(c for c in agent.runner.consumers if c.table == "NEIGH_TABLE")
    agent.drive(lambda: consumer.stats.rejected >= 1)
    assert len(asic_objects(raw, "NEXT_HOP")) == 1


def test_oper_down_marks_next_hops_unusable(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    route_interface(agent, dbs, "Ethernet0", "10.0.0.0/31")
    appl(dbs, "NEIGH_TABLE").set("Ethernet0:10.0.0.1", {"neigh": "00:00:00:00:00:01", "family": "IPv4"})
    agent.drive(lambda: ("10.0.0.1", "Ethernet0") in agent.deps.l3.next_hops)
    seen = []
    agent.deps.bus.subscribe(NextHopChanged, seen.append)
    agent.deps.bus.publish(OperChanged("Ethernet0", False))
    nh = agent.deps.l3.next_hops[("10.0.0.1", "Ethernet0")]
    assert not nh.up and seen == [NextHopChanged("", "10.0.0.1", "Ethernet0", "")]
    agent.deps.bus.publish(OperChanged("Ethernet0", True))
    assert nh.up and seen[-1] == NextHopChanged("", "10.0.0.1", "Ethernet0", nh.oid)


def test_same_ip_on_another_vlan_of_the_vrf_replaces_the_neighbour(orchagent, dbs, raw):  # NOS-L3-029
    # neighorch_ut MultiVlanDuplicateNeighbor / MultiVlanUnableToRemoveNeighbor
    from nos.sai.ops import SaiOp
    from nos.sai.types import ObjectType as T
    from orchagent.core.registry import Interface, Kind
    agent, _ = l3_agent(orchagent, dbs, 1)
    for vid in (1000, 2000):
        oid = agent.deps.sai.alloc(T.VLAN)
        assert agent.deps.sai.apply([SaiOp.create(T.VLAN, oid, ("SAI_VLAN_ATTR_VLAN_ID", str(vid)))]).ok
        agent.deps.registry.add(Interface(f"Vlan{vid}", Kind.VLAN, oid, mtu=9100))
    rif1 = route_interface(agent, dbs, "Vlan1000", "192.168.0.1/24")
    rif2 = route_interface(agent, dbs, "Vlan2000", "192.168.2.1/24")
    neigh = appl(dbs, "NEIGH_TABLE")
    neigh.set("Vlan1000:192.168.0.10", {"neigh": "00:00:00:00:00:01", "family": "IPv4"})
    agent.drive(lambda: ("192.168.0.10", rif1) in neighbors(raw))
    neigh.set("Vlan2000:192.168.0.10", {"neigh": "00:00:00:00:00:02", "family": "IPv4"})
    agent.drive(lambda: ("192.168.0.10", rif2) in neighbors(raw))
    assert ("192.168.0.10", rif1) not in neighbors(raw)
    assert ("192.168.0.10", "Vlan1000") not in agent.deps.l3.next_hops
    # while a route uses the next hop on Vlan2000 the neighbour cannot move back
    appl(dbs, "ROUTE_TABLE").set("9.9.9.0/24", {"nexthop": "192.168.0.10", "ifname": "Vlan2000"})
    agent.drive(lambda: agent.deps.l3.next_hops[("192.168.0.10", "Vlan2000")].refs)
    neigh.set("Vlan1000:192.168.0.10", {"neigh": "00:00:00:00:00:03", "family": "IPv4"})
    agent.settle()
    assert ("192.168.0.10", rif2) in neighbors(raw) and ("192.168.0.10", rif1) not in neighbors(raw)
    appl(dbs, "ROUTE_TABLE").delete("9.9.9.0/24")
    agent.drive(lambda: ("192.168.0.10", rif1) in neighbors(raw))
    assert ("192.168.0.10", rif2) not in neighbors(raw)
