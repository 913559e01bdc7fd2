"""Issue 6's acceptance on a whole NOS-SIM-128x400G switch: the shipped scenarios run against what the
switch has programmed, and the switch's own counters show the run.

RoCE intent on: the 64-to-1 incast loses nothing and the switch pauses the senders; intent off: DSCP 26
falls into SONiC's lossy TC1 and the same incast drops, and the AllReduce ring's GPUs wait longer on
the network. ``nos show pfc counters`` / ``nos show queue counters`` report both afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.e2e.conftest import RunningSwitch, nos, start_switch

pytestmark = pytest.mark.e2e

SKU = "NOS-SIM-128x400G"
PFC_ATTR = "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"
LOSSLESS_3 = "8"        # the nvidia profile: PFC on priority 3 only
LOSSLESS_3_4 = "24"     # the SKU's default: priorities 3 and 4


@pytest.fixture(scope="module")
def switch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSwitch]:
    sw = start_switch(tmp_path_factory.mktemp("traffic"), "--sku", SKU)
    yield sw
    sw.close()
    nos("down", "--run-dir", str(sw.run_dir), check=False)


def wait_pfc_bitmask(sw: RunningSwitch, value: str) -> None:
    """Every front-panel port's PFC bitmask in ASIC_DB is ``value`` (the intent reached the ASIC)."""
    asic = sw.db(1)

    def done() -> bool:
        ports = [k for k in asic.scan_iter("ASIC_STATE:SAI_OBJECT_TYPE_PORT:*", count=1000)]
        values = [asic.hget(k, PFC_ATTR) for k in ports]
        return sum(v == value for v in values) == 128

    wait_until(done, timeout=30)


def run(sw: RunningSwitch, scenario: str) -> dict:
    out = sw.nos("traffic", "run", scenario, "--json", "--timeout", "120")
    return json.loads(out.stdout)


def number(text: str) -> int:
    return int(str(text).replace(",", "")) if str(text).replace(",", "").isdigit() else 0


def wait_share(doc: dict) -> float:
    ring = next(w for w in doc["workloads"] if w["kind"] == "allreduce")
    return float(ring["allreduce"]["gpu_wait_share"])


@pytest.fixture(scope="module")
def intent_on(switch: RunningSwitch) -> dict[str, dict]:
    switch.nos("config", "roce", "enable")
    wait_pfc_bitmask(switch, LOSSLESS_3)
    out = {"incast": run(switch, "incast-64to1"), "allreduce": run(switch, "allreduce-8gpu"),
           "pfc": json.loads(switch.nos("show", "pfc", "counters", "--json").stdout),
           "queues": json.loads(switch.nos("show", "queue", "counters", "Ethernet0", "--json").stdout),
           "storm": run(switch, "pause-storm")}

    def storm_counted() -> dict | None:
        stats = json.loads(switch.nos("show", "pfcwd", "stats", "--json").stdout)
        row = stats.get("Ethernet8:3", {})
        return row if row.get("STORM DETECTED/RESTORED", "0/0").split("/")[0] not in ("0", "") else None

    out["pfcwd"] = wait_until(storm_counted, timeout=10)  # orchagent counts the reported storm
    return out


@pytest.fixture(scope="module")
def intent_off(switch: RunningSwitch, intent_on: dict[str, dict]) -> dict[str, dict]:
    switch.nos("config", "roce", "disable")
    wait_pfc_bitmask(switch, LOSSLESS_3_4)
    return {"incast": run(switch, "incast-64to1"), "allreduce": run(switch, "allreduce-8gpu"),
            "queues": json.loads(switch.nos("show", "queue", "counters", "Ethernet0", "--json").stdout)}


def test_incast_with_the_intent_is_lossless_and_pauses(intent_on: dict[str, dict]) -> None:
    doc = intent_on["incast"]
    summary = doc["summary"]
    assert doc["workloads"][0]["class"]["lossless"] is True
    assert summary["drop_pkts"] == 0 and summary["dropped_bytes"] == 0
    assert summary["finished"] == summary["flows"] == 64
    assert summary["pfc_tx_frames"] > 0          # the switch paused the senders
    tx = intent_on["pfc"]["tx"]
    paused_senders = [p for p in (f"Ethernet{4 * i}" for i in range(1, 65)) if number(tx[p]["PFC3"]) > 0]
    assert len(paused_senders) >= 32, paused_senders   # pauses visible in `show pfc counters`
    uc3 = intent_on["queues"]["Ethernet0"]["UC3"]
    assert number(uc3["totalpacket"]) > 0 and number(uc3["droppacket"]) == 0


def test_incast_without_the_intent_drops(intent_on: dict[str, dict], intent_off: dict[str, dict]) -> None:
    doc = intent_off["incast"]
    assert doc["workloads"][0]["class"]["lossless"] is False   # DSCP 26 -> TC1 in the AZURE map
    assert doc["summary"]["drop_pkts"] > 0
    before = number(intent_on["queues"]["Ethernet0"]["UC1"]["droppacket"])
    after = number(intent_off["queues"]["Ethernet0"]["UC1"]["droppacket"])
    assert after - before > 0                     # drops visible in `show queue counters`


def test_allreduce_waits_longer_without_the_intent(intent_on: dict[str, dict], intent_off: dict[str, dict]) -> None:
    on, off = wait_share(intent_on["allreduce"]), wait_share(intent_off["allreduce"])
    assert off > on, (on, off)


def test_trace_packet_explains_classification(switch: RunningSwitch, intent_on: dict[str, dict]) -> None:
    out = switch.nos("trace", "packet", "--in-port", "Ethernet4", "--dscp", "3", "--json")
    doc = json.loads(out.stdout)
    stages = [step["stage"] for step in doc["steps"]]
    assert stages and "result" in doc
    assert any("tc" in json.dumps(step).lower() for step in doc["steps"])


def test_scenarios_shipped_parse() -> None:
    from nos.traffic.scenario import parse_scenario
    for path in sorted((Path(__file__).resolve().parents[2] / "configs" / "scenarios").glob("*.yaml")):
        assert parse_scenario(path.read_text()).name == path.stem


def test_pause_storm_is_caught_by_the_watchdog(intent_on: dict[str, dict]) -> None:
    """The RoCE intent turns the watchdog on (200 ms detection, drop); the NIC on Ethernet8 pauses the
    switch for ~400 ms: the model detects the storm and the switch's own watchdog counters show it."""
    events = intent_on["storm"]["watchdog"]
    assert [e["event"] for e in events if e["port"] == "Ethernet8" and e["queue"] == 3][:1] == ["storm"]
    assert intent_on["pfcwd"]["STORM DETECTED/RESTORED"].startswith("1/")


def test_tables_export_and_counters_import(switch: RunningSwitch) -> None:
    """What a fabric run needs of each switch (nos.traffic.exchange): its compiled tables at one moment,
    and its share of the run's counters added to its own."""
    from nos.db.connector import Databases
    from nos.traffic.errors import JobFailed
    from nos.traffic.exchange import export_tables, import_counters

    dbs = Databases(switch.endpoints["redis"])
    try:
        exported = export_tables(dbs)
        ports = exported.tables.ports
        assert ports.n == 128 and ports.names[0] == "Ethernet0" and ports.queue_oids[0][3].startswith("oid:")
        queue = ports.queue_oids[5][3]
        counters = switch.db(2)
        before = int(counters.hget(f"COUNTERS:{queue}", "SAI_QUEUE_STAT_BYTES") or 0)
        assert import_counters(dbs, [(queue, "SAI_QUEUE_STAT_BYTES", 12345, "add")]) == 1
        wait_until(lambda: int(counters.hget(f"COUNTERS:{queue}", "SAI_QUEUE_STAT_BYTES") or 0) == before + 12345,
                   timeout=10)
        with pytest.raises(JobFailed, match=r"updates\[1\]"):
            import_counters(dbs, [(queue, "SAI_QUEUE_STAT_BYTES", 1, "add"), (queue, "X", -5, "add")])
        assert int(counters.hget(f"COUNTERS:{queue}", "SAI_QUEUE_STAT_BYTES") or 0) == before + 12345  # none applied
    finally:
        dbs.close()
