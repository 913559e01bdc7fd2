"""Static neighbours against real Redis: NEIGH_TABLE / NEIGH_RESOLVE_TABLE rows once the interface
exists in STATE_DB, flushed and restored with the interface, deleted with the config row."""

from __future__ import annotations

import pytest

from nos.cfgmgr.nbr import NbrMgr
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector, ConsumerStateTable
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def settle(runner, predicate):
    wait_until(lambda: (runner.step(max_wait=0.02), predicate())[1])


def idle(runner, steps=8):
    for _ in range(steps):
        runner.step(max_wait=0.02)


@pytest.fixture
def env(dbs, raw):
    runner = Runner("cfgmgrd", strict=True, reporter=StateDbReporter(dbs, "cfgmgrd"), retry_interval=0.05)
    NbrMgr(dbs).register(dbs, runner)
    consumers = [ConsumerStateTable(dbs["APPL_DB"], t) for t in ("NEIGH_TABLE", "NEIGH_RESOLVE_TABLE")]
    appl = raw(0)

    def row(table, key):
        for consumer in consumers:
            while consumer.pops():
                pass
        return appl.hgetall(f"{table}:{key}")

    return ConfigDBConnector(dbs["CONFIG_DB"]), runner, row, raw(6)


def test_static_neighbour_follows_its_interface(env):  # ROUTE-006
    cdb, runner, row, state = env
    cdb.set_entry("NEIGH", "Ethernet8|10.0.0.2", {"neigh": "00:01:02:03:04:05"})
    idle(runner)
    assert row("NEIGH_TABLE", "Ethernet8:10.0.0.2") == {}  # no STATE_DB INTERFACE_TABLE|Ethernet8 yet

    state.hset("INTERFACE_TABLE|Ethernet8", mapping={"vrf": "", "state": "ok"})
    settle(runner, lambda: row("NEIGH_TABLE", "Ethernet8:10.0.0.2"))
    assert row("NEIGH_TABLE", "Ethernet8:10.0.0.2") == {"neigh": "00:01:02:03:04:05", "family": "IPv4"}

    state.delete("INTERFACE_TABLE|Ethernet8")  # the kernel flushes the interface's neighbours
    settle(runner, lambda: not row("NEIGH_TABLE", "Ethernet8:10.0.0.2"))
    state.hset("INTERFACE_TABLE|Ethernet8", mapping={"vrf": "", "state": "ok"})
    idle(runner)  # nbrmgrd programs a row once: the interface coming back does not bring it back
    assert row("NEIGH_TABLE", "Ethernet8:10.0.0.2") == {}
    cdb.set_entry("NEIGH", "Ethernet8|10.0.0.2", {"neigh": "00:01:02:03:04:05"})  # written again
    settle(runner, lambda: row("NEIGH_TABLE", "Ethernet8:10.0.0.2"))

    cdb.set_entry("NEIGH", "Ethernet8|10.0.0.2", None)
    settle(runner, lambda: not row("NEIGH_TABLE", "Ethernet8:10.0.0.2"))


def test_resolve_request_and_switch_to_static(env):
    cdb, runner, row, state = env
    state.hset("INTERFACE_TABLE|Vlan100", "vrf", "")
    cdb.set_entry("NEIGH", "Vlan100|fc00::5", {"family": "IPv6"})
    settle(runner, lambda: row("NEIGH_RESOLVE_TABLE", "Vlan100:fc00::5"))
    assert row("NEIGH_RESOLVE_TABLE", "Vlan100:fc00::5") == {"mac": "00:00:00:00:00:00"}

    cdb.set_entry("NEIGH", "Vlan100|fc00::5", {"neigh": "00:AA:BB:CC:DD:EE", "family": "IPv6"})
    settle(runner, lambda: row("NEIGH_TABLE", "Vlan100:fc00::5"))
    assert row("NEIGH_TABLE", "Vlan100:fc00::5") == {"neigh": "00:aa:bb:cc:dd:ee", "family": "IPv6"}
    assert row("NEIGH_RESOLVE_TABLE", "Vlan100:fc00::5") == {}


def test_bad_neighbour_is_reported(env):
    cdb, runner, row, state = env
    state.hset("INTERFACE_TABLE|Ethernet0", "vrf", "")
    cdb.set_entry("NEIGH", "Ethernet0|10.0.0.9", {"neigh": "not-a-mac"})
    key = "NOS_REJECTED_TABLE|CONFIG_DB:NEIGH:Ethernet0|10.0.0.9"
    settle(runner, lambda: state.exists(key))
    assert "neigh" in state.hget(key, "reason")
    assert row("NEIGH_TABLE", "Ethernet0:10.0.0.9") == {}


def test_resolve_requests_of_neighorch_are_consumed_and_stand_until_withdrawn(dbs, raw):  # ROUTE-011, NOS-L3-015
    # nbrmgrd consumes NEIGH_RESOLVE_TABLE: the popped request is the hash SONiC's tests wait for
    from nos.db import ProducerStateTable
    runner = Runner("cfgmgrd", strict=True, reporter=StateDbReporter(dbs, "cfgmgrd"), retry_interval=0.05)
    NbrMgr(dbs).register(dbs, runner)
    orch_side = ProducerStateTable(dbs["APPL_DB"], "NEIGH_RESOLVE_TABLE")
    appl = raw(0)
    orch_side.set("Ethernet0:10.0.0.1", {"mac": "00:00:00:00:00:00"})
    settle(runner, lambda: appl.exists("NEIGH_RESOLVE_TABLE:Ethernet0:10.0.0.1"))
    assert appl.hgetall("NEIGH_RESOLVE_TABLE:Ethernet0:10.0.0.1") == {"mac": "00:00:00:00:00:00"}
    assert appl.scard("NEIGH_RESOLVE_TABLE_KEY_SET") == 0
    orch_side.delete("Ethernet0:10.0.0.1")
    settle(runner, lambda: not appl.exists("NEIGH_RESOLVE_TABLE:Ethernet0:10.0.0.1"))
