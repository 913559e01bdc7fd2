"""Counting APPL_DB's keys by table, and which ROUTE_TABLE rows routeorch makes ROUTE_ENTRYs of."""

from __future__ import annotations

import pytest

from nos.daemon.task import TaskStatus
from nos.runtime import census
from orchagent.core.l3 import InvalidEntry
from orchagent.orchs import route_plan as rp


def test_names_are_sorted_by_table_and_queue():
    keys = {t: census.TableKeys() for t in census.TABLES}
    census.sort_names(["ROUTE_TABLE:10.0.0.0/24", "_ROUTE_TABLE:10.0.1.0/24", "_ROUTE_TABLE:10.0.0.0/24",
                       "ROUTE_TABLE:fc00::/64", "ROUTE_TABLE_KEY_SET", "INTF_TABLE:Ethernet0:10.0.0.0/31",
                       "PORT_TABLE:Ethernet0", "NEIGH_TABLE:Ethernet0:10.0.0.1", "BUFFER_PG_TABLE:Ethernet0:3-4"],
                      keys)
    routes = keys["ROUTE_TABLE"]
    assert routes.taken == {"10.0.0.0/24", "fc00::/64"} and routes.queued == {"10.0.1.0/24", "10.0.0.0/24"}
    routes.deletes = {"fc00::/64", "10.0.1.0/24"}  # a delete then a set of 10.0.1.0/24: wanted
    routes.pending = {"10.0.1.0/24", "10.0.0.0/24", "fc00::/64", "10.0.9.0/24"}
    # 10.0.9.0/24 was queued when the sets were read and taken while SCAN passed: still wanted
    assert routes.wanted == {"10.0.0.0/24", "10.0.1.0/24", "10.0.9.0/24"}
    assert keys["INTF_TABLE"].taken == {"Ethernet0:10.0.0.0/31"} and keys["PORT_TABLE"].taken == {"Ethernet0"}


def test_interface_addresses_and_ip2me():
    addresses = census.interface_addresses(["Ethernet0", "Ethernet0:10.0.0.0/31", "Ethernet0:fc00::1/126",
                                            "Loopback0:10.1.0.1/32", "eth0:192.168.1.5/24"])
    assert addresses["Ethernet0"] == {"10.0.0.0/31", "fc00::1/126"}
    assert census.ip2me_count(addresses) == 3  # not eth0's


def test_default_routes():
    assert census.is_default_route("0.0.0.0/0") and census.is_default_route("::/0")
    assert not census.is_default_route("Vrf1:0.0.0.0/0") and not census.is_default_route("10.0.0.0/8")


class View:
    """The RouteView routeorch decides with, holding one interface with a /32 address."""

    def next_hop(self, key):
        return None

    def rif(self, alias):
        return "oid:0x6000000000001"

    def group(self, hops):
        return ""

    def named(self, index):
        return None

    def is_interface_subnet(self, prefix, alias):
        return alias == "Ethernet8" and prefix == "10.9.9.9/32"

    def can_add_group(self):
        return True


ADDRESSES = {"Ethernet8": {"10.9.9.9/32"}}
ROWS = [
    ("10.0.0.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0"}),
    ("10.0.0.0/31", {"nexthop": "0.0.0.0", "ifname": "Ethernet0"}),
    ("10.0.2.0/24", {"ifname": "Ethernet0"}),
    ("10.0.3.0/24", {"nexthop": "10.0.0.1,10.0.1.1", "ifname": "Ethernet0,Ethernet4"}),
    ("10.1.0.1/32", {"nexthop": "0.0.0.0", "ifname": "Loopback0"}),
    ("192.168.0.0/24", {"nexthop": "0.0.0.0", "ifname": "eth0"}),
    ("10.4.0.0/24", {"nexthop": "10.0.0.1,0.0.0.0", "ifname": "Ethernet0,lo"}),
    ("10.5.0.0/24", {"ifname": "unknown"}),
    ("10.6.0.0/24", {"ifname": "tun0"}),
    ("10.7.0.0/24", {"ifname": "Vrf1"}),
    ("fe80::/64", {"nexthop": "::", "ifname": "Ethernet0"}),
    ("224.0.0.0/4", {"ifname": "Ethernet0"}),
    ("127.0.0.0/8", {"ifname": "Ethernet0"}),
    ("10.9.9.9/32", {"ifname": "Ethernet8"}),
    ("10.9.9.8/32", {"ifname": "Ethernet8"}),
    ("10.8.0.0/24", {"blackhole": "true"}),
    ("10.8.1.0/24", {"nexthop_group": "g1"}),
    ("Vrf1:10.8.2.0/24", {"nexthop": "0.0.0.0", "ifname": "Ethernet0"}),
]


def orchagent_says(key, fields):
    """Whether routeorch's own rules make an entry (EXCLUDED and IGNORED: no)."""
    _, prefix, v4 = rp.parse_key(key)
    try:
        target = rp.parse_target(fields, v4)
    except InvalidEntry:
        return True
    if target is rp.EXCLUDED:
        return False
    decision = rp.decide(target, prefix, View())
    return decision.result is None or decision.result.status is not TaskStatus.IGNORED


@pytest.mark.parametrize(("key", "fields"), ROWS)
def test_is_asic_route_agrees_with_routeorch(key, fields):
    assert census.is_asic_route(key, fields, ADDRESSES) == orchagent_says(key, fields)


def test_the_rule_constants_are_routeorchs():
    assert census.EXCLUDED_IFNAMES == rp.EXCLUDED_IFNAMES and census.SKIPPED_IFNAMES == rp.SKIPPED_IFNAMES
    assert census.DEFAULT_PREFIXES == rp.DEFAULT_PREFIXES
    assert census.LOOPBACK_PREFIX == rp.LOOPBACK_PREFIX and census.VRF_PREFIX == rp.VRF_PREFIX
