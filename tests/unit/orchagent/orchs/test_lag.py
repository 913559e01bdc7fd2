"""LAG parse/plan with plain data: golden SAI operations, refusals and waits."""

from __future__ import annotations

from itertools import count

import pytest

from nos.daemon.task import TaskStatus
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.types import make_oid
from orchagent.core.registry import Kind
from orchagent.orchs import lag
from orchagent.orchs.l2_common import Bridgeable, InvalidEntry

LAG_OID = "oid:0x2000000000005"
PORT = "oid:0x1000000000010"
HOSTIF = "oid:0xd000000000030"
BP = "oid:0x3a000000000040"
MEMBER = make_oid(T.LAG_MEMBER, 1)


def oids():
    numbers = count(1)
    return lambda object_type: make_oid(object_type, next(numbers))


def lag1(**kw):
    return Bridgeable("PortChannel1", Kind.LAG, LAG_OID, **kw)


def port(**kw):
    return Bridgeable("Ethernet0", Kind.PORT, PORT, hostifs=(HOSTIF,), **kw)


def ingress(value):
    return SaiOp.set(T.LAG_MEMBER, MEMBER, "SAI_LAG_MEMBER_ATTR_INGRESS_DISABLE", value)


def egress(value):
    return SaiOp.set(T.LAG_MEMBER, MEMBER, "SAI_LAG_MEMBER_ATTR_EGRESS_DISABLE", value)


# ---- parse -------------------------------------------------------------------------------------

def test_parse_lag_row_as_teamsyncd_and_teammgrd_write_it():
    entry = lag.parse_lag("PortChannel002", (("admin_status", "up"), ("mtu", "9100"), ("tpid", "0x9200"),
                                             ("oper_status", "up"), ("learn_mode", "disable"), ("lag_id", "3")))
    assert entry == lag.LagEntry("PortChannel002", True, True, 9100, 0x9200,
                                 "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DISABLE")


def test_upstream_tests_admin_field_is_accepted():
    assert lag.parse_lag("PortChannel0001", (("admin", "up"), ("mtu", "1500"))).admin_up is True


@pytest.mark.parametrize("key, fields", [
    ("Ethernet0", ()), ("PortChannel", ()),
    ("PortChannel1", (("tpid", "9200"),)), ("PortChannel1", (("tpid", "0xzz"),)),
    ("PortChannel1", (("tpid", "0x10000"),)),
    ("PortChannel1", (("oper_status", "sideways"),)), ("PortChannel1", (("learn_mode", "hw"),)),
    ("PortChannel1", (("mtu", "-1"),)),
])
def test_bad_lag_rows_are_invalid(key, fields):
    with pytest.raises(InvalidEntry):
        lag.parse_lag(key, fields)


def test_member_key_and_status():
    assert lag.parse_member("PortChannel1:Ethernet0", (("status", "enabled"),)) == lag.LagMemberEntry(
        "PortChannel1", "Ethernet0", True)
    assert lag.parse_member("PortChannel1:Ethernet0", ()).enabled is False
    for key, fields in [("PortChannel1", ()), ("PortChannel1:Ethernet0", (("status", "on"),))]:
        with pytest.raises(InvalidEntry):
            lag.parse_member(key, fields)


# ---- LAG plans ---------------------------------------------------------------------------------

def test_a_new_lag_is_created_empty_then_its_tpid_set():
    plan = lag.plan_lag(lag.LagEntry("PortChannel2", True, True, 9100, 0x9200), None, oids())
    oid = make_oid(T.LAG, 1)
    assert plan.ops == (SaiOp.create(T.LAG, oid), SaiOp.set(T.LAG, oid, "SAI_LAG_ATTR_TPID", "37376"))
    assert plan.state == lag.LagState("PortChannel2", oid, True, True, 9100, 0x9200)


def test_updates_set_only_what_changed():
    current = lag.LagState("PortChannel2", LAG_OID, True, True, 9100, 0x9200)
    plan = lag.plan_lag(lag.LagEntry("PortChannel2", oper_up=False, tpid=0x9200, mtu=8888), current, oids())
    assert plan.ops == ()
    assert plan.state == lag.LagState("PortChannel2", LAG_OID, True, False, 8888, 0x9200)


def test_learn_mode_goes_to_the_bridge_port_when_there_is_one():
    current = lag.LagState("PortChannel2", LAG_OID)
    entry = lag.LagEntry("PortChannel2", learn_mode="SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DROP")
    assert lag.plan_lag(entry, current, oids()).ops == ()
    assert lag.plan_lag(entry, current, oids(), BP).ops == (
        SaiOp.set(T.BRIDGE_PORT, BP, "SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE",
                  "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DROP"),)


def test_lag_removal_waits_for_members_vlans_and_router_interfaces():
    current = lag.LagState("PortChannel2", LAG_OID)
    assert lag.plan_lag_removal(current, 1, 0, "").result.status is TaskStatus.NEED_RETRY
    assert lag.plan_lag_removal(current, 0, 1, "").result.status is TaskStatus.NEED_RETRY
    assert lag.plan_lag_removal(current, 0, 0, BP).result.status is TaskStatus.NEED_RETRY
    assert lag.plan_lag_removal(current, 0, 0, "").ops == (SaiOp.remove(T.LAG, LAG_OID),)


# ---- member plans ------------------------------------------------------------------------------

def test_an_enabled_member_is_created_then_collection_and_distribution_enabled():
    plan = lag.plan_member(lag.LagMemberEntry("PortChannel1", "Ethernet0", True), lag1(), port(), None, oids())
    assert plan.ops == (
        SaiOp.set(T.PORT, PORT, "SAI_PORT_ATTR_PORT_VLAN_ID", "1"),
        SaiOp.create(T.LAG_MEMBER, MEMBER, ("SAI_LAG_MEMBER_ATTR_LAG_ID", LAG_OID),
                     ("SAI_LAG_MEMBER_ATTR_PORT_ID", PORT)),
        ingress("false"), egress("false"),
    )
    assert plan.state == lag.LagMember("PortChannel1", "Ethernet0", MEMBER, True)


def test_a_disabled_member_is_created_disabled_then_distribution_and_collection_disabled():
    plan = lag.plan_member(lag.LagMemberEntry("PortChannel1", "Ethernet0", False), lag1(), port(), None, oids())
    assert plan.ops[1:] == (
        SaiOp.create(T.LAG_MEMBER, MEMBER, ("SAI_LAG_MEMBER_ATTR_LAG_ID", LAG_OID),
                     ("SAI_LAG_MEMBER_ATTR_PORT_ID", PORT),
                     ("SAI_LAG_MEMBER_ATTR_EGRESS_DISABLE", "true"), ("SAI_LAG_MEMBER_ATTR_INGRESS_DISABLE", "true")),
        egress("true"), ingress("true"),
    )


@pytest.mark.parametrize("lag_rif, port_rif", [("oid:0x6000000000001", ""), ("", "oid:0x6000000000002")])
def test_no_pvid_is_given_when_the_lag_or_the_port_is_routed(lag_rif, port_rif):
    plan = lag.plan_member(lag.LagMemberEntry("PortChannel1", "Ethernet0", True), lag1(rif=lag_rif),
                           port(rif=port_rif), None, oids())
    assert all(op.object_type is not T.PORT for op in plan.ops)


def test_a_status_change_of_a_member_is_two_sets():
    current = lag.LagMember("PortChannel1", "Ethernet0", MEMBER, True)
    plan = lag.plan_member(lag.LagMemberEntry("PortChannel1", "Ethernet0", False), lag1(), port(lag="PortChannel1"),
                           current, oids())
    assert plan.ops == (egress("true"), ingress("true"))
    assert plan.state.enabled is False


def test_joining_a_bridged_lag_takes_its_pvid_and_keeps_vlan_tags():
    plan = lag.plan_member(lag.LagMemberEntry("PortChannel1", "Ethernet0", True), lag1(bridge_port=BP, pvid=2),
                           port(), None, oids())
    assert plan.ops[0] == SaiOp.set(T.PORT, PORT, "SAI_PORT_ATTR_PORT_VLAN_ID", "2")
    assert SaiOp.set(T.HOSTIF, HOSTIF, "SAI_HOSTIF_ATTR_VLAN_TAG", "SAI_HOSTIF_VLAN_TAG_KEEP") in plan.ops


@pytest.mark.parametrize("target, status", [
    (port(lag="PortChannel9"), TaskStatus.NEED_RETRY),
    (port(vlans=frozenset({2}), bridge_port=BP), TaskStatus.NEED_RETRY),
    (Bridgeable("Vlan2", Kind.VLAN, "oid:0x26000000000002"), TaskStatus.INVALID),
])
def test_ports_in_other_lags_or_vlans_do_not_join(target, status):
    plan = lag.plan_member(lag.LagMemberEntry("PortChannel1", target.name, True), lag1(), target, None, oids())
    assert plan.result.status is status and plan.ops == ()


def test_member_removal_strips_tags_when_the_lag_is_bridged():
    current = lag.LagMember("PortChannel1", "Ethernet0", MEMBER, True)
    assert lag.plan_member_removal(current, lag1(), port()).ops == (SaiOp.remove(T.LAG_MEMBER, MEMBER),)
    assert lag.plan_member_removal(current, lag1(bridge_port=BP), port()).ops == (
        SaiOp.remove(T.LAG_MEMBER, MEMBER),
        SaiOp.set(T.HOSTIF, HOSTIF, "SAI_HOSTIF_ATTR_VLAN_TAG", "SAI_HOSTIF_VLAN_TAG_STRIP"))
