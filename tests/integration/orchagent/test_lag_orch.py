"""LagOrch (with PortOrch, VlanOrch) and syncd_sim on real Redis: ASIC_STATE as the LAG conformance
cases see it, events for the L3 orchs, deferrals, and bad rows refused without raising."""

from __future__ import annotations

import pytest

from nos.db import ProducerStateTable
from orchagent.core.events import MtuChanged, OperChanged
from orchagent.orchs.lag import LagOrch
from orchagent.orchs.port import PortOrch
from orchagent.orchs.vlan import VlanOrch
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration

PREFIX = "ASIC_STATE:SAI_OBJECT_TYPE_"


def objects(raw, kind):
    asic = raw(1)
    return {key.split(":", 2)[2]: asic.hgetall(key) for key in asic.keys(f"{PREFIX}{kind}:*")}


def hostif_of(raw, name):
    return next(attrs for attrs in objects(raw, "HOSTIF").values() if attrs["SAI_HOSTIF_ATTR_NAME"] == name)


@pytest.fixture
def lags(orchagent, dbs):
    agent = orchagent(PortOrch, LagOrch, VlanOrch)
    ports = boot_ports(agent, dbs, 4, admin="down")
    tables = {name: ProducerStateTable(dbs["APPL_DB"], name)
              for name in ("LAG_TABLE", "LAG_MEMBER_TABLE", "VLAN_TABLE", "VLAN_MEMBER_TABLE", "PORT_TABLE")}
    return agent, ports, tables


def test_lag_and_member_status_toggles_the_disable_flags(lags, raw):
    agent, ports, t = lags
    t["LAG_TABLE"].set("PortChannel0001", {"admin": "up", "mtu": "1500"})
    t["LAG_MEMBER_TABLE"].set("PortChannel0001:Ethernet0", {"status": "enabled"})
    agent.drive(lambda: objects(raw, "LAG_MEMBER"))
    [lag] = objects(raw, "LAG")
    assert raw(2).hgetall("COUNTERS_LAG_NAME_MAP") == {"PortChannel0001": lag}
    [(member, attrs)] = objects(raw, "LAG_MEMBER").items()
    assert attrs == {"SAI_LAG_MEMBER_ATTR_LAG_ID": lag, "SAI_LAG_MEMBER_ATTR_PORT_ID": ports["Ethernet0"],
                     "SAI_LAG_MEMBER_ATTR_INGRESS_DISABLE": "false", "SAI_LAG_MEMBER_ATTR_EGRESS_DISABLE": "false"}
    assert agent.deps.registry.get("Ethernet0").lag == "PortChannel0001"
    assert agent.deps.registry.get("PortChannel0001").mtu == 1500

    t["LAG_MEMBER_TABLE"].set("PortChannel0001:Ethernet0", {"status": "disabled"})
    agent.drive(lambda: objects(raw, "LAG_MEMBER")[member]["SAI_LAG_MEMBER_ATTR_EGRESS_DISABLE"] == "true")
    attrs = objects(raw, "LAG_MEMBER")[member]
    assert len(attrs) == 4 and attrs["SAI_LAG_MEMBER_ATTR_INGRESS_DISABLE"] == "true"

    t["LAG_MEMBER_TABLE"].delete("PortChannel0001:Ethernet0")
    t["LAG_TABLE"].delete("PortChannel0001")
    agent.drive(lambda: not objects(raw, "LAG"))
    assert objects(raw, "LAG_MEMBER") == {} and raw(2).hgetall("COUNTERS_LAG_NAME_MAP") == {}
    assert agent.deps.registry.in_use("Ethernet0") == 0 and agent.deps.registry.get("Ethernet0").lag == ""


def test_a_disabled_member_is_created_disabled(lags, raw):
    agent, ports, t = lags
    t["LAG_TABLE"].set("PortChannel1", {"admin_status": "up"})
    t["LAG_MEMBER_TABLE"].set("PortChannel1:Ethernet4", {"status": "disabled"})
    agent.drive(lambda: objects(raw, "LAG_MEMBER"))
    [attrs] = objects(raw, "LAG_MEMBER").values()
    assert attrs["SAI_LAG_MEMBER_ATTR_INGRESS_DISABLE"] == attrs["SAI_LAG_MEMBER_ATTR_EGRESS_DISABLE"] == "true"


def test_tpid_is_decimal_on_the_sai_lag(lags, raw):
    agent, ports, t = lags
    t["LAG_TABLE"].set("PortChannel002", {"admin_status": "up", "mtu": "9100", "tpid": "0x9200", "oper_status": "up"})
    agent.drive(lambda: raw(2).hget("COUNTERS_LAG_NAME_MAP", "PortChannel002"))
    lag = raw(2).hget("COUNTERS_LAG_NAME_MAP", "PortChannel002")
    assert objects(raw, "LAG")[lag]["SAI_LAG_ATTR_TPID"] == "37376"


def test_oper_status_and_mtu_are_announced(lags, raw):
    agent, ports, t = lags
    seen = []
    agent.deps.bus.subscribe(OperChanged, seen.append)
    agent.deps.bus.subscribe(MtuChanged, seen.append)
    t["LAG_TABLE"].set("PortChannel001", {"admin_status": "up", "mtu": "9100", "oper_status": "up"})
    agent.drive(lambda: seen)
    assert seen == [OperChanged("PortChannel001", True)]
    t["LAG_TABLE"].set("PortChannel001", {"admin_status": "up", "mtu": "8888", "oper_status": "down"})
    agent.drive(lambda: len(seen) == 3)
    assert seen[1:] == [OperChanged("PortChannel001", False), MtuChanged("PortChannel001", 8888)]
    entry = agent.deps.registry.get("PortChannel001")
    assert (entry.oper_up, entry.admin_up, entry.mtu) == (False, True, 8888)


def test_a_lag_in_a_vlan_is_bridged_and_its_members_keep_tags(lags, raw):
    agent, ports, t = lags
    t["LAG_TABLE"].set("PortChannel1", {"admin_status": "up", "learn_mode": "drop"})
    t["LAG_MEMBER_TABLE"].set("PortChannel1:Ethernet0", {"status": "enabled"})
    t["VLAN_TABLE"].set("Vlan2", {"admin_status": "up"})
    t["VLAN_MEMBER_TABLE"].set("Vlan2:PortChannel1", {"tagging_mode": "untagged"})
    agent.drive(lambda: objects(raw, "VLAN_MEMBER") and objects(raw, "LAG_MEMBER"))
    lag = raw(2).hget("COUNTERS_LAG_NAME_MAP", "PortChannel1")
    [bridge_port] = objects(raw, "BRIDGE_PORT").values()
    assert bridge_port["SAI_BRIDGE_PORT_ATTR_PORT_ID"] == lag
    assert bridge_port["SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE"] == "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DROP"
    assert objects(raw, "LAG")[lag]["SAI_LAG_ATTR_PORT_VLAN_ID"] == "2"
    assert hostif_of(raw, "Ethernet0")["SAI_HOSTIF_ATTR_VLAN_TAG"] == "SAI_HOSTIF_VLAN_TAG_KEEP"
    # a second port joining the bridged LAG takes its PVID and keeps tags too
    t["LAG_MEMBER_TABLE"].set("PortChannel1:Ethernet4", {"status": "enabled"})
    agent.drive(lambda: len(objects(raw, "LAG_MEMBER")) == 2)
    assert objects(raw, "PORT")[ports["Ethernet4"]]["SAI_PORT_ATTR_PORT_VLAN_ID"] == "2"
    assert hostif_of(raw, "Ethernet4")["SAI_HOSTIF_ATTR_VLAN_TAG"] == "SAI_HOSTIF_VLAN_TAG_KEEP"
    # a bridged LAG is not removed while it is in the VLAN
    t["LAG_MEMBER_TABLE"].delete("PortChannel1:Ethernet0")
    t["LAG_MEMBER_TABLE"].delete("PortChannel1:Ethernet4")
    t["LAG_TABLE"].delete("PortChannel1")
    agent.drive(lambda: not objects(raw, "LAG_MEMBER"))
    agent.settle()
    assert lag in objects(raw, "LAG")
    assert hostif_of(raw, "Ethernet0")["SAI_HOSTIF_ATTR_VLAN_TAG"] == "SAI_HOSTIF_VLAN_TAG_STRIP"
    t["VLAN_MEMBER_TABLE"].delete("Vlan2:PortChannel1")
    agent.drive(lambda: not objects(raw, "LAG"))


def test_a_vlan_member_port_does_not_join_a_lag_until_it_leaves_the_vlan(lags, raw):
    agent, ports, t = lags
    t["VLAN_TABLE"].set("Vlan2", {"admin_status": "up"})
    t["VLAN_MEMBER_TABLE"].set("Vlan2:Ethernet8", {"tagging_mode": "tagged"})
    agent.drive(lambda: objects(raw, "VLAN_MEMBER"))
    t["LAG_TABLE"].set("PortChannel1", {"admin_status": "up"})
    t["LAG_MEMBER_TABLE"].set("PortChannel1:Ethernet8", {"status": "enabled"})
    agent.drive(lambda: objects(raw, "LAG"))
    agent.settle()
    assert objects(raw, "LAG_MEMBER") == {}
    t["VLAN_MEMBER_TABLE"].delete("Vlan2:Ethernet8")
    agent.drive(lambda: objects(raw, "LAG_MEMBER"))
    # and now, in the LAG, it cannot join a VLAN
    t["VLAN_MEMBER_TABLE"].set("Vlan2:Ethernet8", {"tagging_mode": "tagged"})
    agent.settle()
    assert objects(raw, "VLAN_MEMBER") == {}


def test_member_waits_for_lag_and_port_and_a_member_port_is_not_deleted(lags, raw):
    agent, ports, t = lags
    t["LAG_MEMBER_TABLE"].set("PortChannel7:Ethernet12", {"status": "enabled"})
    t["LAG_MEMBER_TABLE"].set("PortChannel7:Ethernet200", {"status": "enabled"})
    agent.settle()
    t["LAG_TABLE"].set("PortChannel7", {"admin_status": "up"})
    agent.drive(lambda: objects(raw, "LAG_MEMBER"))
    t["PORT_TABLE"].delete("Ethernet12")
    agent.settle()
    assert ports["Ethernet12"] in objects(raw, "PORT")
    t["LAG_MEMBER_TABLE"].delete("PortChannel7:Ethernet12")
    agent.drive(lambda: ports["Ethernet12"] not in objects(raw, "PORT"))


def test_bad_rows_are_refused(lags, raw):
    agent, ports, t = lags
    t["LAG_TABLE"].set("Bond0", {"admin_status": "up"})
    t["LAG_TABLE"].set("PortChannel5", {"tpid": "9200"})
    t["LAG_TABLE"].set("PortChannel6", {"oper_status": "maybe"})
    t["LAG_MEMBER_TABLE"].set("PortChannel5", {"status": "enabled"})
    t["LAG_MEMBER_TABLE"].set("PortChannel5:Ethernet0", {"status": "on"})
    lag_consumer, member_consumer = agent.runner.consumers[1:3]
    agent.drive(lambda: lag_consumer.stats.rejected == 3 and member_consumer.stats.rejected == 2)
    assert objects(raw, "LAG") == {}
