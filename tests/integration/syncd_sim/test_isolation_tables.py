"""syncd_sim on a real Redis, isolation groups from ASIC_STATE: the group, its member and the bridge
port's bind (as orchagent's IsoGrpOrch writes them) reach the compiled tables, so the fast path drops
what enters the bound bridge port for the member; a later SET of the bind to the null oid is a store
change like any other, and the next compile forwards again."""

from __future__ import annotations

import pytest

from fastpath.forward import ACT_FORWARD, DROP_REASONS, ForwardResult, PacketBatch, forward
from fastpath.values import mac_int
from nos.db.queue_table import ConsumerTable, ProducerTable
from nos.sai.keys import fdb_key, object_key
from nos.sai.session import SESSION_ATTR
from nos.sai.types import NULL_OID, make_oid
from nos.sai.types import ObjectType as T
from syncd_sim.syncd import Syncd

pytestmark = pytest.mark.integration

SWITCH = "oid:0x21000000000000"
PORTS = [make_oid(T.PORT, 0x101 + i) for i in range(3)]
BPS = [make_oid(T.BRIDGE_PORT, 0x201 + i) for i in range(3)]
VLAN, GROUP = make_oid(T.VLAN, 0x301), make_oid(T.ISOLATION_GROUP, 0x401)
MEMBER = make_oid(T.ISOLATION_GROUP_MEMBER, 0x402)
HOST = "00:00:00:00:0B:01"
Op = tuple[str, str, tuple[tuple[str, str], ...]]


def create(kind: T, oid: str, *attrs: tuple[str, str]) -> Op:
    return object_key(kind, oid), "create", attrs


def boot() -> list[Op]:
    """A switch with Ethernet0, 4, 8 untagged in VLAN 10; HOST behind Ethernet4; the group bound at
    Ethernet0's bridge port with Ethernet4's as its member."""
    ops: list[Op] = [(object_key(T.SWITCH, "oid:0x0"), "notify", ((SESSION_ATTR, "s1"),)),
                     create(T.SWITCH, SWITCH, ("SAI_SWITCH_ATTR_INIT_SWITCH", "true")),
                     create(T.VLAN, VLAN, ("SAI_VLAN_ATTR_VLAN_ID", "10"))]
    for i, (port, bp) in enumerate(zip(PORTS, BPS, strict=True)):
        ops += [create(T.PORT, port, ("SAI_PORT_ATTR_HW_LANE_LIST", f"4:{4 * i},{4 * i + 1},{4 * i + 2},{4 * i + 3}"),
                       ("SAI_PORT_ATTR_SPEED", "400000"), ("SAI_PORT_ATTR_ADMIN_STATE", "true"),
                       ("SAI_PORT_ATTR_PORT_VLAN_ID", "10")),
                create(T.HOSTIF, make_oid(T.HOSTIF, 0x501 + i), ("SAI_HOSTIF_ATTR_TYPE", "SAI_HOSTIF_TYPE_NETDEV"),
                       ("SAI_HOSTIF_ATTR_OBJ_ID", port), ("SAI_HOSTIF_ATTR_NAME", f"Ethernet{4 * i}")),
                create(T.BRIDGE_PORT, bp, ("SAI_BRIDGE_PORT_ATTR_TYPE", "SAI_BRIDGE_PORT_TYPE_PORT"),
                       ("SAI_BRIDGE_PORT_ATTR_PORT_ID", port), ("SAI_BRIDGE_PORT_ATTR_ADMIN_STATE", "true")),
                create(T.VLAN_MEMBER, make_oid(T.VLAN_MEMBER, 0x601 + i), ("SAI_VLAN_MEMBER_ATTR_VLAN_ID", VLAN),
                       ("SAI_VLAN_MEMBER_ATTR_BRIDGE_PORT_ID", bp),
                       ("SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE", "SAI_VLAN_TAGGING_MODE_UNTAGGED"))]
    return ops + [
        (object_key(T.FDB_ENTRY, fdb_key(HOST, VLAN, SWITCH)), "create",
         (("SAI_FDB_ENTRY_ATTR_TYPE", "SAI_FDB_ENTRY_TYPE_STATIC"), ("SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID", BPS[1]))),
        create(T.ISOLATION_GROUP, GROUP, ("SAI_ISOLATION_GROUP_ATTR_TYPE", "SAI_ISOLATION_GROUP_TYPE_BRIDGE_PORT")),
        create(T.ISOLATION_GROUP_MEMBER, MEMBER, ("SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_GROUP_ID", GROUP),
               ("SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_OBJECT", BPS[1])),
        (object_key(T.BRIDGE_PORT, BPS[0]), "set", (("SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP", GROUP),))]


def statuses(dbs) -> list[str]:
    return [answer.key for answer in ConsumerTable(dbs["ASIC_DB"], "GETRESPONSE", pop_batch_size=1000).pops()]


def to_host(syncd: Syncd, in_port: int) -> ForwardResult:
    tables = syncd.fastpath.current()
    return forward(tables, PacketBatch.of(1, in_port=in_port, src_mac=0x0000000000AB, dst_mac=mac_int(HOST)))


def test_a_bound_bridge_port_is_isolated_until_the_bind_is_cleared(dbs):
    syncd = Syncd(dbs)
    requests = ProducerTable(dbs["ASIC_DB"], "ASIC_STATE")
    requests.send(boot())
    syncd.on_ready()
    assert set(statuses(dbs)) == {"SAI_STATUS_SUCCESS"}
    r = to_host(syncd, 0)
    assert DROP_REASONS[int(r.drop_reason[0])] == "isolated"
    assert int(to_host(syncd, 2).egress_port[0]) == 1          # Ethernet8 is not bound
    version = syncd.fastpath.current().version
    requests.send([(object_key(T.BRIDGE_PORT, BPS[0]), "set", (("SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP", NULL_OID),))])
    syncd.on_ready()
    assert statuses(dbs) == ["SAI_STATUS_SUCCESS"]
    r = to_host(syncd, 0)
    assert syncd.fastpath.current().version == version + 1
    assert (int(r.action[0]), int(r.egress_port[0])) == (ACT_FORWARD, 1)
