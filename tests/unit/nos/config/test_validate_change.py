"""Validating a change gives what validating the whole configuration gives, restricted to what the
change introduced: checked on scenarios and on seeded random edits of a real SONiC configuration."""

from __future__ import annotations

import copy
import random

import pytest

from nos.config.files import read_config_file
from nos.config.transaction import plan_changes
from nos.config.validate_change import WHOLE_ABOVE, _whole, dependents, validate_change
from nos.schema.config import Config
from tests.conftest import SHARED

SAMPLE = SHARED / "configs" / "buildimage_yang-models_sample_config_db.EXTRACTED.json"


@pytest.fixture(scope="module")
def sample() -> Config:
    return read_config_file(SAMPLE)


def _both(before: Config, after: Config) -> tuple[set[str], set[str]]:
    changes = plan_changes(before, after)
    rows = [(c.table, c.key) for c in changes]
    fast = validate_change(before, after, rows)
    present = {(t, k) for t, k in rows if k in after.get(t, {})}
    whole = _whole(before, after, present, {t for t, _ in rows})
    return ({str(e) for e in fast.errors} | {f"w:{e}" for e in fast.warnings},
            {str(e) for e in whole.errors} | {f"w:{e}" for e in whole.warnings})


def _interface_row_with_address(config: Config) -> str:
    rows = config["INTERFACE"]
    return next(k for k in rows if "|" not in k and any(a.startswith(k + "|") for a in rows))


EDITS = {
    "bad mtu": lambda c: c["PORT"]["Ethernet0"].update(mtu="abc"),
    "delete a VLAN member's port": lambda c: c["PORT"].pop("Ethernet0"),
    "member of a missing port": lambda c: c["VLAN_MEMBER"].update({"Vlan111|Ethernet999": {"tagging_mode": "tagged"}}),
    "portchannel member that is a VLAN member":
        lambda c: c["PORTCHANNEL_MEMBER"].update({"PortChannel0003|Ethernet3": {}}),
    "address without its interface row": lambda c: c["INTERFACE"].update({"Ethernet7|10.9.9.0/31": {}}),
    "interface row removed under its address": lambda c: c["INTERFACE"].pop(_interface_row_with_address(c)),
    "shared lanes": lambda c: c["PORT"]["Ethernet1"].update(lanes=c["PORT"]["Ethernet0"]["lanes"]),
    "vlan 4095": lambda c: c["VLAN"].update({"Vlan4095": {"vlanid": "4095"}}),
    "buffer model": lambda c: c["DEVICE_METADATA"]["localhost"].update(buffer_model="traditional"),
    "delete a portchannel with members": lambda c: c["PORTCHANNEL"].pop("PortChannel0003"),
}


def _edit(config: Config, edit: str) -> Config:
    after = copy.deepcopy(config)
    EDITS[edit](after)
    return after


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_scenarios_match_whole_validation(sample: Config, edit: str) -> None:
    fast, whole = _both(sample, _edit(sample, edit))
    assert fast == whole
    if edit not in ("buffer model",):
        assert fast, f"{edit}: expected a problem to be found"


def test_random_edits_match_whole_validation(sample: Config) -> None:
    rng = random.Random(4)
    values = ["abc", "9100", "up", "down", "", "100000", "Ethernet0", "Vlan111", "1,2", "tagged", "-1"]
    tables = sorted(sample)
    for _ in range(150):
        after = copy.deepcopy(sample)
        for _ in range(rng.randint(1, 3)):
            table = rng.choice(tables)
            rows = after.get(table)
            if not rows:
                continue
            key = rng.choice(sorted(rows))
            action = rng.random()
            if action < 0.3:
                del rows[key]
            elif action < 0.5:
                rows[key + rng.choice(["0", "|x", "9"])] = copy.deepcopy(rows[key])
            elif rows[key]:
                rows[key][rng.choice(sorted(rows[key]))] = rng.choice(values)
        after = {t: r for t, r in after.items() if r}
        fast, whole = _both(sample, after)
        assert fast == whole


def test_many_rows_are_validated_whole(sample: Config) -> None:
    after = copy.deepcopy(sample)
    for i in range(WHOLE_ABOVE + 1):
        after.setdefault("VLAN", {})[f"Vlan{i + 1000}"] = {"vlanid": str(i + 1000)}
    after["VLAN"]["Vlan1000"]["vlanid"] = "999"
    fast, whole = _both(sample, after)
    assert fast == whole and any("Vlan1000" in e for e in fast)


def test_dependents_come_from_the_schema() -> None:
    assert {"VLAN_MEMBER", "PORTCHANNEL_MEMBER", "INTERFACE", "BUFFER_PG"} <= dependents()["PORT"]
    assert "VLAN_MEMBER" in dependents()["VLAN"]
