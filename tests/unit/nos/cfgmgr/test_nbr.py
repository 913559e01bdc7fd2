"""Static neighbours: NEIGH rows -> NEIGH_TABLE / NEIGH_RESOLVE_TABLE entries."""

from __future__ import annotations

import pytest

from nos.cfgmgr.nbr import Neighbour, parse_mac, parse_neigh


def test_static_ipv4_neighbour():  # ROUTE-006
    assert parse_neigh("Ethernet8|10.0.0.2", {"neigh": "00:01:02:03:04:05"}) == Neighbour(
        "Ethernet8", "NEIGH_TABLE", "Ethernet8:10.0.0.2", (("neigh", "00:01:02:03:04:05"), ("family", "IPv4")))


def test_ipv6_address_and_mac_are_normalised():
    entry = parse_neigh("Vlan100|FC00:0:0::5", {"neigh": "00-AA-BB-CC-DD-EE", "family": "IPV6"})
    assert entry.appl_key == "Vlan100:fc00::5"
    assert dict(entry.fields) == {"neigh": "00:aa:bb:cc:dd:ee", "family": "IPv6"}


def test_without_mac_it_is_a_resolve_request():
    entry = parse_neigh("Vlan100|100.1.1.5", {"family": "IPv4"})
    assert (entry.table, entry.appl_key, dict(entry.fields)) == (
        "NEIGH_RESOLVE_TABLE", "Vlan100:100.1.1.5", {"mac": "00:00:00:00:00:00"})


@pytest.mark.parametrize(("key", "fields", "match"), [
    ("Ethernet8", {"neigh": "00:01:02:03:04:05"}, "interface"),
    ("Ethernet8|10.0.0.300", {"neigh": "00:01:02:03:04:05"}, "IP address"),
    ("Ethernet8|10.0.0.2", {"neigh": "00:01:02:03:04"}, "MAC"),
    ("Ethernet8|10.0.0.2", {"neigh": "00:01:02:03:04:05", "family": "IPv6"}, "family"),
])
def test_bad_neighbours_are_refused(key, fields, match):
    with pytest.raises(ValueError, match=match):
        parse_neigh(key, fields)


def test_mac_forms():
    assert parse_mac("00:0A:0b:0C:0d:0E") == "00:0a:0b:0c:0d:0e"
    with pytest.raises(ValueError):
        parse_mac("00:0a-0b:0c:0d:0e")  # mixed separators
