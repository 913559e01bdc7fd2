"""The links container's arguments (nos.lab.linkkeeper.parse_nodes), as plain data."""

from __future__ import annotations

from pathlib import Path

import pytest

from nos.lab.linkkeeper import file_cuts, parse_nodes
from nos.lab.topology import load_topology

LAB = Path(__file__).resolve().parents[4] / "configs" / "labs" / "two-leaves.yaml"


def test_every_switch_needs_one_redis() -> None:
    topo = load_topology(LAB)
    assert parse_nodes(["leaf1=unix:///a.sock", "leaf2=redis://b:1"], topo) == {
        "leaf1": "unix:///a.sock", "leaf2": "redis://b:1"}
    with pytest.raises(ValueError, match="no Redis given for leaf2"):
        parse_nodes(["leaf1=unix:///a.sock"], topo)
    with pytest.raises(ValueError, match="no switch spine9"):
        parse_nodes(["leaf1=u", "leaf2=u", "spine9=u"], topo)
    with pytest.raises(ValueError, match="expected NAME=REDIS_URL"):
        parse_nodes(["leaf1"], topo)


def test_cuts_come_from_the_file_each_time(tmp_path: Path) -> None:
    path = tmp_path / "cuts.json"
    cuts = file_cuts(path)
    assert cuts() == frozenset()
    path.write_text('["leaf1:Ethernet508--leaf2:Ethernet508"]')
    assert cuts() == frozenset({"leaf1:Ethernet508--leaf2:Ethernet508"})
    assert file_cuts(None)() == frozenset()
