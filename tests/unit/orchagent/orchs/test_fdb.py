"""FDB parse/plan with plain data: golden SAI operations and the waits for VLAN membership."""

from __future__ import annotations

import pytest

from nos.daemon.task import TaskStatus
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.core.registry import Kind
from orchagent.orchs import fdb
from orchagent.orchs.l2_common import Bridgeable, InvalidEntry

SWITCH = "oid:0x21000000000000"
VLAN = "oid:0x26000000000005"
BP = "oid:0x3a000000000040"
KEY = '{"bvid":"oid:0x26000000000005","mac":"52:54:00:25:06:E9","switch_id":"oid:0x21000000000000"}'
ENTRY = fdb.FdbEntry("Vlan2", 2, "52:54:00:25:06:E9", "Ethernet0", "dynamic")


def member(**kw):
    values = {"bridge_port": BP, "vlans": frozenset({2})} | kw
    return Bridgeable("Ethernet0", Kind.PORT, "oid:0x1000000000010", **values)


def test_parse_accepts_dashes_and_keeps_the_vlan_and_port():
    assert fdb.parse("Vlan2:52-54-00-25-06-e9", (("port", "Ethernet0"), ("type", "dynamic"))) == ENTRY
    assert fdb.parse("Vlan2:52:54:00:25:06:E9", (("port", "Ethernet0"),)) == ENTRY
    assert ENTRY.state_key == "Vlan2:52:54:00:25:06:e9"


@pytest.mark.parametrize("key, fields", [
    ("Vlan2", (("port", "Ethernet0"),)), ("Vlan2:52-54-00-25-06", (("port", "Ethernet0"),)),
    ("Vlan2:52-54:00-25-06-E9", (("port", "Ethernet0"),)), ("Vlanx:52:54:00:25:06:E9", (("port", "Ethernet0"),)),
    ("Vlan2:52:54:00:25:06:E9", ()), ("Vlan2:52:54:00:25:06:E9", (("port", "Ethernet0"), ("type", "sticky"))),
])
def test_bad_rows_are_invalid(key, fields):
    with pytest.raises(InvalidEntry):
        fdb.parse(key, fields)


def test_a_new_entry_is_one_create_keyed_by_vlan_oid_and_upper_case_mac():
    plan = fdb.plan(ENTRY, VLAN, member(), None, SWITCH)
    assert plan.ops == (SaiOp.create(T.FDB_ENTRY, KEY, ("SAI_FDB_ENTRY_ATTR_TYPE", "SAI_FDB_ENTRY_TYPE_DYNAMIC"),
                                     ("SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID", BP),
                                     ("SAI_FDB_ENTRY_ATTR_PACKET_ACTION", "SAI_PACKET_ACTION_FORWARD")),)
    assert plan.state == fdb.Installed(ENTRY, KEY, BP)


@pytest.mark.parametrize("value, action", [("true", "SAI_PACKET_ACTION_DROP"), ("false", "SAI_PACKET_ACTION_FORWARD"),
                                           ("yes", "SAI_PACKET_ACTION_FORWARD")])
def test_discard_true_drops_and_anything_else_forwards(value, action):
    entry = fdb.parse("Vlan2:52-54-00-25-06-e9", (("port", "Ethernet0"), ("discard", value)))
    attrs = dict(fdb.plan(entry, VLAN, member(), None, SWITCH).ops[0].attrs)
    assert attrs["SAI_FDB_ENTRY_ATTR_PACKET_ACTION"] == action


@pytest.mark.parametrize("vlan, target", [
    ("", member()), (VLAN, None), (VLAN, member(vlans=frozenset({3}))),
    (VLAN, member(bridge_port="", vlans=frozenset())),
])
def test_waits_for_the_vlan_and_the_membership(vlan, target):
    plan = fdb.plan(ENTRY, vlan, target, None, SWITCH)
    assert plan.result.status is TaskStatus.NEED_RETRY and plan.ops == ()


def test_the_same_entry_again_is_nothing_and_a_change_is_sets():
    installed = fdb.Installed(ENTRY, KEY, BP)
    assert fdb.plan(ENTRY, VLAN, member(), installed, SWITCH).ops == ()
    static = fdb.FdbEntry("Vlan2", 2, "52:54:00:25:06:E9", "Ethernet4", "static")
    moved = fdb.plan(static, VLAN, member(bridge_port="oid:0x3a000000000041"), installed, SWITCH)
    assert moved.ops == (SaiOp.set(T.FDB_ENTRY, KEY, "SAI_FDB_ENTRY_ATTR_TYPE", "SAI_FDB_ENTRY_TYPE_STATIC"),
                         SaiOp.set(T.FDB_ENTRY, KEY, "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID", "oid:0x3a000000000041"),
                         SaiOp.set(T.FDB_ENTRY, KEY, "SAI_FDB_ENTRY_ATTR_PACKET_ACTION", "SAI_PACKET_ACTION_FORWARD"))


def test_flush_removes_each_entry():
    assert fdb.plan_flush([fdb.Installed(ENTRY, KEY, BP)]) == (SaiOp.remove(T.FDB_ENTRY, KEY),)


@pytest.mark.parametrize("op, data, request_", [
    ("ALL", "ALL", fdb.FlushRequest()), ("PORT", "Ethernet0", fdb.FlushRequest(port="Ethernet0")),
    ("VLAN", "40", fdb.FlushRequest(vlan="Vlan40")),
    ("PORTVLAN", "Ethernet0|40", fdb.FlushRequest("Ethernet0", "Vlan40")),
])
def test_flush_requests_as_fdbclear_sends_them(op, data, request_):
    assert fdb.parse_flush_request(op, data) == request_


@pytest.mark.parametrize("op, data", [("PORT", ""), ("VLAN", ""), ("PORTVLAN", "Ethernet0"), ("PORTVLAN", "|40"),
                                      ("FLUSH", "x")])
def test_bad_flush_requests_are_refused(op, data):
    with pytest.raises(ValueError):
        fdb.parse_flush_request(op, data)


def test_a_flush_request_names_dynamic_entries_by_port_and_vlan():
    def installed(vlan, mac, port, kind="dynamic"):
        return fdb.Installed(fdb.FdbEntry(vlan, int(vlan[4:]), mac, port, kind), f"{vlan}{mac}", BP)
    entries = [installed("Vlan40", "00:00:00:00:00:01", "Ethernet0"),
               installed("Vlan40", "00:00:00:00:00:02", "Ethernet4"),
               installed("Vlan41", "00:00:00:00:00:03", "Ethernet0"),
               installed("Vlan40", "00:00:00:00:00:04", "Ethernet0", "static")]
    assert fdb.flush_targets(fdb.FlushRequest(), entries) == entries[:3]
    assert fdb.flush_targets(fdb.FlushRequest(port="Ethernet0"), entries) == [entries[0], entries[2]]
    assert fdb.flush_targets(fdb.FlushRequest(vlan="Vlan40"), entries) == entries[:2]
    assert fdb.flush_targets(fdb.FlushRequest("Ethernet0", "Vlan40"), entries) == [entries[0]]
