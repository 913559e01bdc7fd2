"""VLAN parse/plan with plain data: golden SAI operations, refusals and waits."""

from __future__ import annotations

from itertools import count

import pytest

from nos.daemon.task import TaskStatus
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.types import make_oid
from orchagent.core.registry import Interface, Kind, Registry
from orchagent.orchs import vlan
from orchagent.orchs.l2_common import Bridgeable, InvalidEntry, snapshot

DEFAULT_VLAN = "oid:0x26000000000099"
PORT = "oid:0x1000000000010"
LAG = "oid:0x2000000000020"
HOSTIF = "oid:0xd000000000030"
BP = "oid:0x3a000000000001"
MEMBER = "oid:0x27000000000002"
VLAN_OID = "oid:0x26000000000005"


def oids():
    numbers = count(1)
    return lambda object_type: make_oid(object_type, next(numbers))


def port(**kw):
    return Bridgeable("Ethernet0", Kind.PORT, PORT, hostifs=(HOSTIF,), **kw)


def vlan2(**kw):
    return vlan.VlanState("Vlan2", 2, VLAN_OID, **kw)


# ---- parse -------------------------------------------------------------------------------------

def test_parse_vlan_row_with_every_field():
    entry = vlan.parse_vlan("Vlan100", (("admin_status", "down"), ("mtu", "8888"), ("mac", "00-11-22-33-44-aa"),
                                        ("host_ifname", "MonVlan100"), ("dhcp_servers", "x")))
    assert entry == vlan.VlanEntry("Vlan100", 100, False, 8888, "00:11:22:33:44:AA", "MonVlan100")


@pytest.mark.parametrize("key", ["Vla2", "VLAN3", "vlan4", "Vlanabc", "Vlana3", "Vlan", "Vlan0", "Vlan4095", "Vlan02"])
def test_vlan_keys_must_be_vlan_and_a_number(key):
    with pytest.raises(InvalidEntry):
        vlan.parse_vlan(key, ())


@pytest.mark.parametrize("fields", [(("mtu", "abc"),), (("mtu", "0"),), (("admin_status", "UP"),), (("mac", "zz"),)])
def test_bad_vlan_fields_name_the_field(fields):
    with pytest.raises(InvalidEntry, match=fields[0][0]):
        vlan.parse_vlan("Vlan2", fields)


def test_member_defaults_to_untagged_and_splits_at_the_first_colon():
    assert vlan.parse_member("Vlan2:Ethernet0", (("no_tag_mode", ""),)) == vlan.MemberEntry("Vlan2", 2, "Ethernet0")
    assert vlan.parse_member("Vlan2:PortChannel1", (("tagging_mode", "priority_tagged"),)).mode == "priority_tagged"


@pytest.mark.parametrize("key, fields", [("Vlan2", ()), ("Vlan2:", ()), ("Bad:Ethernet0", ()),
                                         ("Vlan2:Ethernet0", (("tagging_mode", "trunk"),))])
def test_bad_members_are_invalid(key, fields):
    with pytest.raises(InvalidEntry):
        vlan.parse_member(key, fields)


# ---- VLAN plans --------------------------------------------------------------------------------

def test_a_new_vlan_is_one_create_with_its_id():
    plan = vlan.plan_vlan(vlan.VlanEntry("Vlan2", 2, True, 9100), None, oids(), DEFAULT_VLAN)
    oid = make_oid(T.VLAN, 1)
    assert plan.ops == (SaiOp.create(T.VLAN, oid, ("SAI_VLAN_ATTR_VLAN_ID", "2")),)
    assert plan.state == vlan.VlanState("Vlan2", 2, oid, admin_up=True, mtu=9100)


def test_an_update_changes_state_only_and_keeps_unsent_fields():
    current = vlan2(mtu=1500, admin_up=False)
    plan = vlan.plan_vlan(vlan.VlanEntry("Vlan2", 2, mtu=8888), current, oids(), DEFAULT_VLAN)
    assert plan.ops == ()
    assert plan.state == vlan2(mtu=8888, admin_up=False)


def test_host_ifname_creates_a_netdev_on_the_vlan_once():
    plan = vlan.plan_vlan(vlan.VlanEntry("Vlan2", 2, host_ifname="MonVlan2"), vlan2(), oids(), DEFAULT_VLAN)
    hostif = make_oid(T.HOSTIF, 1)
    assert plan.ops == (SaiOp.create(T.HOSTIF, hostif, ("SAI_HOSTIF_ATTR_TYPE", "SAI_HOSTIF_TYPE_NETDEV"),
                                     ("SAI_HOSTIF_ATTR_OBJ_ID", VLAN_OID), ("SAI_HOSTIF_ATTR_NAME", "MonVlan2"),
                                     ("SAI_HOSTIF_ATTR_QUEUE", "7")),)
    again = vlan.plan_vlan(vlan.VlanEntry("Vlan2", 2, host_ifname="MonVlan2"), plan.state, oids(), DEFAULT_VLAN)
    assert again.ops == ()


def test_a_long_host_ifname_is_cut_to_what_sai_holds():
    plan = vlan.plan_vlan(vlan.VlanEntry("Vlan2", 2, host_ifname="MonitorVlan2Extra"), vlan2(), oids(), DEFAULT_VLAN)
    assert dict(plan.ops[0].attrs)["SAI_HOSTIF_ATTR_NAME"] == "MonitorVlan2Ext"


def test_vlan1_adopts_the_default_vlan():
    plan = vlan.plan_vlan(vlan.VlanEntry("Vlan1", 1), None, oids(), DEFAULT_VLAN)
    assert plan.ops == () and plan.state.oid == DEFAULT_VLAN and plan.state.builtin
    assert vlan.plan_vlan_removal(plan.state, 0, 0).ops == ()


def test_removal_waits_for_members_and_router_interfaces():
    assert vlan.plan_vlan_removal(vlan2(), members=1, users=0).result.status is TaskStatus.NEED_RETRY
    waiting = vlan.plan_vlan_removal(vlan2(), members=0, users=1)
    assert waiting.result.status is TaskStatus.NEED_RETRY and "router interface" in waiting.result.reason
    assert vlan.plan_vlan_removal(vlan2(hostif=HOSTIF), 0, 0).ops == (SaiOp.remove(T.HOSTIF, HOSTIF),
                                                                      SaiOp.remove(T.VLAN, VLAN_OID))


# ---- member plans ------------------------------------------------------------------------------

def test_first_untagged_membership_creates_bridge_port_member_and_pvid():
    plan = vlan.plan_member(vlan.MemberEntry("Vlan2", 2, "Ethernet0"), vlan2(), port(), None, oids())
    assert plan.ops == (
        SaiOp.create(T.BRIDGE_PORT, BP, ("SAI_BRIDGE_PORT_ATTR_TYPE", "SAI_BRIDGE_PORT_TYPE_PORT"),
                     ("SAI_BRIDGE_PORT_ATTR_PORT_ID", PORT), ("SAI_BRIDGE_PORT_ATTR_ADMIN_STATE", "true"),
                     ("SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE", "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_HW")),
        SaiOp.set(T.HOSTIF, HOSTIF, "SAI_HOSTIF_ATTR_VLAN_TAG", "SAI_HOSTIF_VLAN_TAG_KEEP"),
        SaiOp.create(T.VLAN_MEMBER, MEMBER, ("SAI_VLAN_MEMBER_ATTR_VLAN_ID", VLAN_OID),
                     ("SAI_VLAN_MEMBER_ATTR_BRIDGE_PORT_ID", BP),
                     ("SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE", "SAI_VLAN_TAGGING_MODE_UNTAGGED")),
        SaiOp.set(T.PORT, PORT, "SAI_PORT_ATTR_PORT_VLAN_ID", "2"),
    )
    assert plan.state == vlan.MemberChange(vlan.VlanMember("Vlan2", 2, "Ethernet0", MEMBER, "untagged", BP), BP, 2)


def test_a_tagged_member_of_a_second_vlan_reuses_the_bridge_port_and_keeps_the_pvid():
    target = port(bridge_port="oid:0x3a000000000077", vlans=frozenset({3}))
    plan = vlan.plan_member(vlan.MemberEntry("Vlan2", 2, "Ethernet0", "tagged"), vlan2(), target, None, oids())
    member = make_oid(T.VLAN_MEMBER, 1)
    assert plan.ops == (SaiOp.create(T.VLAN_MEMBER, member, ("SAI_VLAN_MEMBER_ATTR_VLAN_ID", VLAN_OID),
                                     ("SAI_VLAN_MEMBER_ATTR_BRIDGE_PORT_ID", "oid:0x3a000000000077"),
                                     ("SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE", "SAI_VLAN_TAGGING_MODE_TAGGED")),)
    assert plan.state.pvid is None


def test_a_lag_member_sets_the_lag_pvid_and_its_member_ports_hostifs():
    lag = Bridgeable("PortChannel1", Kind.LAG, LAG, hostifs=("oid:0xd000000000001", "oid:0xd000000000002"))
    plan = vlan.plan_member(vlan.MemberEntry("Vlan2", 2, "PortChannel1"), vlan2(), lag, None, oids())
    assert plan.ops[0].attrs[1] == ("SAI_BRIDGE_PORT_ATTR_PORT_ID", LAG)
    assert [op.object_id for op in plan.ops if op.object_type is T.HOSTIF] == list(lag.hostifs)
    assert plan.ops[-1] == SaiOp.set(T.LAG, LAG, "SAI_LAG_ATTR_PORT_VLAN_ID", "2")


@pytest.mark.parametrize("target, status", [
    (port(lag="PortChannel1"), TaskStatus.NEED_RETRY),
    (port(rif="oid:0x6000000000001"), TaskStatus.NEED_RETRY),
    (Bridgeable("Vlan3", Kind.VLAN, "oid:0x26000000000003"), TaskStatus.INVALID),
])
def test_lag_members_routed_ports_and_vlans_cannot_join(target, status):
    plan = vlan.plan_member(vlan.MemberEntry("Vlan2", 2, target.name), vlan2(), target, None, oids())
    assert plan.result.status is status and plan.ops == ()


def test_same_mode_again_is_nothing_and_a_new_mode_is_a_set():
    current = vlan.VlanMember("Vlan2", 2, "Ethernet0", MEMBER, "untagged", BP)
    target = port(bridge_port=BP, vlans=frozenset({2}))
    same = vlan.plan_member(vlan.MemberEntry("Vlan2", 2, "Ethernet0"), vlan2(), target, current, oids())
    assert same.result.status is TaskStatus.IGNORED
    tagged = vlan.plan_member(vlan.MemberEntry("Vlan2", 2, "Ethernet0", "tagged"), vlan2(), target, current, oids())
    assert tagged.ops == (
        SaiOp.set(T.VLAN_MEMBER, MEMBER, "SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE", "SAI_VLAN_TAGGING_MODE_TAGGED"),
        SaiOp.set(T.PORT, PORT, "SAI_PORT_ATTR_PORT_VLAN_ID", "1"),
    )
    assert tagged.state.member.mode == "tagged" and tagged.state.pvid == 1


def test_leaving_the_last_vlan_restores_pvid_strips_tags_and_removes_the_bridge_port():
    current = vlan.VlanMember("Vlan2", 2, "Ethernet0", MEMBER, "untagged", BP)
    plan = vlan.plan_member_removal(port(bridge_port=BP, vlans=frozenset({2})), current)
    assert plan.ops == (
        SaiOp.remove(T.VLAN_MEMBER, MEMBER),
        SaiOp.set(T.PORT, PORT, "SAI_PORT_ATTR_PORT_VLAN_ID", "1"),
        SaiOp.set(T.BRIDGE_PORT, BP, "SAI_BRIDGE_PORT_ATTR_ADMIN_STATE", "false"),
        SaiOp.set(T.HOSTIF, HOSTIF, "SAI_HOSTIF_ATTR_VLAN_TAG", "SAI_HOSTIF_VLAN_TAG_STRIP"),
        SaiOp.remove(T.BRIDGE_PORT, BP),
    )
    assert plan.state == vlan.MemberChange(current, "", 1)


def test_leaving_one_of_two_vlans_keeps_the_bridge_port():
    current = vlan.VlanMember("Vlan2", 2, "Ethernet0", MEMBER, "tagged", BP)
    plan = vlan.plan_member_removal(port(bridge_port=BP, vlans=frozenset({2, 3})), current)
    assert plan.ops == (SaiOp.remove(T.VLAN_MEMBER, MEMBER),)
    assert plan.state == vlan.MemberChange(current, BP, None)


def test_snapshot_of_a_lag_collects_its_member_ports_hostifs():
    registry = Registry()
    registry.add(Interface("PortChannel1", Kind.LAG, LAG))
    for i, lag in enumerate(["PortChannel1", "PortChannel1", ""]):
        registry.add(Interface(f"Ethernet{4 * i}", Kind.PORT, make_oid(T.PORT, i + 1), lag=lag,
                               hostif=make_oid(T.HOSTIF, i + 1)))
    assert snapshot(registry, "PortChannel1").hostifs == (make_oid(T.HOSTIF, 1), make_oid(T.HOSTIF, 2))
    assert snapshot(registry, "Ethernet8").hostifs == (make_oid(T.HOSTIF, 3),)
    assert snapshot(registry, "Ethernet99") is None


def test_a_bridge_port_is_created_with_the_members_learn_mode():
    entry = vlan.MemberEntry("Vlan2", 2, "Ethernet0")
    disable = "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DISABLE"
    plan = vlan.plan_member(entry, vlan2(), port(learn_mode=disable), None, oids())
    assert dict(plan.ops[0].attrs)["SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE"] == disable


def test_a_port_learn_mode_is_a_set_on_its_bridge_port_only_when_it_changes():
    drop = "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DROP"
    assert vlan.plan_port_learn_mode(BP, "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_HW", drop) == (
        SaiOp.set(T.BRIDGE_PORT, BP, "SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE", drop),)
    assert vlan.plan_port_learn_mode(BP, drop, drop) == ()
    assert vlan.plan_port_learn_mode("", "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_HW", drop) == ()   # saved for later
