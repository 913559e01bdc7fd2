"""vrfmgrd against real Redis: VRF_TABLE rows, STATE_DB VRF_TABLE, VNI clashes and bad names refused."""

from __future__ import annotations

import pytest

from nos.cfgmgr.vrf import VrfMgr
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector, ConsumerStateTable
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def settle(runner, predicate):
    wait_until(lambda: (runner.step(max_wait=0.02), predicate())[1])


@pytest.fixture
def env(dbs, raw):
    runner = Runner("cfgmgrd", strict=True, reporter=StateDbReporter(dbs, "cfgmgrd"), retry_interval=0.05)
    VrfMgr(dbs).register(dbs, runner)
    consumer = ConsumerStateTable(dbs["APPL_DB"], "VRF_TABLE")
    appl = raw(0)

    def row(key):
        while consumer.pops():
            pass
        return appl.hgetall(f"VRF_TABLE:{key}")

    return ConfigDBConnector(dbs["CONFIG_DB"]), runner, row, raw(6)


def test_vrf_is_announced_and_forwarded(env):  # ROUTE-004
    cdb, runner, row, state = env
    cdb.set_entry("VRF", "Vrf_0", {})  # stored as NULL=NULL
    settle(runner, lambda: row("Vrf_0"))
    assert row("Vrf_0") == {"NULL": "NULL"}
    assert state.hgetall("VRF_TABLE|Vrf_0") == {"state": "ok"}

    cdb.set_entry("VRF", "VrfRed", {"vni": "1000", "fallback": "false", "rd": "65000:1"})
    settle(runner, lambda: row("VrfRed"))
    assert row("VrfRed") == {"vni": "1000", "fallback": "false"}

    cdb.set_entry("VRF", "Vrf_0", None)
    settle(runner, lambda: not row("Vrf_0"))
    assert not state.exists("VRF_TABLE|Vrf_0")


def test_vni_already_mapped_and_bad_names_are_refused(env):
    cdb, runner, row, state = env
    cdb.set_entry("VRF", "VrfRed", {"vni": "1000"})
    settle(runner, lambda: row("VrfRed"))
    cdb.set_entry("VRF", "VrfBlue", {"vni": "1000"})
    cdb.set_entry("VRF", "Blue", {})
    settle(runner, lambda: state.exists("NOS_REJECTED_TABLE|CONFIG_DB:VRF:VrfBlue"))
    assert "VrfRed" in state.hget("NOS_REJECTED_TABLE|CONFIG_DB:VRF:VrfBlue", "reason")
    settle(runner, lambda: state.exists("NOS_REJECTED_TABLE|CONFIG_DB:VRF:Blue"))
    assert row("VrfBlue") == {} and row("Blue") == {} and not state.exists("VRF_TABLE|VrfBlue")

    cdb.set_entry("VRF", "VrfBlue", {"vni": "2000"})  # fixed: accepted, report cleared
    settle(runner, lambda: row("VrfBlue") == {"vni": "2000"})
    settle(runner, lambda: not state.exists("NOS_REJECTED_TABLE|CONFIG_DB:VRF:VrfBlue"))
