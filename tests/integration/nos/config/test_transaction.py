"""Transactions against a real Redis: all or nothing, validated whole, safe against a concurrent commit."""

from __future__ import annotations

import pytest

from nos.config import checkpoint
from nos.config.apply import load_config, reload_config
from nos.config.errors import ConfigValidationError
from nos.config.transaction import PatchError, apply_patch, commit
from nos.db import ConfigDBConnector, Databases
from nos.db.configdb import ConfigConflict
from nos.schema.dbconfig import CONFIG_DB

START = {"PORT": {"Ethernet0": {"lanes": "0,1,2,3", "speed": "100000", "mtu": "9100", "admin_status": "up"},
                  "Ethernet4": {"lanes": "4,5,6,7", "speed": "100000", "mtu": "9100"}},
         "VLAN": {"Vlan100": {"vlanid": "100"}}}


@pytest.fixture
def cdb(dbs: Databases) -> ConfigDBConnector:
    connector = ConfigDBConnector(dbs[CONFIG_DB])
    reload_config(connector, START)
    return connector


def test_a_patch_is_applied_and_bumps_the_generation(cdb: ConfigDBConnector) -> None:
    before = cdb.generation()
    result = apply_patch(cdb, [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"},
                               {"op": "add", "path": "/VLAN_MEMBER",
                                "value": {"Vlan100|Ethernet4": {"tagging_mode": "tagged"}}}])
    assert result.applied and result.generation == before + 1 == cdb.generation()
    assert cdb.get_entry("PORT", "Ethernet0")["mtu"] == "1500"
    assert cdb.get_entry("VLAN_MEMBER", "Vlan100|Ethernet4") == {"tagging_mode": "tagged"}


def test_one_bad_operation_applies_nothing(cdb: ConfigDBConnector) -> None:
    before = cdb.get_config()
    with pytest.raises(ConfigValidationError) as err:
        apply_patch(cdb, [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"},
                          {"op": "add", "path": "/VLAN/Vlan4095", "value": {"vlanid": "4095"}}])
    assert any(e.table == "VLAN" and e.key == "Vlan4095" for e in err.value.errors)
    with pytest.raises(PatchError):
        apply_patch(cdb, [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"},
                          {"op": "remove", "path": "/PORT/Ethernet8"}])
    assert cdb.get_config() == before


def test_a_dry_run_plans_without_applying(cdb: ConfigDBConnector) -> None:
    generation = cdb.generation()
    result = apply_patch(cdb, [{"op": "remove", "path": "/VLAN/Vlan100"}], dry_run=True)
    assert not result.applied and [(c.table, c.key, c.mode) for c in result.changes] == [("VLAN", "Vlan100", "delete")]
    assert result.as_patch(START) == [{"op": "remove", "path": "/VLAN/Vlan100"}]
    assert cdb.generation() == generation and cdb.get_keys("VLAN") == ["Vlan100"]


def test_a_commit_in_between_makes_the_transaction_rebuild_on_the_new_state(cdb: ConfigDBConnector) -> None:
    seen: list[str] = []

    def build(current: dict) -> dict:  # type: ignore[type-arg]
        seen.append(current["PORT"]["Ethernet4"]["mtu"])
        if len(seen) == 1:  # another writer commits after this transaction took its snapshot
            load_config(cdb, {"PORT": {"Ethernet4": {"mtu": "4000"}}})
        current["PORT"]["Ethernet0"]["mtu"] = "2000"
        return current

    assert commit(cdb, build).applied
    assert seen == ["9100", "4000"]
    assert cdb.get_entry("PORT", "Ethernet4")["mtu"] == "4000"  # the other writer's change survived
    assert cdb.get_entry("PORT", "Ethernet0")["mtu"] == "2000"


def test_a_stale_generation_applies_nothing(cdb: ConfigDBConnector) -> None:
    from nos.db.configdb import RowChange

    stale = cdb.generation() - 1
    with pytest.raises(ConfigConflict):
        cdb.apply([RowChange("PORT", "Ethernet0", "delete")], expect_generation=stale)
    assert cdb.get_keys("PORT") == ["Ethernet0", "Ethernet4"]


def test_checkpoint_and_rollback(cdb: ConfigDBConnector, tmp_path) -> None:  # type: ignore[no-untyped-def]
    saved = checkpoint.create(cdb, tmp_path, "before-change")
    assert saved.path == tmp_path / "checkpoints" / "before-change.cp.json" and saved.rows == 3
    apply_patch(cdb, [{"op": "remove", "path": "/VLAN"},
                      {"op": "replace", "path": "/PORT/Ethernet4/mtu", "value": "1500"}])
    dry = checkpoint.rollback(cdb, tmp_path, "before-change", dry_run=True)
    assert len(dry.changes) == 2 and not dry.applied
    assert checkpoint.rollback(cdb, tmp_path, "before-change").applied
    assert cdb.get_config() == START
    assert [c.name for c in checkpoint.list_all(tmp_path)] == ["before-change"]
    checkpoint.delete(tmp_path, "before-change")
    assert checkpoint.list_all(tmp_path) == []
    with pytest.raises(checkpoint.CheckpointError, match="no checkpoint 'before-change'"):
        checkpoint.rollback(cdb, tmp_path, "before-change")
    with pytest.raises(checkpoint.CheckpointError, match="checkpoint name"):
        checkpoint.create(cdb, tmp_path, "../escape")
