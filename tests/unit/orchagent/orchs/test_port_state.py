"""port_state: what portsorch writes besides port attributes (host interface, APPL/STATE_DB fields)."""

from __future__ import annotations

import calendar
import time

import pytest

from orchagent.orchs.port_state import (
    config_state,
    flap_fields,
    hostif_attrs,
    oper_up_state,
    parse_host_tx_ready,
    polled_state,
    speed_refused,
)

AN, ADMIN, LT, LOS = ("SAI_PORT_ATTR_AUTO_NEG_MODE", "SAI_PORT_ATTR_ADMIN_STATE", "SAI_PORT_ATTR_LINK_TRAINING_ENABLE",
                      "SAI_PORT_ATTR_UNRELIABLE_LOS")


def test_a_port_host_interface_has_sonics_five_attributes_with_tx_queue_7():
    assert dict(hostif_attrs("oid:0x1", "Ethernet0", up=False)) == {
        "SAI_HOSTIF_ATTR_TYPE": "SAI_HOSTIF_TYPE_NETDEV", "SAI_HOSTIF_ATTR_OBJ_ID": "oid:0x1",
        "SAI_HOSTIF_ATTR_NAME": "Ethernet0", "SAI_HOSTIF_ATTR_QUEUE": "7", "SAI_HOSTIF_ATTR_OPER_STATUS": "false"}
    assert dict(hostif_attrs("oid:0x1", "Ethernet0", up=True))["SAI_HOSTIF_ATTR_OPER_STATUS"] == "true"


def test_an_unsupported_speed_keeps_only_what_portsorch_applies_before_the_speed():
    attrs = [("SAI_PORT_ATTR_MTU", "1522"), ("SAI_PORT_ATTR_SPEED", "12345"), (AN, "true")]
    kept, reason = speed_refused(attrs, {"SAI_PORT_ATTR_SPEED": "100000"}, ["1000", "100000"])
    assert kept == [(AN, "true")] and "12345" in reason


@pytest.mark.parametrize(("speed", "old", "supported"), [
    ("100000", "1", ["100000"]),       # supported
    ("12345", "12345", ["100000"]),    # not a change
    ("12345", "1", []),                # the ASIC lists no speeds: it decides
])
def test_a_speed_is_let_through(speed, old, supported):
    attrs = [("SAI_PORT_ATTR_SPEED", speed), ("SAI_PORT_ATTR_MTU", "1522")]
    assert speed_refused(attrs, {"SAI_PORT_ATTR_SPEED": old}, supported) == (attrs, "")


def test_an_oper_change_counts_a_flap_and_stamps_the_direction_in_utc():
    moment = calendar.timegm((2026, 12, 2, 17, 5, 9, 0, 0, 0))
    assert flap_fields(3, True, moment) == {"oper_status": "up", "flap_count": "3",
                                            "last_up_time": "Wed Dec 02 17:05:09 2026"}
    down = flap_fields(4, False, moment)
    assert down["oper_status"] == "down" and "last_down_time" in down and "last_up_time" not in down
    assert time.strptime(down["last_down_time"], "%a %b %d %H:%M:%S %Y")


def test_oper_up_reports_the_speed_and_the_fec_the_port_runs():
    assert oper_up_state({"SAI_PORT_ATTR_SPEED": "100000"}) == {"speed": "100000", "fec": "none"}
    rs = {"SAI_PORT_ATTR_SPEED": "1000", "SAI_PORT_ATTR_FEC_MODE": "SAI_PORT_FEC_MODE_RS"}
    assert oper_up_state(rs)["fec"] == "rs"


def test_reconfiguring_autoneg_drops_rmt_adv_speeds_until_the_poller_writes_it_again():
    assert config_state({AN: "true", ADMIN: "true"}, [(AN, "false")], first=False) == ({}, ["rmt_adv_speeds"])
    sets, drops = config_state({AN: "false", ADMIN: "true"}, [(AN, "true")], first=False)
    assert sets == {"rmt_adv_speeds": "N/A"} and drops == []
    assert config_state({AN: "false", ADMIN: "false"}, [(AN, "true")], first=False) == ({}, ["rmt_adv_speeds"])
    assert config_state({AN: "true"}, [(AN, "true")], first=False) == ({}, [])  # no change: nothing


def test_link_training_and_unreliable_los_are_reported():
    sets, _ = config_state({}, [(LT, "true"), (LOS, "false")], first=True)
    assert sets == {"link_training_status": "on", "phy_ctrl_unreliable_los": "false"}
    assert config_state({LT: "true"}, [(LT, "false")], first=False)[0] == {"link_training_status": "off"}
    assert config_state({LOS: "true"}, [(LOS, "true")], first=False)[0] == {"phy_ctrl_unreliable_los": "true"}


def test_an_oper_change_refreshes_autoneg_and_link_training_state():
    assert polled_state({AN: "true", LT: "true", ADMIN: "false"}, oper_changed=True) == {
        "rmt_adv_speeds": "N/A", "link_training_status": "off"}
    assert polled_state({AN: "true", ADMIN: "false"}) == {}


def test_host_tx_ready_notifications_are_read_as_sent():
    data = '[{"host_tx_ready_status":"SAI_PORT_HOST_TX_READY_STATUS_READY","port_id":"oid:0x1","switch_id":"oid:0x2"}]'
    assert parse_host_tx_ready(data) == [("oid:0x1", True)]
    single = '{"host_tx_ready_status":"SAI_PORT_HOST_TX_READY_STATUS_NOT_READY","port_id":"oid:0x1"}'
    assert parse_host_tx_ready(single) == [("oid:0x1", False)]
    for bad in ("nope", '[{"port_id": 1}]', "[3]"):
        with pytest.raises(ValueError):
            parse_host_tx_ready(bad)


def test_vendor_serdes_tuning_fields_become_port_serdes_attributes():
    from orchagent.orchs.port_fields import serdes_attrs

    attrs = dict(serdes_attrs({"attn": "0x80,0x82", "ob_m2lp": "0x4,0x6", "regn_bfm1n": "0xaa,0xac", "mtu": "9100"}))
    assert attrs == {"SAI_PORT_SERDES_ATTR_TX_FIR_ATTN": "2:128,130", "SAI_PORT_SERDES_ATTR_TX_PAM4_RATIO": "2:4,6",
                     "SAI_PORT_SERDES_ATTR_TX_NMOS_VLTG_REG": "2:170,172"}


def test_fec_auto_on_an_existing_port_stops_the_task_at_the_fec():
    from orchagent.orchs.port_state import refused

    attrs = [("SAI_PORT_ATTR_ADMIN_STATE", "true"), ("SAI_PORT_ATTR_MTU", "1522"),
             ("SAI_PORT_ATTR_FEC_MODE", "SAI_PORT_FEC_MODE_NONE"), ("SAI_PORT_ATTR_TPID", "37120")]
    kept, reason = refused({"fec": "auto"}, attrs, {}, [])
    assert kept == [("SAI_PORT_ATTR_MTU", "1522"), ("SAI_PORT_ATTR_TPID", "37120")] and "auto" in reason
    assert refused({"fec": "rs"}, attrs, {}, []) == (attrs, "")
