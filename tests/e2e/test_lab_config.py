"""A lab's generated startup configs on real switches: leaf1 and spine1 of configs/labs/leaf-spine.yaml
boot from ``nos lab config`` output, install the static ECMP routes, and forward a packet between
leaves the way the plan says (leaf1 -> one of both spines, spine1 -> leaf2, each next hop the peer's
router MAC)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import RunningSwitch, nos, start_switch

pytestmark = pytest.mark.e2e
LAB = Path(__file__).resolve().parents[2] / "configs" / "labs" / "leaf-spine.yaml"


@pytest.fixture(scope="module")
def lab_switches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, RunningSwitch]]:
    base = tmp_path_factory.mktemp("lab")
    started: dict[str, RunningSwitch] = {}
    try:
        for node in ("leaf1", "spine1"):
            nos("lab", "config", str(LAB), node, "-o", str(base / f"{node}.json"))
            started[node] = start_switch(base / node, "--gnmi-port", "0", "--config", str(base / f"{node}.json"))
        yield started
    finally:
        for sw in started.values():
            sw.close()
            nos("down", "--run-dir", str(sw.run_dir), check=False)


def trace(sw: RunningSwitch, *args: str) -> dict[str, object]:
    out = sw.nos("trace", "packet", "--json", *args)
    doc = json.loads(out.stdout)
    return doc.get("result", doc)  # type: ignore[no-any-return]


def test_leaf_routes_remote_host_subnets_over_both_spines(lab_switches: dict[str, RunningSwitch]) -> None:
    routes = lab_switches["leaf1"].nos("show", "ip", "route").stdout
    block = routes[routes.index("10.2.0.0/24"):]
    assert "via 10.0.0.1, Ethernet248" in block.splitlines()[0]
    assert "via 10.0.0.3, Ethernet252" in block.splitlines()[1]


def test_a_packet_goes_leaf1_to_a_spine_and_spine1_to_leaf2(lab_switches: dict[str, RunningSwitch]) -> None:
    leaf = trace(lab_switches["leaf1"], "--in-port", "Ethernet0", "--dst-ip", "10.2.0.3", "--dscp", "26")
    assert leaf["action"] == "forward"
    spine_macs = {"Ethernet248": "02:5A:00:00:01:00", "Ethernet252": "02:5A:00:00:02:00"}
    assert leaf["egress_port"] in spine_macs
    assert str(leaf["out_dst_mac"]).upper() == spine_macs[str(leaf["egress_port"])]
    spine = trace(lab_switches["spine1"], "--in-port", "Ethernet0", "--dst-mac", "02:5a:00:00:01:00",
                  "--dst-ip", "10.2.0.3", "--dscp", "26")
    assert spine["action"] == "forward"
    assert spine["egress_port"] == "Ethernet4"            # leaf2's uplink to spine1
    assert str(spine["out_dst_mac"]).upper() == "02:5A:00:00:04:00"
