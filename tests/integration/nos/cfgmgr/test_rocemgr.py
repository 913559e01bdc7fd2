"""The RoCE intent manager against real Redis, on the 128x400G SKU's default startup config: a row
written behind the transaction layer's back (as redis-cli would) is expanded in ONE transaction,
refused with field and value when bad, re-expanded when a port's speed changes, and undone exactly."""

from __future__ import annotations

import copy

import pytest

from nos.cfgmgr.roce import RoceMgr
from nos.config.transaction import plan_changes
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector
from nos.intent.roce import plan
from nos.platform.sku import DEFAULT_SKU, load_sku
from tests.conftest import wait_until

pytestmark = pytest.mark.integration
REJECTED = "NOS_REJECTED_TABLE|CONFIG_DB:ROCE:global"


@pytest.fixture(scope="module")
def default_config():
    return load_sku(DEFAULT_SKU).default_config()


@pytest.fixture
def env(dbs, raw, default_config):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.mod_config(copy.deepcopy(default_config))
    runner = Runner("cfgmgrd", strict=True, reporter=StateDbReporter(dbs, "cfgmgrd"), retry_interval=0.05)
    RoceMgr(dbs).register(dbs, runner)

    def settle(until, timeout=10.0):
        wait_until(lambda: (runner.step(max_wait=0.02), until())[1], timeout)

    settle(lambda: runner.step(max_wait=0.02) == 0)  # the initial PORT dump: nothing to do
    return cdb, settle, raw(4), raw(6)


def test_a_row_from_redis_cli_is_expanded_in_one_transaction_and_undone(env, default_config):
    cdb, settle, config_db, state = env
    before = cdb.get_config()
    generation = cdb.generation()
    config_db.hset("ROCE|global", mapping={"profile": "nvidia", "mode": "lossless"})
    settle(lambda: config_db.hget("PORT_QOS_MAP|Ethernet508", "pfc_enable") == "3")
    now = cdb.get_config()
    assert plan_changes(now, plan(now)) == []  # CONFIG_DB is the expansion
    assert cdb.generation() == generation + 1  # one transaction
    assert config_db.hgetall("BUFFER_PG|Ethernet0|3") == {"profile": "pg_lossless_400000_5m_profile"}
    assert not config_db.exists("BUFFER_QUEUE|Ethernet0|3-4") and config_db.exists("NOS_ROCE_SAVED|QUEUE")

    config_db.delete("ROCE|global")
    settle(lambda: not config_db.exists("NOS_ROCE_SAVED|QUEUE"))
    assert plan_changes(before, cdb.get_config()) == []


def test_bad_data_is_reported_and_changes_nothing(env):
    cdb, settle, config_db, state = env
    before = cdb.get_config()
    config_db.hset("ROCE|global", mapping={"cnp_dscp": "26"})
    settle(lambda: state.exists(REJECTED))
    assert "cnp_dscp" in state.hget(REJECTED, "reason") and "26" in state.hget(REJECTED, "reason")
    assert plan_changes({**before, "ROCE": {"global": {"cnp_dscp": "26"}}}, cdb.get_config()) == []

    config_db.hset("ROCE|global", mapping={"cnp_dscp": "46", "cable_length": "7m"})  # no headroom row for 7m
    settle(lambda: "7m" in (state.hget(REJECTED, "reason") or ""))
    assert "cable_length" in state.hget(REJECTED, "reason")
    assert config_db.hget("PORT_QOS_MAP|Ethernet0", "dscp_to_tc_map") == "AZURE"

    config_db.hdel("ROCE|global", "cable_length")  # fixed: applied, report cleared
    settle(lambda: config_db.hget("PORT_QOS_MAP|Ethernet0", "dscp_to_tc_map") == "ROCE")
    settle(lambda: not state.exists(REJECTED))
    assert config_db.hget("DSCP_TO_TC_MAP|ROCE", "46") == "6"


def test_a_port_speed_change_re_expands(env):
    cdb, settle, config_db, state = env
    config_db.hset("ROCE|global", mapping={"profile": "sonic"})
    settle(lambda: config_db.exists("BUFFER_PG|Ethernet4|3-4"))
    config_db.hset("PORT|Ethernet4", "speed", "200000")
    settle(lambda: config_db.hget("BUFFER_PG|Ethernet4|3-4", "profile") == "pg_lossless_200000_5m_profile")
    assert config_db.hget("BUFFER_PROFILE|pg_lossless_200000_5m_profile", "xoff") == "612140"


def test_ports_from_a_breakout_get_the_intent(dbs, env):
    from nos.cfgmgr.breakout import BreakoutMgr

    cdb, settle, config_db, state = env
    runner = Runner("cfgmgrd", strict=True, retry_interval=0.05)
    BreakoutMgr(dbs).register(dbs, runner)
    RoceMgr(dbs).register(dbs, runner)

    def until(check):
        wait_until(lambda: (runner.step(max_wait=0.02), check())[1], 10)

    config_db.hset("ROCE|global", mapping={"profile": "nvidia"})
    until(lambda: config_db.hget("PORT_QOS_MAP|Ethernet0", "pfc_enable") == "3")
    config_db.hset("BREAKOUT_CFG|Ethernet0", "brkout_mode", "4x100G")
    until(lambda: config_db.hget("BUFFER_PG|Ethernet3|3", "profile") == "pg_lossless_100000_5m_profile")
    now = cdb.get_config()
    assert plan_changes(now, plan(now)) == []
    assert all(now["PORT_QOS_MAP"][f"Ethernet{i}"]["dscp_to_tc_map"] == "ROCE" for i in range(4))

    config_db.delete("ROCE|global")  # off: the new ports keep the SKU's defaults they were born with
    until(lambda: not config_db.exists("NOS_ROCE_SAVED|QUEUE"))
    assert config_db.hget("PORT_QOS_MAP|Ethernet2", "dscp_to_tc_map") == "AZURE"
    assert not config_db.exists("BUFFER_PG|Ethernet2|3") and not config_db.exists("PFC_WD|Ethernet2")


def test_a_cable_length_change_re_expands(env):
    cdb, settle, config_db, state = env
    config_db.hset("ROCE|global", mapping={"profile": "nvidia"})
    settle(lambda: config_db.exists("BUFFER_PG|Ethernet4|3"))
    config_db.hset("CABLE_LENGTH|AZURE", "Ethernet4", "300m")
    settle(lambda: config_db.hget("BUFFER_PG|Ethernet4|3", "profile") == "pg_lossless_400000_300m_profile")
    assert config_db.hget("BUFFER_PROFILE|pg_lossless_400000_300m_profile", "xoff") == "687916"
    assert config_db.hget("BUFFER_PG|Ethernet0|3", "profile") == "pg_lossless_400000_5m_profile"


def test_saved_rows_written_without_the_intent_are_written_back(env):
    """With no intent, port changes are not read into the expansion (the manager idles); rows saved
    by an intent and then loaded without it (a config reload of such a file) are still put back."""
    cdb, settle, config_db, state = env
    config_db.hset("ROCE|global", mapping={"profile": "nvidia"})
    settle(lambda: config_db.exists("NOS_ROCE_SAVED|QUEUE"))
    expanded = cdb.get_config()
    config_db.delete("ROCE|global")
    settle(lambda: not config_db.exists("NOS_ROCE_SAVED|QUEUE"))
    config_db.hset("PORT|Ethernet8", "mtu", "4000")  # idle: nothing to re-expand
    settle(lambda: True)
    assert config_db.hget("PORT_QOS_MAP|Ethernet8", "dscp_to_tc_map") == "AZURE"

    # what a reload of a file saved while the intent was on, minus the intent, writes
    cdb.mod_config({table: expanded[table] for table in ("NOS_ROCE_SAVED", "PORT_QOS_MAP")})
    assert config_db.hget("PORT_QOS_MAP|Ethernet8", "dscp_to_tc_map") == "ROCE"
    settle(lambda: not config_db.exists("NOS_ROCE_SAVED|QUEUE")
           and config_db.hget("PORT_QOS_MAP|Ethernet8", "dscp_to_tc_map") == "AZURE")
