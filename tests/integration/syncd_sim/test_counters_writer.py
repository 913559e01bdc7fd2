"""The counter writer alone on real Redis, on a simulated clock: default poll intervals per group,
POLL_INTERVAL changes, a new object's first poll, removal, and WatermarkOrch's 120 s periodic clear."""

from __future__ import annotations

import itertools
import time

import pytest

from nos.db.keyops import KeyOpFieldsValues
from nos.sai.types import ObjectType as T
from nos.sai.types import make_oid
from syncd_sim.behaviours import AsicBehaviour
from syncd_sim.counters import CounterWriter
from syncd_sim.objects import ObjectStore
from syncd_sim.platform import Platform

pytestmark = pytest.mark.integration
IN_OCTETS = "SAI_PORT_STAT_IF_IN_OCTETS"
Q_PACKETS = "SAI_QUEUE_STAT_PACKETS"
Q_WATERMARK = "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"


class Asic:
    """An object store with ports (each with 8 queues and 8 PGs), as orchagent would have made it."""

    def __init__(self) -> None:
        counter = itertools.count(1)
        self.alloc = lambda kind, n: [make_oid(kind, next(counter)) for _ in range(n)]
        self.store = ObjectStore(self.alloc, AsicBehaviour(Platform("test")))
        assert self.store.create(T.SWITCH, self.alloc(T.SWITCH, 1)[0], [("SAI_SWITCH_ATTR_INIT_SWITCH", "true")]).ok
        self.lanes = itertools.count(0, 4)

    def add_port(self) -> str:
        oid = self.alloc(T.PORT, 1)[0]
        first = next(self.lanes)
        lanes = ",".join(str(first + k) for k in range(4))
        assert self.store.create(T.PORT, oid, [("SAI_PORT_ATTR_HW_LANE_LIST", f"4:{lanes}"),
                                               ("SAI_PORT_ATTR_SPEED", "100000")]).ok
        return oid

    def queue(self, port: str, index: int) -> str:
        return next(o.object_id for o in self.store.owned_by(port) if o.object_type is T.QUEUE
                    and o.attrs["SAI_QUEUE_ATTR_INDEX"] == str(index))


def configure(writer: CounterWriter, group: str, **fields: str) -> None:
    result = writer.on_flex_row(KeyOpFieldsValues.set(group, fields))
    assert not result.rejected, result


@pytest.fixture
def asic() -> Asic:
    return Asic()


@pytest.fixture
def writer(dbs, asic) -> CounterWriter:
    return CounterWriter(dbs, lambda: asic.store)


def test_groups_poll_at_once_when_enabled_then_at_their_default_intervals(writer, asic, raw):
    port = asic.add_port()
    queue = asic.queue(port, 3)
    configure(writer, "PORT", FLEX_COUNTER_STATUS="enable")
    configure(writer, "QUEUE", FLEX_COUNTER_STATUS="enable")
    t0 = time.monotonic()
    writer.step(t0)
    counters = raw(2)
    assert counters.hget(f"COUNTERS:{port}", IN_OCTETS) == "0" and counters.hget(f"COUNTERS:{queue}", Q_PACKETS) == "0"
    writer.stats.table(T.PORT).set(port, IN_OCTETS, 5)
    writer.stats.table(T.QUEUE).set(queue, Q_PACKETS, 3)
    writer.step(t0 + 0.9)
    assert counters.hget(f"COUNTERS:{port}", IN_OCTETS) == "0"
    writer.step(t0 + 1.0)                                    # PORT: 1000 ms
    assert counters.hget(f"COUNTERS:{port}", IN_OCTETS) == "5"
    writer.step(t0 + 9.9)
    assert counters.hget(f"COUNTERS:{queue}", Q_PACKETS) == "0"
    writer.step(t0 + 10.0)                                   # QUEUE: 10000 ms
    assert counters.hget(f"COUNTERS:{queue}", Q_PACKETS) == "3"


def test_poll_interval_changes_the_schedule_and_disable_stops_it(writer, asic, raw):
    port = asic.add_port()
    configure(writer, "PORT", FLEX_COUNTER_STATUS="enable", POLL_INTERVAL="5000")
    t0 = time.monotonic()
    writer.step(t0)
    ports = writer.stats.table(T.PORT)
    ports.set(port, IN_OCTETS, 1)
    writer.step(t0 + 4.9)
    assert raw(2).hget(f"COUNTERS:{port}", IN_OCTETS) == "0"
    configure(writer, "PORT", POLL_INTERVAL="200")             # the next poll: last poll + 200 ms
    writer.step(t0 + 4.9)
    assert raw(2).hget(f"COUNTERS:{port}", IN_OCTETS) == "1"
    configure(writer, "PORT", FLEX_COUNTER_STATUS="disable")
    ports.set(port, IN_OCTETS, 2)
    writer.step(t0 + 60)
    assert raw(2).hget(f"COUNTERS:{port}", IN_OCTETS) == "1"
    assert writer.on_flex_row(KeyOpFieldsValues.delete("PORT")).status.name == "IGNORED"


def test_a_new_port_appears_at_the_next_poll_and_a_removed_one_disappears(writer, asic, raw):
    first = asic.add_port()
    configure(writer, "PORT", FLEX_COUNTER_STATUS="enable")
    t0 = time.monotonic()
    writer.step(t0)
    second = asic.add_port()
    writer.objects_changed()
    writer.step(t0 + 0.5)
    counters = raw(2)
    assert not counters.exists(f"COUNTERS:{second}")
    writer.step(t0 + 1.0)
    assert counters.hget(f"COUNTERS:{second}", IN_OCTETS) == "0"
    queues = [o.object_id for o in asic.store.owned_by(first) if o.object_type is T.QUEUE]
    assert asic.store.remove(T.PORT, first).ok
    writer.objects_changed()
    writer.step(t0 + 1.1)
    assert not counters.exists(f"COUNTERS:{first}", *(f"COUNTERS:{q}" for q in queues))
    assert counters.exists(f"COUNTERS:{second}")


def test_watermarks_clear_on_read_and_periodic_ones_clear_every_120_s(writer, asic, raw):
    port = asic.add_port()
    queue = asic.queue(port, 0)
    t0 = time.monotonic()
    writer.clock = lambda: t0   # enabling starts the periodic clear at t0 exactly, however slow the machine
    configure(writer, "QUEUE_WATERMARK", FLEX_COUNTER_STATUS="enable")
    writer.step(t0)
    writer.stats.table(T.QUEUE).raise_to(queue, Q_WATERMARK, 700)
    writer.step(t0 + 60)                                        # QUEUE_WATERMARK: 60000 ms
    counters = raw(2)
    assert counters.hget(f"COUNTERS:{queue}", Q_WATERMARK) == "700"
    assert counters.hget(f"PERIODIC_WATERMARKS:{queue}", Q_WATERMARK) == "700"
    assert writer.stats.table(T.QUEUE).get(queue, Q_WATERMARK) == 0  # read and cleared
    writer.step(t0 + 119)
    assert counters.hget(f"PERIODIC_WATERMARKS:{queue}", Q_WATERMARK) == "700"
    writer.step(t0 + 120.5)                     # the next poll (peak since the last one: 0) and the
    assert counters.hget(f"COUNTERS:{queue}", Q_WATERMARK) == "0"       # telemetry interval, 120 s
    assert counters.hget(f"PERIODIC_WATERMARKS:{queue}", Q_WATERMARK) == "0"
    assert counters.hget(f"PERSISTENT_WATERMARKS:{queue}", Q_WATERMARK) == "700"
    assert counters.hget(f"USER_WATERMARKS:{queue}", Q_WATERMARK) == "700"


def test_a_big_poll_is_written_in_chunks_and_lands_whole(writer, asic, raw, monkeypatch):
    """Redis serves other clients between the chunks; every counter of every queue still lands."""
    import syncd_sim.counters as counters_module

    monkeypatch.setattr(counters_module, "WRITE_CHUNK", 5)
    ports = [asic.add_port() for _ in range(3)]
    configure(writer, "QUEUE", FLEX_COUNTER_STATUS="enable")
    counters = raw(2)
    counters.config_resetstat()
    writer.step(time.monotonic())
    queues = [o.object_id for p in ports for o in asic.store.owned_by(p) if o.object_type is T.QUEUE]
    assert len(queues) == 3 * 8 and all(counters.hget(f"COUNTERS:{q}", Q_PACKETS) == "0" for q in queues)
    calls = counters.info("commandstats")["cmdstat_evalsha"]["calls"]
    assert calls >= len(queues) // 5        # one script per 5 hashes, not one for the whole poll


def test_flex_counter_db_lists_the_groups_and_the_objects_they_poll(writer, asic, raw):
    """As orchagent writes them for SONiC's syncd: the group row (interval, mode, status) and, while the
    group is enabled, one row per polled object with its stats; a removed object's row goes."""
    port = asic.add_port()
    queue = asic.queue(port, 3)
    flex = raw(5)
    writer.step(time.monotonic())
    assert not flex.keys("FLEX_COUNTER_TABLE:QUEUE_STAT_COUNTER*")        # nothing before the group is enabled
    configure(writer, "QUEUE", FLEX_COUNTER_STATUS="enable", POLL_INTERVAL="2500")
    configure(writer, "PG_WATERMARK", FLEX_COUNTER_STATUS="enable")
    writer.step(time.monotonic())
    assert flex.hgetall("FLEX_COUNTER_GROUP_TABLE:QUEUE_STAT_COUNTER") == {
        "POLL_INTERVAL": "2500", "STATS_MODE": "STATS_MODE_READ", "FLEX_COUNTER_STATUS": "enable"}
    assert flex.hget("FLEX_COUNTER_GROUP_TABLE:PG_WATERMARK_STAT_COUNTER", "STATS_MODE") == "STATS_MODE_READ_AND_CLEAR"
    assert flex.hget(f"FLEX_COUNTER_TABLE:QUEUE_STAT_COUNTER:{queue}", "QUEUE_COUNTER_ID_LIST").startswith(Q_PACKETS)
    assert len(flex.keys("FLEX_COUNTER_TABLE:QUEUE_STAT_COUNTER:*")) == 8
    assert len(flex.keys("FLEX_COUNTER_TABLE:PG_WATERMARK_STAT_COUNTER:*")) == 8
    assert not flex.keys("FLEX_COUNTER_TABLE:PORT_STAT_COUNTER:*")
    configure(writer, "QUEUE", FLEX_COUNTER_STATUS="disable")
    writer.step(time.monotonic())
    assert flex.hget("FLEX_COUNTER_GROUP_TABLE:QUEUE_STAT_COUNTER", "FLEX_COUNTER_STATUS") == "disable"
    assert len(flex.keys("FLEX_COUNTER_TABLE:QUEUE_STAT_COUNTER:*")) == 8     # rows stay, the group is off
    assert asic.store.remove(T.PORT, port).ok
    writer.objects_changed()
    writer.step(time.monotonic())
    assert not flex.keys("FLEX_COUNTER_TABLE:QUEUE_STAT_COUNTER:*")
    assert not flex.keys("FLEX_COUNTER_TABLE:PG_WATERMARK*")
