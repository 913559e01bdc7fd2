"""JSON Patch on a config_db.json document and row planning (pure)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nos.config.transaction import PatchError, apply_json_patch, patch_rows, plan_changes
from nos.db.configdb import RowChange

BASE = {
    "PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up"}, "Ethernet4": {"mtu": "9100"}},
    "INTERFACE": {"Ethernet0|10.0.0.0/31": {}},
}


def test_replace_a_field_leaves_the_rest_and_the_input_alone() -> None:
    out = apply_json_patch(BASE, [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"}])
    assert out["PORT"]["Ethernet0"] == {"mtu": "1500", "admin_status": "up"}
    assert BASE["PORT"]["Ethernet0"]["mtu"] == "9100"


def test_numbers_and_booleans_become_strings_as_in_config_db_json() -> None:
    out = apply_json_patch(BASE, [{"op": "add", "path": "/PORT/Ethernet4/mtu", "value": 1500},
                                  {"op": "add", "path": "/VLAN", "value": {"Vlan100": {"vlanid": 100}}}])
    assert out["PORT"]["Ethernet4"]["mtu"] == "1500"
    assert out["VLAN"] == {"Vlan100": {"vlanid": "100"}}


def test_a_slash_in_a_key_is_escaped_as_in_rfc_6901() -> None:
    out = apply_json_patch(BASE, [{"op": "remove", "path": "/INTERFACE/Ethernet0|10.0.0.0~131"}])
    assert "INTERFACE" not in out  # the table emptied: dropped, as CONFIG_DB has no empty tables


def test_a_missing_table_is_named() -> None:
    with pytest.raises(PatchError) as err:
        apply_json_patch(BASE, [{"op": "add", "path": "/VLAN/Vlan100", "value": {"vlanid": "100"}}])
    assert err.value.index == 0 and "no table 'VLAN'" in str(err.value)


def test_a_missing_row_and_field_are_named() -> None:
    with pytest.raises(PatchError, match=r"operation 1 \(remove /PORT/Ethernet8\): no row 'PORT\|Ethernet8'"):
        apply_json_patch(BASE, [{"op": "test", "path": "/PORT/Ethernet0/mtu", "value": "9100"},
                                {"op": "remove", "path": "/PORT/Ethernet8"}])
    with pytest.raises(PatchError, match="row 'PORT|Ethernet4' has no field 'fec'"):
        apply_json_patch(BASE, [{"op": "remove", "path": "/PORT/Ethernet4/fec"}])


@pytest.mark.parametrize(("ops", "says"), [
    ({"op": "add"}, "list of operations"),
    ([{"op": "frob", "path": "/PORT"}], "'op' must be one of"),
    ([{"op": "add", "path": "PORT/Ethernet0"}], "JSON pointer"),
    ([{"op": "replace", "path": "/PORT/Ethernet0/mtu"}], "needs a 'value'"),
    ([{"op": "move", "path": "/PORT/Ethernet8"}], "needs a 'from'"),
    ([{"op": "test", "path": "/PORT/Ethernet0/mtu", "value": "1"}], "test failed"),
    ([{"op": "add", "path": "/PORT/Ethernet0/mtu", "value": {"x": "1"}}], "field 'mtu'"),
    ([{"op": "replace", "path": "/PORT", "value": ["a"]}], "table"),
])
def test_bad_patches_are_refused_with_the_reason(ops: object, says: str) -> None:
    with pytest.raises(PatchError, match=says):
        apply_json_patch(BASE, ops)  # type: ignore[arg-type]


def test_plan_changes_replaces_changed_rows_and_deletes_missing_ones() -> None:
    target = {"PORT": {"Ethernet0": {"mtu": "1500", "admin_status": "up"}}, "VLAN": {"Vlan5": {"vlanid": "5"}}}
    assert plan_changes(BASE, target) == [
        RowChange("PORT", "Ethernet0", "replace", {"mtu": "1500", "admin_status": "up"}),
        RowChange("VLAN", "Vlan5", "replace", {"vlanid": "5"}),
        RowChange("INTERFACE", "Ethernet0|10.0.0.0/31", "delete"),
        RowChange("PORT", "Ethernet4", "delete"),
    ]
    assert plan_changes(BASE, BASE) == []


def test_plan_changes_with_the_rows_a_patch_names_compares_only_those() -> None:
    ops = [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"},
           {"op": "remove", "path": "/INTERFACE/Ethernet0|10.0.0.0~131"}]
    target = apply_json_patch(BASE, ops)
    assert plan_changes(BASE, target, patch_rows(ops)) == plan_changes(BASE, target) == [
        RowChange("PORT", "Ethernet0", "replace", {"mtu": "1500", "admin_status": "up"}),
        RowChange("INTERFACE", "Ethernet0|10.0.0.0/31", "delete"),
    ]


def test_plan_changes_plans_in_full_when_the_target_differs_outside_the_rows_named() -> None:
    target = {**BASE, "VLAN": {"Vlan5": {"vlanid": "5"}}}  # not in the hint: not to be missed
    assert plan_changes(BASE, target, {"PORT": {"Ethernet0"}}) == [RowChange("VLAN", "Vlan5", "replace",
                                                                             {"vlanid": "5"})]


_KEYS = st.sampled_from(["Ethernet0", "Ethernet4", "Ethernet8"])
_OPS = st.one_of(
    st.builds(lambda k, v: {"op": "add", "path": f"/PORT/{k}/mtu", "value": v}, _KEYS,
              st.sampled_from(["1500", "9100"])),
    st.builds(lambda k: {"op": "add", "path": f"/PORT/{k}", "value": {"mtu": "9100"}}, _KEYS),
    st.builds(lambda k: {"op": "remove", "path": f"/PORT/{k}"}, _KEYS),
    st.builds(lambda a, b: {"op": "copy", "from": f"/PORT/{a}", "path": f"/PORT/{b}"}, _KEYS, _KEYS),
    st.builds(lambda a, b: {"op": "move", "from": f"/PORT/{a}", "path": f"/PORT/{b}"}, _KEYS, _KEYS),
    st.just({"op": "remove", "path": "/INTERFACE"}),
    st.just({"op": "add", "path": "/VLAN", "value": {"Vlan5": {"vlanid": "5"}}}),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_OPS, min_size=1, max_size=4))
def test_plan_changes_with_the_patch_rows_is_the_full_plan(ops: list[dict[str, object]]) -> None:
    try:
        target = apply_json_patch(BASE, ops)
    except PatchError:
        return
    assert plan_changes(BASE, target, patch_rows(ops)) == plan_changes(BASE, target)


@pytest.mark.parametrize("ops", [
    [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"}],
    [{"op": "add", "path": "/PORT/Ethernet4/fec", "value": "rs"}, {"op": "remove", "path": "/PORT/Ethernet0/mtu"}],
    [{"op": "add", "path": "/PORT/Ethernet0/members", "value": ["a", "b"]}],
    [{"op": "add", "path": "/PORT/Ethernet0/mtu", "value": 1500}],
])
def test_one_field_operations_give_what_jsonpatch_gives(ops: list[dict[str, object]]) -> None:
    """The one-field fast path (``_set_field``) against the library on the same document."""
    import jsonpatch

    from nos.config.transaction import normalise

    assert apply_json_patch(BASE, ops) == normalise(jsonpatch.apply_patch(BASE, ops))


@pytest.mark.parametrize(("ops", "says"), [
    ([{"op": "replace", "path": "/PORT/Ethernet0/fec", "value": "rs"}], "row 'PORT|Ethernet0' has no field 'fec'"),
    ([{"op": "remove", "path": "/PORT/Ethernet4/fec"}], "row 'PORT|Ethernet4' has no field 'fec'"),
    ([{"op": "add", "path": "/PORT/Ethernet8/mtu", "value": "1"}], "no row 'PORT|Ethernet8'"),
])
def test_one_field_operations_on_what_is_missing_are_refused_as_before(ops: list[dict[str, object]],
                                                                      says: str) -> None:
    with pytest.raises(PatchError, match=re.escape(says)):
        apply_json_patch(BASE, ops)


def test_a_list_value_is_copied_into_the_document() -> None:
    members = ["a", "b"]
    out = apply_json_patch(BASE, [{"op": "add", "path": "/PORT/Ethernet0/members", "value": members}])
    members.append("c")
    assert out["PORT"]["Ethernet0"]["members"] == ["a", "b"]
