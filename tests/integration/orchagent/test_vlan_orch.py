"""VlanOrch with PortOrch and syncd_sim on real Redis: ASIC_STATE as the VLAN conformance cases see it,
deferrals, and bad rows refused without raising (the runner is strict)."""

from __future__ import annotations

import pytest

from nos.db import ProducerStateTable
from orchagent.core.events import MtuChanged
from orchagent.orchs.port import PortOrch
from orchagent.orchs.vlan import VlanOrch
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration

PREFIX = "ASIC_STATE:SAI_OBJECT_TYPE_"


def objects(raw, kind):
    """object id -> attributes of every ASIC_STATE object of a type."""
    asic = raw(1)
    return {key.split(":", 2)[2]: asic.hgetall(key) for key in asic.keys(f"{PREFIX}{kind}:*")}


def vlan_oid(raw, vid):
    found = [oid for oid, attrs in objects(raw, "VLAN").items() if attrs.get("SAI_VLAN_ATTR_VLAN_ID") == str(vid)]
    return found[0] if len(found) == 1 else None


def consumer_of(agent, table):
    return next(c for c in agent.runner.consumers if c.table == table and c.db == "APPL_DB")


def hostif_of(raw, name):
    return next(attrs for attrs in objects(raw, "HOSTIF").values() if attrs["SAI_HOSTIF_ATTR_NAME"] == name)


@pytest.fixture
def l2(orchagent, dbs):
    agent = orchagent(PortOrch, VlanOrch)
    ports = boot_ports(agent, dbs, 4, admin="down")
    vlans = ProducerStateTable(dbs["APPL_DB"], "VLAN_TABLE")
    members = ProducerStateTable(dbs["APPL_DB"], "VLAN_MEMBER_TABLE")
    return agent, ports, vlans, members


def test_untagged_member_gets_bridge_port_member_pvid_and_hostif_tag(l2, raw):
    agent, ports, vlans, members = l2
    vlans.set("Vlan2", {"admin_status": "up", "mtu": "9100", "mac": "00:11:22:33:44:55", "host_ifname": ""})
    agent.drive(lambda: vlan_oid(raw, 2))
    vlan = vlan_oid(raw, 2)
    assert objects(raw, "VLAN")[vlan] == {"SAI_VLAN_ATTR_VLAN_ID": "2"}
    members.set("Vlan2:Ethernet0", {"tagging_mode": "untagged"})
    agent.drive(lambda: objects(raw, "VLAN_MEMBER"))
    [(bridge_port, bp_attrs)] = objects(raw, "BRIDGE_PORT").items()
    assert bp_attrs == {"SAI_BRIDGE_PORT_ATTR_TYPE": "SAI_BRIDGE_PORT_TYPE_PORT",
                        "SAI_BRIDGE_PORT_ATTR_PORT_ID": ports["Ethernet0"],
                        "SAI_BRIDGE_PORT_ATTR_ADMIN_STATE": "true",
                        "SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE": "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_HW"}
    assert list(objects(raw, "VLAN_MEMBER").values()) == [{
        "SAI_VLAN_MEMBER_ATTR_VLAN_ID": vlan, "SAI_VLAN_MEMBER_ATTR_BRIDGE_PORT_ID": bridge_port,
        "SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE": "SAI_VLAN_TAGGING_MODE_UNTAGGED"}]
    assert objects(raw, "PORT")[ports["Ethernet0"]]["SAI_PORT_ATTR_PORT_VLAN_ID"] == "2"
    assert hostif_of(raw, "Ethernet0")["SAI_HOSTIF_ATTR_VLAN_TAG"] == "SAI_HOSTIF_VLAN_TAG_KEEP"
    entry = agent.deps.registry.get("Ethernet0")
    assert (entry.bridge_port, entry.vlans, entry.pvid) == (bridge_port, {2: "untagged"}, 2)
    assert agent.deps.registry.get("Vlan2").oid == vlan and agent.deps.registry.in_use("Ethernet0") == 1

    members.delete("Vlan2:Ethernet0")
    agent.drive(lambda: not objects(raw, "BRIDGE_PORT"))
    assert objects(raw, "VLAN_MEMBER") == {}
    assert objects(raw, "PORT")[ports["Ethernet0"]]["SAI_PORT_ATTR_PORT_VLAN_ID"] == "1"
    assert hostif_of(raw, "Ethernet0")["SAI_HOSTIF_ATTR_VLAN_TAG"] == "SAI_HOSTIF_VLAN_TAG_STRIP"
    assert agent.deps.registry.in_use("Ethernet0") == 0 and agent.deps.registry.get("Ethernet0").bridge_port == ""
    vlans.delete("Vlan2")
    agent.drive(lambda: len(objects(raw, "VLAN")) == 1)   # the default VLAN stays
    assert agent.deps.registry.get("Vlan2") is None


def test_two_vlans_three_members_each(l2, raw):
    agent, ports, vlans, members = l2
    for vid, names in ((18, ("Ethernet0", "Ethernet4", "Ethernet8")), (188, ("Ethernet12",))):
        vlans.set(f"Vlan{vid}", {"admin_status": "up"})
        for name in names:
            members.set(f"Vlan{vid}:{name}", {"tagging_mode": "tagged"})
    members.set("Vlan188:Ethernet0", {"tagging_mode": "untagged"})
    agent.drive(lambda: len(objects(raw, "VLAN_MEMBER")) == 5)
    assert len(objects(raw, "BRIDGE_PORT")) == 4          # one per port, shared by its VLANs
    assert agent.deps.registry.get("Ethernet0").vlans == {18: "tagged", 188: "untagged"}
    members.delete("Vlan18:Ethernet0")
    agent.drive(lambda: len(objects(raw, "VLAN_MEMBER")) == 4)
    assert len(objects(raw, "BRIDGE_PORT")) == 4          # still in Vlan188
    assert objects(raw, "PORT")[ports["Ethernet0"]]["SAI_PORT_ATTR_PORT_VLAN_ID"] == "188"


def test_member_waits_for_its_vlan_and_its_port(l2, raw):
    agent, ports, vlans, members = l2
    members.set("Vlan3:Ethernet0", {"tagging_mode": "tagged"})
    members.set("Vlan3:Ethernet100", {"tagging_mode": "tagged"})
    agent.settle()
    assert objects(raw, "VLAN_MEMBER") == {}
    vlans.set("Vlan3", {"admin_status": "up"})
    agent.drive(lambda: len(objects(raw, "VLAN_MEMBER")) == 1)
    member_consumer = consumer_of(agent, "VLAN_MEMBER_TABLE")
    assert member_consumer.table == "VLAN_MEMBER_TABLE" and "Vlan3:Ethernet100" in member_consumer.pending


def test_removing_a_vlan_waits_for_members_and_router_interfaces(l2, raw):
    agent, ports, vlans, members = l2
    vlans.set("Vlan100", {"admin_status": "up"})
    members.set("Vlan100:Ethernet4", {"tagging_mode": "tagged"})
    agent.drive(lambda: objects(raw, "VLAN_MEMBER"))
    agent.deps.registry.ref("Vlan100")        # a router interface on the VLAN
    vlans.delete("Vlan100")
    members.delete("Vlan100:Ethernet4")
    agent.drive(lambda: not objects(raw, "VLAN_MEMBER"))
    agent.settle()
    assert vlan_oid(raw, 100) is not None
    agent.deps.registry.unref("Vlan100")
    agent.drive(lambda: vlan_oid(raw, 100) is None)


def test_tagging_mode_change_and_priority_tagged(l2, raw):
    agent, ports, vlans, members = l2
    vlans.set("Vlan2", {"admin_status": "up"})
    members.set("Vlan2:Ethernet0", {"tagging_mode": "priority_tagged"})
    agent.drive(lambda: objects(raw, "VLAN_MEMBER"))
    [(member, attrs)] = objects(raw, "VLAN_MEMBER").items()
    assert attrs["SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE"] == "SAI_VLAN_TAGGING_MODE_PRIORITY_TAGGED"
    assert "SAI_PORT_ATTR_PORT_VLAN_ID" not in objects(raw, "PORT")[ports["Ethernet0"]]
    members.set("Vlan2:Ethernet0", {"tagging_mode": "untagged"})
    agent.drive(lambda: objects(raw, "VLAN_MEMBER")[member]["SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE"]
                == "SAI_VLAN_TAGGING_MODE_UNTAGGED")
    assert objects(raw, "PORT")[ports["Ethernet0"]]["SAI_PORT_ATTR_PORT_VLAN_ID"] == "2"


def test_mtu_and_admin_changes_reach_the_registry_and_the_bus(l2, raw):
    agent, ports, vlans, members = l2
    seen = []
    agent.deps.bus.subscribe(MtuChanged, seen.append)
    vlans.set("Vlan2", {"admin_status": "up", "mtu": "9100"})
    agent.drive(lambda: agent.deps.registry.get("Vlan2"))
    vlans.set("Vlan2", {"admin_status": "down", "mtu": "8888"})
    agent.drive(lambda: seen)
    assert seen == [MtuChanged("Vlan2", 8888)]
    entry = agent.deps.registry.get("Vlan2")
    assert (entry.mtu, entry.admin_up) == (8888, False)


def test_bad_rows_are_refused_and_nothing_is_created(l2, raw):
    agent, ports, vlans, members = l2
    before = set(objects(raw, "VLAN"))
    up = {"admin_status": "up"}
    for key, fields in [("Vla2", up), ("VLAN3", up), ("vlan4", up), ("Vlanabc", up), ("Vlan", up),
                        ("Vlan5", {"mtu": "abc"}), ("Vlan6", {"admin_status": "sideways"})]:
        vlans.set(key, fields)
    members.set("Vlan2", {"tagging_mode": "untagged"})
    members.set("Vlan7:Ethernet0", {"tagging_mode": "trunk"})
    vlan_consumer, member_consumer = consumer_of(agent, "VLAN_TABLE"), consumer_of(agent, "VLAN_MEMBER_TABLE")
    agent.drive(lambda: vlan_consumer.stats.rejected == 7 and member_consumer.stats.rejected == 2)
    assert set(objects(raw, "VLAN")) == before and not vlan_consumer.pending and not member_consumer.pending
    vlans.set("Vlan5", {"admin_status": "up"})
    agent.drive(lambda: vlan_oid(raw, 5))


def test_port_learn_mode_follows_port_table_and_survives_the_bridge_port(l2, raw, dbs):  # test_PortMacLearnMode
    agent, ports, vlans, members = l2
    port_table = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    vlans.set("Vlan2", {"admin_status": "up"})
    members.set("Vlan2:Ethernet8", {"tagging_mode": "untagged"})
    agent.drive(lambda: objects(raw, "BRIDGE_PORT"))

    def mode():
        [bp] = objects(raw, "BRIDGE_PORT").values()
        return bp["SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE"]

    assert mode() == "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_HW"
    for word, sai in (("drop", "DROP"), ("cpu_trap", "CPU_TRAP"), ("notification", "FDB_NOTIFICATION")):
        port_table.set("Ethernet8", {"learn_mode": word})
        agent.drive(lambda sai=sai: mode() == f"SAI_BRIDGE_PORT_FDB_LEARNING_MODE_{sai}")
    port_table.set("Ethernet8", {"learn_mode": "sometimes"})   # refused, the mode stays
    agent.settle()
    assert mode() == "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_FDB_NOTIFICATION"
    port_table.set("Ethernet8", {"learn_mode": "disable"})
    agent.drive(lambda: mode() == "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DISABLE")
    members.delete("Vlan2:Ethernet8")
    agent.drive(lambda: not objects(raw, "BRIDGE_PORT"))
    members.set("Vlan2:Ethernet8", {"tagging_mode": "untagged"})
    agent.drive(lambda: objects(raw, "BRIDGE_PORT"))
    assert mode() == "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DISABLE"   # created with it
