"""forward(): VLAN filtering, learning, L2 lookup, router MAC, TTL, LPM (v4 and v6), route actions,
port state and classification, on the Lab switch (tests/unit/syncd_sim/compile/switchkit.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fastpath.forward import (
    ACT_DROP,
    ACT_FLOOD,
    ACT_FORWARD,
    ACT_TRAP,
    DROP_REASONS,
    TRAP_REASONS,
    ForwardResult,
    PacketBatch,
    forward,
)
from fastpath.tables import Tables
from fastpath.values import ip_words, mac_int
from nos.sai.types import ObjectType as T
from tests.unit.syncd_sim.compile.switchkit import ROUTER, Lab

HOST = mac_int("00:00:00:00:64:0A")
NEW = mac_int("00:00:00:00:99:01")


@pytest.fixture(scope="module")
def lab() -> Lab:
    return Lab()


@pytest.fixture(scope="module")
def tables(lab: Lab) -> Tables:
    return lab.tables()


def one(tables: Tables, **cols: Any) -> ForwardResult:
    return forward(tables, PacketBatch.of(1, **cols))


def reason(r: ForwardResult) -> str:
    return DROP_REASONS[int(r.drop_reason[0])]


def v4(text: str) -> int:
    return ip_words(text)[2]


def v6(text: str) -> np.ndarray:
    _, hi, lo = ip_words(text)
    return np.array([[hi, lo]], dtype=np.uint64)


# -- VLAN filtering -----------------------------------------------------------------------------------
def test_untagged_on_an_untagged_member_takes_the_pvid(tables: Tables):
    r = one(tables, in_port=0, src_mac=HOST, dst_mac=NEW)
    assert int(r.vlan[0]) == 100 and int(r.action[0]) == ACT_FLOOD


def test_tagged_on_a_tagged_member_is_accepted_untagged_is_not(tables: Tables):
    assert int(one(tables, in_port=1, vlan=100, dst_mac=HOST).egress_port[0]) == 0
    r = one(tables, in_port=1, vlan=0, dst_mac=HOST)
    assert int(r.action[0]) == ACT_DROP and reason(r) == "ingress_vlan_filter"


def test_a_vlan_the_port_is_not_in_and_a_port_in_no_vlan_are_filtered(tables: Tables):
    assert reason(one(tables, in_port=0, vlan=200, dst_mac=HOST)) == "ingress_vlan_filter"
    assert reason(one(tables, in_port=0, vlan=1, dst_mac=HOST)) == "ingress_vlan_filter"
    # Ethernet8 is a routed port: untagged frames for another MAC do not reach the bridge
    assert reason(one(tables, in_port=2, dst_mac=HOST)) == "router_mac_miss"


# -- learning and L2 lookup ---------------------------------------------------------------------------
def test_an_unknown_source_is_learned_once_per_batch(tables: Tables):
    b = PacketBatch.of(3, in_port=[0, 0, 6], src_mac=[NEW, NEW, NEW + 1], dst_mac=HOST)
    learn = forward(tables, b).learn
    assert learn.mac.tolist() == [NEW, NEW + 1] and learn.vlan.tolist() == [100, 100]
    assert learn.port.tolist() == [0, 6] and learn.obj.tolist() == [0, 8 + 0]   # LAG 0 = object n_ports + 0
    assert not learn.move.any()


def test_a_known_source_is_not_learned_and_a_moved_one_is(tables: Tables):
    assert len(one(tables, in_port=0, src_mac=HOST, dst_mac=NEW).learn.mac) == 0
    moved = one(tables, in_port=1, vlan=100, src_mac=HOST, dst_mac=NEW).learn
    assert moved.mac.tolist() == [HOST] and moved.move.tolist() == [True] and moved.port.tolist() == [1]


def test_no_learning_on_a_bridge_port_that_does_not_learn(lab: Lab):
    kit = lab.kit
    bp = kit.bridge_ports[kit.ports[1]]
    kit.set(T.BRIDGE_PORT, bp, "SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE", "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DISABLE")
    try:
        assert len(one(lab.tables(), in_port=1, vlan=100, src_mac=NEW, dst_mac=HOST).learn.mac) == 0
    finally:
        kit.set(T.BRIDGE_PORT, bp, "SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE", "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_HW")


def test_fdb_hit_miss_broadcast_and_same_port(tables: Tables):
    hit = one(tables, in_port=1, vlan=100, src_mac=NEW, dst_mac=HOST)
    assert (int(hit.action[0]), int(hit.egress_port[0]), bool(hit.fdb_hit[0])) == (ACT_FORWARD, 0, True)
    assert int(hit.out_vlan[0]) == 100
    for dst in (NEW + 7, 0xFFFFFFFFFFFF, 0x01005E000001):
        r = one(tables, in_port=1, vlan=100, src_mac=NEW, dst_mac=dst)
        assert int(r.action[0]) == ACT_FLOOD and int(r.egress_port[0]) == -1
    assert reason(one(tables, in_port=0, src_mac=NEW, dst_mac=HOST)) == "same_port"


def test_multicast_source_is_dropped(tables: Tables):
    assert reason(one(tables, in_port=0, src_mac=0x01005E000001, dst_mac=HOST)) == "smac_multicast"


# -- L3 ---------------------------------------------------------------------------------------------------
def routed(tables: Tables, dst: str, **cols: Any) -> ForwardResult:
    return one(tables, in_port=2, dst_mac=ROUTER, dst_ip=v4(dst), **cols)


def test_router_mac_on_a_routed_port_and_on_the_vlan_interface(tables: Tables):
    r = routed(tables, "10.1.9.9")
    assert bool(r.routed[0]) and int(r.egress_port[0]) == 2 and int(r.out_dst_mac[0]) == mac_int("00:00:00:00:02:01")
    r = one(tables, in_port=0, src_mac=HOST, dst_mac=ROUTER, dst_ip=v4("10.1.2.9"))
    assert bool(r.routed[0]) and int(r.egress_port[0]) == 3 and int(r.vlan[0]) == 100


def test_ipv4_longest_prefix_wins(tables: Tables):
    # /8 ECMP, /16 -> Ethernet8, /24 -> Ethernet12, /32 -> Ethernet16
    assert int(routed(tables, "10.1.9.9").egress_port[0]) == 2
    assert int(routed(tables, "10.1.2.4").egress_port[0]) == 3
    assert int(routed(tables, "10.1.2.3").egress_port[0]) == 4
    assert int(routed(tables, "10.200.0.1").egress_port[0]) in (2, 3, 4, 5)
    miss = routed(tables, "11.0.0.1")
    assert int(miss.action[0]) == ACT_DROP and reason(miss) == "lpm_miss"


def test_ipv6_longest_prefix_wins(tables: Tables):
    def port(dst: str) -> int:
        return int(one(tables, in_port=2, dst_mac=ROUTER, is_v6=True, dst_ip=v6(dst)).egress_port[0])

    assert port("2001:db8:2::1") == 2          # /32
    assert port("2001:db8:1::6") == 3          # /48
    assert port("2001:db8:1::5") == 4          # /128
    assert reason(one(tables, in_port=2, dst_mac=ROUTER, is_v6=True, dst_ip=v6("2002::1"))) == "lpm_miss"


def test_ttl_is_checked_and_decremented_on_routed_packets_only(tables: Tables):
    r = routed(tables, "10.1.9.9", ttl=64)
    assert int(r.out_ttl[0]) == 63
    for ttl in (1, 0):
        r = routed(tables, "10.1.9.9", ttl=ttl)
        assert int(r.action[0]) == ACT_DROP and reason(r) == "ttl_expired"
    bridged = one(tables, in_port=1, vlan=100, dst_mac=HOST, ttl=1)
    assert int(bridged.action[0]) == ACT_FORWARD and int(bridged.out_ttl[0]) == 1


def test_blackhole_trap_connected_and_neighbor_routes(tables: Tables):
    assert reason(routed(tables, "10.9.1.1")) == "blackhole_route"
    trap = routed(tables, "10.8.1.1")
    assert int(trap.action[0]) == ACT_TRAP and TRAP_REASONS[int(trap.trap_reason[0])] == "route_trap"
    glean = routed(tables, "192.168.100.77")
    assert int(glean.action[0]) == ACT_TRAP and TRAP_REASONS[int(glean.trap_reason[0])] == "neighbor_miss"
    host = routed(tables, "192.168.100.10")     # the neighbor's host route, out through the FDB
    assert int(host.egress_port[0]) == 0 and int(host.out_vlan[0]) == 100 and int(host.out_dst_mac[0]) == HOST


# -- port state ---------------------------------------------------------------------------------------------
def test_ingress_and_egress_port_down(lab: Lab):
    kit = lab.kit
    kit.set(T.PORT, kit.ports[3], "SAI_PORT_ATTR_ADMIN_STATE", "false")
    try:
        t = lab.tables()
        assert reason(one(t, in_port=3, dst_mac=ROUTER, dst_ip=v4("10.1.9.9"))) == "port_down"
        assert reason(one(t, in_port=2, dst_mac=ROUTER, dst_ip=v4("10.1.2.4"))) == "egress_port_down"
    finally:
        kit.set(T.PORT, kit.ports[3], "SAI_PORT_ATTR_ADMIN_STATE", "true")


# -- classification ---------------------------------------------------------------------------------------
def test_dscp_to_tc_and_pg_on_ingress_queue_on_egress():
    lab = Lab()
    kit = lab.kit
    azure = {**{d: 1 for d in range(64)}, 3: 3, 4: 4, 8: 0, 46: 5, 48: 6}
    kit.set(T.PORT, kit.ports[4], "SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP",
            kit.qos_map("SAI_QOS_MAP_TYPE_DSCP_TO_TC", "dscp", "tc", azure))
    kit.set(T.PORT, kit.ports[4], "SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP",
            kit.qos_map("SAI_QOS_MAP_TYPE_TC_TO_PRIORITY_GROUP", "tc", "pg", {3: 3, 4: 4}))
    kit.set(T.PORT, kit.ports[3], "SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP",       # only Ethernet12: TC 3 -> queue 6
            kit.qos_map("SAI_QOS_MAP_TYPE_TC_TO_QUEUE", "tc", "qidx", {3: 6}))
    t = lab.tables()
    dscp = np.array([3, 4, 46, 48, 8, 0, 26, 3])
    dst = [v4("10.1.9.9")] * 7 + [v4("10.1.2.4")]
    r = forward(t, PacketBatch.of(len(dscp), in_port=4, dst_mac=ROUTER, dst_ip=dst, dscp=dscp))
    assert r.egress_port.tolist() == [2] * 7 + [3]
    assert r.tc.tolist() == [3, 4, 5, 6, 0, 1, 1, 3] and r.pg.tolist() == [3, 4, 0, 0, 0, 0, 0, 3]
    assert r.queue.tolist() == [3, 4, 5, 6, 0, 1, 1, 6]


def test_batch_of_defaults_and_unknown_columns():
    b = PacketBatch.of(2, dst_ip=[1, 2])
    assert b.dst_ip.shape == (2, 2) and b.dst_ip[:, 1].tolist() == [1, 2] and b.ttl.tolist() == [64, 64]
    with pytest.raises(TypeError, match="nope"):
        PacketBatch.of(1, nope=1)


def test_hand_made_tables_without_forwarding_state_filter_and_classify():
    from fastpath.build import build_tables

    t = build_tables(n_ports=4)
    r = forward(t, PacketBatch.of(3, in_port=[0, 1, 3], dscp=[3, 4, 0]))
    assert set(r.drop_reason.tolist()) == {DROP_REASONS.index("ingress_vlan_filter")}
    assert r.tc.tolist() == [3, 4, 1] and r.pg.tolist() == [3, 4, 0] and r.queue.tolist() == [3, 4, 1]
    assert len(forward(t, PacketBatch.of(0)).egress_port) == 0


def test_a_learnt_host_behind_a_vlan_interface_is_routed_to_not_flooded() -> None:
    """A neighbour on a VLAN interface whose MAC the FDB did not hold at compile time floods; once the
    host's frame is learnt (fastpath.paths.learn_hosts), routed traffic to it leaves by its port."""
    import ipaddress

    from fastpath.forward import ACT_FLOOD, ACT_FORWARD
    from fastpath.paths import learn_hosts
    from nos.traffic.hosts import Host

    lab = Lab()
    vlan_rif = next(o.object_id for o in lab.kit.store.of_type(T.ROUTER_INTERFACE).values()
                    if o.attrs.get("SAI_ROUTER_INTERFACE_ATTR_TYPE") == "SAI_ROUTER_INTERFACE_TYPE_VLAN")
    lab.kit.neighbor(vlan_rif, "192.168.100.20", "00:00:00:00:64:14")   # not in the FDB
    tables = lab.tables()
    before = routed(tables, "192.168.100.20")
    assert int(before.action[0]) == ACT_FLOOD
    host = Host("h", 0, "Ethernet4", mac_int("00:00:00:00:64:14"), ipaddress.ip_interface("192.168.100.20/24"), 100)
    after = routed(learn_hosts(tables, [host], np.asarray([1], dtype=np.int32)), "192.168.100.20")
    assert int(after.action[0]) == ACT_FORWARD and int(after.egress_port[0]) == 1
