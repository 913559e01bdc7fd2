"""compile_store, isolation groups: the SAI objects IsoGrpOrch programs for MC-LAG (a BRIDGE_PORT group
bound at the peer link's bridge port, the MC-LAG PortChannels' bridge ports as members; or a PORT group)
become the L2 tables' group arrays, forward() enforces them, and removing the member or unbinding
(the attribute set to the null oid) gives the forwarding back."""

from __future__ import annotations

import numpy as np

from fastpath.forward import ACT_FORWARD, DROP_REASONS, ForwardResult, PacketBatch, forward
from fastpath.tables import Tables
from fastpath.values import mac_int
from nos.sai.types import NULL_OID
from nos.sai.types import ObjectType as T
from syncd_sim.compile import compile_store
from tests.unit.syncd_sim.compile.switchkit import SwitchKit

BRIDGE_PORT_GROUP = "SAI_ISOLATION_GROUP_TYPE_BRIDGE_PORT"
DUAL, ORPHAN, REMOTE = "00:00:00:00:0D:01", "00:00:00:00:0E:01", "00:00:00:00:0F:01"


class Mclag:
    """6 ports: Ethernet0 an orphan port, PortChannel (Ethernet8, 12) dual-homed, peer link PortChannel
    (Ethernet16, 20); Ethernet4 a port in no VLAN. VLAN 10 has the three; a host MAC behind each."""

    def __init__(self) -> None:
        k = self.kit = SwitchKit(n_ports=6)
        self.dual = k.lag(2, 3)
        self.peer = k.lag(4, 5)
        self.vlan = k.vlan(10)
        for target, mac in ((k.ports[0], ORPHAN), (self.dual, DUAL), (self.peer, REMOTE)):
            k.member(self.vlan, 10, target, tagged=False)
            k.fdb(self.vlan, mac, target)
        self.group = k.create(T.ISOLATION_GROUP, ("SAI_ISOLATION_GROUP_ATTR_TYPE", BRIDGE_PORT_GROUP))
        self.member = self.add_member(k.bridge_ports[self.dual])
        k.set(T.BRIDGE_PORT, k.bridge_ports[self.peer], "SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP", self.group)

    def add_member(self, target: str, group: str | None = None) -> str:
        return self.kit.create(T.ISOLATION_GROUP_MEMBER,
                               ("SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_GROUP_ID", group or self.group),
                               ("SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_OBJECT", target))

    def tables(self) -> Tables:
        return compile_store(self.kit.store, version=1)

    def objects(self, tables: Tables) -> tuple[int, int]:
        """The dual-homed and the peer-link LAG's object indices."""
        n = tables.ports.n
        return n + tables.l2.lag_oids.index(self.dual), n + tables.l2.lag_oids.index(self.peer)


def send(tables: Tables, in_port: int, dst: str) -> ForwardResult:
    return forward(tables, PacketBatch.of(1, in_port=in_port, src_mac=0x0000000000AB, dst_mac=mac_int(dst)))


def reason(r: ForwardResult) -> str:
    return DROP_REASONS[int(r.drop_reason[0])]


def test_a_bridge_port_group_compiles_to_its_bind_and_member_objects():
    lab = Mclag()
    t = lab.tables()
    dual, peer = lab.objects(t)
    l2 = t.l2
    assert l2.iso_oids == (lab.group,) and l2.iso_port_type.tolist() == [False]
    assert np.flatnonzero(l2.iso_member[0]).tolist() == [dual]
    assert np.flatnonzero(l2.obj_iso >= 0).tolist() == [peer] and int(l2.obj_iso[peer]) == 0
    assert (l2.port_iso == -1).all()


def test_traffic_from_the_peer_link_does_not_reach_the_dual_homed_lag():
    t = Mclag().tables()
    for port in (4, 5):                                    # either member of the peer link
        assert reason(send(t, port, DUAL)) == "isolated"
        r = send(t, port, ORPHAN)
        assert (int(r.action[0]), int(r.egress_port[0])) == (ACT_FORWARD, 0)
    r = send(t, 0, DUAL)                                   # from the orphan port: not isolated
    assert int(r.action[0]) == ACT_FORWARD and int(r.egress_port[0]) in (2, 3)
    assert int(send(t, 2, REMOTE).egress_port[0]) in (4, 5)   # the member is not bound: reaches the peer


def test_removing_the_member_gives_forwarding_back():
    lab = Mclag()
    lab.kit.remove(T.ISOLATION_GROUP_MEMBER, lab.member)
    t = lab.tables()
    assert not t.l2.iso_member.any()
    assert int(send(t, 4, DUAL).action[0]) == ACT_FORWARD


def test_unbinding_with_the_null_oid_gives_forwarding_back():
    lab = Mclag()
    assert reason(send(lab.tables(), 4, DUAL)) == "isolated"
    lab.kit.set(T.BRIDGE_PORT, lab.kit.bridge_ports[lab.peer], "SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP", NULL_OID)
    t = lab.tables()
    assert (t.l2.obj_iso == -1).all() and t.l2.iso_member.any()
    assert int(send(t, 4, DUAL).action[0]) == ACT_FORWARD
    lab.kit.remove(T.ISOLATION_GROUP_MEMBER, lab.member)
    lab.kit.remove(T.ISOLATION_GROUP, lab.group)           # no longer in use
    assert lab.tables().l2.iso_oids == ()


def test_a_port_group_compiles_to_ports_and_isolates_after_the_lag_member_is_chosen():
    lab = Mclag()
    k = lab.kit
    group = k.create(T.ISOLATION_GROUP, ("SAI_ISOLATION_GROUP_ATTR_TYPE", "SAI_ISOLATION_GROUP_TYPE_PORT"))
    lab.add_member(k.ports[2], group)
    k.set(T.PORT, k.ports[0], "SAI_PORT_ATTR_ISOLATION_GROUP", group)
    t = lab.tables()
    g = t.l2.iso_oids.index(group)
    assert t.l2.iso_port_type[g] and np.flatnonzero(t.l2.iso_member[g]).tolist() == [2]
    assert np.flatnonzero(t.l2.port_iso >= 0).tolist() == [0] and int(t.l2.port_iso[0]) == g
    b = PacketBatch.of(64, in_port=0, src_mac=0xAB, dst_mac=mac_int(DUAL), l4_src=np.arange(64))
    r = forward(t, b)
    k.set(T.PORT, k.ports[0], "SAI_PORT_ATTR_ISOLATION_GROUP", NULL_OID)   # unbound: where the hash sends each
    free = forward(lab.tables(), b)
    assert (free.action == ACT_FORWARD).all()
    to_2 = free.egress_port == 2
    assert to_2.any() and (~to_2).any()
    assert (r.drop_reason[to_2] == DROP_REASONS.index("isolated")).all() and (r.egress_port[~to_2] == 3).all()
