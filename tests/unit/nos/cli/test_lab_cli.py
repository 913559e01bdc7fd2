"""``nos lab check`` / ``nos lab config``: every problem named with exit 2, the switches listed, and
the generated startup config written."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from nos.cli.main import cli

LABS = Path(__file__).resolve().parents[4] / "configs" / "labs"


def test_check_lists_the_leaf_spine_switches() -> None:
    out = CliRunner().invoke(cli, ["lab", "check", str(LABS / "leaf-spine.yaml"), "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    roles = {row["node"]: row["role"] for row in doc["switches"]}
    assert roles == {"spine1": "spine", "spine2": "spine", "leaf1": "leaf", "leaf2": "leaf", "leaf3": "leaf",
                     "leaf4": "leaf"}
    assert doc["hosts"] == 32 and doc["links"] == 8
    assert len({row["router_mac"] for row in doc["switches"]}) == 6


def test_check_names_every_problem_and_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntopology:\n  nodes: {a: {}, b: {}}\n  links:\n"
                   "    - endpoints: [\"a:Ethernet0\", \"c:Ethernet0\"]\n"
                   "    - endpoints: [\"a:Ethernet1\", \"b:Ethernet0\"]\n")
    out = CliRunner().invoke(cli, ["lab", "check", str(bad)])
    assert out.exit_code == 2
    assert "links[0].endpoints[1]: c: no such node" in out.output
    assert "links[1].endpoints[0]" in out.output and "Ethernet1" in out.output


def test_config_writes_a_startup_config_for_one_node(tmp_path: Path) -> None:
    target = tmp_path / "leaf1.json"
    out = CliRunner().invoke(cli, ["lab", "config", str(LABS / "leaf-spine.yaml"), "leaf1", "-o", str(target)])
    assert out.exit_code == 0, out.output
    doc = json.loads(target.read_text())
    assert doc["DEVICE_METADATA"]["localhost"]["hostname"] == "leaf1"
    assert doc["STATIC_ROUTE"]["10.2.0.0/24"]["ifname"] == "Ethernet248,Ethernet252"


def test_config_refuses_an_unknown_node() -> None:
    out = CliRunner().invoke(cli, ["lab", "config", str(LABS / "leaf-spine.yaml"), "leaf9"])
    assert out.exit_code == 2
    assert "leaf9: no such switch" in out.output
