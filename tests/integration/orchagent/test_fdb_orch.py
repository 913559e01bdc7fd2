"""FdbOrch (with PortOrch, VlanOrch) and syncd_sim on real Redis: entries held until the port is a VLAN
member (VLAN-012), STATE_DB rows, flushes when a member leaves or a port goes down, bad rows refused."""

from __future__ import annotations

import json

import pytest

from nos.db import ProducerStateTable
from orchagent.orchs.fdb import FdbOrch
from orchagent.orchs.port import PortOrch
from orchagent.orchs.vlan import VlanOrch
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration

PREFIX = "ASIC_STATE:SAI_OBJECT_TYPE_"
MAC = "52:54:00:25:06:E9"


def objects(raw, kind):
    asic = raw(1)
    return {key.split(":", 2)[2]: asic.hgetall(key) for key in asic.keys(f"{PREFIX}{kind}:*")}


def fdb_entries(raw):
    """(bvid, mac) -> attributes of every FDB entry."""
    return {(key["bvid"], key["mac"]): attrs
            for key, attrs in ((json.loads(k), a) for k, a in objects(raw, "FDB_ENTRY").items())}


def vlan_oid(raw, vid):
    return next(oid for oid, a in objects(raw, "VLAN").items() if a.get("SAI_VLAN_ATTR_VLAN_ID") == str(vid))


@pytest.fixture
def l2(orchagent, dbs):
    agent = orchagent(PortOrch, VlanOrch, FdbOrch)
    ports = boot_ports(agent, dbs, 2)
    tables = {name: ProducerStateTable(dbs["APPL_DB"], name)
              for name in ("VLAN_TABLE", "VLAN_MEMBER_TABLE", "FDB_TABLE", "PORT_TABLE")}
    return agent, ports, tables


def test_entry_is_held_until_the_port_is_a_vlan_member(l2, raw):
    agent, ports, t = l2
    t["FDB_TABLE"].set("Vlan2:52-54-00-25-06-E9", {"port": "Ethernet0", "type": "dynamic"})
    t["VLAN_TABLE"].set("Vlan2", {"admin_status": "up"})
    agent.drive(lambda: agent.deps.registry.get("Vlan2"))
    agent.settle()
    assert fdb_entries(raw) == {}
    t["VLAN_MEMBER_TABLE"].set("Vlan2:Ethernet0", {"tagging_mode": "untagged"})
    agent.drive(lambda: fdb_entries(raw))
    [bridge_port] = objects(raw, "BRIDGE_PORT")
    key = json.loads(next(iter(objects(raw, "FDB_ENTRY"))))
    assert key == {"bvid": vlan_oid(raw, 2), "mac": MAC, "switch_id": agent.deps.switch.switch_id}
    assert fdb_entries(raw)[(vlan_oid(raw, 2), MAC)] == {
        "SAI_FDB_ENTRY_ATTR_TYPE": "SAI_FDB_ENTRY_TYPE_DYNAMIC", "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID": bridge_port,
        "SAI_FDB_ENTRY_ATTR_PACKET_ACTION": "SAI_PACKET_ACTION_FORWARD"}
    assert raw(6).hgetall("FDB_TABLE|Vlan2:52:54:00:25:06:e9") == {"port": "Ethernet0", "type": "dynamic"}
    t["FDB_TABLE"].delete("Vlan2:52-54-00-25-06-E9")
    agent.drive(lambda: not fdb_entries(raw))
    assert raw(6).hgetall("FDB_TABLE|Vlan2:52:54:00:25:06:e9") == {}


def test_leaving_the_vlan_flushes_dynamic_and_holds_static_entries(l2, raw):
    agent, ports, t = l2
    t["VLAN_TABLE"].set("Vlan2", {"admin_status": "up"})
    t["VLAN_MEMBER_TABLE"].set("Vlan2:Ethernet0", {"tagging_mode": "tagged"})
    t["FDB_TABLE"].set("Vlan2:00:00:00:00:00:01", {"port": "Ethernet0", "type": "dynamic"})
    t["FDB_TABLE"].set("Vlan2:00:00:00:00:00:02", {"port": "Ethernet0", "type": "static"})
    agent.drive(lambda: len(fdb_entries(raw)) == 2)
    t["VLAN_MEMBER_TABLE"].delete("Vlan2:Ethernet0")
    agent.drive(lambda: not objects(raw, "BRIDGE_PORT"))      # the entries no longer pin it
    assert fdb_entries(raw) == {} and raw(6).keys("FDB_TABLE|*") == []
    t["VLAN_MEMBER_TABLE"].set("Vlan2:Ethernet0", {"tagging_mode": "tagged"})
    agent.drive(lambda: fdb_entries(raw))
    [(bvid, mac)] = fdb_entries(raw)
    assert mac == "00:00:00:00:00:02"
    assert raw(6).keys("FDB_TABLE|*") == ["FDB_TABLE|Vlan2:00:00:00:00:00:02"]


def test_a_port_going_down_flushes_its_dynamic_entries(l2, raw):
    agent, ports, t = l2
    t["VLAN_TABLE"].set("Vlan2", {"admin_status": "up"})
    t["VLAN_MEMBER_TABLE"].set("Vlan2:Ethernet4", {"tagging_mode": "tagged"})
    t["FDB_TABLE"].set("Vlan2:00:00:00:00:00:01", {"port": "Ethernet4", "type": "dynamic"})
    t["FDB_TABLE"].set("Vlan2:00:00:00:00:00:02", {"port": "Ethernet4", "type": "static"})
    agent.drive(lambda: len(fdb_entries(raw)) == 2)
    t["PORT_TABLE"].set("Ethernet4", {"admin_status": "down"})
    agent.drive(lambda: len(fdb_entries(raw)) == 1)
    assert [mac for _, mac in fdb_entries(raw)] == ["00:00:00:00:00:02"]


def test_a_moved_entry_is_updated_in_place(l2, raw):
    agent, ports, t = l2
    t["VLAN_TABLE"].set("Vlan2", {"admin_status": "up"})
    for name in ("Ethernet0", "Ethernet4"):
        t["VLAN_MEMBER_TABLE"].set(f"Vlan2:{name}", {"tagging_mode": "tagged"})
    t["FDB_TABLE"].set(f"Vlan2:{MAC}", {"port": "Ethernet0", "type": "dynamic"})
    agent.drive(lambda: fdb_entries(raw))
    t["FDB_TABLE"].set(f"Vlan2:{MAC}", {"port": "Ethernet4", "type": "static"})
    e4 = agent.deps.registry.get("Ethernet4").bridge_port
    agent.drive(lambda: next(iter(fdb_entries(raw).values()))["SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID"] == e4)
    assert next(iter(fdb_entries(raw).values()))["SAI_FDB_ENTRY_ATTR_TYPE"] == "SAI_FDB_ENTRY_TYPE_STATIC"
    assert raw(6).hgetall("FDB_TABLE|Vlan2:52:54:00:25:06:e9") == {"port": "Ethernet4", "type": "static"}


def test_bad_rows_are_refused(l2, raw):
    agent, ports, t = l2
    t["FDB_TABLE"].set("Vlan2:52-54-00-25-06", {"port": "Ethernet0"})
    t["FDB_TABLE"].set("Vlan2:52:54:00:25:06:E9", {"type": "dynamic"})
    t["FDB_TABLE"].set("Vlan2:52:54:00:25:06:EA", {"port": "Ethernet0", "type": "sticky"})
    t["FDB_TABLE"].set("Bridge:52:54:00:25:06:EB", {"port": "Ethernet0"})
    consumer = next(c for c in agent.runner.consumers if c.table == "FDB_TABLE")
    agent.drive(lambda: consumer.stats.rejected == 4)
    assert not consumer.pending


def flush_request(raw, op, data):
    """What sonic-utilities fdbclear publishes: ``[op, data]`` on APPL_DB channel FLUSHFDBREQUEST."""
    raw(0).publish("FLUSHFDBREQUEST", json.dumps([op, data]))


def test_flush_requests_take_the_dynamic_entries_they_name(l2, raw):  # sonic-clear fdb; fdborch flush UTs
    agent, ports, t = l2
    for vid in (2, 3):
        t["VLAN_TABLE"].set(f"Vlan{vid}", {"admin_status": "up"})
        for name in ("Ethernet0", "Ethernet4"):
            t["VLAN_MEMBER_TABLE"].set(f"Vlan{vid}:{name}", {"tagging_mode": "tagged"})
    rows = {f"Vlan{vid}:00:00:00:00:0{vid}:0{p}": {"port": f"Ethernet{4 * p}", "type": "dynamic"}
            for vid in (2, 3) for p in (0, 1)}
    rows["Vlan2:00:00:00:00:02:09"] = {"port": "Ethernet0", "type": "static"}
    for key, fields in rows.items():
        t["FDB_TABLE"].set(key, fields)
    agent.drive(lambda: len(fdb_entries(raw)) == 5)

    def macs():
        return sorted(mac for _, mac in fdb_entries(raw))

    flush_request(raw, "PORTVLAN", "Ethernet0|3")
    agent.drive(lambda: len(fdb_entries(raw)) == 4)
    assert "00:00:00:00:03:00" not in macs() and not raw(6).exists("FDB_TABLE|Vlan3:00:00:00:00:03:00")
    flush_request(raw, "PORT", "Ethernet4")
    agent.drive(lambda: len(fdb_entries(raw)) == 2)
    assert macs() == ["00:00:00:00:02:00", "00:00:00:00:02:09"]
    flush_request(raw, "PORT", "Ethernet99")      # unknown: logged, nothing flushed
    flush_request(raw, "BOGUS", "x")
    agent.settle()
    assert len(fdb_entries(raw)) == 2
    flush_request(raw, "VLAN", "2")
    agent.drive(lambda: len(fdb_entries(raw)) == 1)
    assert macs() == ["00:00:00:00:02:09"]        # static entries are not flushed
    t["FDB_TABLE"].set("Vlan3:00:00:00:00:03:07", {"port": "Ethernet4", "type": "dynamic"})
    agent.drive(lambda: len(fdb_entries(raw)) == 2)
    flush_request(raw, "ALL", "ALL")
    agent.drive(lambda: len(fdb_entries(raw)) == 1)
    assert raw(6).keys("FDB_TABLE|*") == ["FDB_TABLE|Vlan2:00:00:00:00:02:09"]
