"""IntfOrch (with VrfOrch) on real Redis and syncd_sim: router interfaces, ip2me routes, VRFs, MTU.

Also home of the helpers the other L3 orch tests share (``l3_agent``, ``asic_objects``, ...).
"""

from __future__ import annotations

import json

import pytest

from nos.db import ProducerStateTable
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.core.events import MtuChanged
from orchagent.core.registry import Interface, Kind
from orchagent.orchs.intf import IntfOrch
from orchagent.orchs.neigh import NeighOrch
from orchagent.orchs.nhg import NhgOrch
from orchagent.orchs.port import PortOrch
from orchagent.orchs.route import RouteOrch
from orchagent.orchs.vrf import VrfOrch
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration

L3_ORCHS = (PortOrch, VrfOrch, IntfOrch, NeighOrch, NhgOrch, RouteOrch)
SWITCH_MAC = "02:00:00:00:00:01"


# -- shared helpers ---------------------------------------------------------------------------------
def l3_agent(orchagent, dbs, n_ports=4):
    """orchagent with the port and L3 orchs, ``n_ports`` admin-up ports that went oper up."""
    agent = orchagent(*L3_ORCHS)
    ports = boot_ports(agent, dbs, n_ports)
    agent.drive(lambda: all(agent.deps.registry.get(p).oper_up for p in ports))
    return agent, ports


def appl(dbs, table):
    return ProducerStateTable(dbs["APPL_DB"], table)


def asic_objects(raw, object_type):
    """{object id: attributes} of one SAI type in ASIC_STATE."""
    prefix = f"ASIC_STATE:SAI_OBJECT_TYPE_{object_type}:"
    client = raw(1)
    return {key[len(prefix):]: client.hgetall(key) for key in client.keys(prefix + "*")}


def asic_routes(raw):
    """{(dest, vr): attributes} of every route entry."""
    entries = asic_objects(raw, "ROUTE_ENTRY").items()
    return {(k["dest"], k["vr"]): v for k, v in ((json.loads(i), a) for i, a in entries)}


def route_interface(agent, dbs, name, prefix, vrf=None):
    """INTF_TABLE rows for a routed port with one address; waits for its RIF and returns it."""
    intf = appl(dbs, "INTF_TABLE")
    intf.set(name, {"vrf_name": vrf} if vrf else {"NULL": "NULL", "mac_addr": "00:00:00:00:00:00"})
    intf.set(f"{name}:{prefix}", {"scope": "global", "family": "IPv4"})
    agent.drive(lambda: name in agent.deps.l3.intfs and agent.deps.l3.intfs[name].addresses)
    return agent.deps.l3.intfs[name].oid


# -- router interfaces --------------------------------------------------------------------------------
def test_port_interface_gets_a_rif_and_an_ip2me_route(orchagent, dbs, raw):
    agent, ports = l3_agent(orchagent, dbs)
    rif = route_interface(agent, dbs, "Ethernet8", "10.0.0.4/31")
    switch = agent.deps.switch
    assert asic_objects(raw, "ROUTER_INTERFACE")[rif] == {
        "SAI_ROUTER_INTERFACE_ATTR_VIRTUAL_ROUTER_ID": switch.default_vr,
        "SAI_ROUTER_INTERFACE_ATTR_SRC_MAC_ADDRESS": SWITCH_MAC,
        "SAI_ROUTER_INTERFACE_ATTR_TYPE": "SAI_ROUTER_INTERFACE_TYPE_PORT",
        "SAI_ROUTER_INTERFACE_ATTR_PORT_ID": ports["Ethernet8"],
        "SAI_ROUTER_INTERFACE_ATTR_MTU": "9100",
    }
    assert asic_routes(raw)[("10.0.0.4/32", switch.default_vr)] == {
        "SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION": "SAI_PACKET_ACTION_FORWARD",
        "SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID": switch.cpu_port,
    }
    assert raw(2).hget("COUNTERS_RIF_NAME_MAP", "Ethernet8") == rif
    assert raw(2).hget("COUNTERS_RIF_TYPE_MAP", rif) == "SAI_ROUTER_INTERFACE_TYPE_PORT"
    assert agent.deps.registry.in_use("Ethernet8") == 1


def test_interface_removal_waits_for_its_addresses(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    rif = route_interface(agent, dbs, "Ethernet8", "10.0.0.4/31")
    intf = appl(dbs, "INTF_TABLE")
    intf.delete("Ethernet8")
    agent.settle()
    assert rif in asic_objects(raw, "ROUTER_INTERFACE")
    intf.delete("Ethernet8:10.0.0.4/31")
    agent.drive(lambda: rif not in asic_objects(raw, "ROUTER_INTERFACE"))
    assert ("10.0.0.4/32", agent.deps.switch.default_vr) not in asic_routes(raw)
    assert raw(2).hget("COUNTERS_RIF_NAME_MAP", "Ethernet8") is None
    assert agent.deps.registry.in_use("Ethernet8") == 0


def test_rif_mac_follows_mac_addr(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    intf = appl(dbs, "INTF_TABLE")
    intf.set("Ethernet0", {"mac_addr": "00:11:22:33:44:55"})
    agent.drive(lambda: "Ethernet0" in agent.deps.l3.intfs)
    rif = agent.deps.l3.intfs["Ethernet0"].oid
    mac = asic_objects(raw, "ROUTER_INTERFACE")[rif]["SAI_ROUTER_INTERFACE_ATTR_SRC_MAC_ADDRESS"]
    assert mac == "00:11:22:33:44:55"
    intf.set("Ethernet0", {"mac_addr": "00:00:00:00:00:00"})
    agent.drive(lambda: asic_objects(raw, "ROUTER_INTERFACE")[rif]["SAI_ROUTER_INTERFACE_ATTR_SRC_MAC_ADDRESS"]
                == SWITCH_MAC)


def test_port_mtu_change_reaches_the_rif(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    rif = route_interface(agent, dbs, "Ethernet4", "20.0.0.8/29")
    appl(dbs, "PORT_TABLE").set("Ethernet4", {"mtu": "8888"})
    agent.drive(lambda: asic_objects(raw, "ROUTER_INTERFACE")[rif]["SAI_ROUTER_INTERFACE_ATTR_MTU"] == "8888")


def test_overlapping_address_waits_until_the_other_goes(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    route_interface(agent, dbs, "Ethernet0", "10.0.0.0/8")
    intf = appl(dbs, "INTF_TABLE")
    intf.set("Ethernet4", {"NULL": "NULL"})
    intf.set("Ethernet4:10.1.0.1/24", {"scope": "global", "family": "IPv4"})
    agent.settle()
    vr = agent.deps.switch.default_vr
    assert ("10.1.0.1/32", vr) not in asic_routes(raw)
    intf.delete("Ethernet0:10.0.0.0/8")
    agent.drive(lambda: ("10.1.0.1/32", vr) in asic_routes(raw))


def test_loopback_gets_ip2me_routes_but_no_rif(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs, 1)
    before = set(asic_objects(raw, "ROUTER_INTERFACE"))
    intf = appl(dbs, "INTF_TABLE")
    intf.set("Loopback0", {"NULL": "NULL", "mac_addr": "00:00:00:00:00:00"})
    intf.set("Loopback0:10.1.0.32/32", {"scope": "global", "family": "IPv4"})
    vr = agent.deps.switch.default_vr
    agent.drive(lambda: ("10.1.0.32/32", vr) in asic_routes(raw))
    assert set(asic_objects(raw, "ROUTER_INTERFACE")) == before


# -- VRFs ----------------------------------------------------------------------------------------------
def test_interface_in_a_vrf_uses_its_virtual_router(orchagent, dbs, raw):
    agent, ports = l3_agent(orchagent, dbs)
    appl(dbs, "INTF_TABLE").set("Ethernet8", {"vrf_name": "Vrf_0"})  # before the VRF: waits
    agent.settle()
    assert "Ethernet8" not in agent.deps.l3.intfs
    vrfs = appl(dbs, "VRF_TABLE")
    vrfs.set("Vrf_0", {"NULL": "NULL"})
    agent.drive(lambda: "Ethernet8" in agent.deps.l3.intfs)
    vr = agent.deps.l3.vrfs["Vrf_0"].oid
    assert asic_objects(raw, "VIRTUAL_ROUTER")[vr] == {"NULL": "NULL"}
    assert raw(6).hgetall("VRF_OBJECT_TABLE|Vrf_0") == {"state": "ok"}
    rif = route_interface(agent, dbs, "Ethernet8", "10.0.0.4/31", vrf="Vrf_0")
    assert asic_objects(raw, "ROUTER_INTERFACE")[rif]["SAI_ROUTER_INTERFACE_ATTR_VIRTUAL_ROUTER_ID"] == vr
    assert ("10.0.0.4/32", vr) in asic_routes(raw)
    vrfs.delete("Vrf_0")  # in use: waits
    agent.settle()
    assert vr in asic_objects(raw, "VIRTUAL_ROUTER")
    intf = appl(dbs, "INTF_TABLE")
    intf.delete("Ethernet8:10.0.0.4/31")
    intf.delete("Ethernet8")
    agent.drive(lambda: vr not in asic_objects(raw, "VIRTUAL_ROUTER"))
    assert raw(6).exists("VRF_OBJECT_TABLE|Vrf_0") == 0


def test_vrf_fields_become_attributes_and_bad_ones_are_refused(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs, 1)
    vrfs = appl(dbs, "VRF_TABLE")
    vrfs.set("Vrf_1", {"v4": "true", "src_mac": "00:aa:bb:cc:dd:ee", "ttl_action": "trap", "vni": "100"})
    agent.drive(lambda: "Vrf_1" in agent.deps.l3.vrfs)
    vr = agent.deps.l3.vrfs["Vrf_1"].oid
    assert asic_objects(raw, "VIRTUAL_ROUTER")[vr] == {
        "SAI_VIRTUAL_ROUTER_ATTR_ADMIN_V4_STATE": "true",
        "SAI_VIRTUAL_ROUTER_ATTR_SRC_MAC_ADDRESS": "00:AA:BB:CC:DD:EE",
        "SAI_VIRTUAL_ROUTER_ATTR_VIOLATION_TTL1_PACKET_ACTION": "SAI_PACKET_ACTION_TRAP",
    }
    vrfs.set("Vrf_1", {"v4": "false"})
    agent.drive(lambda: asic_objects(raw, "VIRTUAL_ROUTER")[vr]["SAI_VIRTUAL_ROUTER_ATTR_ADMIN_V4_STATE"] == "false")
    vrfs.set("Vrf_2", {"ttl_action": "explode"})
    consumer = next(c for c in agent.runner.consumers if c.table == "VRF_TABLE")
    agent.drive(lambda: consumer.stats.rejected >= 1)
    assert "Vrf_2" not in agent.deps.l3.vrfs


# -- LAG and VLAN interfaces (registry contract with the L2 orchs) --------------------------------------
def _lag_and_vlan(agent):
    """A LAG and a VLAN made as the L2 orchs would: SAI objects plus registry entries."""
    sai = agent.deps.sai
    lag, vlan = sai.alloc(T.LAG), sai.alloc(T.VLAN)
    assert sai.apply([SaiOp.create(T.LAG, lag), SaiOp.create(T.VLAN, vlan, ("SAI_VLAN_ATTR_VLAN_ID", "2"))]).ok
    agent.deps.registry.add(Interface("PortChannel002", Kind.LAG, lag, oper_up=True, mtu=9100))
    agent.deps.registry.add(Interface("Vlan2", Kind.VLAN, vlan, mtu=9100))
    return lag, vlan


def test_lag_and_vlan_rifs_follow_their_mtu(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs, 1)
    lag, vlan = _lag_and_vlan(agent)
    lag_rif = route_interface(agent, dbs, "PortChannel002", "40.0.0.8/29")
    vlan_rif = route_interface(agent, dbs, "Vlan2", "20.0.0.8/29")
    rifs = asic_objects(raw, "ROUTER_INTERFACE")
    assert rifs[lag_rif]["SAI_ROUTER_INTERFACE_ATTR_TYPE"] == "SAI_ROUTER_INTERFACE_TYPE_PORT"
    assert rifs[lag_rif]["SAI_ROUTER_INTERFACE_ATTR_PORT_ID"] == lag
    assert rifs[vlan_rif]["SAI_ROUTER_INTERFACE_ATTR_TYPE"] == "SAI_ROUTER_INTERFACE_TYPE_VLAN"
    assert rifs[vlan_rif]["SAI_ROUTER_INTERFACE_ATTR_VLAN_ID"] == vlan
    # the VLAN's /29 gets a directed broadcast neighbour
    neighbors = [json.loads(k) for k in asic_objects(raw, "NEIGHBOR_ENTRY")]
    assert {"ip": "20.0.0.15", "rif": vlan_rif, "switch_id": agent.deps.switch.switch_id} in neighbors
    for name in ("PortChannel002", "Vlan2"):
        agent.deps.registry.get(name).mtu = 8888
        agent.deps.bus.publish(MtuChanged(name, 8888))
    rifs = asic_objects(raw, "ROUTER_INTERFACE")
    assert rifs[lag_rif]["SAI_ROUTER_INTERFACE_ATTR_MTU"] == rifs[vlan_rif]["SAI_ROUTER_INTERFACE_ATTR_MTU"] == "8888"
    assert agent.deps.registry.in_use("Vlan2") == 1  # the VLAN orch must not remove it under the RIF
    intf = appl(dbs, "INTF_TABLE")
    intf.delete("Vlan2:20.0.0.8/29")
    intf.delete("Vlan2")
    agent.drive(lambda: agent.deps.registry.in_use("Vlan2") == 0)
    assert asic_objects(raw, "NEIGHBOR_ENTRY") == {}


def test_a_vrf_has_the_link_local_route_to_the_cpu(orchagent, dbs, raw):  # NOS-L3-008
    # vrforch addOperation: fe80::/10 -> CPU in every VRF's virtual router, removed with it
    agent, _ = l3_agent(orchagent, dbs, 1)
    vrfs = appl(dbs, "VRF_TABLE")
    vrfs.set("Vrf_7", {"NULL": "NULL"})
    agent.drive(lambda: "Vrf_7" in agent.deps.l3.vrfs)
    vr = agent.deps.l3.vrfs["Vrf_7"].oid
    assert asic_routes(raw)[("fe80::/10", vr)] == {"SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION": "SAI_PACKET_ACTION_FORWARD",
                                                   "SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID": agent.deps.switch.cpu_port}
    vrfs.delete("Vrf_7")
    agent.drive(lambda: vr not in asic_objects(raw, "VIRTUAL_ROUTER"))
    assert ("fe80::/10", vr) not in asic_routes(raw)
