"""NhgOrch's pure parts: NEXTHOP_GROUP_TABLE rows and the next hops of recursive groups."""

from __future__ import annotations

import pytest

from orchagent.core.l3 import InvalidEntry
from orchagent.orchs import nhg
from orchagent.orchs.route_plan import Hop


def test_regular_and_recursive_rows():
    entry = nhg.parse("g1", (("nexthop", "10.0.0.3,10.0.0.1"), ("ifname", "Ethernet4,Ethernet0"), ("weight", "2,1")))
    assert entry == nhg.NhgEntry("g1", (Hop("10.0.0.1", "Ethernet0", 1), Hop("10.0.0.3", "Ethernet4", 2)))
    assert not entry.recursive
    rec = nhg.parse("r1", (("nexthop_group", "g1,g2"),))
    assert rec == nhg.NhgEntry("r1", members=("g1", "g2")) and rec.recursive


@pytest.mark.parametrize("fvs", [(("nexthop_group", "g1"), ("nexthop", "10.0.0.1")),
                                 (("nexthop", "10.0.0.1,10.0.0.3"), ("ifname", "Ethernet0")),
                                 (("nexthop", "10.0.0.1"), ("ifname", "Ethernet0"), ("weight", "x")),
                                 (("mpls_nh", "push100"), ("nexthop", "10.0.0.1"), ("ifname", "Ethernet0")), ()])
def test_bad_rows(fvs):
    with pytest.raises(InvalidEntry):
        nhg.parse("g", fvs)


def _state(index, *hops, recursive=False, temp=False):
    return nhg.NhgState(index, tuple(Hop(ip, alias) for ip, alias in hops), recursive, temp=temp)


def test_recursive_groups_take_the_next_hops_of_existing_members():
    groups = {"g1": _state("g1", ("10.0.0.1", "Ethernet0")), "g2": _state("g2", ("10.0.0.3", "Ethernet4"))}
    hops, missing = nhg.recursive_hops(nhg.NhgEntry("r", members=("g2", "g1", "g3")), groups)
    assert hops == (Hop("10.0.0.1", "Ethernet0"), Hop("10.0.0.3", "Ethernet4")) and missing == ["g3"]


@pytest.mark.parametrize("member", [_state("r0", ("10.0.0.1", "Ethernet0"), recursive=True),
                                    _state("t0", ("10.0.0.1", "Ethernet0"), temp=True)])
def test_nesting_depth_is_one(member):
    with pytest.raises(InvalidEntry):
        nhg.recursive_hops(nhg.NhgEntry("r", members=(member.index,)), {member.index: member})
