"""compile_store, the port, QoS, buffer and watchdog parts: a store programmed as orchagent does it
(maps bound on ports, schedulers on the queues' parent groups, WRED on queues, profiles on PGs/queues)
compiles to the expected arrays."""

from __future__ import annotations

import numpy as np

from fastpath.tables import NO_POOL, SCHED_DWRR, SCHED_STRICT, TH_DYNAMIC, TH_STATIC, WD_FORWARD
from nos.sai.types import ObjectType as T
from syncd_sim.compile import compile_store
from syncd_sim.compile.buffers import reserved_and_headroom
from tests.unit.syncd_sim.compile.switchkit import SwitchKit

AZURE_DSCP = {**{d: 1 for d in range(64)}, 3: 3, 4: 4, 8: 0, 46: 5, 48: 6}


def _queues(kit: SwitchKit, port: int) -> list[str]:
    found = [o for o in kit.store.owned_by(kit.ports[port]) if o.object_type is T.QUEUE]
    return [o.object_id for o in sorted(found, key=lambda o: int(o.attrs["SAI_QUEUE_ATTR_INDEX"]))]


def _pgs(kit: SwitchKit, port: int) -> list[str]:
    found = [o for o in kit.store.owned_by(kit.ports[port]) if o.object_type is T.INGRESS_PRIORITY_GROUP]
    return [o.object_id for o in sorted(found, key=lambda o: int(o.attrs["SAI_INGRESS_PRIORITY_GROUP_ATTR_INDEX"]))]


def test_ports_are_ordered_by_lane_and_named_by_their_netdev():
    kit = SwitchKit(n_ports=3)
    kit.set(T.PORT, kit.ports[1], "SAI_PORT_ATTR_ADMIN_STATE", "false")
    t = compile_store(kit.store, version=7)
    assert t.version == 7
    assert t.ports.names == ("Ethernet0", "Ethernet4", "Ethernet8")
    assert t.ports.oids == tuple(kit.ports)
    assert list(t.ports.admin_up) == [True, False, True] and list(t.ports.oper_up) == [True, False, True]
    assert list(t.ports.speed_bps) == [400_000_000_000] * 3 and list(t.ports.mtu) == [9122] * 3
    assert t.ports.queue_oids[2] == tuple(_queues(kit, 2)) and len(t.ports.pg_oids[0]) == 8


def test_maps_bound_on_a_port_and_the_switch_wide_dscp_map():
    kit = SwitchKit(n_ports=2)
    dscp = kit.qos_map("SAI_QOS_MAP_TYPE_DSCP_TO_TC", "dscp", "tc", AZURE_DSCP)
    tc_q = kit.qos_map("SAI_QOS_MAP_TYPE_TC_TO_QUEUE", "tc", "qidx", {0: 1, 1: 0, 3: 3})
    tc_pg = kit.qos_map("SAI_QOS_MAP_TYPE_TC_TO_PRIORITY_GROUP", "tc", "pg", {3: 3, 4: 4})
    kit.set(T.PORT, kit.ports[0], "SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP", dscp)
    kit.set(T.PORT, kit.ports[0], "SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP", tc_q)
    kit.set(T.PORT, kit.ports[0], "SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP", tc_pg)
    switch_map = kit.qos_map("SAI_QOS_MAP_TYPE_DSCP_TO_TC", "dscp", "tc", {10: 2})
    kit.set(T.SWITCH, kit.switch, "SAI_SWITCH_ATTR_QOS_DSCP_TO_TC_MAP", switch_map)
    q = compile_store(kit.store, version=1).qos
    assert [int(q.dscp_to_tc[0, d]) for d in (3, 4, 46, 48, 8, 0, 10)] == [3, 4, 5, 6, 0, 1, 1]
    assert list(q.tc_to_queue[0]) == [1, 0, 2, 3, 4, 5, 6, 7]       # unlisted TCs: identity
    assert list(q.tc_to_pg[0]) == [0, 0, 0, 3, 4, 0, 0, 0]          # unlisted TCs: PG 0
    # port 1 has no map of its own: the switch-wide DSCP map, default TC 0 elsewhere
    assert int(q.dscp_to_tc[1, 10]) == 2 and int(q.dscp_to_tc[1, 3]) == 0
    assert list(q.tc_to_queue[1]) == list(range(8))


def test_pfc_combined_and_asymmetric():
    kit = SwitchKit(n_ports=2)
    kit.set(T.PORT, kit.ports[0], "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL", "24")
    separate = "SAI_PORT_PRIORITY_FLOW_CONTROL_MODE_SEPARATE"
    kit.set(T.PORT, kit.ports[1], "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_MODE", separate)
    kit.set(T.PORT, kit.ports[1], "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_TX", "8")
    kit.set(T.PORT, kit.ports[1], "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_RX", "255")
    q = compile_store(kit.store, version=1).qos
    assert list(np.flatnonzero(q.pfc_tx[0])) == [3, 4] and list(np.flatnonzero(q.pfc_rx[0])) == [3, 4]
    assert list(np.flatnonzero(q.pfc_tx[1])) == [3] and q.pfc_rx[1].all()


def test_schedulers_come_from_the_queues_parent_group_and_wred_from_the_queue():
    kit = SwitchKit(n_ports=1)
    lossy = kit.create(T.SCHEDULER, ("SAI_SCHEDULER_ATTR_SCHEDULING_TYPE", "SAI_SCHEDULING_TYPE_DWRR"),
                       ("SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT", "14"))
    strict = kit.create(T.SCHEDULER, ("SAI_SCHEDULER_ATTR_SCHEDULING_TYPE", "SAI_SCHEDULING_TYPE_STRICT"))
    wred = kit.create(T.WRED, ("SAI_WRED_ATTR_GREEN_ENABLE", "true"), ("SAI_WRED_ATTR_GREEN_MIN_THRESHOLD", "1048576"),
                      ("SAI_WRED_ATTR_GREEN_MAX_THRESHOLD", "2097152"), ("SAI_WRED_ATTR_GREEN_DROP_PROBABILITY", "5"),
                      ("SAI_WRED_ATTR_ECN_MARK_MODE", "SAI_ECN_MARK_MODE_ALL"))
    queues = _queues(kit, 0)
    for index, sched in ((0, lossy), (6, strict)):
        parent = kit.store.find(T.QUEUE, queues[index]).attrs["SAI_QUEUE_ATTR_PARENT_SCHEDULER_NODE"]
        kit.set(T.SCHEDULER_GROUP, parent, "SAI_SCHEDULER_GROUP_ATTR_SCHEDULER_PROFILE_ID", sched)
    kit.set(T.QUEUE, queues[3], "SAI_QUEUE_ATTR_WRED_PROFILE_ID", wred)
    q = compile_store(kit.store, version=1).qos
    assert int(q.sched_kind[0, 0]) == SCHED_DWRR and int(q.sched_weight[0, 0]) == 14
    assert int(q.sched_kind[0, 6]) == SCHED_STRICT
    assert int(q.sched_kind[0, 1]) == SCHED_DWRR and int(q.sched_weight[0, 1]) == 1   # none bound
    assert list(np.flatnonzero(q.wred_ecn[0])) == [3] and not q.wred_drop.any()
    assert (int(q.wred_min[0, 3]), int(q.wred_max[0, 3]), float(q.wred_prob[0, 3])) == (1_048_576, 2_097_152, 0.05)


def test_buffer_pools_and_profiles_on_pgs_and_queues():
    kit = SwitchKit(n_ports=1)
    ingress = kit.create(T.BUFFER_POOL, ("SAI_BUFFER_POOL_ATTR_TYPE", "SAI_BUFFER_POOL_TYPE_INGRESS"),
                         ("SAI_BUFFER_POOL_ATTR_SIZE", "165660324"), ("SAI_BUFFER_POOL_ATTR_XOFF_SIZE", "29423360"),
                         ("SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE", "SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC"))
    egress = kit.create(T.BUFFER_POOL, ("SAI_BUFFER_POOL_ATTR_TYPE", "SAI_BUFFER_POOL_TYPE_EGRESS"),
                        ("SAI_BUFFER_POOL_ATTR_SIZE", "165660324"))
    lossless = kit.create(T.BUFFER_PROFILE, ("SAI_BUFFER_PROFILE_ATTR_POOL_ID", ingress),
                          ("SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE", "18796"),
                          ("SAI_BUFFER_PROFILE_ATTR_XON_TH", "0"), ("SAI_BUFFER_PROFILE_ATTR_XOFF_TH", "612140"),
                          ("SAI_BUFFER_PROFILE_ATTR_XON_OFFSET_TH", "3556"),
                          ("SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE", "SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC"),
                          ("SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH", "0"))
    lossy = kit.create(T.BUFFER_PROFILE, ("SAI_BUFFER_PROFILE_ATTR_POOL_ID", ingress),
                       ("SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE", "0"),
                       ("SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE", "SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC"),
                       ("SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH", "167546528"))
    queue_profile = kit.create(T.BUFFER_PROFILE, ("SAI_BUFFER_PROFILE_ATTR_POOL_ID", egress),
                               ("SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE", "1778"),
                               ("SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH", "-1"))  # pool's mode: dynamic
    pgs, queues = _pgs(kit, 0), _queues(kit, 0)
    for pg in (3, 4):
        kit.set(T.INGRESS_PRIORITY_GROUP, pgs[pg], "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE", lossless)
    kit.set(T.INGRESS_PRIORITY_GROUP, pgs[0], "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE", lossy)
    kit.set(T.QUEUE, queues[1], "SAI_QUEUE_ATTR_BUFFER_PROFILE_ID", queue_profile)
    b = compile_store(kit.store, version=1).buffers
    i, e = b.pool_names.index(ingress), b.pool_names.index(egress)
    assert list(b.pool_ingress[[i, e]]) == [True, False] and int(b.pool_xoff[i]) == 29_423_360
    assert list(b.pg_pool[0]) == [i, NO_POOL, NO_POOL, i, i, NO_POOL, NO_POOL, NO_POOL]
    assert (int(b.pg_reserved[0, 3]), int(b.pg_xoff[0, 3]), int(b.pg_xon_offset[0, 3])) == (18_796, 612_140, 3_556)
    assert int(b.pg_th_mode[0, 3]) == TH_DYNAMIC and int(b.pg_th_mode[0, 0]) == TH_STATIC
    assert int(b.pg_static_th[0, 0]) == 167_546_528
    assert int(b.q_pool[0, 1]) == e and int(b.q_reserved[0, 1]) == 1_778
    assert int(b.q_th_mode[0, 1]) == TH_DYNAMIC and int(b.q_dynamic_th[0, 1]) == -1
    assert int(b.q_pool[0, 0]) == NO_POOL


def test_size_and_xoff_read_both_vendor_conventions():
    assert reserved_and_headroom(18_796, 612_140) == (18_796, 612_140)     # Broadcom: headroom on top
    assert reserved_and_headroom(178_176, 159_744) == (18_432, 159_744)    # Mellanox: size = xon + xoff
    assert reserved_and_headroom(1_778, 0) == (1_778, 0)


def test_watchdog_rows_per_queue():
    kit = SwitchKit(n_ports=2)
    queues = _queues(kit, 1)
    rows = {queues[3]: {"PFC_WD_DETECTION_TIME": "200", "PFC_WD_RESTORATION_TIME": "400", "PFC_WD_ACTION": "forward"}}
    w = compile_store(kit.store, version=1, watchdog_rows=rows).watchdog
    assert list(zip(*np.nonzero(w.enabled), strict=True)) == [(1, 3)]
    assert (float(w.detection_s[1, 3]), float(w.restoration_s[1, 3]), int(w.action[1, 3])) == (0.2, 0.4, WD_FORWARD)
