"""SCHEDULER and WRED_PROFILE rows -> SAI attributes; WRED defaults, min/max checks and SET ordering."""

from __future__ import annotations

import pytest

from orchagent.orchs import qos_profiles
from orchagent.orchs.qos_profiles import InvalidProfile

AZURE_LOSSLESS = {
    "ecn": "ecn_all", "wred_green_enable": "true", "wred_yellow_enable": "true", "wred_red_enable": "true",
    "green_min_threshold": "1048576", "green_max_threshold": "2097152", "green_drop_probability": "5",
    "yellow_min_threshold": "1048576", "yellow_max_threshold": "2097152", "yellow_drop_probability": "5",
    "red_min_threshold": "1048576", "red_max_threshold": "2097152", "red_drop_probability": "5",
}


def test_scheduler_fields_become_scheduler_attributes():
    attrs = qos_profiles.scheduler_attrs({"type": "DWRR", "weight": "15", "meter_type": "bytes", "cir": "1000",
                                          "cbs": "64", "pir": "2000", "pbs": "128"})
    assert dict(attrs) == {
        "SAI_SCHEDULER_ATTR_SCHEDULING_TYPE": "SAI_SCHEDULING_TYPE_DWRR",
        "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT": "15",
        "SAI_SCHEDULER_ATTR_METER_TYPE": "SAI_METER_TYPE_BYTES",
        "SAI_SCHEDULER_ATTR_MIN_BANDWIDTH_RATE": "1000", "SAI_SCHEDULER_ATTR_MIN_BANDWIDTH_BURST_RATE": "64",
        "SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE": "2000", "SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_BURST_RATE": "128",
    }


@pytest.mark.parametrize(("row", "message"), [
    ({"type": "FIFO"}, "field 'type': 'FIFO' is not one of DWRR, WRR, STRICT"),
    ({"weight": "0"}, "field 'weight': 0 is outside 1..100"),
    ({"weight": "101"}, "field 'weight': 101 is outside 1..100"),
    ({"meter_type": "cells"}, "field 'meter_type'"),
    ({"quantum": "1"}, "field 'quantum' is not a SCHEDULER field"),
    ({"type": "STRICT", "priority": "3"}, "field 'priority' is not a SCHEDULER field"),   # qosorch: unknown field
])
def test_bad_scheduler_rows_name_the_field(row, message):
    with pytest.raises(InvalidProfile, match=message):
        qos_profiles.scheduler_attrs(row)


def test_new_wred_gets_weight_zero_and_every_threshold():
    attrs = dict(qos_profiles.wred_create_attrs(qos_profiles.wred_attrs(AZURE_LOSSLESS)))
    assert attrs["SAI_WRED_ATTR_WEIGHT"] == "0"
    assert attrs["SAI_WRED_ATTR_ECN_MARK_MODE"] == "SAI_ECN_MARK_MODE_ALL"
    assert attrs["SAI_WRED_ATTR_YELLOW_MAX_THRESHOLD"] == "2097152"
    assert attrs["SAI_WRED_ATTR_RED_DROP_PROBABILITY"] == "5"
    assert attrs["SAI_WRED_ATTR_GREEN_ENABLE"] == "true"


def test_an_enabled_colour_without_probability_drops_at_100():
    attrs = dict(qos_profiles.wred_create_attrs(qos_profiles.wred_attrs(
        {"wred_green_enable": "true", "wred_yellow_enable": "false"})))
    assert attrs["SAI_WRED_ATTR_GREEN_DROP_PROBABILITY"] == "100"
    assert "SAI_WRED_ATTR_YELLOW_DROP_PROBABILITY" not in attrs
    assert "SAI_WRED_ATTR_RED_DROP_PROBABILITY" not in attrs


@pytest.mark.parametrize(("row", "message"), [
    ({"green_min_threshold": "2621440", "green_max_threshold": "1572864"},
     "field 'green_min_threshold': 2621440 is above green_max_threshold 1572864"),
    ({"ecn": "ecn_blue"}, "field 'ecn': 'ecn_blue' is not one of ecn_none"),
    ({"wred_red_enable": "yes"}, "field 'wred_red_enable': 'yes' is not true or false"),
    ({"red_drop_probability": "101"}, "field 'red_drop_probability': 101 is outside 0..100"),
    ({"blue_min_threshold": "1"}, "field 'blue_min_threshold' is not a WRED_PROFILE field"),
])
def test_bad_wred_rows_name_the_field(row, message):
    with pytest.raises(InvalidProfile, match=message):
        qos_profiles.wred_attrs(row)


def _thresholds(gmin, gmax):
    return {"SAI_WRED_ATTR_GREEN_MIN_THRESHOLD": str(gmin), "SAI_WRED_ATTR_GREEN_MAX_THRESHOLD": str(gmax)}


def test_a_new_min_above_the_old_max_raises_the_max_first():
    sets = qos_profiles.wred_update_attrs(_thresholds(1048576, 2097152), _thresholds(3145728, 4194304))
    assert sets == [("SAI_WRED_ATTR_GREEN_MAX_THRESHOLD", "4194304"), ("SAI_WRED_ATTR_GREEN_MIN_THRESHOLD", "3145728")]


def test_a_new_max_below_the_old_min_lowers_the_min_first():
    sets = qos_profiles.wred_update_attrs(_thresholds(3145728, 4194304), _thresholds(1048576, 2097152))
    assert sets == [("SAI_WRED_ATTR_GREEN_MIN_THRESHOLD", "1048576"), ("SAI_WRED_ATTR_GREEN_MAX_THRESHOLD", "2097152")]


def test_unchanged_attributes_are_not_set_again():
    old = {**_thresholds(1, 2), "SAI_WRED_ATTR_ECN_MARK_MODE": "SAI_ECN_MARK_MODE_ALL"}
    new = {**_thresholds(1, 2), "SAI_WRED_ATTR_ECN_MARK_MODE": "SAI_ECN_MARK_MODE_GREEN"}
    assert qos_profiles.wred_update_attrs(old, new) == [("SAI_WRED_ATTR_ECN_MARK_MODE", "SAI_ECN_MARK_MODE_GREEN")]
