"""PFC watchdog storm detection and restoration, syncd's side (swss orchagent/pfc_detect_vs.lua and
pfc_restore.lua, which SONiC runs as plugins of the ``PFC_WD`` flex counter group).

What orchagent's PfcWdOrch gives syncd (``orchagent.orchs.pfcwd``):
* FLEX_COUNTER_DB ``FLEX_COUNTER_TABLE:PFC_WD:<queue oid>``: the queue is watched (its row is
  deleted when the watchdog stops); port rows (``...:PFC_WD:<port oid>``) are accepted and not needed.
* FLEX_COUNTER_DB ``FLEX_COUNTER_GROUP_TABLE:PFC_WD`` ``POLL_INTERVAL``: the group's poll interval
  (from CONFIG_DB ``PFC_WD|GLOBAL``); the group polls while CONFIG_DB ``FLEX_COUNTER_TABLE|PFCWD`` is
  enabled, as every flex counter group here (``syncd_sim.flex``).
* COUNTERS_DB ``COUNTERS:<queue oid>``: ``PFC_WD_STATUS``, ``PFC_WD_ACTION``, ``PFC_WD_DETECTION_TIME``
  and ``PFC_WD_RESTORATION_TIME`` (µs), ``BIG_RED_SWITCH_MODE``; and the vs test hook ``DEBUG_STORM``
  (``enabled`` makes the queue stormed, whatever the counters say).

Each poll, per watched queue (``step``, pure): while the queue is operational (or its action is alert) a
poll in which the queue is *stalled* takes one poll interval off the detection time left; at zero syncd
publishes ``["<queue oid>","storm"]`` on COUNTERS_DB channel ``PFC_WD_ACTION``. A poll that is not
stalled resets the time left, and restores an alert-only queue at once (as the vs plugin). While a
queue is stormed (drop/forward), a *quiet* poll takes one interval off the restoration time left; at
zero ``["<queue oid>","restore"]`` is published. Orchagent answers both (status, counters, actions).

Stalled, in this model: ``DEBUG_STORM`` is enabled, or the traffic model says the queue is paused
(``PfcWatchdog.set_pause_state``, the entry point for the fast path), or the port's PFC RX frame counter
of the queue's priority grew while the queue transmitted nothing (the vendors' "pause frames arrive and
the queue is stuck" test, without the Broadcom pause-status attribute). Quiet: none of the three and
the PFC RX counter did not move (pfc_restore.lua). The first poll of a queue only takes a baseline.

The handler's counters: each poll also publishes, for the watched queues and their priority groups of
the same index, the stats orchagent's action handler reads (queue ``PACKETS``/``DROPPED_PACKETS``, PG
``PACKETS``/``DROPPED_PACKETS``), so they are as fresh as the watchdog's own poll (SONiC's handler asks
the SAI directly). A hash is written only when its values differ from what this process last wrote
there (``published``; forgotten with the counter writer's, so a failed or repaired write is made
again): at a 100 ms poll of 128 queues, rewriting unchanged values was 2,560 HSETs a second per switch
(an idle switch's syncd 26 -> 22 ms of CPU a second, its Redis 7 -> 5). Timers live in memory, not in
``*_LEFT``/``*_last`` COUNTERS fields; a restarted syncd_sim starts every queue with a fresh baseline,
as SONiC's orchagent ``bake`` does after warm boot.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nos.daemon.task import Result
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.db.notification import encode_notification
from nos.sai.types import ObjectType as T
from nos.sai.types import oid_type
from nos.schema.dbconfig import COUNTERS_DB, FLEX_COUNTER_DB
from nos.schema.tables import COUNTERS_TABLE, FLEX_COUNTER_GROUP_TABLE, FLEX_COUNTER_TABLE, PFC_WD_ACTION_CHANNEL
from syncd_sim.objects import ObjectStore
from syncd_sim.stats import AsicStats

log = logging.getLogger(__name__)

CONSUMES = ((FLEX_COUNTER_DB, FLEX_COUNTER_TABLE), (FLEX_COUNTER_DB, FLEX_COUNTER_GROUP_TABLE),
            (COUNTERS_DB, COUNTERS_TABLE))
PRODUCES = ((COUNTERS_DB, PFC_WD_ACTION_CHANNEL), (COUNTERS_DB, COUNTERS_TABLE))

GROUP = "PFC_WD"
OPERATIONAL, STORMED = "operational", "stormed"
ALERT = "alert"
STORM, RESTORE = "storm", "restore"
WATCH_FIELDS = ("PFC_WD_STATUS", "PFC_WD_ACTION", "PFC_WD_DETECTION_TIME", "PFC_WD_RESTORATION_TIME",
                "BIG_RED_SWITCH_MODE", "DEBUG_STORM")
QUEUE_HANDLER_STATS = ("SAI_QUEUE_STAT_PACKETS", "SAI_QUEUE_STAT_DROPPED_PACKETS")
PG_HANDLER_STATS = ("SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS", "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS")


# -- pure: one queue, one poll ---------------------------------------------------------------------
def _micros(text: str | None) -> int | None:
    return int(text) if text is not None and text.isascii() and text.isdigit() and int(text) > 0 else None


@dataclass(frozen=True)
class Watch:
    """What orchagent wrote on the queue's COUNTERS hash (absent fields are None)."""

    status: str | None = None
    action: str | None = None
    detection_us: int | None = None
    restoration_us: int | None = None
    big_red_switch: bool = False
    debug_storm: bool = False

    @classmethod
    def from_values(cls, values: Sequence[str | None]) -> Watch:
        """From the values of ``WATCH_FIELDS``, in that order (an HMGET)."""
        status, action, detection, restoration, brs, debug = values
        return cls(status, action, _micros(detection), _micros(restoration), brs is not None, debug == "enabled")


@dataclass(frozen=True)
class Sample:
    """The queue's counters at one poll, and whether the traffic model holds it paused."""

    pfc_rx: int = 0     # the port's PFC frames received on the queue's priority
    tx: int = 0         # packets the queue transmitted
    paused: bool = False


@dataclass(frozen=True)
class Timers:
    """A queue's detection state between polls."""

    last: Sample | None = None
    detect_left_us: int | None = None
    restore_left_us: int | None = None


def step(watch: Watch, timers: Timers, sample: Sample, poll_us: int) -> tuple[Timers, str | None]:
    """One poll of one queue: the new timers and the event to publish (``storm``, ``restore`` or None)."""
    last = timers.last
    moved = last is not None and sample.pfc_rx != last.pfc_rx
    stalled = watch.debug_storm or sample.paused or (moved and last is not None and sample.tx == last.tx)
    quiet = not watch.debug_storm and not sample.paused and not moved
    event: str | None = None
    detect_left, restore_left = timers.detect_left_us, timers.restore_left_us
    detecting = watch.status == OPERATIONAL or watch.action == ALERT
    if not watch.big_red_switch and watch.detection_us and detecting:
        left = detect_left or watch.detection_us
        if last is not None:
            if stalled:
                left, fired = _count_down(left, poll_us, watch.detection_us)
                event = STORM if fired else None
            else:
                if watch.action == ALERT and watch.status != OPERATIONAL:
                    event = RESTORE
                left = watch.detection_us
        detect_left = left
    restoring = watch.status is not None and watch.status != OPERATIONAL and watch.action != ALERT
    if not watch.big_red_switch and watch.restoration_us and restoring:
        left = restore_left or watch.restoration_us
        if last is not None:
            if quiet:
                left, fired = _count_down(left, poll_us, watch.restoration_us)
                event = RESTORE if fired else event
            else:
                left = watch.restoration_us
        restore_left = left
    return Timers(sample, detect_left, restore_left), event


def _count_down(left: int, poll_us: int, full: int) -> tuple[int, bool]:
    """(time left after this poll, whether it ran out); running out starts the next period."""
    if left <= poll_us:
        return full, True
    return left - poll_us, False


# -- the shell -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class QueueRef:
    """Where a watched queue sits: its port, priority index and the PG of the same index."""

    port: str
    index: int
    pg: str | None


def find_queue(store: ObjectStore, queue: str) -> QueueRef | None:
    obj = store.find(T.QUEUE, queue)
    if obj is None:
        return None
    port = obj.attrs.get("SAI_QUEUE_ATTR_PORT", "")
    index = int(obj.attrs.get("SAI_QUEUE_ATTR_INDEX", "0"))
    pg = next((o.object_id for o in store.owned_by(port) if o.object_type is T.INGRESS_PRIORITY_GROUP
               and o.attrs.get("SAI_INGRESS_PRIORITY_GROUP_ATTR_INDEX") == str(index)), None)
    return QueueRef(port, index, pg)


class PfcWatchdog:
    """The watched queues, their timers, and the poll (see module docstring)."""

    def __init__(self, dbs: Databases, stats: AsicStats) -> None:
        self.counters = dbs[COUNTERS_DB]
        self.stats = stats
        self.watched: set[str] = set()
        self.timers: dict[str, Timers] = {}
        self.paused: dict[str, bool] = {}
        self.poll_interval_ms: int | None = None  # FLEX_COUNTER_GROUP_TABLE:PFC_WD POLL_INTERVAL
        self.published: dict[str, dict[str, str]] = {}  # COUNTERS hash -> the handler stats last written

    def forget_published(self) -> None:
        """Write every handler stat again at the next poll (the writes may not have reached Redis)."""
        self.published.clear()

    # -- entry point for the traffic model -----------------------------------------------------------
    def set_pause_state(self, states: Mapping[str, bool]) -> None:
        """Queue oid -> whether PFC currently holds it paused (the fast path calls this each batch)."""
        for queue, paused in states.items():
            if paused:
                self.paused[queue] = True
            else:
                self.paused.pop(queue, None)

    def rows(self) -> dict[str, dict[str, str]]:
        """Watched queue oid -> its watchdog settings for the fast path's compiler: PFC_WD_DETECTION_TIME
        and PFC_WD_RESTORATION_TIME in ms (COUNTERS_DB holds them in µs), PFC_WD_ACTION, PFC_WD_STATUS."""
        queues = sorted(self.watched)
        if not queues:
            return {}
        read = self.counters.client.pipeline(transaction=False)
        for queue in queues:
            read.hmget(f"{COUNTERS_TABLE}:{queue}", WATCH_FIELDS)
        out = {}
        for queue, values in zip(queues, read.execute(raise_on_error=False), strict=True):
            if isinstance(values, Exception):  # not a hash (garbage): not watched until the counters repair it
                continue
            watch = Watch.from_values(values)
            row = {"PFC_WD_ACTION": watch.action or "drop", "PFC_WD_STATUS": watch.status or ""}
            if watch.detection_us:
                row["PFC_WD_DETECTION_TIME"] = str(watch.detection_us // 1000)
            if watch.restoration_us:
                row["PFC_WD_RESTORATION_TIME"] = str(watch.restoration_us // 1000)
            out[queue] = row
        return out

    # -- FLEX_COUNTER_DB -----------------------------------------------------------------------------
    def on_flex_row(self, task: KeyOpFieldsValues) -> Result:
        """``FLEX_COUNTER_TABLE:<group>:<oid>``: a queue registered in (or removed from) PFC_WD."""
        group, _, oid = task.key.partition(":")
        if group != GROUP:
            return Result.ignored(f"group {group}: objects are polled by their CONFIG_DB group here")
        kind = oid_type(oid)
        if kind is T.PORT:
            return Result.ignored("port rows: every port's PFC counters are polled already")
        if kind is not T.QUEUE:
            return Result.invalid(f"{oid} is not a queue or port id")
        self.published.pop(f"{COUNTERS_TABLE}:{oid}", None)  # (re)watched: its stats are written afresh
        if task.is_del:
            self.watched.discard(oid)
            self.timers.pop(oid, None)
        else:
            self.watched.add(oid)
            self.timers[oid] = Timers()  # a (re)registered queue starts from a fresh baseline
        log.info("syncd.pfcwd.%s queue=%s", "unwatch" if task.is_del else "watch", oid)
        return Result.success()

    def on_group_row(self, task: KeyOpFieldsValues) -> Result:
        """``FLEX_COUNTER_GROUP_TABLE:PFC_WD``: its poll interval."""
        if task.key != GROUP:
            return Result.ignored(f"group {task.key}: configured through CONFIG_DB FLEX_COUNTER_TABLE")
        if task.is_del:
            self.poll_interval_ms = None
            return Result.success()
        value = task.fields.get("POLL_INTERVAL")
        if value is None:
            return Result.success()
        if not value.isdecimal() or int(value) <= 0:
            return Result.invalid(f"POLL_INTERVAL={value!r}: not a positive number of ms")
        self.poll_interval_ms = int(value)
        return Result.success()

    # -- the poll ------------------------------------------------------------------------------------
    def poll(self, store: ObjectStore, poll_ms: int, pipe: Any) -> list[tuple[str, str]]:
        """Step every watched queue; queue the events and the handler's stats on ``pipe``; returns the events."""
        refs = {q: ref for q in sorted(self.watched) if (ref := find_queue(store, q)) is not None}
        if not refs:
            return []
        read = self.counters.client.pipeline(transaction=False)
        for queue in refs:
            read.hmget(f"{COUNTERS_TABLE}:{queue}", WATCH_FIELDS)
        events = []
        for (queue, ref), values in zip(refs.items(), read.execute(), strict=True):
            timers, event = step(Watch.from_values(values), self.timers.get(queue, Timers()),
                                 self._sample(queue, ref), poll_ms * 1000)
            self.timers[queue] = timers
            self._publish_stats(queue, ref, pipe)
            if event is not None:
                events.append((queue, event))
                _publish(pipe, queue, event)
                log.info("syncd.pfcwd.%s queue=%s port=%s index=%d", event, queue, ref.port, ref.index)
        return events

    def report(self, events: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """Events found elsewhere (a traffic run's model), in order: those of watched queues are
        published as a poll publishes its own, in one round trip. Returns the ones published."""
        kept = [(queue, event) for queue, event in events if queue in self.watched and event in (STORM, RESTORE)]
        if kept:
            pipe = self.counters.client.pipeline(transaction=False)
            for queue, event in kept:
                _publish(pipe, queue, event)
                log.info("syncd.pfcwd.%s queue=%s source=traffic_run", event, queue)
            pipe.execute()
        return kept

    def _sample(self, queue: str, ref: QueueRef) -> Sample:
        ports, queues = self.stats.table(T.PORT), self.stats.table(T.QUEUE)
        rx = ports.get(ref.port, f"SAI_PORT_STAT_PFC_{ref.index}_RX_PKTS") if ports.row_of(ref.port) is not None else 0
        tx = queues.get(queue, "SAI_QUEUE_STAT_PACKETS") if queues.row_of(queue) is not None else 0
        return Sample(rx, tx, self.paused.get(queue, False))

    def _publish_stats(self, queue: str, ref: QueueRef, pipe: Any) -> None:
        parts = ((T.QUEUE, queue, QUEUE_HANDLER_STATS), (T.INGRESS_PRIORITY_GROUP, ref.pg, PG_HANDLER_STATS))
        for kind, oid, names in parts:
            table = self.stats.table(kind)
            if oid is not None and table.row_of(oid) is not None:
                key, values = f"{COUNTERS_TABLE}:{oid}", {n: str(table.get(oid, n)) for n in names}
                if self.published.get(key) != values:
                    pipe.hset(key, mapping=values)
                    self.published[key] = values


def _publish(pipe: Any, queue: str, event: str) -> None:
    """``["<queue oid>","storm"|"restore"]`` on COUNTERS_DB ``PFC_WD_ACTION``, as orchagent expects it."""
    pipe.publish(PFC_WD_ACTION_CHANNEL, encode_notification(queue, event))
