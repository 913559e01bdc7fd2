"""CLI with a key of CONFIG_DB that is not a row: config save and checkpoint refuse to lose it (naming
it), show runningconfiguration shows the rest and warns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.nos.cli.conftest import nos

pytestmark = pytest.mark.integration

REASON = "WRONGTYPE: CONFIG_DB PORT|Ethernet24 is a string, expected a hash"


@pytest.fixture
def garbage(sku_config, raw):
    raw(4).delete("PORT|Ethernet24")
    raw(4).set("PORT|Ethernet24", "notahash")
    return sku_config


def test_config_save_refuses_and_writes_nothing(run_dir: str, garbage, tmp_path: Path) -> None:
    target = tmp_path / "saved.json"
    out = nos(run_dir, "config", "save", str(target), code=1)  # the old code saved 127 ports, no word said
    assert REASON in out.output and "nos redis-cli -n 4 del 'PORT|Ethernet24'" in out.output
    assert not target.exists()
    out = nos(run_dir, "config", "checkpoint", "before", code=1)
    assert REASON in out.output


def test_show_running_configuration_shows_the_rest_and_warns(run_dir: str, garbage) -> None:
    out = nos(run_dir, "show", "runningconfiguration", "all")
    assert f"Warning: not shown, not a row: {REASON}" in out.stderr
    ports = json.loads(out.stdout)["PORT"]
    assert "Ethernet20" in ports and "Ethernet24" not in ports


def test_once_repaired_config_save_writes_every_port(run_dir: str, garbage, raw, tmp_path: Path) -> None:
    raw(4).delete("PORT|Ethernet24")
    nos(run_dir, "config", "save", str(tmp_path / "saved.json"))
    assert len(json.loads((tmp_path / "saved.json").read_text())["PORT"]) == 127
