"""FDB origins with plain data: what the MC-LAG peer's MACs are programmed as, and who keeps an entry."""

from __future__ import annotations

import pytest

from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.orchs import fdb
from orchagent.orchs import fdb_origin as o
from tests.unit.orchagent.orchs.test_fdb import BP, KEY, SWITCH, VLAN, member

BP2 = "oid:0x3a000000000041"


@pytest.mark.parametrize("type_, sai, move", [("dynamic", o.SAI_STATIC, "true"), ("static", o.SAI_STATIC, None),
                                               ("dynamic_local", o.SAI_DYNAMIC, None)])
def test_a_peer_mac_is_static_and_movable_when_dynamic_there(type_, sai, move):
    entry = fdb.parse("Vlan2:52:54:00:25:06:E9", (("port", "Ethernet0"), ("type", type_)), o.PEER)
    plan = fdb.plan(entry, VLAN, member(), None, SWITCH)
    attrs = dict(plan.ops[0].attrs)
    assert attrs["SAI_FDB_ENTRY_ATTR_TYPE"] == sai and attrs.get("SAI_FDB_ENTRY_ATTR_ALLOW_MAC_MOVE") == move
    kept = plan.state.entry
    assert (kept.origin, kept.type) == ((o.LEARNT, "dynamic") if type_ == "dynamic_local" else (o.PEER, type_))
    assert plan.state.flushable is (type_ == "dynamic_local")


def test_dynamic_local_is_only_for_the_peer_table():
    with pytest.raises(fdb.InvalidEntry):
        fdb.parse("Vlan2:52:54:00:25:06:E9", (("port", "Ethernet0"), ("type", "dynamic_local")))


@pytest.mark.parametrize("old, new, why", [
    ((o.PROVISIONED, "static", BP), (o.PEER, "dynamic", BP2), "static provisioned"),
    ((o.PROVISIONED, "dynamic", BP), (o.PEER, "dynamic", BP2), ""),
    ((o.LEARNT, "dynamic", BP), (o.PEER, "dynamic_local", BP), "same bridge port"),
    ((o.LEARNT, "dynamic", BP), (o.PEER, "dynamic_local", BP2), ""),
    ((o.PEER, "dynamic", BP), (o.PROVISIONED, "dynamic", BP2), ""),
    ((o.PEER, "static", BP), (o.PEER, "dynamic", BP2), ""),
])
def test_who_keeps_an_entry(old, new, why):
    assert why in o.kept(*old, *new) and (why != "") == bool(o.kept(*old, *new))


def test_a_local_learn_over_a_peer_mac():
    assert o.learn_over_peer(True, KEY, BP, BP2) == (
        SaiOp.set(T.FDB_ENTRY, KEY, o.ALLOW_MOVE, "false"), SaiOp.set(T.FDB_ENTRY, KEY, o.TYPE, o.SAI_DYNAMIC),
        SaiOp.set(T.FDB_ENTRY, KEY, o.BRIDGE_PORT, BP2))
    assert o.learn_over_peer(False, KEY, BP, BP) == (SaiOp.set(T.FDB_ENTRY, KEY, o.TYPE, o.SAI_DYNAMIC),
                                                     SaiOp.set(T.FDB_ENTRY, KEY, o.BRIDGE_PORT, BP))
    assert o.learn_over_peer(True, KEY, BP, BP) == ()
    peer = fdb.Installed(fdb.FdbEntry("Vlan2", 2, "52:54:00:25:06:E9", "Ethernet0", "dynamic", origin=o.PEER), KEY, BP)
    moved = fdb.plan_learnt(fdb.FdbNotice(fdb.MOVE, KEY, VLAN, "52:54:00:25:06:E9", BP2), "Vlan2", 2, "Ethernet4", peer)
    assert moved is not None and moved.learnt and moved.bridge_port == BP2
