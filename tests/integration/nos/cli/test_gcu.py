"""``nos config apply-patch|replace|checkpoint|rollback|list-checkpoints|delete-checkpoint`` against a real
Redis: GCU's progress lines, all-or-nothing, dry runs, and checkpoints in the run directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nos.db import ConfigDBConnector
from tests.integration.nos.cli.conftest import config_dump, nos

pytestmark = pytest.mark.integration


def _write(path: Path, document: object) -> str:
    path.write_text(json.dumps(document))
    return str(path)


PATCH = [  # as in GCU, a table that does not exist yet is added whole
    {"op": "add", "path": "/VLAN", "value": {"Vlan100": {"vlanid": "100"}}},
    {"op": "add", "path": "/VLAN_MEMBER", "value": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"}}},
    {"op": "replace", "path": "/PORT/Ethernet4/mtu", "value": "1500"},
]


def test_apply_patch_prints_gcu_progress_and_applies_everything(sku_config, raw, run_dir, tmp_path):
    result = nos(run_dir, "config", "apply-patch", _write(tmp_path / "p.json", PATCH))
    lines = result.output.splitlines()
    assert lines[0] == "Patch Applier: localhost: Patch application starting."
    assert lines[1] == f"Patch Applier: localhost: Patch: {json.dumps(PATCH)}"
    assert "Patch Applier: The localhost patch was converted into 3 changes:" in lines
    assert "Patch Applier: localhost patch application completed." in lines
    assert lines[-1] == "Patch applied successfully."
    cdb = raw(4)
    assert cdb.hgetall("VLAN|Vlan100") == {"vlanid": "100"}
    assert cdb.hgetall("VLAN_MEMBER|Vlan100|Ethernet0") == {"tagging_mode": "untagged"}
    assert cdb.hget("PORT|Ethernet4", "mtu") == "1500"


@pytest.mark.parametrize(("bad", "message"), [
    ({"op": "add", "path": "/VLAN_MEMBER/Vlan100|Ethernet999", "value": {"tagging_mode": "tagged"}},
     "VLAN_MEMBER|Vlan100|Ethernet999"),  # refused by the validation: the port does not exist
    ({"op": "replace", "path": "/PORT/Ethernet8/mtu", "value": "99999"}, "PORT|Ethernet8: field 'mtu' = '99999'"),
    ({"op": "remove", "path": "/VLAN/Vlan999"}, "operation 3 (remove /VLAN/Vlan999): no row 'VLAN|Vlan999'"),
    ({"op": "move", "path": "/VLAN/Vlan7"}, "'move' needs a 'from' pointer"),
])
def test_apply_patch_is_all_or_nothing(sku_config, raw, run_dir, tmp_path, bad, message):
    before = config_dump(raw)
    result = nos(run_dir, "config", "apply-patch", _write(tmp_path / "p.json", [*PATCH, bad]), code=2)
    assert "Failed to apply patch due to:" in result.output and message in result.output
    assert result.output.rstrip().endswith("CONFIG_DB unchanged.")
    assert config_dump(raw) == before


def test_apply_patch_dry_run_and_unreadable_patches(sku_config, raw, run_dir, tmp_path):
    before = config_dump(raw)
    result = nos(run_dir, "config", "apply-patch", "-d", "-v", _write(tmp_path / "p.json", PATCH))
    assert result.output.startswith("** DRY RUN EXECUTION **\n")
    assert "Patch Applier: localhost: dry run: 3 changes not applied." in result.output
    assert '  * [{"op": "add", "path": "/VLAN/Vlan100", "value": {"vlanid": "100"}}]' in result.output
    (tmp_path / "bad.json").write_text("[{")
    assert "bad.json: invalid JSON at line 1" in nos(run_dir, "config", "apply-patch", str(tmp_path / "bad.json"),
                                                     code=2).output
    assert "a JSON Patch is a list" in nos(run_dir, "config", "apply-patch", _write(tmp_path / "o.json", {}),
                                            code=2).output
    assert config_dump(raw) == before


def test_replace_changes_only_what_differs(sku_config, dbs, raw, run_dir, tmp_path):
    target, _ = ConfigDBConnector(dbs["CONFIG_DB"]).snapshot()
    target["PORT"]["Ethernet0"]["mtu"] = "4096"
    target["VLAN"] = {"Vlan300": {"vlanid": "300"}}
    del target["PORT_QOS_MAP"]["Ethernet8"]
    result = nos(run_dir, "config", "replace", _write(tmp_path / "t.json", target))
    assert "Config Replacer: Config replacement starting." in result.output
    assert "Patch Applier: The localhost patch was converted into 3 changes:" in result.output
    assert result.output.splitlines()[-1] == "Config replaced successfully."
    cdb = raw(4)
    assert cdb.hget("PORT|Ethernet0", "mtu") == "4096" and cdb.exists("VLAN|Vlan300")
    assert not cdb.exists("PORT_QOS_MAP|Ethernet8")


def test_checkpoint_rollback_list_delete(sku_config, raw, run_dir):
    result = nos(run_dir, "config", "checkpoint", "before-vlans")
    assert result.output.splitlines()[-1] == "Checkpoint created successfully."
    assert (Path(run_dir) / "checkpoints" / "before-vlans.cp.json").exists()
    nos(run_dir, "config", "vlan", "add", "100")
    nos(run_dir, "config", "vlan", "member", "add", "100", "Ethernet0")
    after_vlans = config_dump(raw)

    result = nos(run_dir, "config", "rollback", "before-vlans", "--dry-run")
    assert "Patch Applier: The localhost patch was converted into 2 changes:" in result.output
    assert config_dump(raw) == after_vlans

    result = nos(run_dir, "config", "rollback", "before-vlans")
    lines = result.output.splitlines()
    assert lines[0] == "Config Rollbacker: Config rollbacking starting."
    assert lines[-2:] == ["Config Rollbacker: Config rollbacking completed.", "Config rolled back successfully."]
    assert not raw(4).keys("VLAN*")

    nos(run_dir, "config", "checkpoint", "second")
    assert json.loads(nos(run_dir, "config", "list-checkpoints").output) in (
        ["second", "before-vlans"], ["before-vlans", "second"])  # same second: name order
    listed = json.loads(nos(run_dir, "config", "list-checkpoints", "--time").output)
    assert {entry["name"] for entry in listed} == {"second", "before-vlans"} and all("T" in e["time"] for e in listed)

    assert nos(run_dir, "config", "delete-checkpoint", "second").output.endswith("Checkpoint deleted successfully.\n")
    assert json.loads(nos(run_dir, "config", "list-checkpoints").output) == ["before-vlans"]


def test_checkpoint_refusals(sku_config, raw, run_dir):
    before = config_dump(raw)
    assert "Checkpoint 'nope' does not exist" in nos(run_dir, "config", "rollback", "nope", code=2).output
    assert "no checkpoint 'nope'" in nos(run_dir, "config", "delete-checkpoint", "nope", code=2).output
    assert "checkpoint name '../x'" in nos(run_dir, "config", "checkpoint", "../x", code=2).output
    assert config_dump(raw) == before


def test_save_load_reload_still_work(sku_config, raw, run_dir, tmp_path):
    saved = tmp_path / "saved.json"
    nos(run_dir, "config", "save", str(saved))
    nos(run_dir, "config", "vlan", "add", "100")
    nos(run_dir, "config", "reload", str(saved))
    assert not raw(4).exists("VLAN|Vlan100")
    nos(run_dir, "config", "load", _write(tmp_path / "v.json", {"VLAN": {"Vlan5": {"vlanid": "5"}}}))
    assert raw(4).hgetall("VLAN|Vlan5") == {"vlanid": "5"}
