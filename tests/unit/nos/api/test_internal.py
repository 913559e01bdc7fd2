"""The rule on the switch's own tables (``NOS_*``): which writes change or name one."""

from __future__ import annotations

import pytest

from nos.api import internal

SAVED = {"PORT": {"Ethernet0": '{"mtu":"9100"}'}}


def test_internal_tables_are_the_nos_ones() -> None:
    assert internal.is_internal("NOS_ROCE_SAVED") and internal.is_internal("NOS_DAEMON_TABLE")
    assert not internal.is_internal("PORT") and not internal.is_internal("ROCE") and not internal.is_internal("nos_x")


def test_changed_internal_compares_only_internal_tables() -> None:
    before = {"PORT": {"Ethernet0": {"mtu": "9100"}}, "NOS_ROCE_SAVED": SAVED}
    assert internal.changed_internal(before, {**before, "PORT": {}}) is None
    assert internal.changed_internal(before, {"PORT": {}, "NOS_ROCE_SAVED": {"PORT": dict(SAVED["PORT"])}}) is None
    assert internal.changed_internal(before, {"PORT": {}}) == "NOS_ROCE_SAVED"
    assert internal.changed_internal(before, {**before, "NOS_X": {"a": {}}}) == "NOS_X"
    assert internal.changed_internal({"NOS_X": {}}, {}) is None  # an empty table is no table


@pytest.mark.parametrize(("patch", "named"), [
    ([{"op": "add", "path": "/NOS_ROCE_SAVED/PORT", "value": {}}], "NOS_ROCE_SAVED"),
    ([{"op": "remove", "path": "/NOS_X"}], "NOS_X"),
    ([{"op": "move", "from": "/NOS_X/a", "path": "/VLAN/Vlan1"}], "NOS_X"),
    ([{"op": "copy", "from": "/PORT/Ethernet0", "path": "/NOS_X/a"}], "NOS_X"),
    ([{"op": "copy", "from": "/NOS_X/a", "path": "/VLAN/Vlan1"}], None),
    ([{"op": "test", "path": "/NOS_X/a", "value": {}}], None),
    ([{"op": "replace", "path": "", "value": {}}], None),  # the root: left to changed_internal
    ([{"op": "replace", "path": "/PORT/NOS_X"}], None),
])
def test_named_in_patch(patch: list[dict[str, object]], named: str | None) -> None:
    assert internal.named_in_patch(patch) == named


def test_guarded_refuses_a_build_that_changes_an_internal_table() -> None:
    current = {"PORT": {}, "NOS_ROCE_SAVED": SAVED}
    assert internal.guarded(lambda c: {**c, "VLAN": {"Vlan1": {}}})(current)["VLAN"] == {"Vlan1": {}}
    with pytest.raises(internal.InternalTableWrite, match="table NOS_ROCE_SAVED is internal"):
        internal.guarded(lambda c: {"PORT": {}})(current)
    with pytest.raises(KeyError, match="NOS_X"):
        internal.guarded(lambda c: {**c, "NOS_X": {"a": {}}}, KeyError)(current)
