"""The port manager against real Redis: boot copy + PortConfigDone, then live changes."""

from __future__ import annotations

import pytest

from nos.cfgmgr.port import PortMgr
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def test_boot_copies_ports_and_announces_port_config_done(dbs, raw):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.mod_config({"PORT": {f"Ethernet{4 * i}": {"lanes": f"{4 * i}", "speed": "400000"} for i in range(4)}})
    runner = Runner("cfgmgrd", strict=True)
    mgr = PortMgr(dbs)
    assert mgr.boot() == 4
    mgr.register(dbs, runner)
    appl = raw(0)
    assert appl.smembers("PORT_TABLE_KEY_SET") >= {"PortConfigDone", "Ethernet0"}
    assert appl.hgetall("_PORT_TABLE:PortConfigDone") == {"count": "4"}
    assert appl.hgetall("_PORT_TABLE:Ethernet4") == {
        "lanes": "4", "speed": "400000", "admin_status": "down", "mtu": "9100"}

    # a live change arrives through keyspace notifications and is forwarded
    raw(4).hset("PORT|Ethernet4", "mtu", "1500")
    wait_until(lambda: runner.step(max_wait=0.1) or appl.hget("_PORT_TABLE:Ethernet4", "mtu") == "1500")
    raw(4).delete("PORT|Ethernet8")
    wait_until(lambda: runner.step(max_wait=0.1) or "Ethernet8" in appl.smembers("PORT_TABLE_DEL_SET"))
