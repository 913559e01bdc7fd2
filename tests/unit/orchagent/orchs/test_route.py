"""Route planning (route_plan): ROUTE_TABLE keys and fields, decisions against a view, SAI attributes."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from nos.daemon.task import TaskStatus
from nos.sai.keys import route_key
from orchagent.core.l3 import InvalidEntry, NamedGroup, NextHop, NhKey
from orchagent.orchs import route_plan as rp
from orchagent.orchs.route import link_local
from orchagent.orchs.route_plan import DROP, EXCLUDED, Hop, Target, Via

NH = "SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID"
ACTION = "SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION"


# -- keys and fields ------------------------------------------------------------------------------
@pytest.mark.parametrize("key,expected", [
    ("10.1.0.0/24", ("", "10.1.0.0/24", True)),
    ("10.1.0.7/24", ("", "10.1.0.0/24", True)),
    ("1.2.3.4", ("", "1.2.3.4/32", True)),        # fpmsyncd writes host routes without a length
    ("Vrf_red:80.80.1.0/24", ("Vrf_red", "80.80.1.0/24", True)),
    ("Vrf_red:2001:db8::1/64", ("Vrf_red", "2001:db8::/64", False)),
    ("3000::/64", ("", "3000::/64", False)),
    ("::/0", ("", "::/0", False)),
    ("0.0.0.0/0", ("", "0.0.0.0/0", True)),
])
def test_keys(key, expected):
    assert rp.parse_key(key) == expected


@pytest.mark.parametrize("key", ["10.1.0.0/33", "not-a-prefix", "Vrf_red:", "1.2.3.4/"])
def test_bad_keys(key):
    with pytest.raises(InvalidEntry):
        rp.parse_key(key)


def test_targets():
    assert rp.parse_target({"blackhole": "true"}, True) is DROP
    assert rp.parse_target({"nexthop": "10.0.0.1", "ifname": "Loopback0"}, True) is EXCLUDED
    assert rp.parse_target({"nexthop": "10.0.0.1", "ifname": "eth0"}, True) is EXCLUDED
    assert rp.parse_target({"nexthop": "0.0.0.0", "ifname": "Ethernet0"}, True) == \
        Target(Via.RIF, (Hop("0.0.0.0", "Ethernet0"),))
    assert rp.parse_target({"nexthop": "", "ifname": "Ethernet0"}, False) == Target(Via.RIF, (Hop("::", "Ethernet0"),))
    assert rp.parse_target({"nexthop": "10.0.0.1", "ifname": "Ethernet0"}, True) == \
        Target(Via.NEXT_HOP, (Hop("10.0.0.1", "Ethernet0"),))
    assert rp.parse_target({"nexthop_group": "g1"}, True) == Target(Via.NAMED, index="g1")


def test_ecmp_targets_are_sorted_and_deduplicated_with_weights():
    target = rp.parse_target({"nexthop": "10.0.0.5,10.0.0.1,10.0.0.5,10.0.0.3",
                              "ifname": "Ethernet8,Ethernet0,Ethernet8,Ethernet4", "weight": "3,1,3,2"}, True)
    assert target == Target(Via.GROUP, (Hop("10.0.0.1", "Ethernet0", 1), Hop("10.0.0.3", "Ethernet4", 2),
                                        Hop("10.0.0.5", "Ethernet8", 3)))
    mismatched = rp.parse_target({"nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0,Ethernet4", "weight": "1"}, True)
    assert all(h.weight == 0 for h in mismatched.hops)


@pytest.mark.parametrize("fields", [{"nexthop": "10.0.0.1"}, {"nexthop_group": "g", "ifname": "Ethernet0"},
                                    {"nexthop": "10.0.0.x", "ifname": "Ethernet0"}, {"vni_label": "100"}])
def test_bad_fields(fields):
    with pytest.raises(InvalidEntry):
        rp.parse_target(fields, True)


# -- decisions ------------------------------------------------------------------------------------
@dataclass
class View:
    """A RouteView over plain data."""

    next_hops: dict[NhKey, NextHop] = field(default_factory=dict)
    rifs: dict[str, str] = field(default_factory=dict)
    groups: dict[rp.Hops, str] = field(default_factory=dict)
    named_groups: dict[str, NamedGroup] = field(default_factory=dict)
    subnets: set[tuple[str, str]] = field(default_factory=set)
    room: bool = True

    def next_hop(self, key):
        return self.next_hops.get(key)

    def rif(self, alias):
        return self.rifs.get(alias, "")

    def group(self, hops):
        return self.groups.get(hops, "")

    def named(self, index):
        return self.named_groups.get(index)

    def is_interface_subnet(self, prefix, alias):
        return (prefix, alias) in self.subnets

    def can_add_group(self):
        return self.room


def view(*down):
    nhs = {(f"10.0.0.{i}", f"Ethernet{4 * (i // 2)}"): NextHop(f"10.0.0.{i}", f"Ethernet{4 * (i // 2)}",
                                                                f"oid:0x40000000000{i:02x}", "rif")
           for i in (1, 3, 5)}
    for ip in down:
        next(nh for nh in nhs.values() if nh.ip == ip).up = False
    return View(nhs, {"Ethernet0": "oid:0x6000000000001"})


ECMP = rp.parse_target({"nexthop": "10.0.0.1,10.0.0.3,10.0.0.5", "ifname": "Ethernet0,Ethernet4,Ethernet8"}, True)


def test_single_next_hop_resolved_unresolved_and_down():
    target = rp.parse_target({"nexthop": "10.0.0.1", "ifname": "Ethernet0"}, True)
    assert rp.decide(target, "3.3.3.0/24", view()) == rp.Decision(target, "oid:0x4000000000001")
    missing = rp.parse_target({"nexthop": "10.0.0.9", "ifname": "Ethernet0"}, True)
    decision = rp.decide(missing, "3.3.3.0/24", view())
    assert decision.result.status is TaskStatus.NEED_RETRY and decision.resolve == (("10.0.0.9", "Ethernet0"),)
    assert rp.decide(target, "3.3.3.0/24", view("10.0.0.1")).result.status is TaskStatus.NEED_RETRY


@pytest.mark.parametrize("prefix,alias,subnet,status", [
    ("10.0.0.0/31", "Ethernet0", False, None),
    ("10.0.0.0/32", "Ethernet0", True, TaskStatus.IGNORED),   # the ip2me route covers it
    ("fe80::/64", "Ethernet0", False, TaskStatus.IGNORED),    # link-local
    ("224.0.0.0/4", "Ethernet0", False, TaskStatus.IGNORED),  # multicast
    ("10.9.0.0/24", "Vrf_red", False, TaskStatus.IGNORED),    # the VRF device
    ("10.9.0.0/24", "unknown", False, TaskStatus.IGNORED),
    ("10.9.0.0/24", "Ethernet4", False, TaskStatus.NEED_RETRY),  # no RIF yet
])
def test_interface_routes(prefix, alias, subnet, status):
    v = view()
    if subnet:
        v.subnets.add((prefix, alias))
    target = Target(Via.RIF, (Hop("::" if ":" in prefix else "0.0.0.0", alias),))
    decision = rp.decide(target, prefix, v)
    assert (decision.result.status if decision.result else None) is status
    if status is None:
        assert decision.oid == "oid:0x6000000000001"


def test_groups_existing_new_stand_in_and_all_down():
    v = view()
    assert rp.decide(ECMP, "2.2.2.0/24", v) == rp.Decision(ECMP, new_group=True)
    v.groups[ECMP.hops] = "oid:0x5000000000001"
    assert rp.decide(ECMP, "2.2.2.0/24", v) == rp.Decision(ECMP, "oid:0x5000000000001")
    full = view()
    full.room = False
    stand_in = rp.decide(ECMP, "2.2.2.0/24", full)
    assert stand_in.temp and stand_in.target == Target(Via.NEXT_HOP, (ECMP.hops[0],))
    assert stand_in.oid == "oid:0x4000000000001" and stand_in.result.status is TaskStatus.NEED_RETRY
    partial = view()
    del partial.next_hops[("10.0.0.5", "Ethernet8")]
    waiting = rp.decide(ECMP, "2.2.2.0/24", partial)
    assert waiting.temp and waiting.resolve == (("10.0.0.5", "Ethernet8"),)
    dead = rp.decide(ECMP, "2.2.2.0/24", view("10.0.0.1", "10.0.0.3", "10.0.0.5"))
    assert dead.result.status is TaskStatus.NEED_RETRY and not dead.temp


def test_named_groups():
    v = view()
    target = Target(Via.NAMED, index="g1")
    assert rp.decide(target, "9.9.9.0/24", v).result.status is TaskStatus.NEED_RETRY
    v.named_groups["g1"] = NamedGroup("g1", "oid:0x5000000000007", temp=True)
    decision = rp.decide(target, "9.9.9.0/24", v)
    assert decision.oid == "oid:0x5000000000007" and decision.temp


# -- SAI attributes -------------------------------------------------------------------------------
def test_entry_id_matches_the_asic_state_key():
    for prefix in ("10.1.0.0/24", "3000::/64", "0.0.0.0/0"):
        assert rp.entry_id(prefix, "oid:0x3000000000002", "oid:0x21000000000000") == \
            route_key(prefix, "oid:0x3000000000002", "oid:0x21000000000000")


def test_route_attributes():
    assert rp.create_attrs(DROP, "") == ((ACTION, "SAI_PACKET_ACTION_DROP"),)
    assert rp.create_attrs(ECMP, "oid:0x5000000000001") == ((NH, "oid:0x5000000000001"),)
    nh = Target(Via.NEXT_HOP, (Hop("10.0.0.1", "Ethernet0"),))
    forward = (ACTION, "SAI_PACKET_ACTION_FORWARD")
    assert rp.set_attrs(DROP, nh, "oid:0x4", default_route=False) == [forward, (NH, "oid:0x4")]
    assert rp.set_attrs(nh, ECMP, "oid:0x5", default_route=False) == [(NH, "oid:0x5")]
    assert rp.set_attrs(nh, ECMP, "oid:0x5", default_route=True) == [forward, (NH, "oid:0x5")]
    assert rp.set_attrs(nh, DROP, "", default_route=False) == [(NH, "oid:0x0"), (ACTION, "SAI_PACKET_ACTION_DROP")]
    assert rp.default_drop_attrs() == [(ACTION, "SAI_PACKET_ACTION_DROP"), (NH, "oid:0x0")]


def test_group_and_member_attributes():
    kind = "SAI_NEXT_HOP_GROUP_ATTR_TYPE"
    assert rp.group_attrs(False) == ((kind, "SAI_NEXT_HOP_GROUP_TYPE_DYNAMIC_UNORDERED_ECMP"),)
    assert rp.group_attrs(True) == (("SAI_NEXT_HOP_GROUP_ATTR_TYPE", "SAI_NEXT_HOP_GROUP_TYPE_DYNAMIC_ORDERED_ECMP"),)
    m = "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_"
    assert rp.member_attrs("oid:0x5", "oid:0x4") == ((m + "NEXT_HOP_GROUP_ID", "oid:0x5"),
                                                      (m + "NEXT_HOP_ID", "oid:0x4"))
    assert rp.member_attrs("oid:0x5", "oid:0x4", weight=3, sequence=2)[2:] == ((m + "WEIGHT", "3"),
                                                                                (m + "SEQUENCE_ID", "2"))


def test_eui64_link_local_of_the_router_mac():
    assert link_local("02:00:00:00:00:01") == "fe80::ff:fe00:1"
    assert link_local("52:54:00:12:34:56") == "fe80::5054:ff:fe12:3456"
