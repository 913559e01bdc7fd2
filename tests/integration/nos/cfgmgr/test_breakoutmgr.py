"""The breakout manager against real Redis, on the 128x400G SKU's default startup config.

(Named test_breakoutmgr.py: tests/unit/nos/platform/test_breakout.py owns the basename test_breakout.)
"""

from __future__ import annotations

import copy

import pytest

from nos.cfgmgr.breakout import BreakoutMgr
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector
from nos.platform.sku import DEFAULT_SKU, load_sku
from tests.conftest import wait_until

pytestmark = pytest.mark.integration

DEFAULT_MODE = "1x400G[200G,100G]"


@pytest.fixture(scope="module")
def default_config():
    return load_sku(DEFAULT_SKU).default_config()


def start(dbs, config):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.mod_config(copy.deepcopy(config))
    runner = Runner("cfgmgrd", strict=True, retry_interval=0.05)
    BreakoutMgr(dbs).register(dbs, runner)
    return runner, cdb


def settle(runner, until, timeout=10.0):
    def check():
        runner.step(max_wait=0.02)
        return until()
    wait_until(check, timeout)


def quiet(runner, steps=10):
    for _ in range(steps):
        runner.step(max_wait=0.02)


def test_breakout_to_4x100g_and_back(dbs, raw, default_config):
    runner, cdb = start(dbs, default_config)
    quiet(runner)  # the initial dump: every cage already is in its mode
    assert cdb.get_config() == default_config
    cfg = raw(4)

    cdb.mod_entry("BREAKOUT_CFG", "Ethernet0", {"brkout_mode": "4x100G"})
    settle(runner, lambda: cfg.exists("PORT|Ethernet3"))
    for i in range(4):
        port = cfg.hgetall(f"PORT|Ethernet{i}")
        assert (port["lanes"], port["speed"], port["alias"], port["index"]) == (
            str(i), "100000", f"etp1{'abcd'[i]}", "1")
        assert (port["fec"], port["mtu"], port["admin_status"]) == ("rs", "9100", "up")
        assert cfg.hget("CABLE_LENGTH|AZURE", f"Ethernet{i}") == "5m"
        assert cfg.hgetall(f"BUFFER_PG|Ethernet{i}|0") == {"profile": "ingress_lossy_profile"}
        assert cfg.hgetall(f"BUFFER_QUEUE|Ethernet{i}|3-4") == {"profile": "egress_lossless_profile"}
        assert cfg.hget(f"PORT_QOS_MAP|Ethernet{i}", "pfc_enable") == "3,4"
        assert cfg.hgetall(f"QUEUE|Ethernet{i}|3") == {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}
    assert cfg.hgetall("BREAKOUT_CFG|Ethernet0") == {"brkout_mode": "4x100G"}
    assert len(cfg.keys("PORT|*")) == 131

    cdb.mod_entry("BREAKOUT_CFG", "Ethernet0", {"brkout_mode": DEFAULT_MODE})
    settle(runner, lambda: not cfg.exists("PORT|Ethernet3"))
    assert cdb.get_config() == default_config


def test_a_mode_not_offered_is_refused_and_changes_nothing(dbs, default_config):
    runner, cdb = start(dbs, default_config)
    quiet(runner)
    consumer = runner.consumers[0]
    cdb.mod_entry("BREAKOUT_CFG", "Ethernet4", {"brkout_mode": "8x50G"})
    settle(runner, lambda: consumer.stats.rejected == 1)
    cdb.mod_entry("BREAKOUT_CFG", "Ethernet1", {"brkout_mode": "4x100G"})  # not a cage
    settle(runner, lambda: consumer.stats.rejected == 2)
    expected = copy.deepcopy(default_config)
    expected["BREAKOUT_CFG"]["Ethernet4"] = {"brkout_mode": "8x50G"}
    expected["BREAKOUT_CFG"]["Ethernet1"] = {"brkout_mode": "4x100G"}
    assert cdb.get_config() == expected


def test_waits_for_the_hwsku_and_ignores_a_sku_it_does_not_have(dbs, raw, default_config):
    config = copy.deepcopy(default_config)
    metadata = config.pop("DEVICE_METADATA")
    runner, cdb = start(dbs, config)
    cdb.mod_entry("BREAKOUT_CFG", "Ethernet8", {"brkout_mode": "2x200G"})
    quiet(runner)
    assert not raw(4).exists("PORT|Ethernet10")
    cdb.mod_entry("DEVICE_METADATA", "localhost", metadata["localhost"])
    settle(runner, lambda: raw(4).exists("PORT|Ethernet10"))
    assert raw(4).hget("PORT|Ethernet10", "lanes") == "10,11"

    cdb.mod_entry("DEVICE_METADATA", "localhost", {"hwsku": "Arista-7060X6-64PE-B-O128"})
    cdb.mod_entry("BREAKOUT_CFG", "Ethernet16", {"brkout_mode": "4x100G"})
    quiet(runner)
    assert not raw(4).exists("PORT|Ethernet17")
    assert runner.consumers[0].stats.rejected == 0
