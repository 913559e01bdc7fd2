"""Static routes: bgpcfgd parsing, zebra selection and resolution, fpmsyncd's ROUTE_TABLE rows."""

from __future__ import annotations

import ipaddress

import pytest

from nos.cfgmgr.static_route import (
    Connected,
    NextHop,
    RouteDecision,
    StaticRoute,
    appl_route_key,
    decide_route,
    merge_routes,
    parse_connected,
    parse_route,
    parse_route_key,
    resolve_ifname,
    split_lists,
    vrfs_needed,
)

NET = ipaddress.ip_network
IP = ipaddress.ip_address
CONNECTED = [
    Connected("Ethernet0", "default", NET("10.0.0.0/31")),
    Connected("Ethernet4", "default", NET("10.0.0.0/24")),
    Connected("Ethernet8", "VrfRed", NET("10.0.0.0/31")),
    Connected("Vlan100", "default", NET("fc00::/64")),
]


def decide(key, fields, connected=CONNECTED):
    return decide_route(parse_route(key, fields), connected)


@pytest.mark.parametrize(("key", "vrf", "prefix"), [
    ("10.1.0.0/24", "default", "10.1.0.0/24"),
    ("default|10.1.0.0/24", "default", "10.1.0.0/24"),
    ("VrfRed|10.1.0.5/24", "VrfRed", "10.1.0.0/24"),
    ("VrfRed|2001:DB8::/32", "VrfRed", "2001:db8::/32"),
])
def test_route_keys(key, vrf, prefix):
    assert parse_route_key(key) == (vrf, NET(prefix))


@pytest.mark.parametrize("key", ["Red|10.1.0.0/24", "10.1.0.0/33", "VrfRed|", "nonsense"])
def test_bad_route_keys(key):
    with pytest.raises(ValueError):
        parse_route_key(key)


def test_lists_are_aligned_by_position():
    assert split_lists({"nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0,Ethernet4", "advertise": "false"}) == [
        {"nexthop": "10.0.0.1", "ifname": "Ethernet0"}, {"nexthop": "10.0.0.3", "ifname": "Ethernet4"}]
    with pytest.raises(ValueError, match="different lengths"):
        split_lists({"nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0"})


def test_gateway_with_interface():
    assert decide("1.1.1.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0"}) == RouteDecision(
        fields={"nexthop": "10.0.0.1", "ifname": "Ethernet0", "protocol": "static"})


def test_ecmp_keeps_the_configured_order():
    fields = {"nexthop": "10.0.0.5,10.0.0.1", "ifname": "Ethernet8,Ethernet0"}
    assert decide("2.2.2.0/24", fields).fields == {
        "nexthop": "10.0.0.5,10.0.0.1", "ifname": "Ethernet8,Ethernet0", "protocol": "static"}


def test_gateway_alone_is_resolved_to_the_longest_connected_subnet():
    assert decide("1.1.1.0/24", {"nexthop": "10.0.0.1"}).fields["ifname"] == "Ethernet0"
    assert decide("1.1.1.0/24", {"nexthop": "10.0.0.9"}).fields["ifname"] == "Ethernet4"
    assert decide("VrfRed|1.1.1.0/24", {"nexthop": "10.0.0.1"}).fields["ifname"] == "Ethernet8"
    assert decide("2001:db8::/32", {"nexthop": "fc00::1"}).fields == {
        "nexthop": "fc00::1", "ifname": "Vlan100", "protocol": "static"}


def test_nexthop_vrf_resolves_in_that_vrf():
    fields = {"nexthop": "10.0.0.1", "nexthop-vrf": "VrfRed"}
    assert decide("1.1.1.0/24", fields).fields["ifname"] == "Ethernet8"
    assert vrfs_needed(parse_route("1.1.1.0/24", fields)) == {"VrfRed"}


def test_unreachable_gateway_waits():
    decision = decide("1.1.1.0/24", {"nexthop": "192.168.1.1"})
    assert decision == RouteDecision(wait="nexthop 192.168.1.1 is not reachable in VRF default")


def test_interface_route_uses_the_zero_address():
    assert decide("1.1.1.0/24", {"ifname": "Ethernet0"}).fields == {
        "nexthop": "0.0.0.0", "ifname": "Ethernet0", "protocol": "static"}
    assert decide("2001:db8::/32", {"nexthop": "::", "ifname": "Vlan100"}).fields["nexthop"] == "::"


def test_blackhole():  # ROUTE-012: fpmsyncd writes blackhole=true
    assert decide("2.2.2.0/24", {"blackhole": "true"}).fields == {"protocol": "static", "blackhole": "true"}
    assert decide("3000::/64", {"nexthop": "", "blackhole": "true"}).fields["blackhole"] == "true"


def test_lowest_distance_wins():
    fields = {"nexthop": "10.0.0.1,10.0.0.9", "ifname": "Ethernet0,Ethernet4", "distance": "20,10"}
    assert decide("1.1.1.0/24", fields).fields["nexthop"] == "10.0.0.9"
    backup_blackhole = {"nexthop": "10.0.0.1,", "ifname": "Ethernet0,", "blackhole": "false,true",
                        "distance": "0,250"}
    assert decide("1.1.1.0/24", backup_blackhole).fields["nexthop"] == "10.0.0.1"


def test_nexthop_without_address_or_interface_is_skipped():
    route = parse_route("1.1.1.0/24", {"nexthop": "10.0.0.1,", "ifname": "Ethernet0,"})
    assert route.nexthops == (NextHop(ip=IP("10.0.0.1"), ifname="Ethernet0"),)
    with pytest.raises(ValueError, match="no usable nexthop"):
        parse_route("1.1.1.0/24", {"nexthop": "0.0.0.0"})


@pytest.mark.parametrize(("key", "fields", "match"), [
    ("1.1.1.0/24", {"nexthop": "10.0.0.256"}, "not an IP address"),
    ("1.1.1.0/24", {"nexthop": "fc00::1"}, "IPv4"),
    ("1.1.1.0/24", {"nexthop": "10.0.0.1", "distance": "300"}, "distance"),
])
def test_bad_nexthops_are_refused(key, fields, match):
    with pytest.raises(ValueError, match=match):
        parse_route(key, fields)


@pytest.mark.parametrize("ifname", ["eth0", "lo", "Loopback0", "docker0"])
def test_routes_via_management_or_loopback_are_not_programmed(ifname):
    assert decide("0.0.0.0/0", {"nexthop": "10.0.0.1", "ifname": ifname}).skip


def test_mgmt_vrf_routes_are_not_programmed():
    assert decide("mgmt|0.0.0.0/0", {"nexthop": "10.0.0.1", "ifname": "eth0"}).skip


def test_appl_keys_are_fpmsyncds():
    assert appl_route_key("default", NET("10.1.0.0/24")) == "10.1.0.0/24"
    assert appl_route_key("default", NET("10.1.0.7/32")) == "10.1.0.7"
    assert appl_route_key("VrfRed", NET("2001:db8::1/128")) == "VrfRed:2001:db8::1"
    assert appl_route_key("VrfRed", NET("0.0.0.0/0")) == "VrfRed:0.0.0.0/0"


def test_rows_for_the_same_prefix_merge():
    one = parse_route("1.1.1.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0"})
    two = parse_route("default|1.1.1.0/24", {"nexthop": "10.0.0.9", "ifname": "Ethernet4"})
    assert decide_route(merge_routes([one, two]), CONNECTED).fields["ifname"] == "Ethernet0,Ethernet4"


def test_connected_subnets_come_from_state_db_interface_table():
    rows = {"Ethernet0": {"vrf": "", "state": "ok"}, "Ethernet0|10.0.0.0/31": {"state": "ok"},
            "Ethernet8": {"vrf": "VrfRed"}, "Ethernet8|fc00::1/64": {"state": "ok"}}
    assert parse_connected(rows) == [Connected("Ethernet0", "default", NET("10.0.0.0/31")),
                                     Connected("Ethernet8", "VrfRed", NET("fc00::/64"))]
    assert resolve_ifname(IP("10.0.0.1"), "default", parse_connected(rows)) == "Ethernet0"
    assert resolve_ifname(IP("10.0.0.1"), "VrfRed", parse_connected(rows)) is None


def test_static_route_type_is_plain_data():
    route = StaticRoute("default", NET("1.1.1.0/24"), (NextHop(blackhole=True),))
    assert decide_route(route, []).fields == {"protocol": "static", "blackhole": "true"}
