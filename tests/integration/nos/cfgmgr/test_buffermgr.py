"""buffermgrd against real Redis, both models: the traditional copy and lossless write-back into CONFIG_DB,
and the dynamic model's generated profiles, zero profiles and refused headroom."""

from __future__ import annotations

import pytest

from nos.cfgmgr.buffer import register
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector, ConsumerStateTable
from nos.platform.dynamic_buffers import dynamic_config
from nos.platform.sku import load_sku
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def settle(runner, predicate):
    wait_until(lambda: (runner.step(max_wait=0.02), predicate())[1])


class Appl:
    """APPL_DB as orchagent would see it: the buffer tables' pending rows are popped first."""

    def __init__(self, dbs, raw):
        self.consumers = [ConsumerStateTable(dbs["APPL_DB"], f"BUFFER_{name}_TABLE")
                          for name in ("POOL", "PROFILE", "PG", "QUEUE")]
        self.db = raw(0)

    def _drain(self):
        for consumer in self.consumers:
            while consumer.pops():
                pass

    def hget(self, key, field):
        self._drain()
        return self.db.hget(key, field)

    def hgetall(self, key):
        self._drain()
        return self.db.hgetall(key)

    def exists(self, key):
        self._drain()
        return self.db.exists(key)


def boot(dbs, raw, config):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.mod_config({table: rows for table, rows in config.items() if table != "BREAKOUT_CFG"})
    for port, fields in config["PORT"].items():  # portsyncd's copy
        raw(0).hset(f"PORT_TABLE:{port}", "lanes", fields["lanes"])
    runner = Runner("cfgmgrd", strict=True, reporter=StateDbReporter(dbs, "cfgmgrd"), retry_interval=0.05)
    register(dbs, runner)
    return cdb, runner, Appl(dbs, raw)


def test_traditional_copy_and_lossless_write_back(dbs, raw):
    cdb, runner, appl = boot(dbs, raw, load_sku("Force10-S6000").default_config())
    config = raw(4)
    settle(runner, lambda: appl.exists("BUFFER_PG_TABLE:Ethernet0:3-4"))
    assert appl.hgetall("BUFFER_POOL_TABLE:ingress_lossless_pool") == {
        "type": "ingress", "mode": "dynamic", "size": "12766208"}
    assert config.hgetall("BUFFER_PG|Ethernet0|3-4") == {"profile": "pg_lossless_100000_300m_profile"}
    assert config.hgetall("BUFFER_PROFILE|pg_lossless_100000_300m_profile")["dynamic_th"] == "-3"
    assert appl.hgetall("BUFFER_QUEUE_TABLE:Ethernet0:3-4") == {"profile": "egress_lossless_profile"}

    cdb.mod_entry("CABLE_LENGTH", "AZURE", {"Ethernet0": "80m"})
    cdb.mod_entry("PORT", "Ethernet0", {"speed": "10000"})
    settle(runner, lambda: raw(6).exists("NOS_REJECTED_TABLE|CONFIG_DB:PORT:Ethernet0"))
    assert "speed 10000 and cable length 80m" in raw(6).hget("NOS_REJECTED_TABLE|CONFIG_DB:PORT:Ethernet0", "reason")
    assert not config.exists("BUFFER_PROFILE|pg_lossless_10000_80m_profile")

    cdb.mod_entry("PORT_QOS_MAP", "Ethernet4", {"pfc_enable": "3"})
    settle(runner, lambda: config.exists("BUFFER_PG|Ethernet4|3"))
    assert not config.exists("BUFFER_PG|Ethernet4|3-4")  # the generated range that no longer applies


def test_dynamic_model_generates_reclaims_and_refuses(dbs, raw):
    cdb, runner, appl = boot(dbs, raw, dynamic_config(load_sku("Force10-S6000").default_config()))
    raw(6).hset("BUFFER_MAX_PARAM_TABLE|global", "mmu_size", "12766208")
    raw(6).hset("BUFFER_MAX_PARAM_TABLE|Ethernet0", mapping={"max_queues": "8", "max_headroom_size": "0"})
    assert raw(6).hgetall("ASIC_TABLE|VS")["cell_size"] == "144"
    settle(runner, lambda: appl.hget("BUFFER_QUEUE_TABLE:Ethernet0:7-7", "profile") == "egress_lossy_zero_profile")
    assert appl.hget("BUFFER_PG_TABLE:Ethernet0:0", "profile") == "ingress_lossy_pg_zero_profile"

    cdb.mod_entry("PORT", "Ethernet0", {"admin_status": "up", "mtu": "1500"})
    cdb.set_entry("BUFFER_PG", "Ethernet0|3-4", {"profile": "NULL"})
    name = "pg_lossless_100000_300m_mtu1500_profile"
    settle(runner, lambda: appl.hget("BUFFER_PG_TABLE:Ethernet0:3-4", "profile") == name)
    assert appl.hgetall(f"BUFFER_PROFILE_TABLE:{name}")["pool"] == "ingress_lossless_pool"
    assert not appl.exists("BUFFER_QUEUE_TABLE:Ethernet0:7-7")
    pool_size = int(appl.hget("BUFFER_POOL_TABLE:ingress_lossless_pool", "size"))
    assert pool_size == 12766208 - 2 * int(appl.hget(f"BUFFER_PROFILE_TABLE:{name}", "size"))

    raw(6).hset("BUFFER_MAX_PARAM_TABLE|Ethernet0", "max_headroom_size", "100000")
    cdb.mod_entry("PORT", "Ethernet0", {"mtu": "9100"})
    rejected = "NOS_REJECTED_TABLE|CONFIG_DB:BUFFER_PG:Ethernet0|3-4"
    settle(runner, lambda: raw(6).exists(rejected))
    assert "max_headroom_size 100000" in raw(6).hget(rejected, "reason")
    assert appl.hget("BUFFER_PG_TABLE:Ethernet0:3-4", "profile") == name  # kept


def test_traditional_cable_length_change_alone_regenerates(dbs, raw):
    """buffermgrd doCableTask: a new cable length re-runs the speed update for the port, no PORT write needed."""
    cdb, runner, appl = boot(dbs, raw, load_sku("Force10-S6000").default_config())
    config = raw(4)
    settle(runner, lambda: appl.exists("BUFFER_PG_TABLE:Ethernet0:3-4"))
    cdb.mod_entry("CABLE_LENGTH", "AZURE", {"Ethernet0": "40m"})
    settle(runner, lambda: config.hget("BUFFER_PG|Ethernet0|3-4", "profile") == "pg_lossless_100000_40m_profile")
    assert config.hgetall("BUFFER_PROFILE|pg_lossless_100000_40m_profile")["xoff"] == "55120"
    assert config.hget("BUFFER_PG|Ethernet4|3-4", "profile") == "pg_lossless_100000_300m_profile"  # untouched


def test_traditional_port_qos_map_delete_forgets_pfc_enable(dbs, raw):
    """buffermgrd doPortQosTableTask DEL: the pfc status is erased, so a later speed change generates no PG."""
    cdb, runner, appl = boot(dbs, raw, load_sku("Force10-S6000").default_config())
    config = raw(4)
    settle(runner, lambda: appl.exists("BUFFER_PG_TABLE:Ethernet0:3-4"))
    config.delete("BUFFER_PG|Ethernet0|3-4", "PORT_QOS_MAP|Ethernet0")
    settle(runner, lambda: not appl.exists("BUFFER_PG_TABLE:Ethernet0:3-4"))
    cdb.mod_entry("PORT", "Ethernet0", {"speed": "40000"})
    cdb.mod_entry("PORT", "Ethernet4", {"speed": "40000"})  # a port that still has pfc_enable
    settle(runner, lambda: config.hget("BUFFER_PG|Ethernet4|3-4", "profile") == "pg_lossless_40000_300m_profile")
    assert not config.exists("BUFFER_PG|Ethernet0|3-4")


def test_traditional_model_switch_at_run_time_holds_updates(dbs, raw):
    """buffermgrd doBufferMetaTask: while buffer_model says dynamic the copy waits; back to traditional it goes on."""
    cdb, runner, appl = boot(dbs, raw, load_sku("Force10-S6000").default_config())
    settle(runner, lambda: appl.exists("BUFFER_PG_TABLE:Ethernet0:3-4"))
    cdb.mod_entry("DEVICE_METADATA", "localhost", {"buffer_model": "dynamic"})
    for _ in range(10):
        runner.step(max_wait=0.02)
    cdb.set_entry("BUFFER_POOL", "temp_pool", {"mode": "dynamic", "type": "egress", "size": "1024"})
    for _ in range(20):
        runner.step(max_wait=0.02)
    assert not appl.exists("BUFFER_POOL_TABLE:temp_pool")
    cdb.mod_entry("DEVICE_METADATA", "localhost", {"buffer_model": "traditional"})
    settle(runner, lambda: appl.exists("BUFFER_POOL_TABLE:temp_pool"))


def test_dynamic_pool_is_only_ever_set_when_shared_headroom_goes_off(dbs, raw):
    """A DEL of ingress_lossless_pool (to drop its xoff) would wait forever in orchagent behind the profiles
    that use it, and the SET behind it too: the manager writes xoff "0" and never deletes the pool."""
    cdb, runner, appl = boot(dbs, raw, dynamic_config(load_sku("Force10-S6000").default_config()))
    pools = ConsumerStateTable(dbs["APPL_DB"], "BUFFER_POOL_TABLE")
    ops = []

    def pool_row():
        ops.extend(k.op for k in pools.pops() if k.key == "ingress_lossless_pool")
        return raw(0).hgetall("BUFFER_POOL_TABLE:ingress_lossless_pool")

    raw(6).hset("BUFFER_MAX_PARAM_TABLE|global", "mmu_size", "12766208")
    cdb.mod_entry("PORT", "Ethernet0", {"admin_status": "up"})
    cdb.set_entry("BUFFER_PG", "Ethernet0|3-4", {"profile": "NULL"})
    cdb.mod_entry("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "AZURE", {"over_subscribe_ratio": "2"})
    settle(runner, lambda: int(pool_row().get("xoff", "0")) > 0)
    raw(4).hdel("DEFAULT_LOSSLESS_BUFFER_PARAMETER|AZURE", "over_subscribe_ratio")
    settle(runner, lambda: pool_row().get("xoff") == "0")
    cdb.mod_entry("PORT", "Ethernet0", {"mtu": "1500"})  # any later recompute
    settle(runner, lambda: appl.exists("BUFFER_PROFILE_TABLE:pg_lossless_100000_300m_mtu1500_profile"))
    assert pool_row().get("xoff") == "0"
    assert ops and "DEL" not in ops, ops
