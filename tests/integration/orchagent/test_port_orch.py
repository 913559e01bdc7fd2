"""PortOrch with syncd_sim on real Redis: boot, field changes, refusals, deletion, oper state."""

from __future__ import annotations

import pytest

from nos.db import NotificationProducer, ProducerStateTable
from orchagent.orchs.port import PortOrch
from orchagent.orchs.port_xcvr import TransceiverOrch
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration


def asic_port(raw, oid):
    return raw(1).hgetall(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}")


def test_boot_creates_ports_hostifs_queues_and_maps(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 4)
    port = asic_port(raw, ports["Ethernet4"])
    assert port["SAI_PORT_ATTR_HW_LANE_LIST"] == "4:4,5,6,7"
    assert port["SAI_PORT_ATTR_SPEED"] == "100000" and port["SAI_PORT_ATTR_MTU"] == "9122"
    assert port["SAI_PORT_ATTR_ADMIN_STATE"] == "true"
    hostifs = [raw(1).hgetall(k) for k in raw(1).keys("ASIC_STATE:SAI_OBJECT_TYPE_HOSTIF:*")]
    assert {h["SAI_HOSTIF_ATTR_NAME"] for h in hostifs} == set(ports)
    counters = raw(2)
    assert counters.hlen("COUNTERS_QUEUE_NAME_MAP") == 4 * 8
    assert counters.hget("COUNTERS_QUEUE_INDEX_MAP", counters.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet0:3")) == "3"
    assert counters.hlen("COUNTERS_PG_NAME_MAP") == 4 * 8
    assert raw(6).hgetall("BUFFER_MAX_PARAM_TABLE|Ethernet0")["max_queues"] == "8"
    supported = raw(6).hget("PORT_TABLE|Ethernet0", "supported_speeds").split(",")
    assert "100000" in supported and max(map(int, supported)) == 400000  # 4 lanes of 100G at most
    # the simulated kernel: netdevs appear, and admin up ports go oper up
    agent.drive(lambda: raw(0).hget("PORT_TABLE:Ethernet0", "oper_status") == "up")
    assert raw(6).hget("PORT_TABLE|Ethernet0", "netdev_oper_status") == "up"


def test_field_changes_become_sai_sets(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 2)
    appl = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    appl.set("Ethernet0", {"mtu": "1500", "fec": "rs", "tpid": "0x9200", "admin_status": "down"})
    agent.drive(lambda: asic_port(raw, ports["Ethernet0"]).get("SAI_PORT_ATTR_TPID") == "37376")
    port = asic_port(raw, ports["Ethernet0"])
    assert port["SAI_PORT_ATTR_MTU"] == "1522" and port["SAI_PORT_ATTR_FEC_MODE"] == "SAI_PORT_FEC_MODE_RS"
    agent.drive(lambda: raw(0).hget("PORT_TABLE:Ethernet0", "oper_status") == "down")


def test_a_speed_the_lanes_cannot_do_is_refused_and_reported(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    boot_ports(agent, dbs, 1)
    appl = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    appl.set("Ethernet100", {"lanes": "100", "speed": "400000", "mtu": "9100"})  # one 100G lane
    consumer = agent.runner.consumers[0]
    agent.drive(lambda: consumer.stats.rejected >= 1)
    assert raw(2).hget("COUNTERS_PORT_NAME_MAP", "Ethernet100") is None


def test_deleting_a_port_removes_hostif_queues_and_maps(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 2)
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").delete("Ethernet4")
    agent.drive(lambda: raw(2).hget("COUNTERS_PORT_NAME_MAP", "Ethernet4") is None)
    assert not raw(1).exists(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{ports['Ethernet4']}")
    queues = [raw(1).hgetall(k) for k in raw(1).keys("ASIC_STATE:SAI_OBJECT_TYPE_QUEUE:*")]
    assert all(q["SAI_QUEUE_ATTR_PORT"] != ports["Ethernet4"] for q in queues)
    assert len(queues) == 8
    assert raw(6).hgetall("PORT_TABLE|Ethernet4") == {}


def test_a_referenced_port_is_not_deleted_until_released(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 1)
    agent.deps.registry.ref("Ethernet0")  # e.g. a VLAN member
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").delete("Ethernet0")
    agent.settle()
    assert raw(1).exists(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{ports['Ethernet0']}")
    agent.deps.registry.unref("Ethernet0")
    agent.drive(lambda: not raw(1).exists(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{ports['Ethernet0']}"))


def test_a_port_whose_lanes_are_still_held_waits_for_them(orchagent, dbs, raw):
    """Breakout back to one port: the wide port arrives before the narrow ports' deletions."""
    agent = orchagent(PortOrch)
    boot_ports(agent, dbs, 2)
    appl = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    appl.set("Ethernet0", {"lanes": "0,1,2,3,4,5,6,7", "speed": "100000", "mtu": "9100"})  # takes Ethernet4's lanes
    agent.settle()
    consumer = agent.runner.consumers[0]
    assert consumer.pending_count == 1 and consumer.stats.rejected == 0
    appl.delete("Ethernet4")
    agent.drive(lambda: raw(2).hget("COUNTERS_PORT_NAME_MAP", "Ethernet4") is None and consumer.pending_count == 0)
    oid = raw(2).hget("COUNTERS_PORT_NAME_MAP", "Ethernet0")
    assert raw(1).hget(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}", "SAI_PORT_ATTR_HW_LANE_LIST") == "8:0,1,2,3,4,5,6,7"


def test_attribute_changes_of_many_ports_are_one_bulk_set(orchagent, dbs, raw, monkeypatch):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 8)
    sai = agent.deps.sai
    requests = []
    original = sai.bulk
    monkeypatch.setattr(sai, "bulk", lambda kind, object_type, entries: (
        requests.append((kind.value, object_type.sai_name, len(entries))), original(kind, object_type, entries))[1])
    appl = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    appl.set_many([(name, {"mtu": "4000", "fec": "rs"}) for name in ports])
    agent.drive(lambda: all(asic_port(raw, oid).get("SAI_PORT_ATTR_FEC_MODE") == "SAI_PORT_FEC_MODE_RS"
                            for oid in ports.values()))
    assert all(asic_port(raw, oid)["SAI_PORT_ATTR_MTU"] == "4022" for oid in ports.values())
    port_sets = [r for r in requests if r[1] == "SAI_OBJECT_TYPE_PORT"]  # (host interfaces' oper status: bulk too)
    assert port_sets and all(r[0] == "set" for r in port_sets)
    assert sum(r[2] for r in port_sets) == 16  # two attributes of eight ports
    assert len(port_sets) <= 2  # one per batch popped (usually one)
    assert {p.name: p.attrs["SAI_PORT_ATTR_MTU"] for p in agent.orchs[PortOrch].ports.values()} == dict.fromkeys(
        ports, "4022")


def test_a_refused_attribute_in_a_bulk_set_fails_only_its_port(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 2)
    orch = agent.orchs[PortOrch]
    orch.ports["Ethernet4"].attrs["SAI_PORT_ATTR_SPEED"] = "1"  # so the next speed is a change to send
    orch.ports["Ethernet4"].supported_speeds = []  # as an ASIC that lists none: the ASIC decides (and refuses)
    appl = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    # 400G on four lanes the 100G test ports were given is fine; 800000 is more than the lanes can do
    appl.set_many([("Ethernet0", {"mtu": "5000"}), ("Ethernet4", {"mtu": "5000", "speed": "800000"})])
    consumer = agent.runner.consumers[0]
    agent.drive(lambda: consumer.stats.rejected >= 1)
    assert asic_port(raw, ports["Ethernet0"])["SAI_PORT_ATTR_MTU"] == "5022"
    assert asic_port(raw, ports["Ethernet4"])["SAI_PORT_ATTR_MTU"] == "5022"  # the attribute it took
    assert asic_port(raw, ports["Ethernet4"])["SAI_PORT_ATTR_SPEED"] == "100000"
    assert orch.ports["Ethernet4"].attrs["SAI_PORT_ATTR_MTU"] == "5022"


# -- what portsorch writes besides port attributes (orchagent/orchs/port_state.py) -------------------------
def hostif_of(raw, name):
    found = [raw(1).hgetall(k) for k in raw(1).keys("ASIC_STATE:SAI_OBJECT_TYPE_HOSTIF:*")]
    return next(h for h in found if h["SAI_HOSTIF_ATTR_NAME"] == name)


def test_ports_get_host_tx_signal_off_and_hostifs_sonics_attributes(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 2, admin="down")
    assert asic_port(raw, ports["Ethernet0"])["SAI_PORT_ATTR_HOST_TX_SIGNAL_ENABLE"] == "false"
    assert hostif_of(raw, "Ethernet4") == {
        "SAI_HOSTIF_ATTR_TYPE": "SAI_HOSTIF_TYPE_NETDEV", "SAI_HOSTIF_ATTR_OBJ_ID": ports["Ethernet4"],
        "SAI_HOSTIF_ATTR_NAME": "Ethernet4", "SAI_HOSTIF_ATTR_QUEUE": "7", "SAI_HOSTIF_ATTR_OPER_STATUS": "false"}
    assert raw(0).hget("PORT_TABLE:Ethernet0", "oper_status") == "down"  # initializePorts writes it
    agent.drive(lambda: raw(6).hget("PORT_TABLE|Ethernet0", "host_tx_ready") == "false")
    # the simulated kernel's netdev: portsyncd's fields
    state = raw(6).hgetall("PORT_TABLE|Ethernet4")
    assert (state["admin_status"], state["mtu"], state["state"]) == ("down", "9100", "ok")


def test_a_transceiver_turns_the_host_tx_signal_on_and_its_removal_off(orchagent, dbs, raw):
    agent = orchagent(PortOrch, TransceiverOrch)
    raw(6).hset("TRANSCEIVER_INFO|Ethernet4", "type", "QSFP28")  # before its port: waits for it
    ports = boot_ports(agent, dbs, 2)
    agent.drive(lambda: asic_port(raw, ports["Ethernet4"])["SAI_PORT_ATTR_HOST_TX_SIGNAL_ENABLE"] == "true")
    raw(6).hset("TRANSCEIVER_INFO|Ethernet0", "supported_max_tx_power", "N/A")
    agent.drive(lambda: asic_port(raw, ports["Ethernet0"])["SAI_PORT_ATTR_HOST_TX_SIGNAL_ENABLE"] == "true")
    raw(6).hdel("TRANSCEIVER_INFO|Ethernet0", "supported_max_tx_power")
    agent.drive(lambda: asic_port(raw, ports["Ethernet0"])["SAI_PORT_ATTR_HOST_TX_SIGNAL_ENABLE"] == "false")


def test_host_tx_ready_follows_the_notification(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 1)
    agent.drive(lambda: raw(6).hget("PORT_TABLE|Ethernet0", "host_tx_ready") == "false")
    data = f'[{{"host_tx_ready_status":"SAI_PORT_HOST_TX_READY_STATUS_READY","port_id":"{ports["Ethernet0"]}"}}]'
    NotificationProducer(dbs["ASIC_DB"], "NOTIFICATIONS").send("port_host_tx_ready", data)
    agent.drive(lambda: raw(6).hget("PORT_TABLE|Ethernet0", "host_tx_ready") == "true")


def test_an_oper_change_counts_flaps_and_a_repeated_state_changes_nothing(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 1)
    agent.drive(lambda: raw(0).hget("PORT_TABLE:Ethernet0", "oper_status") == "up")
    row = raw(0).hgetall("PORT_TABLE:Ethernet0")
    assert row["flap_count"] == "1" and "last_up_time" in row
    assert raw(6).hget("PORT_TABLE|Ethernet0", "fec") == "none"
    state = f'[{{"port_id":"{ports["Ethernet0"]}","port_state":"SAI_PORT_OPER_STATUS_UP"}}]'
    NotificationProducer(dbs["ASIC_DB"], "NOTIFICATIONS").send("port_state_change", state)
    agent.settle()
    assert raw(0).hget("PORT_TABLE:Ethernet0", "flap_count") == "1"
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").set("Ethernet0", {"admin_status": "down"})
    agent.drive(lambda: raw(0).hget("PORT_TABLE:Ethernet0", "oper_status") == "down")
    row = raw(0).hgetall("PORT_TABLE:Ethernet0")
    assert row["flap_count"] == "2" and "last_down_time" in row
    assert hostif_of(raw, "Ethernet0")["SAI_HOSTIF_ATTR_OPER_STATUS"] == "false"


def test_an_unsupported_speed_drops_the_task_at_the_speed(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 1)
    appl = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    appl.set("Ethernet0", {"autoneg": "on", "speed": "12345", "mtu": "1500"})
    consumer = agent.runner.consumers[0]
    agent.drive(lambda: consumer.stats.rejected >= 1)
    port = asic_port(raw, ports["Ethernet0"])
    assert port["SAI_PORT_ATTR_AUTO_NEG_MODE"] == "true"  # handled before the speed
    assert (port["SAI_PORT_ATTR_SPEED"], port["SAI_PORT_ATTR_MTU"]) == ("100000", "9122")
    assert consumer.pending_count == 0  # not retried


def test_autoneg_and_link_training_state_in_state_db(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    boot_ports(agent, dbs, 1)
    appl = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    appl.set("Ethernet0", {"autoneg": "on", "link_training": "on", "unreliable_los": "on"})
    agent.drive(lambda: raw(6).hget("PORT_TABLE|Ethernet0", "rmt_adv_speeds") == "N/A")
    state = raw(6).hgetall("PORT_TABLE|Ethernet0")
    assert (state["link_training_status"], state["phy_ctrl_unreliable_los"]) == ("on", "true")
    appl.set("Ethernet0", {"autoneg": "off", "link_training": "off"})
    agent.drive(lambda: raw(6).hget("PORT_TABLE|Ethernet0", "link_training_status") == "off")
    assert raw(6).hget("PORT_TABLE|Ethernet0", "rmt_adv_speeds") is None


def test_fec_auto_is_refused_on_an_existing_port_but_what_came_before_it_applies(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 1)
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").set("Ethernet0", {"mtu": "1500", "fec": "auto",
                                                                        "admin_status": "down"})
    consumer = agent.runner.consumers[0]
    agent.drive(lambda: consumer.stats.rejected >= 1)
    port = asic_port(raw, ports["Ethernet0"])
    assert port["SAI_PORT_ATTR_MTU"] == "1522" and port["SAI_PORT_ATTR_ADMIN_STATE"] == "true"
    assert "SAI_PORT_ATTR_FEC_MODE" not in port
