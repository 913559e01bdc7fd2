"""The RoCE intent against the hand-written SONiC configuration it stands for, on two whole
NOS-SIM-128x400G switches.

Switch A boots with the SKU's defaults and gets ``ROCE|global`` (lossless, nvidia) by ``nos config load``,
so the intent manager in cfgmgrd expands it. Switch B boots with the SKU's defaults plus
``tests/data/roce/nvidia_lossless_128x400G.json``, NVIDIA's RoCE defaults written by hand in SONiC's
tables (the fragment's per-port tables replace the SKU's, its other tables add rows). Then:
CONFIG_DB is the same on both (but for A's ``ROCE`` and ``NOS_ROCE_SAVED``), the lossless check finds
no issue on either, and ASIC_DB holds the same QoS, buffer, port, queue and PG objects with the same
attributes (OIDs normalised) for all 128 ports. Turning the intent off gives back the defaults.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from nos.config.files import read_config_file
from nos.paths import skus_dir
from tests.conftest import wait_until
from tests.e2e.conftest import RunningSwitch, nos, start_switch

pytestmark = pytest.mark.e2e

SKU = "NOS-SIM-128x400G"
HAND_WRITTEN = Path(__file__).resolve().parents[1] / "data" / "roce" / "nvidia_lossless_128x400G.json"
REPLACED = ("PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE", "PFC_WD", "CABLE_LENGTH")
INTENT_TABLES = ("ROCE", "NOS_ROCE_SAVED")
COMPARED_TYPES = ("QOS_MAP", "SCHEDULER", "WRED", "BUFFER_POOL", "BUFFER_PROFILE", "PORT", "QUEUE",
                  "INGRESS_PRIORITY_GROUP", "SCHEDULER_GROUP", "SWITCH")
OID = re.compile(r"oid:0x[0-9a-f]+")
NULL_OID = "oid:0x0"


def hand_written_config() -> dict:
    config = read_config_file(skus_dir() / SKU / "config_db.json")
    for table, rows in read_config_file(HAND_WRITTEN).items():
        config[table] = dict(rows) if table in REPLACED else {**config.get(table, {}), **rows}
    return config


@pytest.fixture(scope="module")
def switches(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("roce")
    (base / "b.json").write_text(json.dumps(hand_written_config()))
    a = start_switch(base / "a")
    b = start_switch(base / "b", "--config", str(base / "b.json"))
    yield a, b
    for sw in (a, b):
        sw.close()
        nos("down", "--run-dir", str(sw.run_dir), check=False)


def config_db(sw: RunningSwitch, skip: tuple[str, ...] = ()) -> dict[str, dict[str, dict[str, str]]]:
    client = sw.db(4)
    out: dict[str, dict[str, dict[str, str]]] = {}
    for name in client.keys("*|*"):
        table, _, key = name.partition("|")
        if table not in skip:
            out.setdefault(table, {})[key] = client.hgetall(name)
    return out


def diff(a: dict, b: dict) -> list[str]:
    lines = []
    for table in sorted(set(a) | set(b)):
        for key in sorted(set(a.get(table, {})) | set(b.get(table, {}))):
            left, right = a.get(table, {}).get(key), b.get(table, {}).get(key)
            if left != right:
                lines.append(f"{table}|{key}: A={left} B={right}")
    return lines


# ---- ASIC_DB, OIDs normalised ---------------------------------------------------------------------------

def asic_objects(sw: RunningSwitch) -> dict[str, tuple[str, dict[str, str]]]:
    """oid -> (object type, attributes) for the compared types."""
    client = sw.db(1)
    names = [k for t in COMPARED_TYPES for k in client.keys(f"ASIC_STATE:SAI_OBJECT_TYPE_{t}:oid:*")]
    pipe = client.pipeline()
    for name in names:
        pipe.hgetall(name)
    out = {}
    for name, attrs in zip(names, pipe.execute(), strict=True):
        _, kind, oid = name.split(":", 2)
        out[oid] = (kind.removeprefix("SAI_OBJECT_TYPE_"), attrs)
    return out


def object_names(sw: RunningSwitch) -> dict[str, str]:
    """oid -> a stable name for ports, queues and PGs (COUNTERS_DB's name maps)."""
    client = sw.db(2)
    names = {}
    for table, kind in (("COUNTERS_PORT_NAME_MAP", "PORT"), ("COUNTERS_QUEUE_NAME_MAP", "QUEUE"),
                        ("COUNTERS_PG_NAME_MAP", "PG")):
        names.update({oid: f"{kind}:{name}" for name, oid in client.hgetall(table).items()})
    return names


def normalised(sw: RunningSwitch) -> Counter[str]:
    """Every compared object as its type (or name) and attributes, each OID replaced by what it names:
    a port, queue or PG by its name, any other object by its own type and attributes."""
    objects, names = asic_objects(sw), object_names(sw)
    memo: dict[str, str] = {}
    visiting: set[str] = set()

    def label(oid: str) -> str:
        if oid in names:
            return names[oid]
        if oid not in objects:
            return "oid"
        if oid in visiting:
            return objects[oid][0]
        if oid not in memo:
            visiting.add(oid)
            kind, attrs = objects[oid]
            memo[oid] = kind + render(attrs)
            visiting.discard(oid)
        return memo[oid]

    def render(attrs: dict[str, str]) -> str:
        return json.dumps(sorted((k, OID.sub(lambda m: label(m.group(0)), v)) for k, v in attrs.items()
                                 if v != NULL_OID))  # a null reference is the attribute's SAI default

    return Counter(f"{names.get(oid, kind)}{render(attrs)}" for oid, (kind, attrs) in objects.items())


# ---- the tests (in order, on the same two switches) ---------------------------------------------------

@pytest.fixture(scope="module")
def defaults(switches) -> dict:
    return config_db(switches[0])


def test_config_db_equals_the_hand_written_configuration(switches, defaults, tmp_path: Path) -> None:
    a, b = switches
    intent = tmp_path / "intent.json"
    intent.write_text(json.dumps({"ROCE": {"global": {"profile": "nvidia", "mode": "lossless"}}}))
    a.nos("config", "load", str(intent))  # written like any config: the manager in cfgmgrd expands it
    want = config_db(b)
    try:
        wait_until(lambda: not diff(config_db(a, INTENT_TABLES), want), timeout=30, interval=0.2)
    finally:
        assert diff(config_db(a, INTENT_TABLES), want) == []
    for sw, args in ((a, ()), (b, ("--profile", "nvidia"))):
        report = json.loads(sw.nos("roce", "check", "--json", *args).stdout)
        assert report["lossless"] and report["ports"] == 128 and report["issues"] == []


def test_asic_db_equals_the_hand_written_configurations(switches) -> None:
    a, b = switches
    try:
        wait_until(lambda: normalised(a) == normalised(b), timeout=60, interval=0.5)
    except AssertionError:
        only_a, only_b = normalised(a) - normalised(b), normalised(b) - normalised(a)
        assert (sorted(only_a)[:5], sorted(only_b)[:5]) == ([], [])
    ports = [o for o in normalised(a) if o.startswith("PORT:Ethernet")]
    assert len(ports) == 128 and all("SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP" in p for p in ports)


def test_turning_the_intent_off_restores_the_defaults(switches, defaults) -> None:
    a, _ = switches
    a.nos("config", "roce", "disable")
    assert diff(config_db(a), defaults) == []
