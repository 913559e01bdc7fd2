"""Static routes against real Redis: ROUTE_TABLE rows as fpmsyncd writes them, waiting for VRFs and
reachable nexthops, withdrawn and restored with the connected interface."""

from __future__ import annotations

import pytest

from nos.cfgmgr.static_route import StaticRouteMgr
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
    StaticRouteMgr(dbs).register(dbs, runner)
    consumer = ConsumerStateTable(dbs["APPL_DB"], "ROUTE_TABLE")
    appl = raw(0)

    def row(key):
        while consumer.pops():
            pass
        return appl.hgetall(f"ROUTE_TABLE:{key}")

    return ConfigDBConnector(dbs["CONFIG_DB"]), runner, row, raw(6)


def add_address(state, interface, prefix, vrf=""):
    state.hset(f"INTERFACE_TABLE|{interface}", mapping={"vrf": vrf, "state": "ok"})
    state.hset(f"INTERFACE_TABLE|{interface}|{prefix}", "state", "ok")


def test_route_waits_for_a_reachable_nexthop_and_follows_the_interface(env):
    cdb, runner, row, state = env
    cdb.set_entry("STATIC_ROUTE", "1.1.1.0/24", {"nexthop": "10.0.0.1"})
    idle(runner)
    assert row("1.1.1.0/24") == {}

    add_address(state, "Ethernet0", "10.0.0.0/31")
    settle(runner, lambda: row("1.1.1.0/24"))
    assert row("1.1.1.0/24") == {"nexthop": "10.0.0.1", "ifname": "Ethernet0", "protocol": "static"}

    state.delete("INTERFACE_TABLE|Ethernet0|10.0.0.0/31")  # address gone: zebra withdraws the route
    settle(runner, lambda: not row("1.1.1.0/24"))
    state.hset("INTERFACE_TABLE|Ethernet0|10.0.0.0/31", "state", "ok")
    settle(runner, lambda: row("1.1.1.0/24"))

    cdb.set_entry("STATIC_ROUTE", "1.1.1.0/24", None)
    settle(runner, lambda: not row("1.1.1.0/24"))


def test_vrf_route_waits_for_the_vrf(env):
    cdb, runner, row, state = env
    cdb.set_entry("STATIC_ROUTE", "VrfRed|10.9.0.1/32", {"nexthop": "10.0.0.1,10.0.0.3",
                                                        "ifname": "Ethernet0,Ethernet4"})
    idle(runner)
    assert row("VrfRed:10.9.0.1") == {}
    state.hset("VRF_TABLE|VrfRed", "state", "ok")
    settle(runner, lambda: row("VrfRed:10.9.0.1"))
    assert row("VrfRed:10.9.0.1") == {
        "nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0,Ethernet4", "protocol": "static"}
    state.delete("VRF_TABLE|VrfRed")
    settle(runner, lambda: not row("VrfRed:10.9.0.1"))


def test_blackhole_and_management_routes(env):  # ROUTE-012
    cdb, runner, row, state = env
    cdb.set_entry("STATIC_ROUTE", "3000::/64", {"blackhole": "true"})
    cdb.set_entry("STATIC_ROUTE", "0.0.0.0/0", {"nexthop": "192.168.0.1", "ifname": "eth0"})
    settle(runner, lambda: row("3000::/64"))
    assert row("3000::/64") == {"protocol": "static", "blackhole": "true"}
    idle(runner)
    assert row("0.0.0.0/0") == {}  # RouteOrch would only remove a route via eth0


def test_bad_route_is_reported(env):
    cdb, runner, row, state = env
    cdb.set_entry("STATIC_ROUTE", "1.1.1.0/24", {"nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0"})
    key = "NOS_REJECTED_TABLE|CONFIG_DB:STATIC_ROUTE:1.1.1.0/24"
    settle(runner, lambda: state.exists(key))
    assert "different lengths" in state.hget(key, "reason")
    assert row("1.1.1.0/24") == {}
