"""The port manager against real Redis: boot copy, PortConfigDone/PortInitDone, portmgrd's rules.

An APPL_DB ConsumerStateTable stands in for orchagent: it pops what the manager produced into the real
``PORT_TABLE:<port>`` rows, which is what the conformance cases read.
"""

from __future__ import annotations

import pytest

from nos.cfgmgr.port import PortMgr
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector, ConsumerStateTable, ProducerStateTable
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def start(dbs, ports):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    if ports:
        cdb.mod_config({"PORT": ports})
    orch = ConsumerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    runner = Runner("cfgmgrd", strict=True, retry_interval=0.05)
    mgr = PortMgr(dbs)
    mgr.boot()
    mgr.register(dbs, runner)
    return runner, orch, cdb


def step(runner, orch):
    runner.step(max_wait=0.02)
    while orch.pops():
        pass


def settle(runner, orch, until, timeout=5.0):
    def check():
        step(runner, orch)
        return until()
    wait_until(check, timeout)


def quiet(runner, orch, steps=10):
    for _ in range(steps):
        step(runner, orch)


def ready(raw, *ports):
    for port in ports:
        raw(6).hset(f"PORT_TABLE|{port}", mapping={"state": "ok", "netdev_oper_status": "down"})


PORTS = {f"Ethernet{4 * i}": {"lanes": f"{4 * i}", "speed": "400000"} for i in range(4)}


def test_boot_copies_ports_and_announces_port_config_done(dbs, raw):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.mod_config({"PORT": PORTS})
    mgr = PortMgr(dbs)
    assert mgr.boot() == 4
    appl = raw(0)
    assert appl.smembers("PORT_TABLE_KEY_SET") >= {"PortConfigDone", "Ethernet0"}
    assert appl.hgetall("_PORT_TABLE:PortConfigDone") == {"count": "4"}
    assert appl.hgetall("_PORT_TABLE:Ethernet4") == {
        "lanes": "4", "speed": "400000", "admin_status": "down", "mtu": "9100"}
    assert not appl.exists("_PORT_TABLE:PortInitDone")


def test_port_init_done_once_every_port_has_its_netdev(dbs, raw):
    runner, orch, _ = start(dbs, PORTS)
    appl = raw(0)
    ready(raw, "Ethernet0", "Ethernet4", "Ethernet8")
    quiet(runner, orch)
    assert not appl.exists("PORT_TABLE:PortInitDone")
    ready(raw, "Ethernet12")
    settle(runner, orch, lambda: appl.hgetall("PORT_TABLE:PortInitDone") == {"lanes": "0"})
    # once per boot: a netdev bouncing later does not write it again
    appl.delete("PORT_TABLE:PortInitDone")
    raw(6).delete("PORT_TABLE|Ethernet0")
    quiet(runner, orch)
    ready(raw, "Ethernet0")
    quiet(runner, orch)
    assert not appl.exists("PORT_TABLE:PortInitDone")


def test_port_init_done_is_not_written_again_after_a_restart(dbs, raw):
    raw(0).hset("PORT_TABLE:PortInitDone", "lanes", "0")
    runner, orch, _ = start(dbs, PORTS)
    raw(0).delete("PORT_TABLE:PortInitDone")
    ready(raw, *PORTS)
    quiet(runner, orch)
    assert not raw(0).exists("PORT_TABLE:PortInitDone")


def test_no_ports_at_boot_means_port_init_done_at_once(dbs, raw):
    runner, orch, _ = start(dbs, {})
    settle(runner, orch, lambda: raw(0).hgetall("PORT_TABLE:PortInitDone") == {"lanes": "0"})


def test_a_port_deleted_before_its_netdev_does_not_block_port_init_done(dbs, raw):
    runner, orch, cdb = start(dbs, PORTS)
    ready(raw, "Ethernet0", "Ethernet4", "Ethernet8")
    cdb.set_entry("PORT", "Ethernet12", None)
    settle(runner, orch, lambda: raw(0).exists("PORT_TABLE:PortInitDone"))
    assert not raw(0).exists("PORT_TABLE:Ethernet12")


def test_changes_wait_for_the_netdev_then_every_field_flows(dbs, raw):  # PORT-003, PORT-013
    runner, orch, cdb = start(dbs, {"Ethernet8": {"lanes": "8", "speed": "400000"}})
    appl = raw(0)
    settle(runner, orch, lambda: appl.hget("PORT_TABLE:Ethernet8", "mtu") == "9100")
    cdb.mod_entry("PORT", "Ethernet8", {"tpid": "0x9200"})
    quiet(runner, orch)
    assert appl.hget("PORT_TABLE:Ethernet8", "tpid") is None  # deferred: no netdev yet
    ready(raw, "Ethernet8")
    settle(runner, orch, lambda: appl.hget("PORT_TABLE:Ethernet8", "tpid") == "0x9200")
    damping = {"link_event_damping_algorithm": "aied", "max_suppress_time": "54000", "decay_half_life": "45000",
               "suppress_threshold": "1650", "reuse_threshold": "1500", "flap_penalty": "1000"}
    cdb.mod_entry("PORT", "Ethernet8", damping)
    settle(runner, orch, lambda: appl.hgetall("PORT_TABLE:Ethernet8").items() >= damping.items())
    cdb.mod_entry("PORT", "Ethernet8", {"link_event_damping_algorithm": "disabled"})
    settle(runner, orch, lambda: appl.hget("PORT_TABLE:Ethernet8", "link_event_damping_algorithm") == "disabled")
    assert appl.hgetall("PORT_TABLE:Ethernet8") == {
        "lanes": "8", "speed": "400000", "admin_status": "down", "mtu": "9100", "tpid": "0x9200",
        **damping, "link_event_damping_algorithm": "disabled"}


def test_a_lag_members_mtu_is_left_to_the_lag(dbs, raw):  # LAG-007
    runner, orch, cdb = start(dbs, {"Ethernet0": {"lanes": "0", "speed": "400000"}})
    appl = raw(0)
    ready(raw, "Ethernet0")
    cdb.mod_entry("PORTCHANNEL_MEMBER", "PortChannel002|Ethernet0", {})
    quiet(runner, orch)
    appl.hset("PORT_TABLE:Ethernet0", "mtu", "8888")  # what teammgrd pushed
    cdb.mod_entry("PORT", "Ethernet0", {"mtu": "9100", "admin_status": "up"})
    settle(runner, orch, lambda: appl.hget("PORT_TABLE:Ethernet0", "admin_status") == "up")
    quiet(runner, orch)
    assert appl.hget("PORT_TABLE:Ethernet0", "mtu") == "8888"
    # out of the LAG, the port's own mtu goes through again
    cdb.set_entry("PORTCHANNEL_MEMBER", "PortChannel002|Ethernet0", None)
    cdb.mod_entry("PORT", "Ethernet0", {"mtu": "9000"})
    settle(runner, orch, lambda: appl.hget("PORT_TABLE:Ethernet0", "mtu") == "9000")


def test_a_deleted_and_re_added_port_is_first_seen_again(dbs, raw):  # PORT-016
    runner, orch, cdb = start(dbs, {"Ethernet124": {"lanes": "124", "speed": "400000", "admin_status": "up"}})
    appl = raw(0)
    ready(raw, "Ethernet124")
    settle(runner, orch, lambda: appl.hget("PORT_TABLE:Ethernet124", "admin_status") == "up")
    cdb.set_entry("PORT", "Ethernet124", None)
    settle(runner, orch, lambda: not appl.exists("PORT_TABLE:Ethernet124"))
    raw(6).delete("PORT_TABLE|Ethernet124")  # the ASIC removed the port
    cdb.set_entry("PORT", "Ethernet124", {"lanes": "124", "speed": "400000", "pt_interface_id": "129",
                                          "pt_timestamp_template": "template2"})
    settle(runner, orch, lambda: appl.exists("PORT_TABLE:Ethernet124"))
    assert appl.hgetall("PORT_TABLE:Ethernet124") == {
        "lanes": "124", "speed": "400000", "pt_interface_id": "129", "pt_timestamp_template": "template2",
        "admin_status": "down", "mtu": "9100"}
    ready(raw, "Ethernet124")
    cdb.mod_entry("PORT", "Ethernet124", {"pt_interface_id": "130", "pt_timestamp_template": "template3"})
    settle(runner, orch, lambda: appl.hget("PORT_TABLE:Ethernet124", "pt_timestamp_template") == "template3")
    assert appl.hget("PORT_TABLE:Ethernet124", "pt_interface_id") == "130"


def test_a_change_to_many_ports_is_one_appl_db_write(dbs, raw, monkeypatch):
    runner, orch, cdb = start(dbs, PORTS)
    ready(raw, *PORTS)
    settle(runner, orch, lambda: raw(0).exists("PORT_TABLE:PortInitDone"))
    mgr_writes = []
    original = ProducerStateTable.set_many
    monkeypatch.setattr(ProducerStateTable, "set_many",
                        lambda self, entries: (mgr_writes.append([k for k, _ in entries]), original(self, entries)))
    cdb.mod_config({"PORT": {name: {"mtu": "4000"} for name in PORTS}})
    settle(runner, orch, lambda: all(raw(0).hget(f"PORT_TABLE:{p}", "mtu") == "4000" for p in PORTS))
    assert sorted(key for keys in mgr_writes for key in keys) == sorted(PORTS)
    assert len(mgr_writes) <= 2  # one per batch the subscription popped (usually one)
