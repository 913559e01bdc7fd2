"""Issue 17's acceptance on real switches: configs/labs/leaf-spine.yaml (6 switches, 32 hosts) comes up,
an all-to-all among the 32 hosts runs across the fabric (one model over every switch's exported
tables), spreads over both spines, loses nothing on the lossless RoCE class, and every switch's own
``show queue counters`` shows its share afterwards."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import nos

pytestmark = pytest.mark.e2e
LABS = Path(__file__).resolve().parents[2] / "configs" / "labs"
SPINES = ("spine1", "spine2")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NOS_LABS_DIR", str(tmp_path_factory.mktemp("labs")))
        mp.delenv("NOS_RUN_DIR", raising=False)
        nos("lab", "up", str(LABS / "leaf-spine.yaml"), timeout=300)
        try:
            yield
        finally:
            nos("lab", "down", check=False, timeout=120)


@pytest.fixture(scope="module")
def all_to_all(lab: None) -> dict[str, object]:
    doc: dict[str, object] = json.loads(nos("lab", "traffic", "run", "all-to-all", "--json", timeout=300).stdout)
    return doc


def uc3_bytes(node: str, port: str) -> int:
    out = nos("--node", node, "show", "queue", "counters").stdout
    match = re.search(rf"^\s*{port}\s+UC3\s+[\d,]+\s+([\d,]+)", out, re.MULTILINE)
    assert match, out[:2000]
    return int(match.group(1).replace(",", ""))


def test_all_to_all_among_the_32_hosts_finishes_without_loss(all_to_all: dict[str, object]) -> None:
    assert all_to_all["flows"] == 32 * 31 * 8 and all_to_all["finished"] == 32 * 31 * 8  # 8 queue pairs a peer
    assert all_to_all["dropped_bytes"] == 0 and all_to_all["delivered_bytes"] == all_to_all["bytes"]


def test_it_spreads_over_both_spines(all_to_all: dict[str, object]) -> None:
    switches = {s["switch"]: s for s in all_to_all["switches"]}  # type: ignore[attr-defined]
    spine1, spine2 = (switches[s]["tx_bytes"] for s in SPINES)
    crossing = 32 * 24 * 1_000_000  # the flows between leaves, each 1 MB of payload
    assert spine1 + spine2 >= crossing
    assert abs(spine1 - spine2) <= 0.1 * max(spine1, spine2), (spine1, spine2)


def test_every_switch_shows_its_share(all_to_all: dict[str, object]) -> None:
    # leaf1's host port Ethernet0 received from all 31 others; each spine sent to leaf1 on Ethernet0
    assert uc3_bytes("leaf1", "Ethernet0") >= 31 * 1_000_000
    for spine in SPINES:
        assert uc3_bytes(spine, "Ethernet0") > 0
    for leaf in ("leaf2", "leaf3", "leaf4"):
        assert uc3_bytes(leaf, "Ethernet248") + uc3_bytes(leaf, "Ethernet252") >= 8 * 24 * 1_000_000


def test_a_cut_spine_link_moves_only_the_flows_that_used_it(all_to_all: dict[str, object]) -> None:
    cut = ("leaf1:Ethernet248", "spine1:Ethernet0")
    nos("lab", "link", "down", *cut)
    try:
        after = json.loads(nos("lab", "traffic", "run", "all-to-all", "--json", timeout=300).stdout)
    finally:
        nos("lab", "link", "up", *cut)
    links = {(li["a"], li["b"]): li for li in after["links"]}
    assert links[cut]["a_tx_bytes"] == links[cut]["b_tx_bytes"] == 0           # nothing crosses the cut
    # static routes, no routing protocol: leaf1 drops its dark next hop, but spine1's one route to
    # leaf1 is over the dark port, so the flows the other leaves hash to spine1 for leaf1 die there
    blackholed = after["unroutable"].get("egress_port_down", 0)
    assert 0 < blackholed < 3 * 8 * 8 * 8 and set(after["unroutable"]) == {"egress_port_down"}
    assert all(e.split("->")[1].startswith("leaf1-") and not e.startswith("leaf1-")
               for e in after["unroutable_examples"])
    assert after["finished"] == after["flows"] - blackholed and after["dropped_bytes"] == 0
    before = {(li["a"], li["b"]): li for li in all_to_all["links"]}  # type: ignore[attr-defined]
    # leaf2 <-> leaf3 traffic never touched leaf1: its links carry what they carried
    for a, b in (("leaf2:Ethernet248", "spine1:Ethernet4"), ("leaf3:Ethernet252", "spine2:Ethernet8")):
        assert links[(a, b)]["a_tx_bytes"] >= before[(a, b)]["a_tx_bytes"] * 0.5
    up1 = links[("leaf1:Ethernet252", "spine2:Ethernet0")]["a_tx_bytes"]
    assert up1 >= 8 * 24 * 1_000_000   # all of leaf1's traffic to the other leaves now leaves by spine2
