"""teammgrd + simulated teamd/teamsyncd: PORTCHANNEL parsing, LACP member state, LAG oper state."""

from __future__ import annotations

import pytest

from nos.cfgmgr.lag import (
    DISABLED,
    ENABLED,
    LagConfig,
    PortLink,
    lag_oper_status,
    lag_to_appl,
    lag_to_state,
    link_of,
    member_status,
    member_to_state,
    parse_lag,
    parse_member_key,
    port_restore,
)

UP_LINK = PortLink(ready=True, oper_up=True)


def test_portchannel_defaults_are_teammgrd_ones():
    assert parse_lag("PortChannel0001", {"NULL": "NULL"}) == LagConfig(
        "PortChannel0001", admin_status="down", mtu="9100", min_links=1)


def test_portchannel_fields_are_read():
    lag = parse_lag("PortChannel002", {"admin_status": "up", "mtu": "8888", "min_links": "2", "tpid": "0x9200",
                                       "learn_mode": "disable", "fallback": "true", "lacp_key": "auto"})
    assert lag == LagConfig("PortChannel002", "up", "8888", 2, "0x9200", "disable", fallback=True, lacp_key=1002)


@pytest.mark.parametrize(("name", "value", "key"), [
    ("PortChannel001", "auto", 1001), ("PortChannel002", "auto", 1002), ("PortChannel2", "auto", 12),
    ("PortChannel000", "auto", 1000), ("PortChannel0005", "564", 564), ("PortChannel0004", "", 0),
])
def test_lacp_key_is_teammgrds(name, value, key):
    """test_Portchannel_lacpkey: auto = 1 + the name's digits, a number as is, an empty key is 0 (accepted)."""
    assert parse_lag(name, {"lacp_key": value}).lacp_key == key
    assert member_to_state(ENABLED, key)["runner.actor_lacpdu_info.key"] == str(key)


def test_no_lacp_key_is_zero():
    assert parse_lag("PortChannel0003", {"admin_status": "up"}).lacp_key == 0


def test_fast_rate_and_fallback_show_in_the_team_state():
    state = lag_to_state(parse_lag("PortChannel0003", {"fast_rate": "true"}), "down")
    assert (state["runner.fast_rate"], state["runner.fallback"], state["runner.active"]) == ("true", "false", "true")
    assert lag_to_state(parse_lag("PortChannel0003", {"fast_rate": "false"}), "down")["runner.fast_rate"] == "false"


def test_system_mac_goes_to_appl_and_state_none_meaning_the_switch_mac():
    own = parse_lag("PortChannel1", {"system_mac": "00:11:22:33:44:55"})
    assert lag_to_appl(own, "down")["system_mac"] == "00:11:22:33:44:55"
    switch = parse_lag("PortChannel1", {"system_mac": "None"})
    assert lag_to_appl(switch, "down", "52:54:00:aa:bb:cc")["system_mac"] == "52:54:00:aa:bb:cc"
    assert lag_to_state(switch, "down", "52:54:00:aa:bb:cc")["system_mac"] == "52:54:00:aa:bb:cc"
    assert "system_mac" not in lag_to_appl(parse_lag("PortChannel1", {}), "down")


def test_min_links_zero_means_teamd_default_one():
    assert parse_lag("PortChannel1", {"min_links": "0"}).min_links == 1


@pytest.mark.parametrize(("name", "fields", "match"), [
    ("Po1", {}, "PortChannel"),
    ("PortChannel12345", {}, "PortChannel"),
    ("PortChannel1", {"mtu": "jumbo"}, "mtu"),
    ("PortChannel1", {"admin_status": "enabled"}, "admin_status"),
    ("PortChannel1", {"min_links": "2000"}, "min_links"),
    ("PortChannel1", {"tpid": "0x1234"}, "tpid"),
])
def test_bad_portchannels_are_refused(name, fields, match):
    with pytest.raises(ValueError, match=match):
        parse_lag(name, fields)


def test_member_key():
    assert parse_member_key("PortChannel0001|Ethernet0") == ("PortChannel0001", "Ethernet0")
    for bad in ("PortChannel0001", "PortChannel0001|", "Bond0|Ethernet0"):
        with pytest.raises(ValueError):
            parse_member_key(bad)


def test_link_state_comes_from_state_db_port_table():
    assert link_of(None) == PortLink(False, False)
    assert link_of({"netdev_oper_status": "up"}) == PortLink(False, False)  # no netdev yet
    assert link_of({"state": "ok", "netdev_oper_status": "down"}) == PortLink(True, False)
    assert link_of({"state": "ok", "netdev_oper_status": "up"}) == UP_LINK


@pytest.mark.parametrize(("admin", "link", "status"), [
    ("up", UP_LINK, ENABLED),
    ("up", PortLink(True, False), DISABLED),
    ("up", PortLink(False, False), DISABLED),
    ("down", UP_LINK, DISABLED),
])
def test_lacp_enables_a_member_that_carries_in_an_admin_up_lag(admin, link, status):
    assert member_status(LagConfig("PortChannel1", admin_status=admin), link) == status


def test_oper_status_follows_min_links():
    lag = LagConfig("PortChannel1", admin_status="up", min_links=2)
    assert lag_oper_status(lag, [ENABLED, DISABLED]) == "down"
    assert lag_oper_status(lag, [ENABLED, ENABLED, DISABLED]) == "up"
    assert lag_oper_status(LagConfig("PortChannel1", admin_status="up"), []) == "down"
    assert lag_oper_status(LagConfig("PortChannel1", admin_status="down"), [ENABLED]) == "down"


def test_appl_row_carries_tpid_and_learn_mode_only_when_configured():
    plain = LagConfig("PortChannel1", admin_status="up")
    assert lag_to_appl(plain, "up") == {"admin_status": "up", "oper_status": "up", "mtu": "9100"}
    tagged = LagConfig("PortChannel1", admin_status="up", tpid="0x9200", learn_mode="drop")
    assert lag_to_appl(tagged, "down") == {
        "admin_status": "up", "oper_status": "down", "mtu": "9100", "tpid": "0x9200", "learn_mode": "drop"}


def test_state_row_is_teamsyncds():
    assert lag_to_state(LagConfig("PortChannel1", mtu="1500"), "down") == {
        "admin_status": "down", "oper_status": "down", "mtu": "1500", "state": "ok",
        "runner.active": "true", "runner.fast_rate": "false", "runner.fallback": "false"}


def test_a_port_leaving_gets_its_own_settings_back():
    assert port_restore({"admin_status": "up", "mtu": "1500", "speed": "400000"}) == {
        "admin_status": "up", "mtu": "1500"}
    assert port_restore({}) == {"admin_status": "down", "mtu": "9100"}
