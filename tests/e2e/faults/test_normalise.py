"""The fault tests' ASIC_DB comparison (pure): equal up to object ids, and not blind to a changed edge."""

from __future__ import annotations

from tests.e2e.faults.normalise import normal_form

S = "ASIC_STATE:"


def fabric(nh: list[str], group: str, members: list[str], route_to: str) -> dict[str, dict[str, str]]:
    rows = {f"{S}SAI_OBJECT_TYPE_NEXT_HOP:{oid}": {"SAI_NEXT_HOP_ATTR_IP": f"10.0.0.{i}"} for i, oid in enumerate(nh)}
    rows[f"{S}SAI_OBJECT_TYPE_NEXT_HOP_GROUP:{group}"] = {"SAI_NEXT_HOP_GROUP_ATTR_TYPE": "ECMP"}
    other = group[:-1] + "f"
    rows[f"{S}SAI_OBJECT_TYPE_NEXT_HOP_GROUP:{other}"] = {"SAI_NEXT_HOP_GROUP_ATTR_TYPE": "ECMP"}
    for m, target, g in zip(members, [nh[0], nh[1], nh[2]], [group, group, other], strict=True):
        rows[f"{S}SAI_OBJECT_TYPE_NEXT_HOP_GROUP_MEMBER:{m}"] = {
            "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID": g, "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID": target}
    rows[S + 'SAI_OBJECT_TYPE_ROUTE_ENTRY:{"dest":"1.0.0.0/24"}'] = {
        "SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID": group if route_to == "group" else other}
    return rows


def test_the_same_objects_under_other_ids_are_equal():
    a = fabric(["oid:0x1", "oid:0x2", "oid:0x3"], "oid:0x10", ["oid:0x20", "oid:0x21", "oid:0x22"], "group")
    b = fabric(["oid:0x9", "oid:0x8", "oid:0x7"], "oid:0x50", ["oid:0x60", "oid:0x61", "oid:0x62"], "group")
    assert normal_form(a) == normal_form(b)


def test_a_route_through_the_other_group_is_a_difference():
    a = fabric(["oid:0x1", "oid:0x2", "oid:0x3"], "oid:0x10", ["oid:0x20", "oid:0x21", "oid:0x22"], "group")
    b = fabric(["oid:0x1", "oid:0x2", "oid:0x3"], "oid:0x10", ["oid:0x20", "oid:0x21", "oid:0x22"], "other")
    assert normal_form(a) != normal_form(b)


def test_a_leftover_object_is_a_difference():
    a = fabric(["oid:0x1", "oid:0x2", "oid:0x3"], "oid:0x10", ["oid:0x20", "oid:0x21", "oid:0x22"], "group")
    b = dict(a, **{f"{S}SAI_OBJECT_TYPE_NEXT_HOP:oid:0x99": {"SAI_NEXT_HOP_ATTR_IP": "10.0.0.0"}})
    assert normal_form(a) != normal_form(b)
