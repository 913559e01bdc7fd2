"""intfmgrd translation: keys, readiness tables, INTF_TABLE rows, address rows, connected routes."""

from __future__ import annotations

import pytest

from nos.cfgmgr.intf import (
    ConnectedRoute,
    IntfKey,
    addr_to_appl,
    connected_route,
    intf_to_appl,
    needs_sag_mac,
    parse_key,
    parse_prefix,
    readiness_table,
    sub_interface_parent,
    sub_interface_state_table,
    vrf_of,
)


@pytest.mark.parametrize(("key", "parsed"), [
    ("Ethernet8", IntfKey("Ethernet8", None)),
    ("Ethernet8|10.0.0.4/31", IntfKey("Ethernet8", "10.0.0.4/31")),
    ("Vlan100|fc00::1/126", IntfKey("Vlan100", "fc00::1/126")),
    ("Loopback0|10.1.0.32/32", IntfKey("Loopback0", "10.1.0.32/32")),
])
def test_keys(key, parsed):
    assert parse_key(key) == parsed


@pytest.mark.parametrize("key", ["", "Ethernet0|", "|10.0.0.0/31", "Ethernet0|10.0.0.0/31|x"])
def test_bad_keys(key):
    with pytest.raises(ValueError):
        parse_key(key)


def test_sub_interfaces():
    assert sub_interface_parent("Ethernet0.10") == "Ethernet0"
    assert sub_interface_parent("PortChannel0001.20") == "PortChannel0001"
    assert sub_interface_parent("Ethernet0") is None
    assert sub_interface_state_table("PortChannel0001") == "LAG_TABLE"
    assert sub_interface_state_table("Ethernet0") == "PORT_TABLE"


@pytest.mark.parametrize(("name", "table"), [
    ("Ethernet8", "PORT_TABLE"), ("PortChannel0001", "LAG_TABLE"), ("Vlan100", "VLAN_TABLE"),
    ("Vrf_0", "VRF_TABLE"), ("Vnet1", "VRF_TABLE"), ("mgmt", "VRF_TABLE"), ("Loopback0", None),
    ("Ethernet0.10", "PORT_TABLE"),
])
def test_readiness_tables(name, table):
    assert readiness_table(name) == table


def test_null_only_interface_row_gets_placeholder_and_zero_mac():  # ROUTE-001: row exists, no vrf_name
    assert intf_to_appl("Ethernet8", {"NULL": "NULL"}) == {"NULL": "NULL", "mac_addr": "00:00:00:00:00:00"}


def test_interface_attributes_are_forwarded():  # ROUTE-004
    fields = {"vrf_name": "Vrf_0", "mpls": "enable", "nat_zone": "1", "ipv6_use_link_local_only": "enable",
              "loopback_action": "drop", "admin_status": "up"}
    assert intf_to_appl("Ethernet8", fields) == {**fields, "mac_addr": "00:00:00:00:00:00"}
    assert vrf_of(fields) == "Vrf_0"
    assert vrf_of({"vnet_name": "Vnet1"}) == "Vnet1"
    assert vrf_of({}) == ""


def test_configured_mac_is_kept():
    assert intf_to_appl("Vlan100", {"mac_addr": "02:00:00:00:00:01"}) == {"mac_addr": "02:00:00:00:00:01"}


def test_sub_interface_defaults():
    assert intf_to_appl("Ethernet0.10", {"vlan": "10"}) == {
        "vlan": "10", "mtu": "0", "admin_status": "up", "mac_addr": "00:00:00:00:00:00"}
    assert intf_to_appl("Ethernet0.10", {"vlan": "10", "mtu": "1500", "admin_status": "down"})["mtu"] == "1500"


def test_static_anycast_gateway_mac():
    fields = {"static_anycast_gateway": "true"}
    assert needs_sag_mac("Vlan100", fields)
    assert not needs_sag_mac("Ethernet0", fields)
    assert intf_to_appl("Vlan100", fields, "00:AA:BB:CC:DD:EE")["mac_addr"] == "00:aa:bb:cc:dd:ee"
    assert intf_to_appl("Vlan100", {"static_anycast_gateway": "false"}, "00:aa:bb:cc:dd:ee")["mac_addr"] == (
        "00:00:00:00:00:00")
    assert "mac_addr" not in intf_to_appl("Vlan100", fields, None)


def test_address_rows_are_exactly_scope_and_family():  # ROUTE-001 checks the exact fields
    assert addr_to_appl(parse_prefix("10.0.0.4/31")) == {"scope": "global", "family": "IPv4"}
    assert addr_to_appl(parse_prefix("fc00::1/126")) == {"scope": "global", "family": "IPv6"}
    assert addr_to_appl(parse_prefix("fe80::1/64")) == {"scope": "global", "family": "IPv6"}
    assert addr_to_appl(parse_prefix("169.254.0.1/16")) is None


def test_bad_prefix():
    with pytest.raises(ValueError):
        parse_prefix("10.0.0.300/24")


def test_connected_route_of_an_ipv4_address():
    route = connected_route("Ethernet8", parse_prefix("10.0.0.4/31"), "")
    assert route == ConnectedRoute("", "10.0.0.4/31", False)
    assert route.key(":") == "10.0.0.4/31"
    assert route.fields(["Ethernet8"]) == {"nexthop": "0.0.0.0", "ifname": "Ethernet8", "protocol": "kernel"}
    assert connected_route("Vlan2", parse_prefix("20.0.0.9/29"), "") == ConnectedRoute("", "20.0.0.8/29", False)


def test_connected_route_of_an_ipv6_address_in_a_vrf():
    route = connected_route("Ethernet0", parse_prefix("fc00::1/126"), "Vrf_0")
    assert route is not None
    assert route.key(":") == "Vrf_0:fc00::/126"
    assert route.fields(["Ethernet0"]) == {"nexthop": "::", "ifname": "Ethernet0", "protocol": "kernel"}


def test_shared_subnet_lists_each_interface_once():
    route = ConnectedRoute("", "10.0.0.0/24", False)
    assert route.fields(["Vlan2", "Vlan1", "Vlan2"]) == {
        "nexthop": "0.0.0.0,0.0.0.0", "ifname": "Vlan1,Vlan2", "protocol": "kernel"}


@pytest.mark.parametrize(("alias", "prefix", "vrf"), [
    ("Loopback0", "10.1.0.0/24", ""),       # loopback
    ("Ethernet0", "10.0.0.1/32", ""),       # full length: no prefix route
    ("Ethernet0", "fc00::1/128", ""),
    ("Ethernet0", "fe80::1/64", ""),        # link-local
    ("Ethernet0", "169.254.1.1/16", ""),
    ("Ethernet0", "10.0.0.0/31", "Vnet1"),  # VNET routes do not go to ROUTE_TABLE
    ("Ethernet0", "10.0.0.0/31", "mgmt"),
])
def test_no_connected_route(alias, prefix, vrf):
    assert connected_route(alias, parse_prefix(prefix), vrf) is None
