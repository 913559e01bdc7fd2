"""NeighOrch's pure parts: NEIGH_TABLE rows, neighbour entry + next hop creation and removal."""

from __future__ import annotations

import ipaddress

import pytest

from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.core.l3 import InvalidEntry, NextHop, RouterIntf
from orchagent.orchs import neigh

SWITCH = "oid:0x21000000000000"
RIF = "oid:0x6000000000001"
INTF = RouterIntf("Ethernet8", RIF, "", "oid:0x3000000000002", addresses=[ipaddress.ip_interface("10.0.0.1/24")])


def test_rows():
    assert neigh.parse("Ethernet8:10.0.0.2", (("neigh", "00:01:02:03:04:05"), ("family", "IPv4"))) == \
        neigh.NeighEntry("Ethernet8", "10.0.0.2", "00:01:02:03:04:05")
    assert neigh.parse("Vlan2:fc00::0001", (("neigh", "52:54:00:aa:bb:cc"),)) == \
        neigh.NeighEntry("Vlan2", "fc00::1", "52:54:00:AA:BB:CC")
    assert neigh.parse("Ethernet8:10.0.0.2", (("neigh", "00:00:00:00:00:00"),)).mac == ""
    assert neigh.parse("Ethernet8:10.0.0.2", ()).mac == ""


@pytest.mark.parametrize("key,fvs", [("Ethernet8", ()), ("Ethernet8:10.0.0.300", ()),
                                     ("Ethernet8:10.0.0.2", (("neigh", "not-a-mac"),))])
def test_bad_rows(key, fvs):
    with pytest.raises(InvalidEntry):
        neigh.parse(key, fvs)


def test_create_is_neighbour_then_next_hop():
    entry = neigh.NeighEntry("Ethernet8", "10.0.0.2", "00:01:02:03:04:05")
    assert neigh.create_ops(entry, INTF, "oid:0x4000000000009", SWITCH) == [
        SaiOp.create(T.NEIGHBOR_ENTRY, f'{{"ip":"10.0.0.2","rif":"{RIF}","switch_id":"{SWITCH}"}}',
                     ("SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS", "00:01:02:03:04:05")),
        SaiOp.create(T.NEXT_HOP, "oid:0x4000000000009", ("SAI_NEXT_HOP_ATTR_TYPE", "SAI_NEXT_HOP_TYPE_IP"),
                     ("SAI_NEXT_HOP_ATTR_IP", "10.0.0.2"), ("SAI_NEXT_HOP_ATTR_ROUTER_INTERFACE_ID", RIF)),
    ]


def test_link_local_neighbours_get_no_host_route():
    entry = neigh.NeighEntry("Ethernet8", "169.254.0.9", "00:01:02:03:04:05")
    ops = neigh.create_ops(entry, INTF, "oid:0x4000000000009", SWITCH)
    assert ("SAI_NEIGHBOR_ENTRY_ATTR_NO_HOST_ROUTE", "true") in ops[0].attrs
    own = RouterIntf("Ethernet8", RIF, "", "vr", addresses=[ipaddress.ip_interface("169.254.0.1/16")])
    assert not neigh.no_host_route(entry, own)


def test_remove_is_next_hop_then_neighbour():
    entry = neigh.NeighEntry("Ethernet8", "10.0.0.2", "00:01:02:03:04:05")
    nh = NextHop("10.0.0.2", "Ethernet8", "oid:0x4000000000009", RIF)
    assert neigh.remove_ops(entry, nh, SWITCH) == [
        SaiOp.remove(T.NEXT_HOP, nh.oid),
        SaiOp.remove(T.NEIGHBOR_ENTRY, f'{{"ip":"10.0.0.2","rif":"{RIF}","switch_id":"{SWITCH}"}}')]
