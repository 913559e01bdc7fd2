"""QosOrch with PortOrch and syncd_sim on real Redis: CONFIG_DB QoS rows -> ASIC_STATE objects and
bindings, references that wait, and bad rows refused without raising (the runner is strict)."""

from __future__ import annotations

import json

import pytest

from nos.daemon.reporting import StateDbReporter
from nos.db import ProducerStateTable, Table
from orchagent.core.events import PfcEnableChanged
from orchagent.orchs.port import PortOrch
from orchagent.orchs.qos import QosOrch
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration

PREFIX = "ASIC_STATE:SAI_OBJECT_TYPE_"


def objects(raw, kind):
    asic = raw(1)
    return {key.split(":", 2)[2]: asic.hgetall(key) for key in asic.keys(f"{PREFIX}{kind}:*")}


def of_type(raw, kind, **attrs):
    return {oid: a for oid, a in objects(raw, kind).items() if all(a.get(k) == v for k, v in attrs.items())}


def groups_with(raw, port, scheduler):
    return of_type(raw, "SCHEDULER_GROUP", SAI_SCHEDULER_GROUP_ATTR_PORT_ID=port,
                   SAI_SCHEDULER_GROUP_ATTR_SCHEDULER_PROFILE_ID=scheduler)


@pytest.fixture
def qos(orchagent, dbs):
    agent = orchagent(PortOrch, QosOrch)
    reporter = StateDbReporter(dbs, "orchagent-test")
    for consumer in agent.runner.consumers:
        consumer.reporter = reporter
    ports = boot_ports(agent, dbs, 2, admin="down")
    config = {name: Table(dbs["CONFIG_DB"], name) for name in (
        "DSCP_TO_TC_MAP", "PORT_QOS_MAP", "SCHEDULER", "QUEUE", "WRED_PROFILE")}
    return agent, ports, config


def rejected(raw, table, key):
    return raw(6).hgetall(f"NOS_REJECTED_TABLE|CONFIG_DB:{table}:{key}")


def test_a_port_map_waits_for_its_map_then_binds_and_sets_pfc(qos, raw):
    agent, ports, config = qos
    seen = []
    agent.deps.bus.subscribe(PfcEnableChanged, seen.append)
    config["PORT_QOS_MAP"].set("Ethernet0", {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"})
    agent.settle()
    assert "SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP" not in objects(raw, "PORT")[ports["Ethernet0"]]
    config["DSCP_TO_TC_MAP"].set("AZURE", {"46": "5", "0": "1"})
    agent.drive(lambda: objects(raw, "PORT")[ports["Ethernet0"]].get("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL") == "24")
    [(map_oid, attrs)] = objects(raw, "QOS_MAP").items()
    assert attrs["SAI_QOS_MAP_ATTR_TYPE"] == "SAI_QOS_MAP_TYPE_DSCP_TO_TC"
    items = json.loads(attrs["SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST"])["list"]
    assert {(i["key"]["dscp"], i["value"]["tc"]) for i in items} == {(0, 1), (46, 5)}
    assert objects(raw, "PORT")[ports["Ethernet0"]]["SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP"] == map_oid
    assert seen == [PfcEnableChanged("Ethernet0", 24, 24)]
    # the map is in use: its delete waits until the port lets go of it
    config["DSCP_TO_TC_MAP"].delete("AZURE")
    agent.settle()
    assert map_oid in objects(raw, "QOS_MAP")
    config["PORT_QOS_MAP"].delete("Ethernet0")
    agent.drive(lambda: not objects(raw, "QOS_MAP"))
    port = objects(raw, "PORT")[ports["Ethernet0"]]
    assert port["SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP"] == "oid:0x0"
    assert port["SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"] == "0"


def test_queue_scheduler_lands_on_the_parent_group_and_wred_on_the_queue(qos, raw, dbs):
    agent, ports, config = qos
    config["SCHEDULER"].set("s1", {"type": "DWRR", "weight": "15"})
    config["WRED_PROFILE"].set("w1", {"wred_green_enable": "true", "green_min_threshold": "1000",
                                      "green_max_threshold": "2000", "ecn": "ecn_all"})
    config["QUEUE"].set("Ethernet4|3-4", {"scheduler": "s1", "wred_profile": "w1"})
    agent.drive(lambda: len(groups_with(raw, ports["Ethernet4"], next(iter(objects(raw, "SCHEDULER")), "-"))) == 2)
    [wred] = objects(raw, "WRED")
    queues = of_type(raw, "QUEUE", SAI_QUEUE_ATTR_PORT=ports["Ethernet4"], SAI_QUEUE_ATTR_WRED_PROFILE_ID=wred)
    assert sorted(q["SAI_QUEUE_ATTR_INDEX"] for q in queues.values()) == ["3", "4"]
    assert objects(raw, "WRED")[wred]["SAI_WRED_ATTR_GREEN_DROP_PROBABILITY"] == "100"
    # dropping the scheduler field unbinds it; the pending scheduler delete then completes
    config["SCHEDULER"].delete("s1")
    agent.settle()
    assert objects(raw, "SCHEDULER")
    config["QUEUE"].delete("Ethernet4|3-4")
    config["QUEUE"].set("Ethernet4|3-4", {"wred_profile": "w1"})
    agent.drive(lambda: not objects(raw, "SCHEDULER"))
    assert len(groups_with(raw, ports["Ethernet4"], "oid:0x0")) == 2


def test_bad_rows_are_refused_with_the_field_named_and_nothing_sent(qos, raw):
    agent, ports, config = qos
    config["DSCP_TO_TC_MAP"].set("BAD", {"46": "9"})
    config["WRED_PROFILE"].set("BAD", {"green_min_threshold": "3", "green_max_threshold": "2"})
    config["SCHEDULER"].set("BAD", {"type": "DWRR", "weight": "0"})
    config["QUEUE"].set("Ethernet0|9", {"wred_profile": "nothing-yet"})
    agent.drive(lambda: rejected(raw, "SCHEDULER", "BAD"))
    assert "traffic class 9 is outside 0..7" in rejected(raw, "DSCP_TO_TC_MAP", "BAD")["reason"]
    assert "green_min_threshold" in rejected(raw, "WRED_PROFILE", "BAD")["reason"]
    assert "field 'weight'" in rejected(raw, "SCHEDULER", "BAD")["reason"]
    assert not objects(raw, "QOS_MAP") and not objects(raw, "WRED") and not objects(raw, "SCHEDULER")


def test_asymmetric_pfc_moves_the_bitmask_to_tx_and_opens_rx(qos, raw, dbs):
    agent, ports, config = qos
    config["PORT_QOS_MAP"].set("Ethernet0", {"pfc_enable": "3,4"})
    port = ports["Ethernet0"]
    agent.drive(lambda: objects(raw, "PORT")[port].get("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL") == "24")
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").set("Ethernet0", {"pfc_asym": "on"})
    agent.drive(lambda: objects(raw, "PORT")[port].get("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_RX") == "255")
    attrs = objects(raw, "PORT")[port]
    assert attrs["SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_MODE"] == "SAI_PORT_PRIORITY_FLOW_CONTROL_MODE_SEPARATE"
    assert attrs["SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_TX"] == "24"
    config["PORT_QOS_MAP"].set("Ethernet0", {"pfc_enable": "3"})
    agent.drive(lambda: objects(raw, "PORT")[port].get("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_TX") == "8")


def test_an_object_waiting_to_be_removed_takes_no_new_reference_until_re_created(qos, raw):
    """qosorch's m_pendingRemove (Orch::parseReference): a used scheduler's DEL waits, and meanwhile a
    row that names it waits too; once the last user lets go it is removed, and a new one is taken."""
    agent, ports, config = qos
    config["SCHEDULER"].set("s1", {"type": "DWRR", "weight": "41"})
    config["QUEUE"].set("Ethernet0|3", {"scheduler": "s1"})
    agent.drive(lambda: len(objects(raw, "SCHEDULER")) == 1
                and groups_with(raw, ports["Ethernet0"], next(iter(objects(raw, "SCHEDULER")))))
    [old] = objects(raw, "SCHEDULER")
    config["SCHEDULER"].delete("s1")
    agent.settle()
    config["QUEUE"].set("Ethernet4|3", {"scheduler": "s1"})
    agent.settle()
    assert old in objects(raw, "SCHEDULER")
    assert not groups_with(raw, ports["Ethernet4"], old)
    config["QUEUE"].delete("Ethernet0|3")
    agent.drive(lambda: not objects(raw, "SCHEDULER"))
    config["SCHEDULER"].set("s1", {"type": "DWRR", "weight": "42"})
    agent.drive(lambda: len(objects(raw, "SCHEDULER")) == 1
                and groups_with(raw, ports["Ethernet4"], next(iter(objects(raw, "SCHEDULER")))))
    assert not groups_with(raw, ports["Ethernet4"], old)


def test_del_and_set_of_a_used_map_changes_nothing_until_its_users_let_go(qos, raw):
    agent, ports, config = qos
    config["DSCP_TO_TC_MAP"].set("M", {"1": "0"})
    config["PORT_QOS_MAP"].set("Ethernet0", {"dscp_to_tc_map": "M"})
    bound = "SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP"
    agent.drive(lambda: objects(raw, "PORT")[ports["Ethernet0"]].get(bound, "oid:0x0") != "oid:0x0")
    [(old, attrs)] = objects(raw, "QOS_MAP").items()
    config["DSCP_TO_TC_MAP"].delete("M")
    config["DSCP_TO_TC_MAP"].set("M", {"1": "1"})
    agent.settle()
    assert objects(raw, "QOS_MAP") == {old: attrs}
    config["PORT_QOS_MAP"].delete("Ethernet0")
    agent.drive(lambda: old not in objects(raw, "QOS_MAP") and len(objects(raw, "QOS_MAP")) == 1)
    [(new, fresh)] = objects(raw, "QOS_MAP").items()
    assert json.loads(fresh["SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST"])["list"][0]["value"]["tc"] == 1


def test_a_pop_of_queue_rows_is_sent_in_three_round_trips(qos, raw):
    """Issue 17: the QUEUE rows of a pop read the ports' queue trees in two round trips (lists, then the
    groups' children) and are bound in one more, not two reads a port and a round trip a row."""
    agent, ports, config = qos
    config["WRED_PROFILE"].set("w1", {"wred_green_enable": "true", "green_min_threshold": "1000",
                                      "green_max_threshold": "2000", "ecn": "ecn_all"})
    agent.drive(lambda: objects(raw, "WRED"))
    [wred] = objects(raw, "WRED")
    sai = agent.deps.sai
    sends: list[int] = []
    real_send = sai._send
    sai._send = lambda ops: (sends.append(len(ops)), real_send(ops))[1]  # counts round trips, sends them
    for port in ("Ethernet0", "Ethernet4"):
        for index in range(8):
            config["QUEUE"].set(f"{port}|{index}", {"wred_profile": "w1"})
    agent.drive(lambda: len(of_type(raw, "QUEUE", SAI_QUEUE_ATTR_WRED_PROFILE_ID=wred)) == 16)
    agent.settle()
    assert len(sends) == 3 and sends[0] == 2 and sends[2] == 16
