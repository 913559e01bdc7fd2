"""compile_store, the forwarding part: bridge, LAGs, router interfaces, next hops, groups, routes."""

from __future__ import annotations

import numpy as np

from fastpath.l2 import MEMBER_NONE, MEMBER_TAGGED, MEMBER_UNTAGGED
from fastpath.l3 import RIF_PORT, RIF_VLAN, RK_DROP, RK_GLEAN, RK_GROUP, RK_NEXTHOP, RK_TRAP
from fastpath.values import mac_int
from nos.sai.types import ObjectType as T
from syncd_sim.compile import compile_store
from tests.unit.syncd_sim.compile.switchkit import SWITCH_MAC, SwitchKit


def test_vlan_membership_pvid_fdb_and_lag_objects():
    kit = SwitchKit(n_ports=4)
    lag = kit.lag(2, 3)
    vlan = kit.vlan(100)
    kit.member(vlan, 100, kit.ports[0], tagged=False)
    kit.member(vlan, 100, kit.ports[1], tagged=True)
    kit.member(vlan, 100, lag, tagged=False)
    kit.fdb(vlan, "00:11:22:33:44:55", lag, static=True)
    kit.fdb(vlan, "00:11:22:33:44:66", kit.ports[1])
    l2 = compile_store(kit.store, version=1).l2
    assert list(l2.port_obj) == [0, 1, 4, 4]             # ports 2, 3 enter as LAG 0 (object 4)
    assert l2.lag_members == ((2, 3),)
    assert list(l2.vlan_member[100]) == [MEMBER_UNTAGGED, MEMBER_TAGGED, MEMBER_NONE, MEMBER_NONE, MEMBER_UNTAGGED]
    assert list(l2.obj_pvid) == [100, 1, 1, 1, 100]
    assert l2.vlan_oid[100] == vlan and l2.vlan_oid[1] != ""   # the default VLAN 1 exists
    keys = [(100 << 48) | mac_int("00:11:22:33:44:55"), (100 << 48) | mac_int("00:11:22:33:44:66")]
    assert l2.fdb_keys.tolist() == sorted(keys)
    assert dict(zip(l2.fdb_keys.tolist(), l2.fdb_obj.tolist(), strict=True)) == {keys[0]: 4, keys[1]: 1}
    assert dict(zip(l2.fdb_keys.tolist(), l2.fdb_static.tolist(), strict=True)) == {keys[0]: True, keys[1]: False}
    assert set(l2.lag_buckets[0].tolist()) == {2, 3}


def test_a_lag_member_that_is_down_or_egress_disabled_carries_nothing():
    kit = SwitchKit(n_ports=4)
    lag = kit.lag(1, 2, 3)
    member = next(m for m in kit.store.of_type(T.LAG_MEMBER).values()
                  if m.attrs["SAI_LAG_MEMBER_ATTR_PORT_ID"] == kit.ports[3])
    kit.set(T.LAG_MEMBER, member.object_id, "SAI_LAG_MEMBER_ATTR_EGRESS_DISABLE", "true")
    kit.set(T.PORT, kit.ports[2], "SAI_PORT_ATTR_ADMIN_STATE", "false")
    l2 = compile_store(kit.store, version=1).l2
    assert l2.lag_oids == (lag,) and l2.lag_members == ((1,),) and set(l2.lag_buckets[0].tolist()) == {1}


def test_router_interfaces_next_hops_groups_and_routes():
    kit = SwitchKit(n_ports=4)
    vlan = kit.vlan(200)
    kit.member(vlan, 200, kit.ports[3], tagged=False)
    kit.fdb(vlan, "00:00:00:00:03:01", kit.ports[3])
    rifs = [kit.rif_port(kit.ports[i]) for i in range(3)]
    vlan_rif = kit.rif_vlan(vlan, mac="02:00:00:00:00:BB")
    nhs = [kit.neighbor(rifs[i], f"10.0.{i}.1", f"00:00:00:00:0{i}:01") for i in range(3)]
    nh_vlan = kit.neighbor(vlan_rif, "10.0.3.1", "00:00:00:00:03:01")
    group, _ = kit.group(nhs[0], nhs[1])
    kit.route("10.1.0.0/16", group)
    kit.route("10.2.0.0/16", nh_vlan)
    kit.route("10.3.0.0/16", None, "SAI_PACKET_ACTION_DROP")
    kit.route("10.0.0.0/24", rifs[0])
    kit.route("10.0.0.9/32", kit.cpu)
    kit.route("2001:db8::/64", nhs[2])
    l3 = compile_store(kit.store, version=1).l3
    assert l3.switch_mac == mac_int(SWITCH_MAC)
    r = {oid: i for i, oid in enumerate(l3.rif_oids)}
    assert [int(l3.rif_kind[r[o]]) for o in (*rifs, vlan_rif)] == [RIF_PORT] * 3 + [RIF_VLAN]
    assert list(l3.obj_rif[:4]) == [r[rifs[0]], r[rifs[1]], r[rifs[2]], -1]
    assert int(l3.vlan_rif[200]) == r[vlan_rif] and int(l3.rif_mac[r[vlan_rif]]) == mac_int("02:00:00:00:00:BB")
    n = {oid: i for i, oid in enumerate(l3.nh_oids)}
    assert all(l3.nh_resolved[n[o]] for o in (*nhs, nh_vlan))
    assert [int(l3.nh_obj[n[o]]) for o in (*nhs, nh_vlan)] == [0, 1, 2, 3]   # the VLAN one through the FDB
    assert int(l3.nh_mac[n[nhs[1]]]) == mac_int("00:00:00:00:01:01")
    assert l3.nhg_members == ((n[nhs[0]], n[nhs[1]]),)
    assert set(l3.nhg_buckets[0].tolist()) == {n[nhs[0]], n[nhs[1]]}
    routes = {(int(l3.route_addr[i, 1]) if not l3.route_is_v6[i] else int(l3.route_addr[i, 0]), int(l3.route_len[i])):
              (int(l3.route_kind[i]), int(l3.route_ref[i])) for i in range(len(l3.route_kind))}
    assert routes[(0x0A010000, 16)] == (RK_GROUP, 0)
    assert routes[(0x0A020000, 16)] == (RK_NEXTHOP, n[nh_vlan])
    assert routes[(0x0A030000, 16)][0] == RK_DROP
    assert routes[(0x0A000000, 24)] == (RK_GLEAN, r[rifs[0]])
    assert routes[(0x0A000009, 32)][0] == RK_TRAP
    assert routes[(0x20010DB800000000, 64)] == (RK_NEXTHOP, n[nhs[2]])
    # every neighbor installs its host route, to a next hop of its own
    assert routes[(0x0A000101, 32)][0] == RK_NEXTHOP
    host_nh = routes[(0x0A000101, 32)][1]
    assert l3.nh_oids[host_nh].startswith("neighbor:") and int(l3.nh_obj[host_nh]) == 1


def test_a_neighbor_without_host_route_installs_none():
    kit = SwitchKit(n_ports=1)
    rif = kit.rif_port(kit.ports[0])
    kit.neighbor(rif, "10.0.0.1", "00:00:00:00:00:01", host_route=False)
    l3 = compile_store(kit.store, version=1).l3
    assert len(l3.route_kind) == 0 and len(l3.nh_oids) == 1


def test_compile_is_pure_and_arrays_are_read_only():
    kit = SwitchKit(n_ports=2)
    rif = kit.rif_port(kit.ports[0])
    kit.route("10.0.0.0/8", kit.neighbor(rif, "10.0.0.1", "00:00:00:00:00:01"))
    a, b = compile_store(kit.store, version=1), compile_store(kit.store, version=2)
    assert np.array_equal(a.l3.route_kind, b.l3.route_kind) and np.array_equal(a.l3.v4[0].tbl24, b.l3.v4[0].tbl24)
    assert not a.l3.route_kind.flags.writeable and not a.l2.fdb_keys.flags.writeable
    assert not a.l3.v4[0].tbl24.flags.writeable
