"""The pure parts of syncd_sim's counters: the stats store, the flex counter groups and their CONFIG_DB
rows, the counter-set requests, the watermark clear planning and timer, and which objects count."""

from __future__ import annotations

import itertools

import pytest

from nos.sai.types import ObjectType as T
from nos.sai.types import make_oid
from syncd_sim import stats as s
from syncd_sim import watermarks as wm
from syncd_sim.behaviours import AsicBehaviour
from syncd_sim.counter_set import apply_set_request, parse_set_request
from syncd_sim.counters import counted_objects
from syncd_sim.errors import BadCounterRequest
from syncd_sim.flex import GROUPS, GROUPS_BY_KEY, GroupSetting, parse_group_row
from syncd_sim.objects import ObjectStore
from syncd_sim.platform import Platform

Q1, Q2, Q3 = (make_oid(T.QUEUE, i) for i in (1, 2, 3))


# -- the stats store --------------------------------------------------------------------------------
def test_sonic_port_stat_list_is_complete_and_in_order():
    assert len(s.PORT_STATS) == 83 and len(set(s.PORT_STATS)) == 83  # 18 IF + 20 sizes + 16 PFC + 29
    assert s.PORT_STATS[:2] == ("SAI_PORT_STAT_IF_IN_OCTETS", "SAI_PORT_STAT_IF_IN_UCAST_PKTS")
    assert s.PORT_STATS[-2:] == ("SAI_PORT_STAT_IF_IN_FEC_CORRECTED_BITS", "SAI_PORT_STAT_TRIM_PACKETS")
    assert "SAI_PORT_STAT_ETHER_OUT_PKTS_9217_TO_16383_OCTETS" in s.PORT_STATS
    assert "SAI_PORT_STAT_PFC_3_RX_PKTS" in s.PORT_STATS
    for names in s.STATS_BY_KIND.values():
        assert len(set(names)) == len(names)


def test_a_table_adds_zero_rows_reuses_freed_ones_and_keeps_values_apart():
    table = s.StatTable(T.QUEUE, s.STATS_BY_KIND[T.QUEUE])
    assert [table.add_row(q) for q in (Q1, Q2)] == [0, 1]
    table.set(Q1, "SAI_QUEUE_STAT_PACKETS", 5)
    assert table.increment(Q1, "SAI_QUEUE_STAT_PACKETS", 2) == 7
    assert table.get(Q2, "SAI_QUEUE_STAT_PACKETS") == 0
    table.remove_row(Q1)
    assert table.add_row(Q3) == 0 and table.get(Q3, "SAI_QUEUE_STAT_PACKETS") == 0  # the freed row, zeroed
    assert table.add_row(Q3) == 0 and len(table.values) == 2 * table.width


def test_values_are_unsigned_64_bit():
    table = s.StatTable(T.QUEUE, s.STATS_BY_KIND[T.QUEUE])
    table.add_row(Q1)
    table.set(Q1, "SAI_QUEUE_STAT_BYTES", s.U64_MAX)
    assert table.get(Q1, "SAI_QUEUE_STAT_BYTES") == s.U64_MAX
    with pytest.raises(OverflowError):
        table.increment(Q1, "SAI_QUEUE_STAT_BYTES", 1)
    with pytest.raises(OverflowError):
        table.set(Q1, "SAI_QUEUE_STAT_PACKETS", -1)
    with pytest.raises(KeyError):
        table.get(Q1, "SAI_QUEUE_STAT_NOPE")


def test_watermarks_keep_the_peak_until_cleared_on_read():
    table = s.StatTable(T.QUEUE, s.STATS_BY_KIND[T.QUEUE])
    table.add_row(Q1)
    table.add_row(Q2)
    for value in (10, 300, 20):
        table.raise_to(Q1, "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", value)
    table.set(Q1, "SAI_QUEUE_STAT_PACKETS", 9)
    assert table.get(Q1, "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES") == 300
    table.clear_columns([table.columns["SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"]])
    assert table.get(Q1, "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES") == 0
    assert table.get(Q1, "SAI_QUEUE_STAT_PACKETS") == 9


def test_sync_follows_the_objects():
    asic = s.AsicStats()
    added, removed = asic.sync({T.QUEUE: [Q1, Q2]})
    assert sorted(added) == [(T.QUEUE, Q1), (T.QUEUE, Q2)] and removed == []
    added, removed = asic.sync({T.QUEUE: [Q2, Q3]})
    assert added == [(T.QUEUE, Q3)] and removed == [(T.QUEUE, Q1)]
    assert asic.find(Q2) is asic.table(T.QUEUE) and asic.find(Q1) is None


@pytest.mark.parametrize(("stat", "kind"), [
    ("SAI_PORT_STAT_PFC_7_TX_PAUSE_DURATION_US", T.PORT),
    ("SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES", T.QUEUE),
    ("SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES", T.INGRESS_PRIORITY_GROUP),
    ("SAI_ROUTER_INTERFACE_STAT_OUT_ERROR_OCTETS", T.ROUTER_INTERFACE),
    ("SAI_BUFFER_POOL_STAT_WATERMARK_BYTES", T.BUFFER_POOL),
    ("SAI_PORT_STAT_NOT_A_STAT", None),
    ("IF_IN_OCTETS", None),
])
def test_a_stat_name_says_its_kind(stat, kind):
    assert s.kind_of_stat(stat) is kind


# -- flex counter groups ------------------------------------------------------------------------------
def test_groups_have_sonic_keys_names_and_default_intervals():
    defaults = {g.key: g.default_interval_ms for g in GROUPS}
    assert defaults == {"PORT": 1000, "PORT_BUFFER_DROP": 60000, "QUEUE": 10000, "QUEUE_WATERMARK": 60000,
                        "PG_WATERMARK": 60000, "PG_DROP": 10000, "RIF": 1000, "WRED_ECN_PORT": 1000,
                        "WRED_ECN_QUEUE": 10000, "BUFFER_POOL_WATERMARK": 60000, "PFCWD": 100}
    assert GROUPS_BY_KEY["PORT"].name == "PORT_STAT_COUNTER"
    assert {g.key for g in GROUPS if g.read_and_clear} == {"QUEUE_WATERMARK", "PG_WATERMARK", "BUFFER_POOL_WATERMARK"}
    for group in GROUPS:  # every polled stat is one the ASIC keeps for that kind
        for kind, names in group.parts:
            assert set(names) <= set(s.STATS_BY_KIND[kind]), group.key


@pytest.mark.parametrize(("fields", "setting", "problems"), [
    ({"FLEX_COUNTER_STATUS": "enable"}, GroupSetting(True, None), []),
    ({"FLEX_COUNTER_STATUS": "disable", "POLL_INTERVAL": "100"}, GroupSetting(False, 100), []),
    ({"POLL_INTERVAL": "2000", "FLEX_COUNTER_DELAY_STATUS": "true", "BULK_CHUNK_SIZE": "64"},
     GroupSetting(None, 2000), []),
    ({"FLEX_COUNTER_STATUS": "on"}, GroupSetting(None, None), ["FLEX_COUNTER_STATUS='on': must be enable or disable"]),
    ({"FLEX_COUNTER_STATUS": "enable", "POLL_INTERVAL": "99"}, GroupSetting(True, None),
     ["POLL_INTERVAL=99: must be 100..4294967295 ms"]),
    ({"POLL_INTERVAL": "1s", "COLOUR": "red"}, GroupSetting(None, None),
     ["POLL_INTERVAL='1s': not an integer", "COLOUR: not a flex counter field"]),
])
def test_a_flex_counter_row_is_parsed_field_by_field(fields, setting, problems):
    assert parse_group_row("QUEUE", fields) == (setting, problems)


# -- counter-set requests --------------------------------------------------------------------------------
def test_a_request_is_parsed_with_the_kind_of_each_stat():
    request = parse_set_request("set", "Ethernet0:3", (("SAI_QUEUE_STAT_PACKETS", "10"),
                                                       ("SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", "2")))
    assert request.kinds == {T.QUEUE, T.INGRESS_PRIORITY_GROUP} and not request.by_oid
    assert [c.value for c in request.changes] == [10, 2]


@pytest.mark.parametrize(("op", "target", "fvs", "reason"), [
    ("put", "Ethernet0", (("SAI_PORT_STAT_IF_IN_OCTETS", "1"),), "unknown op 'put'"),
    ("set", "", (("SAI_PORT_STAT_IF_IN_OCTETS", "1"),), "no object named"),
    ("set", "Ethernet0", (), "no stat given"),
    ("set", "Ethernet0", (("SAI_PORT_STAT_BOGUS", "1"),), "SAI_PORT_STAT_BOGUS: not a stat this ASIC keeps"),
    ("set", "Ethernet0", (("SAI_PORT_STAT_IF_IN_OCTETS", "1.5"),), "not an integer"),
    ("set", "Ethernet0", (("SAI_PORT_STAT_IF_IN_OCTETS", "-1"),), "must be 0.."),
    ("set", "Ethernet0", (("SAI_PORT_STAT_IF_IN_OCTETS", str(1 << 64)),), "must be 0.."),
])
def test_bad_requests_say_why(op, target, fvs, reason):
    with pytest.raises(BadCounterRequest, match=reason):
        parse_set_request(op, target, fvs)


def test_a_request_applies_all_or_nothing():
    asic = s.AsicStats()
    asic.sync({T.QUEUE: [Q1]})
    queues = asic.table(T.QUEUE)
    add = parse_set_request("add", "q", (("SAI_QUEUE_STAT_PACKETS", "5"), ("SAI_QUEUE_STAT_PACKETS", "5")))
    apply_set_request(asic, add, {T.QUEUE: Q1})
    assert queues.get(Q1, "SAI_QUEUE_STAT_PACKETS") == 10
    bad = parse_set_request("add", "q", (("SAI_QUEUE_STAT_BYTES", "7"), ("SAI_QUEUE_STAT_PACKETS", "-11")))
    with pytest.raises(BadCounterRequest, match="leaves 0"):
        apply_set_request(asic, bad, {T.QUEUE: Q1})
    assert queues.get(Q1, "SAI_QUEUE_STAT_BYTES") == 0  # nothing applied
    with pytest.raises(BadCounterRequest, match="no such SAI_OBJECT_TYPE_QUEUE"):
        apply_set_request(asic, add, {T.QUEUE: Q2})


# -- watermarks -------------------------------------------------------------------------------------------
def test_clear_requests_name_a_table_and_a_field():
    assert wm.plan_clear("USER", "Q_SHARED_UNI") == (
        "USER_WATERMARKS", wm.WatermarkField(T.QUEUE, "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", wm.UNICAST))
    assert wm.plan_clear("PERSISTENT", "PG_HEADROOM")[1].stat == \
        "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES"
    with pytest.raises(ValueError, match="op 'PERIODIC'"):
        wm.plan_clear("PERIODIC", "PG_SHARED")
    with pytest.raises(ValueError, match="data 'ALL'"):
        wm.plan_clear("USER", "ALL")


def test_the_telemetry_timer_runs_while_watermarks_are_polled_and_takes_new_intervals_at_expiry():
    timer = wm.PeriodicClear()
    assert not timer.expired(running=False, now=1000.0)
    timer.set_interval(5)   # not running: applies at once
    timer.update(running=True, now=0.0)
    assert timer.due == 5.0
    timer.set_interval(2)   # running: from the next period on
    assert not timer.expired(running=True, now=4.9)
    assert timer.expired(running=True, now=5.0) and timer.due == 7.0
    assert timer.expired(running=False, now=7.5) and timer.due is None  # clears once more, then stops


def test_watermark_plugin_arguments():
    assert wm.raise_args([("oid:0x1", ("A", "B"), (1, 2)), ("oid:0x2", ("A",), (s.U64_MAX,))]) == [
        '{"oid:0x1":{"A":"1","B":"2"},"oid:0x2":{"A":"18446744073709551615"}}']
    assert wm.parse_telemetry_interval("30") == 30
    with pytest.raises(ValueError):
        wm.parse_telemetry_interval("0")


# -- which objects have counters -----------------------------------------------------------------------------
def test_counted_objects_skip_the_cpu_port_and_loopback_rifs():
    counter = itertools.count(1)

    def alloc(kind: T, n: int) -> list[str]:
        return [make_oid(kind, next(counter)) for _ in range(n)]

    behaviour = AsicBehaviour(Platform("test"))
    store = ObjectStore(alloc, behaviour)
    switch = alloc(T.SWITCH, 1)[0]
    assert store.create(T.SWITCH, switch, [("SAI_SWITCH_ATTR_INIT_SWITCH", "true")]).ok
    port = alloc(T.PORT, 1)[0]
    assert store.create(T.PORT, port, [("SAI_PORT_ATTR_HW_LANE_LIST", "4:1,2,3,4"),
                                       ("SAI_PORT_ATTR_SPEED", "100000")]).ok
    vr = behaviour.defaults.default_vr
    loopback, rif = alloc(T.ROUTER_INTERFACE, 2)
    assert store.create(T.ROUTER_INTERFACE, loopback, [("SAI_ROUTER_INTERFACE_ATTR_VIRTUAL_ROUTER_ID", vr),
                                                        ("SAI_ROUTER_INTERFACE_ATTR_TYPE",
                                                         "SAI_ROUTER_INTERFACE_TYPE_LOOPBACK")]).ok
    assert store.create(T.ROUTER_INTERFACE, rif, [("SAI_ROUTER_INTERFACE_ATTR_VIRTUAL_ROUTER_ID", vr),
                                                   ("SAI_ROUTER_INTERFACE_ATTR_TYPE", "SAI_ROUTER_INTERFACE_TYPE_PORT"),
                                                   ("SAI_ROUTER_INTERFACE_ATTR_PORT_ID", port)]).ok
    objects = counted_objects(store)
    assert objects[T.PORT] == [port]
    assert len(objects[T.QUEUE]) == 8 and len(objects[T.INGRESS_PRIORITY_GROUP]) == 8
    assert objects[T.ROUTER_INTERFACE] == [rif] and objects[T.BUFFER_POOL] == []
