"""QoS map rows -> SAI QOS_MAP attributes: types, sairedis's JSON list, and the ASIC's ranges."""

from __future__ import annotations

import json

import pytest

from orchagent.orchs import qos_maps
from orchagent.orchs.qos_maps import InvalidMap, Limits

LIMITS = Limits(traffic_classes=8, queues=8, priority_groups=8, forwarding_classes=63)


def test_dscp_to_tc_row_becomes_a_sorted_map_with_every_parameter():
    pairs = qos_maps.parse_map("DSCP_TO_TC_MAP", {"46": "5", "3": "3", "0": "1"}, LIMITS)
    assert pairs == [(0, 1), (3, 3), (46, 5)]
    kind, values = qos_maps.map_attrs("DSCP_TO_TC_MAP", pairs)
    assert kind == ("SAI_QOS_MAP_ATTR_TYPE", "SAI_QOS_MAP_TYPE_DSCP_TO_TC")
    doc = json.loads(values[1])
    assert doc["count"] == 3
    assert doc["list"][2] == {
        "key": {"tc": 0, "dscp": 46, "dot1p": 0, "prio": 0, "pg": 0, "qidx": 0, "mpls_exp": 0,
                "color": "SAI_PACKET_COLOR_GREEN", "fc": 0},
        "value": {"tc": 5, "dscp": 0, "dot1p": 0, "prio": 0, "pg": 0, "qidx": 0, "mpls_exp": 0,
                  "color": "SAI_PACKET_COLOR_GREEN", "fc": 0}}


@pytest.mark.parametrize(("table", "sai_type", "key", "value"), [
    ("TC_TO_DSCP_MAP", "SAI_QOS_MAP_TYPE_TC_AND_COLOR_TO_DSCP", "tc", "dscp"),
    ("TC_TO_DOT1P_MAP", "SAI_QOS_MAP_TYPE_TC_AND_COLOR_TO_DOT1P", "tc", "dot1p"),
    ("MPLS_TC_TO_TC_MAP", "SAI_QOS_MAP_TYPE_MPLS_EXP_TO_TC", "mpls_exp", "tc"),
    ("MAP_PFC_PRIORITY_TO_QUEUE", "SAI_QOS_MAP_TYPE_PFC_PRIORITY_TO_QUEUE", "prio", "qidx"),
    ("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "SAI_QOS_MAP_TYPE_PFC_PRIORITY_TO_PRIORITY_GROUP", "prio", "pg"),
    ("TC_TO_PRIORITY_GROUP_MAP", "SAI_QOS_MAP_TYPE_TC_TO_PRIORITY_GROUP", "tc", "pg"),
    ("EXP_TO_FC_MAP", "SAI_QOS_MAP_TYPE_MPLS_EXP_TO_FORWARDING_CLASS", "mpls_exp", "fc"),
])
def test_each_table_fills_its_key_and_value_parameters(table, sai_type, key, value):
    kind, values = qos_maps.map_attrs(table, [(2, 3)])
    assert kind[1] == sai_type
    [item] = json.loads(values[1])["list"]
    assert item["key"][key] == 2 and item["value"][value] == 3


@pytest.mark.parametrize(("table", "row", "message"), [
    ("DSCP_TO_TC_MAP", {"64": "1"}, "field '64': DSCP 64 is outside 0..63"),
    ("DSCP_TO_TC_MAP", {"46": "9"}, "field '46': traffic class 9 is outside 0..7"),
    ("TC_TO_QUEUE_MAP", {"1": "8"}, "field '1': queue 8 is outside 0..7"),
    ("EXP_TO_FC_MAP", {"8": "0"}, "field '8': MPLS EXP 8 is outside 0..7"),
    ("EXP_TO_FC_MAP", {"-1": "0"}, "field '-1': MPLS EXP -1 is outside 0..7"),
    ("EXP_TO_FC_MAP", {"0": "63"}, "field '0': forwarding class 63 is outside 0..62"),
    ("EXP_TO_FC_MAP", {"a": "0"}, "field 'a': MPLS EXP 'a' is not a number"),
    ("EXP_TO_FC_MAP", {"0": "a"}, "field '0': forwarding class 'a' is not a number"),
    ("DOT1P_TO_TC_MAP", {"NULL": "NULL"}, "the map has no entries"),
])
def test_values_the_asic_lacks_are_refused_with_the_field_named(table, row, message):
    with pytest.raises(InvalidMap, match=message):
        qos_maps.parse_map(table, row, LIMITS)


def test_sixty_three_forwarding_classes_allow_zero_to_sixty_two():
    row = {str(d): str(d) for d in range(63)}
    assert qos_maps.parse_map("DSCP_TO_FC_MAP", row, LIMITS)[-1] == (62, 62)
