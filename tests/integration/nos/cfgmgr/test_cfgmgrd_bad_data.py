"""cfgmgrd whole (every manager wired, strict) on a CONFIG_DB, STATE_DB and APPL_DB holding keys of
the wrong type: it starts, leaves them out, reports them, and forwards everything else."""

from __future__ import annotations

import pytest

from nos.cfgmgr.__main__ import build
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector, ConsumerStateTable
from tests.conftest import wait_until

pytestmark = pytest.mark.integration

PORTS = {f"Ethernet{n}": {"lanes": str(n), "speed": "400000", "admin_status": "up"} for n in (20, 24, 28)}


def test_cfgmgrd_starts_past_wrong_type_keys_and_goes_on(dbs, raw):
    ConfigDBConnector(dbs["CONFIG_DB"]).mod_config({"PORT": PORTS})
    raw(4).delete("PORT|Ethernet24")
    raw(4).set("PORT|Ethernet24", "notahash")              # the key
    raw(4).rpush("DEVICE_METADATA|localhost", "garbage")    # read at start by several managers
    raw(4).sadd("PORTCHANNEL_MEMBER|PortChannel1|Ethernet20", "x")
    raw(6).set("PORT_TABLE|Ethernet20", "garbage")           # STATE_DB, read by port/lag/intf managers
    raw(0).set("_PORT_TABLE:Ethernet28", "garbage")          # APPL_DB transport, written by the port manager
    raw(6).hset("PORT_TABLE|Ethernet28", "state", "ok")      # its netdev exists: later changes go through
    dbs.bad_keys.publisher = reporter = StateDbReporter(dbs, "cfgmgrd")
    orch = ConsumerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    runner = Runner("cfgmgrd", strict=True, reporter=reporter, retry_interval=0.05)

    build(dbs, runner)  # on the old code: WRONGTYPE at the boot copy of PORT, every restart
    popped: dict[str, dict[str, str]] = {}

    def forwarded(port: str, field: str, value: str) -> bool:
        runner.step(max_wait=0.02)
        popped.update({t.key: t.fields for t in orch.pops() if t.is_set})
        return popped.get(port, {}).get(field) == value

    wait_until(lambda: forwarded("PortConfigDone", "count", "2"))
    assert popped["Ethernet28"]["speed"] == "400000" and "Ethernet24" not in popped
    errors = {name.split("|", 1)[1] for name in raw(6).keys("NOS_REJECTED_TABLE|*")}
    assert {"CONFIG_DB:PORT:Ethernet24", "CONFIG_DB:DEVICE_METADATA:localhost"} <= errors

    raw(4).hset("PORT|Ethernet28", "mtu", "1500")  # a normal change still goes through
    wait_until(lambda: forwarded("Ethernet28", "mtu", "1500"))
    raw(4).delete("PORT|Ethernet24")  # the key fixed: forwarded, and its report gone
    raw(4).hset("PORT|Ethernet24", mapping=PORTS["Ethernet24"])
    wait_until(lambda: forwarded("Ethernet24", "speed", "400000"))
    report = "NOS_REJECTED_TABLE|CONFIG_DB:PORT:Ethernet24"
    wait_until(lambda: (runner.step(max_wait=0.02), not raw(6).exists(report))[1])


def test_a_manager_whose_start_raises_is_reported_and_the_others_run(dbs, raw, monkeypatch):
    import types

    import nos.cfgmgr.__main__ as cfgmgrd
    from nos.cfgmgr import port

    def register(_dbs, _runner):
        raise ValueError("invalid literal for int() with base 10: '²'")

    broken = types.ModuleType("nos.cfgmgr.broken")
    broken.register = register  # type: ignore[attr-defined]
    monkeypatch.setattr(cfgmgrd, "manager_modules", lambda: [broken, port])
    ConfigDBConnector(dbs["CONFIG_DB"]).mod_config({"PORT": PORTS})
    runner = Runner("cfgmgrd", reporter=StateDbReporter(dbs, "cfgmgrd"))

    cfgmgrd.build(dbs, runner)  # the old code: the ValueError ended cfgmgrd, at every restart

    row = raw(6).hgetall("NOS_REJECTED_TABLE|cfgmgrd:loop:register nos.cfgmgr.broken")
    assert row["status"] == "FAILED" and "'²'" in row["reason"]
    assert raw(0).hget("_PORT_TABLE:PortConfigDone", "count") == "3"  # the port manager ran
