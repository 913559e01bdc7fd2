"""orchagent.orchs.pfcwd_rows: PFC_WD / PORT_QOS_MAP parsing and the watchdog counters, on plain data."""

from __future__ import annotations

import pytest

from orchagent.core.l3 import InvalidEntry
from orchagent.orchs import pfcwd_rows as rows
from orchagent.orchs.pfcwd_action import pfc_mask_with, pfc_mask_without


def test_a_port_row_and_what_registration_writes():
    cfg = rows.parse_port_row({"action": "forward", "detection_time": "200", "restoration_time": "400"})
    assert cfg == rows.WdConfig(200, 400, "forward")
    assert rows.queue_fields(cfg) == {"PFC_WD_DETECTION_TIME": "200000", "PFC_WD_RESTORATION_TIME": "400000",
                                      "PFC_WD_ACTION": "forward", "PFC_STAT_HISTORY": "disable"}
    default = rows.parse_port_row({"detection_time": "100"})
    assert default.action == "drop" and rows.queue_fields(default)["PFC_WD_RESTORATION_TIME"] == ""
    history = rows.parse_port_row({"detection_time": "100", "pfc_stat_history": "enable"})
    assert rows.queue_fields(history)["PFC_STAT_HISTORY"] == "enable"


@pytest.mark.parametrize("fields", [
    {"action": "drop"},                                       # detection_time missing
    {"detection_time": "50"}, {"detection_time": "abc"},      # out of range, not a number
    {"detection_time": "200", "restoration_time": "70000"},
    {"detection_time": "200", "action": "reboot"},
    {"detection_time": "200", "colour": "red"},               # unknown field
])
def test_bad_port_rows_are_invalid(fields):
    with pytest.raises(InvalidEntry):
        rows.parse_port_row(fields)


def test_global_row_keeps_the_good_fields_and_names_the_bad_ones():
    cfg, problems = rows.parse_global({"POLL_INTERVAL": "200", "BIG_RED_SWITCH": "bogus"})
    assert cfg == rows.GlobalConfig(200, None) and problems == ["BIG_RED_SWITCH='bogus': must be enable or disable"]
    assert rows.parse_global({"BIG_RED_SWITCH": "enable"}) == (rows.GlobalConfig(None, True), [])


def test_watched_priorities_are_pfcwd_sw_enable_only():
    assert rows.parse_qos_row({"pfc_enable": "3,4", "pfcwd_sw_enable": "3"}) == rows.QosMasks(24, 8)
    assert rows.parse_qos_row({"pfc_enable": "3,4"}) == rows.QosMasks(24, 0)
    assert rows.parse_qos_row({"dscp_to_tc_map": "AZURE"}) == rows.QosMasks(0, 0)
    with pytest.raises(InvalidEntry):
        rows.parse_qos_row({"pfc_enable": "3,9"})
    assert rows.priorities_of(24) == [3, 4]
    assert rows.port_counter_ids(8) == "SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US,SAI_PORT_STAT_PFC_3_RX_PKTS"


def test_storm_then_periodic_commit_then_restore_count_what_the_queue_did():
    stats = rows.WdStats.from_fields({"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "2",
                                      "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": "2",
                                      "PFC_WD_QUEUE_STATS_TX_PACKETS_LAST": "9", "PFC_WD_STATUS": "operational"})
    stormed = rows.on_storm(stats)
    assert (stormed.detected, stormed.operational, stormed.tx_last) == (3, False, 0)
    assert rows.on_storm(stormed) == stormed          # a replayed storm is not counted twice
    mid = rows.on_commit(stormed, rows.HwStats(10, 0, 5, 1), rows.HwStats(15, 2, 5, 4), periodic=True)
    assert (mid.restored, mid.operational, mid.tx, mid.tx_drop, mid.rx_drop, mid.tx_last) == (2, False, 5, 2, 3, 5)
    end = rows.on_commit(mid, rows.HwStats(15, 2, 5, 4), rows.HwStats(16, 2, 5, 4), periodic=False)
    assert (end.restored, end.operational, end.tx, end.tx_last) == (3, True, 6, 6)
    fields = end.to_fields()
    assert fields["PFC_WD_STATUS"] == "operational" and fields["PFC_WD_QUEUE_STATS_TX_PACKETS"] == "6"
    assert rows.WdStats.from_fields(fields) == end


def test_the_lossy_handler_takes_the_priority_out_of_the_pfc_mask_and_puts_it_back():
    assert pfc_mask_without(24, 3) == 16 and pfc_mask_with(16, 3) == 24 and pfc_mask_without(0, 3) == 0
