"""Bad data in Redis never kills a daemon (issue 15, item 6), on a whole switch.

The issue's case: ``redis-cli -n 4 set 'PORT|Ethernet24' notahash`` crash-looped cfgmgrd (WRONGTYPE), so
REST PATCHes were answered but never reached the ASIC, and ``config save`` silently dropped Ethernet24.
And a fuzz: every wrong type written into a sample of the tables each daemon reads, and garbage on the
channels they listen to; every daemon keeps its PID and the switch still applies a normal change.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from nos.db import Databases, ProducerStateTable
from tests.conftest import wait_until
from tests.e2e.conftest import RunningSwitch, nos, start_switch

pytestmark = pytest.mark.e2e

DAEMONS = ("cfgmgrd", "orchagent", "syncd")
MTU_OVERHEAD = 22  # SAI_PORT_ATTR_MTU counts the Ethernet header, FCS and one VLAN tag
ETH24 = "WRONGTYPE: CONFIG_DB PORT|Ethernet24 is a string, expected a hash"


@pytest.fixture(scope="module")
def switch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSwitch]:
    sw = start_switch(tmp_path_factory.mktemp("baddata"), "--sku", "Force10-S6000", "--gnmi-port", "0")
    yield sw
    sw.close()
    nos("down", "--run-dir", str(sw.run_dir), check=False)


def pids(sw: RunningSwitch) -> dict[str, str]:
    return {d: sw.db(6).hget(f"NOS_DAEMON_TABLE|{d}", "pid") or "" for d in DAEMONS}


def alive(sw: RunningSwitch, before: dict[str, str]) -> bool:
    """Same PIDs as ``before``, and every daemon's heartbeat less than 2 s old (it is not stuck)."""
    rows = {d: sw.db(6).hgetall(f"NOS_DAEMON_TABLE|{d}") for d in DAEMONS}
    now = float(sw.db(6).time()[0])
    return all(rows[d].get("pid") == before[d] and now - float(rows[d].get("heartbeat", 0)) < 2 for d in DAEMONS)


def asic_mtu(sw: RunningSwitch, port: str) -> str | None:
    oid = sw.db(2).hget("COUNTERS_PORT_NAME_MAP", port)
    return sw.db(1).hget(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}", "SAI_PORT_ATTR_MTU") if oid else None


def patch_mtu(sw: RunningSwitch, port: str, mtu: int) -> None:
    """A REST PATCH, then the ASIC has it (what the issue saw answered 'applied' and never applied)."""
    reply = httpx.patch(f"{sw.endpoints['rest']}/api/v1/config", timeout=10,
                        json=[{"op": "replace", "path": f"/PORT/{port}/mtu", "value": str(mtu)}])
    assert reply.status_code == 200, reply.text
    wait_until(lambda: asic_mtu(sw, port) == str(mtu + MTU_OVERHEAD), timeout=15)


def errors(sw: RunningSwitch) -> dict[str, dict[str, str]]:
    return {f"{r['db']}:{r['table']}:{r['key']}": r for r in json.loads(sw.nos("show", "errors", "--json").stdout)}


def test_a_string_at_a_port_row(switch: RunningSwitch, tmp_path: Path) -> None:
    before = pids(switch)
    saved = switch.db(4).hgetall("PORT|Ethernet24")
    nos("redis-cli", "--run-dir", str(switch.run_dir), "-n", "4", "set", "PORT|Ethernet24", "notahash")

    patch_mtu(switch, "Ethernet28", 4000)  # reaches the ASIC: cfgmgrd read the string, and went on
    assert alive(switch, before)
    row = errors(switch)["CONFIG_DB:PORT:Ethernet24"]
    assert row["reason"] == ETH24 and row["status"] == "INVALID" and row["daemon"] == "cfgmgrd"

    target = tmp_path / "saved.json"
    refused = switch.nos("config", "save", str(target), check=False)
    assert refused.returncode == 1 and ETH24 in refused.stderr and not target.exists()

    put = httpx.put(f"{switch.endpoints['rest']}/api/v1/config/PORT/Ethernet24", json=saved, timeout=10)
    assert put.status_code == 200, put.text  # writing the row replaces the string
    wait_until(lambda: "CONFIG_DB:PORT:Ethernet24" not in errors(switch), timeout=10)
    switch.nos("config", "save", str(target))
    assert json.loads(target.read_text())["PORT"]["Ethernet24"] == saved
    assert alive(switch, before)


WRITERS = {"string": lambda c, k: c.set(k, "garbage"), "list": lambda c, k: c.rpush(k, "a"),
           "set": lambda c, k: c.sadd(k, "a"), "zset": lambda c, k: c.zadd(k, {"a": 1.0})}
CONFIG_TABLES = ("PORT", "BUFFER_PG", "BUFFER_PROFILE", "BUFFER_POOL", "CABLE_LENGTH", "PORT_QOS_MAP",
                 "DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "SCHEDULER", "QUEUE", "WRED_PROFILE", "VLAN", "VLAN_MEMBER",
                 "PORTCHANNEL", "PORTCHANNEL_MEMBER", "INTERFACE", "VLAN_INTERFACE", "STATIC_ROUTE", "VRF", "NEIGH",
                 "FLEX_COUNTER_TABLE", "PFC_WD", "ROCE", "BREAKOUT_CFG", "WATERMARK_TABLE", "DEVICE_METADATA")
STATE_TABLES = ("PORT_TABLE", "INTERFACE_TABLE", "VLAN_TABLE", "LAG_TABLE", "VRF_TABLE", "BUFFER_MAX_PARAM_TABLE",
                "NOS_TRAFFIC_JOB", "NOS_TRACE", "NOS_REJECTED_TABLE")
APPL_TABLES = ("PORT_TABLE", "ROUTE_TABLE", "VLAN_TABLE", "BUFFER_PG_TABLE", "PFC_WD_TABLE", "NEIGH_TABLE")
CHANNELS = ((1, "NOTIFICATIONS"), (2, "NOS_COUNTER_SET_REQUEST"), (2, "PFC_WD_ACTION"), (0, "WATERMARK_CLEAR_REQUEST"),
            (6, "NOS_TRACE_REQUEST"), (6, "NOS_TRAFFIC_REQUEST"))
PAYLOADS = (b"garbage", b"\xff\xfe", b"[" * 50_000, b"[1,2]", b'["port_state_change","[1]"]',
            b'["fdb_event","[{}]"]', b'["set","Ethernet0","x","1"]', b'["oid:0x0","storm"]')


def write_garbage(sw: RunningSwitch, kind: str) -> list[tuple[int, str]]:
    """One key of ``kind`` in every sampled table (and the transport's keys); returns them."""
    made: list[tuple[int, str]] = []
    for db, names in ((4, [f"{t}|fuzz" for t in CONFIG_TABLES]), (6, [f"{t}|fuzz" for t in STATE_TABLES]),
                      (5, ["FLEX_COUNTER_TABLE:fuzz", "FLEX_COUNTER_GROUP_TABLE:fuzz"]),
                      (0, [f"{t}:fuzz" for t in APPL_TABLES] + [f"_{t}:fuzz" for t in APPL_TABLES])):
        client = sw.db(db)
        for name in names:
            WRITERS[kind](client, name)
            made.append((db, name))
    appl = sw.db(0)
    for table in APPL_TABLES:
        if kind == "set":
            appl.sadd(f"{table}_KEY_SET", "fuzz", "nothing-pending")
        else:  # the key set itself of the wrong type, for a moment
            appl.delete(f"{table}_KEY_SET")
            WRITERS[kind](appl, f"{table}_KEY_SET")
            made.append((0, f"{table}_KEY_SET"))
        appl.publish(f"{table}_CHANNEL@0", "G")
    return made


def test_every_wrong_type_and_garbage_message_leaves_every_daemon_up(switch: RunningSwitch) -> None:
    before = pids(switch)
    raw = {n: redis.Redis.from_url(switch.endpoints["redis"], db=n) for n, _ in CHANNELS}
    for kind in WRITERS:
        made = write_garbage(switch, kind)
        for (db, channel) in CHANNELS:
            for payload in PAYLOADS:
                raw[db].publish(channel, payload)
        wait_until(lambda: "CONFIG_DB:VLAN:fuzz" in errors(switch), timeout=10)  # the daemons have read it
        assert alive(switch, before), (kind, pids(switch), before)
        for db, name in made:
            switch.db(db).delete(name)
    for client in raw.values():
        client.close()

    patch_mtu(switch, "Ethernet32", 5000)  # and the switch still applies a normal change
    # Reports of rows are cleared with the rows; those of the APPL_DB transport (a pending change that was
    # unreadable, a key set that was not a set) by the table's next good pop: a delete of the key here.
    dbs = Databases(switch.endpoints["redis"])
    try:
        for table in APPL_TABLES:
            ProducerStateTable(dbs["APPL_DB"], table).delete("fuzz")
    finally:
        dbs.close()
    wait_until(lambda: not [key for key in errors(switch) if key.endswith((":fuzz", "_KEY_SET"))], timeout=10)
    assert alive(switch, before)
