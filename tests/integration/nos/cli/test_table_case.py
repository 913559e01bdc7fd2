"""Table names are case-exact on the CLI's write surfaces: ``config load``, ``config reload`` and
``config apply-patch`` of a table ``port`` write that table (kept, reported as not acted on) and never
touch ``PORT``; ``config save`` writes both back, and the saved file boots (reloads) again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nos.config.apply import reload_config
from nos.config.files import read_config_file
from nos.db import ConfigDBConnector
from nos.runtime.startup import choose_startup
from tests.integration.nos.cli.conftest import nos

pytestmark = pytest.mark.integration

LOWER = {"port": {"Ethernet0": {"mtu": "1500"}}}
HINT = "port: table names are case-exact: this is another table than PORT (kept, not acted on)"


def _port_rows(raw) -> dict[str, dict[str, str]]:
    client = raw(4)
    return {key: client.hgetall(key) for key in client.keys("PORT|*")}


def _write(tmp_path: Path, name: str, document: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def test_config_load_of_a_lower_case_table_leaves_port_alone(sku_config, raw, run_dir, tmp_path):
    before = _port_rows(raw)
    out = nos(run_dir, "config", "load", _write(tmp_path, "port.json", LOWER)).output
    assert "Kept but not acted on by this switch: port" in out and HINT in out
    assert _port_rows(raw) == before  # once: PORT|Ethernet0 replaced by {mtu: 1500}
    assert raw(4).hgetall("port|Ethernet0") == {"mtu": "1500"}


def test_config_reload_keeps_a_lower_case_table_beside_port(sku_config, raw, run_dir, tmp_path):
    before = _port_rows(raw)
    whole = {**ConfigDBConnector(sku_config["CONFIG_DB"]).get_config(), **LOWER}
    out = nos(run_dir, "config", "reload", _write(tmp_path, "whole.json", whole)).output
    assert "Kept but not acted on by this switch: port" in out
    assert _port_rows(raw) == before and raw(4).hgetall("port|Ethernet0") == {"mtu": "1500"}


@pytest.mark.parametrize("patch", [
    [{"op": "add", "path": "/port", "value": {"Ethernet0": {"mtu": "1500"}}}],
    [{"op": "add", "path": "/port", "value": {}}, {"op": "add", "path": "/port/Ethernet0", "value": {"mtu": 1500}}],
])
def test_apply_patch_on_a_lower_case_table_leaves_port_alone(sku_config, raw, run_dir, tmp_path, patch):
    before = _port_rows(raw)
    nos(run_dir, "config", "apply-patch", _write(tmp_path, "patch.json", patch))
    assert _port_rows(raw) == before and raw(4).hgetall("port|Ethernet0") == {"mtu": "1500"}


def test_config_save_writes_both_tables_and_the_saved_file_boots_again(sku_config, raw, run_dir, tmp_path, dbs):
    before = _port_rows(raw)
    nos(run_dir, "config", "load", _write(tmp_path, "port.json", LOWER))
    saved = tmp_path / "saved.json"
    nos(run_dir, "config", "save", str(saved))
    config = read_config_file(saved)
    assert config["port"] == {"Ethernet0": {"mtu": "1500"}}
    assert config["PORT"]["Ethernet0"]["lanes"] == "0,1,2,3"
    startup = choose_startup(None, saved, tmp_path / "none.json")  # what nos up reads, then reloads
    raw(4).flushdb()
    result = reload_config(ConfigDBConnector(dbs["CONFIG_DB"]), startup.config)
    assert result.not_acted_on == ["port"]
    assert _port_rows(raw) == before
