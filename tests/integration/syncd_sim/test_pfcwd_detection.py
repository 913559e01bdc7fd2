"""The PFC watchdog's detection inside the counter writer, on real Redis and a simulated clock: a queue
registered in FLEX_COUNTER_DB is polled at the PFC_WD group interval, DEBUG_STORM or the traffic model's
pause state makes syncd publish storm, quiet polls publish restore."""

from __future__ import annotations

import json
import time

import pytest

from nos.db.keyops import KeyOpFieldsValues
from nos.sai.types import ObjectType as T
from syncd_sim.counters import CounterWriter
from tests.conftest import wait_until
from tests.integration.syncd_sim.test_counters_writer import Asic, configure

pytestmark = pytest.mark.integration


def events(pubsub) -> list[list[str]]:
    out = []
    while (message := pubsub.get_message(timeout=0.05)) is not None:
        if message["type"] == "message":
            out.append(json.loads(message["data"]))
    return out


def test_a_watched_queue_storms_and_restores_at_the_group_interval(dbs, raw):
    asic = Asic()
    writer = CounterWriter(dbs, lambda: asic.store)
    port = asic.add_port()
    queue = asic.queue(port, 3)
    assert not writer.on_wd_group(KeyOpFieldsValues.set("PFC_WD", {"POLL_INTERVAL": "200"})).rejected
    configure(writer, "PFCWD", FLEX_COUNTER_STATUS="enable")             # first poll: at once
    assert writer.watchdog.on_flex_row(KeyOpFieldsValues.set(f"PFC_WD:{queue}", {})).status.name == "SUCCESS"
    counters = raw(2)
    counters.hset(f"COUNTERS:{queue}", mapping={"PFC_WD_STATUS": "operational", "PFC_WD_ACTION": "drop",
                                                "PFC_WD_DETECTION_TIME": "400000", "PFC_WD_RESTORATION_TIME": "200000"})
    pubsub = counters.pubsub()
    pubsub.subscribe("PFC_WD_ACTION")
    wait_until(lambda: pubsub.get_message(timeout=0.05) is not None)      # the subscribe confirmation
    t0 = time.monotonic() + 0.001
    writer.watchdog.set_pause_state({queue: True})
    for k in range(3):                                                     # baseline, 200 ms, 400 ms
        writer.step(t0 + 0.2 * k)
    assert events(pubsub) == [[queue, "storm"]]
    assert counters.hget(f"COUNTERS:{queue}", "SAI_QUEUE_STAT_PACKETS") == "0"   # the handler's stats
    counters.hset(f"COUNTERS:{queue}", "PFC_WD_STATUS", "stormed")        # orchagent's answer
    writer.watchdog.set_pause_state({queue: False})
    writer.step(t0 + 0.5)                                                  # not due yet (200 ms group)
    writer.step(t0 + 0.6)
    assert events(pubsub) == [[queue, "restore"]]
    # DEBUG_STORM (the vs hook) storms an operational queue; an unregistered queue is not polled
    counters.hset(f"COUNTERS:{queue}", mapping={"PFC_WD_STATUS": "operational", "DEBUG_STORM": "enabled"})
    for k in range(4, 7):
        writer.step(t0 + 0.4 + 0.2 * k)
    assert events(pubsub) == [[queue, "storm"]]
    writer.watchdog.on_flex_row(KeyOpFieldsValues.delete(f"PFC_WD:{queue}"))
    for k in range(7, 12):
        writer.step(t0 + 0.4 + 0.2 * k)
    assert events(pubsub) == []
    assert writer.watchdog.on_flex_row(KeyOpFieldsValues.set("PFC_WD:oid:0x0", {})).rejected


def test_a_traffic_runs_events_are_published_for_watched_queues_only(dbs, raw):
    asic = Asic()
    writer = CounterWriter(dbs, lambda: asic.store)
    port = asic.add_port()
    watched, other = asic.queue(port, 3), asic.queue(port, 4)
    writer.watchdog.on_flex_row(KeyOpFieldsValues.set(f"PFC_WD:{watched}", {}))
    pubsub = raw(2).pubsub()
    pubsub.subscribe("PFC_WD_ACTION")
    wait_until(lambda: pubsub.get_message(timeout=0.05) is not None)      # the subscribe confirmation
    kept = writer.watchdog.report([(other, "storm"), (watched, "storm"), (watched, "bogus"), (watched, "restore")])
    assert kept == [(watched, "storm"), (watched, "restore")]
    assert events(pubsub) == [[watched, "storm"], [watched, "restore"]]   # in order, nothing else
    assert writer.watchdog.report([(other, "storm")]) == [] and events(pubsub) == []


def test_the_handler_stats_are_written_when_they_change_and_again_after_a_rewatch_or_a_failed_write(dbs, raw):
    asic = Asic()
    writer = CounterWriter(dbs, lambda: asic.store)
    queue = asic.queue(asic.add_port(), 3)
    assert not writer.on_wd_group(KeyOpFieldsValues.set("PFC_WD", {"POLL_INTERVAL": "100"})).rejected
    configure(writer, "PFCWD", FLEX_COUNTER_STATUS="enable")
    writer.watchdog.on_flex_row(KeyOpFieldsValues.set(f"PFC_WD:{queue}", {}))
    counters, key, field = raw(2), f"COUNTERS:{queue}", "SAI_QUEUE_STAT_DROPPED_PACKETS"
    t0 = time.monotonic()
    writer.step(t0)
    assert counters.hget(key, field) == "0"
    counters.hset(key, field, "marker")                 # unchanged stats: the next polls do not write it
    writer.step(t0 + 0.1)
    writer.step(t0 + 0.2)
    assert counters.hget(key, field) == "marker"
    writer.stats.table(T.QUEUE).set(queue, field, 7)
    writer.step(t0 + 0.3)                                # a change is written at the next poll
    assert counters.hget(key, field) == "7"
    counters.hset(key, field, "marker")
    writer.watchdog.on_flex_row(KeyOpFieldsValues.set(f"PFC_WD:{queue}", {}))   # registered again
    writer.step(t0 + 0.4)
    assert counters.hget(key, field) == "7"
    counters.hset(key, field, "marker")
    writer._forget_published()                           # what a failed tick write does
    writer.step(t0 + 0.5)
    assert counters.hget(key, field) == "7"
