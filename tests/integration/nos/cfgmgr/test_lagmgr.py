"""teammgrd + simulated teamd/teamsyncd against real Redis: LAG and member rows, LACP following
netdev_oper_status, oper_status following min_links, member mtu pushed and restored, one LAG per port."""

from __future__ import annotations

import pytest

from nos.cfgmgr.lag import LagMgr
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector, ConsumerStateTable
from tests.conftest import wait_until

pytestmark = pytest.mark.integration

LAG = "PortChannel0001"


class Appl:
    """Pops APPL_DB tables as orchagent would: rows ``TABLE:key`` read exactly, ops kept in ``log``."""

    def __init__(self, dbs, raw, *tables):
        self.consumers = {t: ConsumerStateTable(dbs["APPL_DB"], t) for t in tables}
        self.db = raw(0)
        self.log = {t: [] for t in tables}

    def drain(self):
        for table, consumer in self.consumers.items():
            while batch := consumer.pops():
                self.log[table] += batch

    def row(self, table, key):
        self.drain()
        return self.db.hgetall(f"{table}:{key}")


def settle(runner, predicate):
    wait_until(lambda: (runner.step(max_wait=0.02), predicate())[1])


def idle(runner, steps=8):
    for _ in range(steps):
        runner.step(max_wait=0.02)


@pytest.fixture
def env(dbs, raw):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    runner = Runner("cfgmgrd", strict=True, reporter=StateDbReporter(dbs, "cfgmgrd"), retry_interval=0.05)
    mgr = LagMgr(dbs)
    mgr.boot()
    mgr.register(dbs, runner)
    return cdb, runner, Appl(dbs, raw, "LAG_TABLE", "LAG_MEMBER_TABLE", "PORT_TABLE"), raw(6)


def port_up(state, port, up=True):
    state.hset(f"PORT_TABLE|{port}", mapping={"state": "ok", "netdev_oper_status": "up" if up else "down"})


def test_lacp_members_and_oper_status_follow_the_links(env):
    cdb, runner, appl, state = env
    cdb.set_entry("PORTCHANNEL", LAG, {"admin_status": "up", "mtu": "9100", "min_links": "2"})
    settle(runner, lambda: appl.row("LAG_TABLE", LAG))
    assert appl.row("LAG_TABLE", LAG) == {"admin_status": "up", "oper_status": "down", "mtu": "9100"}
    assert state.hgetall(f"LAG_TABLE|{LAG}") == {
        "admin_status": "up", "oper_status": "down", "mtu": "9100", "state": "ok",
        "runner.active": "true", "runner.fast_rate": "false", "runner.fallback": "false"}

    port_up(state, "Ethernet0", up=True)
    port_up(state, "Ethernet4", up=False)
    for port in ("Ethernet0", "Ethernet4"):
        cdb.set_entry("PORTCHANNEL_MEMBER", f"{LAG}|{port}", {})
    settle(runner, lambda: appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet4"))
    assert appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet0") == {"status": "enabled"}
    assert appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet4") == {"status": "disabled"}
    assert appl.row("LAG_TABLE", LAG)["oper_status"] == "down"  # 1 of min_links 2
    # teamd's view, as tlm_teamd leaves it in STATE_DB for teamshow
    assert state.hgetall(f"LAG_MEMBER_TABLE|{LAG}|Ethernet0") == {
        "runner.aggregator.selected": "true", "runner.actor_lacpdu_info.key": "0"}
    assert state.hgetall(f"LAG_MEMBER_TABLE|{LAG}|Ethernet4") == {
        "runner.aggregator.selected": "false", "runner.actor_lacpdu_info.key": "0"}

    port_up(state, "Ethernet4", up=True)
    settle(runner, lambda: appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet4") == {"status": "enabled"})
    assert state.hget(f"LAG_MEMBER_TABLE|{LAG}|Ethernet4", "runner.aggregator.selected") == "true"
    settle(runner, lambda: appl.row("LAG_TABLE", LAG)["oper_status"] == "up")
    assert state.hget(f"LAG_TABLE|{LAG}", "oper_status") == "up"

    port_up(state, "Ethernet0", up=False)
    settle(runner, lambda: appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet0") == {"status": "disabled"})
    settle(runner, lambda: appl.row("LAG_TABLE", LAG)["oper_status"] == "down")

    cdb.mod_entry("PORTCHANNEL", LAG, {"admin_status": "down"})  # admin down disables every member
    settle(runner, lambda: appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet4") == {"status": "disabled"})
    assert appl.row("LAG_TABLE", LAG)["admin_status"] == "down"


def test_member_waits_for_lag_and_port_and_leaves_with_its_netdev(env):
    cdb, runner, appl, state = env
    cdb.set_entry("PORTCHANNEL_MEMBER", f"{LAG}|Ethernet8", {})
    idle(runner)
    cdb.set_entry("PORTCHANNEL", LAG, {"admin_status": "up"})
    idle(runner)
    assert appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet8") == {}  # port not ready
    port_up(state, "Ethernet8")
    settle(runner, lambda: appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet8") == {"status": "enabled"})
    settle(runner, lambda: appl.row("LAG_TABLE", LAG)["oper_status"] == "up")  # default min_links 1

    state.delete("PORT_TABLE|Ethernet8")  # the port's netdev goes (e.g. breakout): teamd drops it
    settle(runner, lambda: not appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet8"))
    settle(runner, lambda: appl.row("LAG_TABLE", LAG)["oper_status"] == "down")
    assert not state.exists(f"LAG_MEMBER_TABLE|{LAG}|Ethernet8")
    port_up(state, "Ethernet8")  # and it rejoins when the netdev is back
    settle(runner, lambda: appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet8") == {"status": "enabled"})


def test_lag_mtu_goes_to_members_and_their_own_comes_back(env):  # LAG-007
    cdb, runner, appl, state = env
    cdb.set_entry("PORT", "Ethernet0", {"admin_status": "up", "mtu": "1500", "speed": "400000"})
    port_up(state, "Ethernet0")
    cdb.set_entry("PORTCHANNEL", "PortChannel002", {"admin_status": "up", "mtu": "9100", "tpid": "0x9200"})
    cdb.set_entry("PORTCHANNEL_MEMBER", "PortChannel002|Ethernet0", {})
    settle(runner, lambda: appl.row("PORT_TABLE", "Ethernet0") == {"mtu": "9100"})
    assert appl.row("LAG_TABLE", "PortChannel002")["tpid"] == "0x9200"  # LAG-003

    cdb.mod_entry("PORTCHANNEL", "PortChannel002", {"mtu": "8888"})
    settle(runner, lambda: appl.row("PORT_TABLE", "Ethernet0") == {"mtu": "8888"})
    assert appl.row("LAG_TABLE", "PortChannel002")["mtu"] == "8888"
    assert all(set(op.fields) == {"mtu"} for op in appl.log["PORT_TABLE"])  # nothing but mtu pushed

    cdb.set_entry("PORTCHANNEL_MEMBER", "PortChannel002|Ethernet0", None)
    settle(runner, lambda: appl.row("PORT_TABLE", "Ethernet0") == {"admin_status": "up", "mtu": "1500"})
    assert appl.row("LAG_MEMBER_TABLE", "PortChannel002:Ethernet0") == {}
    assert not state.exists("LAG_MEMBER_TABLE|PortChannel002|Ethernet0")


def test_a_port_in_two_lags_is_refused(env):
    cdb, runner, appl, state = env
    port_up(state, "Ethernet0")
    cdb.set_entry("PORTCHANNEL", "PortChannel1", {"admin_status": "up"})
    cdb.set_entry("PORTCHANNEL", "PortChannel2", {"admin_status": "up"})
    cdb.set_entry("PORTCHANNEL_MEMBER", "PortChannel1|Ethernet0", {})
    settle(runner, lambda: appl.row("LAG_MEMBER_TABLE", "PortChannel1:Ethernet0"))
    cdb.set_entry("PORTCHANNEL_MEMBER", "PortChannel2|Ethernet0", {})
    key = "NOS_REJECTED_TABLE|CONFIG_DB:PORTCHANNEL_MEMBER:PortChannel2|Ethernet0"
    settle(runner, lambda: state.exists(key))
    reason = state.hget(key, "reason")
    assert "PortChannel1" in reason and "PortChannel2" in reason and state.hget(key, "status") == "INVALID"
    assert appl.row("LAG_MEMBER_TABLE", "PortChannel2:Ethernet0") == {}


def test_deleting_the_lag_removes_members_and_state(env):
    cdb, runner, appl, state = env
    port_up(state, "Ethernet0")
    cdb.set_entry("PORTCHANNEL", LAG, {"admin_status": "up"})
    cdb.set_entry("PORTCHANNEL_MEMBER", f"{LAG}|Ethernet0", {})
    settle(runner, lambda: appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet0"))
    cdb.set_entry("PORTCHANNEL", LAG, None)
    settle(runner, lambda: not appl.row("LAG_TABLE", LAG))
    assert appl.row("LAG_MEMBER_TABLE", f"{LAG}:Ethernet0") == {}
    assert not state.exists(f"LAG_TABLE|{LAG}") and not state.exists(f"LAG_MEMBER_TABLE|{LAG}|Ethernet0")


def test_lacp_keys_fast_rate_and_an_empty_lacp_key_are_teammgrds(env):  # test_Portchannel_lacpkey / _fast_rate
    cdb, runner, appl, state = env
    rows = {"PortChannel001": ("Ethernet0", {"lacp_key": "auto"}, "1001"),
            "PortChannel0004": ("Ethernet4", {"lacp_key": ""}, "0"),
            "PortChannel0005": ("Ethernet8", {"lacp_key": "564", "fast_rate": "true"}, "564")}
    for lag, (port, fields, _) in rows.items():
        port_up(state, port)
        cdb.set_entry("PORTCHANNEL", lag, {"admin_status": "up", "mtu": "9100", **fields})
        cdb.set_entry("PORTCHANNEL_MEMBER", f"{lag}|{port}", {})
    settle(runner, lambda: all(state.exists(f"LAG_MEMBER_TABLE|{lag}|{port}") for lag, (port, _, _) in rows.items()))
    for lag, (port, _, key) in rows.items():
        assert appl.row("LAG_TABLE", lag)["oper_status"] == "up"
        assert state.hget(f"LAG_MEMBER_TABLE|{lag}|{port}", "runner.actor_lacpdu_info.key") == key
    assert state.hget("LAG_TABLE|PortChannel0005", "runner.fast_rate") == "true"
    assert state.hget("LAG_TABLE|PortChannel001", "runner.fast_rate") == "false"


def test_system_mac_reaches_appl_and_state_db(env):
    cdb, runner, appl, state = env
    cdb.set_entry("DEVICE_METADATA", "localhost", {"mac": "52:54:00:12:34:56"})
    cdb.set_entry("PORTCHANNEL", "PortChannel7", {"admin_status": "up", "system_mac": "00:11:22:33:44:55"})
    cdb.set_entry("PORTCHANNEL", "PortChannel8", {"admin_status": "up", "system_mac": "None"})
    settle(runner, lambda: appl.row("LAG_TABLE", "PortChannel8"))
    assert appl.row("LAG_TABLE", "PortChannel7")["system_mac"] == "00:11:22:33:44:55"
    assert appl.row("LAG_TABLE", "PortChannel8")["system_mac"] == "52:54:00:12:34:56"
    assert state.hget("LAG_TABLE|PortChannel8", "system_mac") == "52:54:00:12:34:56"


def test_bad_portchannel_is_reported(env):
    cdb, runner, appl, state = env
    cdb.set_entry("PORTCHANNEL", "PortChannel5", {"admin_status": "up", "mtu": "huge"})
    settle(runner, lambda: state.exists("NOS_REJECTED_TABLE|CONFIG_DB:PORTCHANNEL:PortChannel5"))
    assert "mtu" in state.hget("NOS_REJECTED_TABLE|CONFIG_DB:PORTCHANNEL:PortChannel5", "reason")
    assert appl.row("LAG_TABLE", "PortChannel5") == {}


def test_boot_forgets_stale_lag_state(dbs, raw):
    raw(6).hset("LAG_TABLE|PortChannel9", "state", "ok")
    raw(6).hset("LAG_MEMBER_TABLE|PortChannel9|Ethernet0", "runner.aggregator.selected", "true")
    LagMgr(dbs).boot()
    assert not raw(6).exists("LAG_TABLE|PortChannel9")
    assert not raw(6).exists("LAG_MEMBER_TABLE|PortChannel9|Ethernet0")
