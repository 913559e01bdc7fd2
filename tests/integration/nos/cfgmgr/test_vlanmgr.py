"""vlanmgrd against real Redis: VLAN_TABLE / VLAN_MEMBER_TABLE rows, STATE_DB announcements, retries,
refused keys reported in STATE_DB."""

from __future__ import annotations

import pytest

from nos.cfgmgr.vlan import VlanMgr
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector, ConsumerStateTable
from tests.conftest import wait_until

pytestmark = pytest.mark.integration

SYSTEM_MAC = "52:54:00:12:34:56"


class Appl:
    """Pops APPL_DB tables as orchagent would, so the applied rows ``TABLE:key`` can be read exactly."""

    def __init__(self, dbs, raw, *tables):
        self.consumers = [ConsumerStateTable(dbs["APPL_DB"], t) for t in tables]
        self.db = raw(0)

    def row(self, table, key):
        for consumer in self.consumers:
            while consumer.pops():
                pass
        return self.db.hgetall(f"{table}:{key}")


def settle(runner, predicate):
    wait_until(lambda: (runner.step(max_wait=0.02), predicate())[1])


def idle(runner, steps=8):
    for _ in range(steps):
        runner.step(max_wait=0.02)


@pytest.fixture
def env(dbs, raw):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.set_entry("DEVICE_METADATA", "localhost", {"mac": SYSTEM_MAC, "hwsku": "x"})
    runner = Runner("cfgmgrd", strict=True, reporter=StateDbReporter(dbs, "cfgmgrd"), retry_interval=0.05)
    VlanMgr(dbs).register(dbs, runner)
    return cdb, runner, Appl(dbs, raw, "VLAN_TABLE", "VLAN_MEMBER_TABLE"), raw(6)


def test_vlan_and_member_reach_appl_and_state_db(env):  # VLAN-003, VLAN-004
    cdb, runner, appl, state = env
    cdb.set_entry("VLAN", "Vlan2", {"vlanid": "2"})
    settle(runner, lambda: appl.row("VLAN_TABLE", "Vlan2"))
    assert appl.row("VLAN_TABLE", "Vlan2") == {
        "admin_status": "up", "mtu": "9100", "mac": SYSTEM_MAC, "host_ifname": ""}
    assert state.hgetall("VLAN_TABLE|Vlan2") == {"state": "ok"}

    cdb.set_entry("VLAN_MEMBER", "Vlan2|Ethernet0", {"tagging_mode": "tagged"})
    idle(runner)
    assert appl.row("VLAN_MEMBER_TABLE", "Vlan2:Ethernet0") == {}  # the port has no netdev yet
    state.hset("PORT_TABLE|Ethernet0", mapping={"state": "ok", "netdev_oper_status": "up"})
    settle(runner, lambda: appl.row("VLAN_MEMBER_TABLE", "Vlan2:Ethernet0"))
    assert appl.row("VLAN_MEMBER_TABLE", "Vlan2:Ethernet0") == {"tagging_mode": "tagged"}
    assert state.hgetall("VLAN_MEMBER_TABLE|Vlan2|Ethernet0") == {"state": "ok"}

    cdb.mod_entry("VLAN", "Vlan2", {"mtu": "8888", "admin_status": "down"})  # VLAN-009
    settle(runner, lambda: appl.row("VLAN_TABLE", "Vlan2")["mtu"] == "8888")
    assert appl.row("VLAN_TABLE", "Vlan2")["admin_status"] == "down"

    cdb.set_entry("VLAN_MEMBER", "Vlan2|Ethernet0", None)
    settle(runner, lambda: not appl.row("VLAN_MEMBER_TABLE", "Vlan2:Ethernet0"))
    assert not state.exists("VLAN_MEMBER_TABLE|Vlan2|Ethernet0")
    cdb.set_entry("VLAN", "Vlan2", None)
    settle(runner, lambda: not appl.row("VLAN_TABLE", "Vlan2"))
    assert not state.exists("VLAN_TABLE|Vlan2")


def test_member_waits_for_its_vlan_and_default_mode_is_untagged(env):  # VLAN-006
    cdb, runner, appl, state = env
    state.hset("PORT_TABLE|Ethernet4", "state", "ok")
    cdb.set_entry("VLAN_MEMBER", "Vlan3|Ethernet4", {"no_tag_mode": ""})
    idle(runner)
    assert appl.row("VLAN_MEMBER_TABLE", "Vlan3:Ethernet4") == {}
    cdb.set_entry("VLAN", "Vlan3", {"vlanid": "3"})
    settle(runner, lambda: appl.row("VLAN_MEMBER_TABLE", "Vlan3:Ethernet4"))
    assert appl.row("VLAN_MEMBER_TABLE", "Vlan3:Ethernet4") == {"tagging_mode": "untagged"}


def test_portchannel_member_waits_for_state_db_lag_table(env):
    cdb, runner, appl, state = env
    cdb.set_entry("VLAN", "Vlan10", {"vlanid": "10"})
    cdb.set_entry("VLAN_MEMBER", "Vlan10|PortChannel0001", {"tagging_mode": "untagged"})
    idle(runner)
    assert appl.row("VLAN_MEMBER_TABLE", "Vlan10:PortChannel0001") == {}
    state.hset("LAG_TABLE|PortChannel0001", mapping={"state": "ok", "oper_status": "up"})
    settle(runner, lambda: appl.row("VLAN_MEMBER_TABLE", "Vlan10:PortChannel0001"))


def test_bad_keys_are_refused_and_reported(env):  # VLAN-007
    cdb, runner, appl, state = env
    bad = {"Vla2": "2", "VLAN3": "3", "vlan4": "4", "Vlanabc": "abc", "Vlana3": "a3", "Vlan": ""}
    for key, vid in bad.items():
        cdb.set_entry("VLAN", key, {"vlanid": vid})
    cdb.set_entry("VLAN", "Vlan5", {"vlanid": "5"})
    settle(runner, lambda: appl.row("VLAN_TABLE", "Vlan5"))
    idle(runner)
    for key in bad:
        assert appl.row("VLAN_TABLE", key) == {}
        assert not state.exists(f"VLAN_TABLE|{key}")
        row = state.hgetall(f"NOS_REJECTED_TABLE|CONFIG_DB:VLAN:{key}")
        assert row["status"] == "INVALID" and "Vlan<id>" in row["reason"]

    cdb.set_entry("VLAN", "Vla2", None)  # deleting the bad row clears its report
    settle(runner, lambda: not state.exists("NOS_REJECTED_TABLE|CONFIG_DB:VLAN:Vla2"))


def test_bad_tagging_mode_is_refused(env):
    cdb, runner, appl, state = env
    cdb.set_entry("VLAN", "Vlan2", {"vlanid": "2"})
    state.hset("PORT_TABLE|Ethernet0", "state", "ok")
    cdb.set_entry("VLAN_MEMBER", "Vlan2|Ethernet0", {"tagging_mode": "trunk"})
    settle(runner, lambda: state.exists("NOS_REJECTED_TABLE|CONFIG_DB:VLAN_MEMBER:Vlan2|Ethernet0"))
    assert appl.row("VLAN_MEMBER_TABLE", "Vlan2:Ethernet0") == {}


def test_vlan_waits_for_the_system_mac(dbs, raw):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    runner = Runner("cfgmgrd", strict=True, retry_interval=0.05)
    VlanMgr(dbs).register(dbs, runner)
    appl = Appl(dbs, raw, "VLAN_TABLE")
    cdb.set_entry("VLAN", "Vlan7", {"vlanid": "7"})
    idle(runner)
    assert appl.row("VLAN_TABLE", "Vlan7") == {}
    cdb.set_entry("DEVICE_METADATA", "localhost", {"mac": "52:54:00:AA:BB:CC"})
    settle(runner, lambda: appl.row("VLAN_TABLE", "Vlan7"))
    assert appl.row("VLAN_TABLE", "Vlan7")["mac"] == "52:54:00:aa:bb:cc"
