"""vlanmgrd translation: key checks, VLAN_TABLE fields and defaults, member tagging modes."""

from __future__ import annotations

import pytest

from nos.cfgmgr.vlan import (
    VLAN_FIELD_RULES,
    field_problem,
    member_to_appl,
    parse_member_key,
    parse_vlan_name,
    vlan_to_appl,
)

SYSTEM_MAC = "52:54:00:12:34:56"


@pytest.mark.parametrize(("name", "vid"), [("Vlan1", 1), ("Vlan2", 2), ("Vlan100", 100), ("Vlan4094", 4094)])
def test_vlan_names_carry_their_id(name, vid):
    assert parse_vlan_name(name) == vid


@pytest.mark.parametrize("name", ["Vla2", "VLAN3", "vlan4", "Vlanabc", "Vlana3", "Vlan", "Vlan0", "Vlan4095",
                                  "Vlan01", "Vlan 5", "Vlan5x"])
def test_other_spellings_are_refused(name):  # VLAN-007
    with pytest.raises(ValueError, match="Vlan<id>"):
        parse_vlan_name(name)


def test_member_key_splits_vlan_and_member():
    assert parse_member_key("Vlan2|Ethernet0") == ("Vlan2", "Ethernet0")
    assert parse_member_key("Vlan2|PortChannel0001") == ("Vlan2", "PortChannel0001")


@pytest.mark.parametrize("key", ["Vlan2", "Vlan2|", "vlan2|Ethernet0", "Vlan2|Ethernet0|x"])
def test_malformed_member_keys_are_refused(key):
    with pytest.raises(ValueError):
        parse_member_key(key)


def test_a_bare_vlan_gets_vlanmgrd_defaults():  # VLAN-003
    assert vlan_to_appl({"vlanid": "2"}, SYSTEM_MAC) == {
        "admin_status": "up", "mtu": "9100", "mac": SYSTEM_MAC, "host_ifname": ""}


def test_configured_values_win_and_other_fields_stay_in_config_db():
    fields = {"vlanid": "2", "mtu": "8888", "admin_status": "down", "mac": "00:11:22:33:44:55",
              "dhcp_servers@": "10.0.0.1", "description": "users"}
    assert vlan_to_appl(fields, SYSTEM_MAC) == {
        "admin_status": "down", "mtu": "8888", "mac": "00:11:22:33:44:55", "host_ifname": ""}


def test_system_mac_is_written_in_lower_case():
    assert vlan_to_appl({}, "52:54:00:AB:CD:EF")["mac"] == "52:54:00:ab:cd:ef"


def test_field_rules_name_the_bad_field():
    assert field_problem({"mtu": "9100", "admin_status": "up"}, VLAN_FIELD_RULES) is None
    assert "admin_status" in field_problem({"admin_status": "enabled"}, VLAN_FIELD_RULES)
    assert "mtu" in field_problem({"mtu": "99999"}, VLAN_FIELD_RULES)


@pytest.mark.parametrize("mode", ["untagged", "tagged", "priority_tagged"])
def test_member_tagging_modes(mode):  # VLAN-004
    assert member_to_appl({"tagging_mode": mode}) == {"tagging_mode": mode}


def test_member_without_tagging_mode_is_untagged():  # VLAN-006
    assert member_to_appl({"no_tag_mode": ""}) == {"tagging_mode": "untagged"}


def test_unknown_tagging_mode_is_refused():
    with pytest.raises(ValueError, match="tagging_mode"):
        member_to_appl({"tagging_mode": "trunk"})
