"""The counter writer: syncd's flex counter polling, publishing the ASIC's statistics
(``syncd_sim.stats``) to COUNTERS_DB as SONiC's syncd does.

* ``COUNTERS:oid:0x...`` (COUNTERS_DB, separator ``:``): one hash per port (not the CPU port), queue,
  priority group, router interface (not loopback RIFs) and buffer pool of the object store, fields
  are SAI stat names, values decimal strings. Each flex counter group (``syncd_sim.flex``) writes
  its stats every poll interval while CONFIG_DB ``FLEX_COUNTER_TABLE|<group>`` has
  ``FLEX_COUNTER_STATUS`` ``enable`` (a group's first poll is at once when it is enabled; a new
  object appears, with zeros, at its groups' next poll). Disabling a group stops its updates (the
  hash keeps its last values, as on SONiC).
* Only what changed since the group's last poll is written (a whole-table compare first, then per
  object), in one pipeline per tick: at idle the cost is a few microseconds per group and poll.
* Watermarks are clear-on-read and feed ``USER_/PERIODIC_/PERSISTENT_WATERMARKS:<oid>``
  (``syncd_sim.watermarks``, which also plays WatermarkOrch's part: the periodic and requested clears).
* An object removed from the store (a port deleted by breakout, with its queues and PGs) loses its
  ``COUNTERS`` and watermark hashes at the next tick (0.1 s). A restarted syncd_sim takes the values
  back from the ``COUNTERS`` hashes it finds, so counters survive a syncd restart.
* The counter-set hook (``syncd_sim.counter_set``): channel ``NOS_COUNTER_SET_REQUEST`` on COUNTERS_DB.
* The PFC watchdog's detection (``syncd_sim.pfcwd``) runs at each poll of the ``PFCWD`` group, over the
  queues orchagent registered in FLEX_COUNTER_DB ``FLEX_COUNTER_TABLE:PFC_WD:<oid>``; the group's interval
  also follows FLEX_COUNTER_DB ``FLEX_COUNTER_GROUP_TABLE:PFC_WD`` ``POLL_INTERVAL`` (CONFIG_DB ``PFC_WD|GLOBAL``).

* FLEX_COUNTER_DB shows the groups as SONiC's orchagent writes them for syncd: once a CONFIG_DB row
  names a group, ``FLEX_COUNTER_GROUP_TABLE:<group name>`` has its ``POLL_INTERVAL``, ``STATS_MODE``
  and ``FLEX_COUNTER_STATUS``; while a group is enabled, each object it polls has
  ``FLEX_COUNTER_TABLE:<group name>:<oid>`` with the stats (``PORT_COUNTER_ID_LIST``,
  ``QUEUE_COUNTER_ID_LIST``, ``PG_COUNTER_ID_LIST``, ``RIF_COUNTER_ID_LIST``, ``BUFFER_POOL_COUNTER_ID_LIST``),
  gone with the object (flexcounterorch, FlexCounterManager::setCounterIdList). Here they only report
  what is polled: this writer reads CONFIG_DB, and the PFC watchdog's own rows stay orchagent's.

Bad data (a FLEX_COUNTER_TABLE or WATERMARK_TABLE row, a clear or set request) is logged and reported
in STATE_DB ``NOS_REJECTED_TABLE``; it never stops syncd.
"""

from __future__ import annotations

import functools
import json
import logging
import operator
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nos.daemon.consumer import StatusReporter, TableConsumer
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import NotificationConsumer, SubscriberStateTable
from nos.db.connector import Databases
from nos.db.errors import DbConnectionError, WrongTypeError, map_redis_errors
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.types import ObjectType as T
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, COUNTERS_DB, FLEX_COUNTER_DB
from nos.schema.tables import (
    CFG_FLEX_COUNTER_TABLE_NAME,
    CFG_WATERMARK_TABLE_NAME,
    COUNTERS_BUFFER_POOL_NAME_MAP,
    COUNTERS_PG_NAME_MAP,
    COUNTERS_PORT_NAME_MAP,
    COUNTERS_QUEUE_NAME_MAP,
    COUNTERS_RIF_NAME_MAP,
    COUNTERS_TABLE,
    FLEX_COUNTER_GROUP_TABLE,
    FLEX_COUNTER_TABLE,
)
from syncd_sim import watermarks as wm
from syncd_sim.counter_set import SET_REQUEST_CHANNEL, SetRequest, apply_set_request, parse_set_request
from syncd_sim.errors import BadCounterRequest
from syncd_sim.flex import GROUPS, GROUPS_BY_KEY, NOT_MODELLED, CounterGroup, parse_group_row
from syncd_sim.objects import ObjectStore
from syncd_sim.pfcwd import PfcWatchdog
from syncd_sim.stats import STATS_BY_KIND, AsicStats

log = logging.getLogger(__name__)

CONSUMES = ((CONFIG_DB, CFG_FLEX_COUNTER_TABLE_NAME), (CONFIG_DB, CFG_WATERMARK_TABLE_NAME),
            (APPL_DB, wm.CLEAR_REQUEST_CHANNEL), (COUNTERS_DB, SET_REQUEST_CHANNEL),
            (COUNTERS_DB, COUNTERS_PORT_NAME_MAP), (COUNTERS_DB, COUNTERS_QUEUE_NAME_MAP),
            (COUNTERS_DB, COUNTERS_PG_NAME_MAP), (COUNTERS_DB, COUNTERS_RIF_NAME_MAP),
            (COUNTERS_DB, COUNTERS_BUFFER_POOL_NAME_MAP))
PRODUCES = ((COUNTERS_DB, COUNTERS_TABLE), (COUNTERS_DB, wm.USER_WATERMARKS),
            (COUNTERS_DB, wm.PERIODIC_WATERMARKS), (COUNTERS_DB, wm.PERSISTENT_WATERMARKS),
            (FLEX_COUNTER_DB, FLEX_COUNTER_GROUP_TABLE), (FLEX_COUNTER_DB, FLEX_COUNTER_TABLE))
WATCHDOG_GROUP = "PFCWD"  # the CONFIG_DB key of SONiC's PFC_WD group
TICK_S = 0.1  # the writer's clock: group polls, removals and watermark clears happen on it
# Counter hashes per write script: Redis runs one script at a time and serves other clients between them.
# A first QUEUE poll of the 128-port SKU (2,560 queues) in one script held Redis for ~8 ms.
WRITE_CHUNK = 256
NAME_MAPS = {T.PORT: COUNTERS_PORT_NAME_MAP, T.QUEUE: COUNTERS_QUEUE_NAME_MAP,
             T.INGRESS_PRIORITY_GROUP: COUNTERS_PG_NAME_MAP, T.ROUTER_INTERFACE: COUNTERS_RIF_NAME_MAP,
             T.BUFFER_POOL: COUNTERS_BUFFER_POOL_NAME_MAP}
LOOPBACK_RIF = "SAI_ROUTER_INTERFACE_TYPE_LOOPBACK"
# FlexCounterManager's counter-id-list field per object kind (sairedis flex counter fields)
ID_LIST_FIELDS = {T.PORT: "PORT_COUNTER_ID_LIST", T.QUEUE: "QUEUE_COUNTER_ID_LIST",
                  T.INGRESS_PRIORITY_GROUP: "PG_COUNTER_ID_LIST", T.ROUTER_INTERFACE: "RIF_COUNTER_ID_LIST",
                  T.BUFFER_POOL: "BUFFER_POOL_COUNTER_ID_LIST"}
CLEARED_ON_READ = frozenset(name for g in GROUPS if g.read_and_clear for _, names in g.parts for name in names)
Pick = Callable[[Sequence[int]], tuple[int, ...]]
# ARGV[1]: JSON {key: {field: value}}: the hashes of a tick in few calls of one argument each. redis-py's
# per-argument packing dominated the cost when each hash was a pipelined HSET (128 ports, 2048 queues
# and PGs: 57 -> 29 ms of writer CPU per second when every counter changes every second).
WRITE_HASHES = """
for key, fields in pairs(cjson.decode(ARGV[1])) do
    local args = {}
    for name, value in pairs(fields) do
        args[#args + 1] = name
        args[#args + 1] = value
    end
    redis.call('HSET', key, unpack(args))
end
return 0
"""

RENAME_HASH = """
if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('RENAME', KEYS[1], KEYS[2])
end
return 0
"""


def counted_objects(store: ObjectStore) -> dict[T, list[str]]:
    """The objects that have counters: the store's objects of each kind with a stat table, except
    the CPU port (no COUNTERS_PORT_NAME_MAP entry on SONiC) and loopback router interfaces."""
    out: dict[T, list[str]] = {}
    for kind in STATS_BY_KIND:
        objs = store.of_type(kind)
        if kind is T.PORT:
            out[kind] = [oid for oid, obj in objs.items() if not obj.builtin]
        elif kind is T.ROUTER_INTERFACE:
            out[kind] = [oid for oid, obj in objs.items() if obj.attrs.get("SAI_ROUTER_INTERFACE_ATTR_TYPE")
                         != LOOPBACK_RIF]
        else:
            out[kind] = list(objs)
    return out


def _picker(columns: Sequence[int]) -> Pick:
    if len(columns) == 1:
        only = columns[0]
        return lambda values: (values[only],)
    return operator.itemgetter(*columns)


@dataclass
class Part:
    """One object kind of one group: its stats, and what the last poll published per table row."""

    kind: T
    names: tuple[str, ...]
    columns: tuple[int, ...]
    pick: Pick
    last: dict[int, tuple[int, ...]] = field(default_factory=dict)
    snapshot: array[int] | None = None  # the whole table as last published (skip unchanged tables)


@dataclass
class GroupState:
    group: CounterGroup
    parts: list[Part]
    enabled: bool = False
    interval_ms: int = 0
    next_due: float = 0.0
    configured: bool = False                            # a CONFIG_DB row has named the group
    listed: set[str] = field(default_factory=set)      # objects with a FLEX_COUNTER_DB row for this group

    def __post_init__(self) -> None:
        self.interval_ms = self.interval_ms or self.group.default_interval_ms


class CounterWriter:
    """Polls the ASIC's statistics into COUNTERS_DB on the daemon's timer (see module docstring)."""

    def __init__(self, dbs: Databases, store_of: Callable[[], ObjectStore]) -> None:
        self.dbs = dbs
        self.counters = dbs[COUNTERS_DB]
        self.flex = dbs[FLEX_COUNTER_DB]
        self.store_of = store_of
        self.stats = AsicStats()
        self.groups = {g.key: GroupState(g, self._parts(g)) for g in GROUPS}
        self.watchdog = PfcWatchdog(dbs, self.stats)
        self.clock: Callable[[], float] = time.monotonic  # the daemon's clock (tests pin it)
        self.periodic = wm.PeriodicClear()
        self.reporter: StatusReporter | None = None
        self.strict = False
        self.dirty = True  # the store's objects may have changed: resync the stat tables' rows
        self.listing_stale = True  # FLEX_COUNTER_DB listing to (re)write at the next tick
        self._raise_wm = self.counters.script("syncd_raise_watermarks", wm.RAISE_WATERMARKS)
        self._write_hashes = self.counters.script("syncd_write_counters", WRITE_HASHES)
        self._rename_hash = self.counters.script("syncd_rename_counters", RENAME_HASH)
        self._rejected: set[str] = set()
        self.set_requests: NotificationConsumer | None = None
        self.clear_requests: NotificationConsumer | None = None

    def _parts(self, group: CounterGroup) -> list[Part]:
        parts = []
        for kind, names in group.parts:
            columns = tuple(self.stats.table(kind).columns[n] for n in names)
            parts.append(Part(kind, names, columns, _picker(columns)))
        return parts

    # -- wiring ----------------------------------------------------------------------------------
    def register(self, runner: Runner) -> None:
        """Subscribe to the configuration and the request channels, and start the poll clock."""
        self.strict = runner.strict
        self.reporter = runner.reporter or StateDbReporter(self.dbs, runner.name)
        for table, handler in ((CFG_FLEX_COUNTER_TABLE_NAME, self.on_flex_row),
                               (CFG_WATERMARK_TABLE_NAME, self.on_watermark_row)):
            source = SubscriberStateTable(self.dbs[CONFIG_DB], table)
            runner.add_consumer(TableConsumer(CONFIG_DB, table, source, handler, reporter=self.reporter))
        for table, handler in ((FLEX_COUNTER_TABLE, self.watchdog.on_flex_row),
                               (FLEX_COUNTER_GROUP_TABLE, self.on_wd_group)):
            source = SubscriberStateTable(self.dbs[FLEX_COUNTER_DB], table)
            runner.add_consumer(TableConsumer(FLEX_COUNTER_DB, table, source, handler, reporter=self.reporter))
        self.set_requests = NotificationConsumer(self.counters, SET_REQUEST_CHANNEL)
        self.clear_requests = NotificationConsumer(self.dbs[APPL_DB], wm.CLEAR_REQUEST_CHANNEL)
        runner.add_selectable(self.set_requests, self.on_set_requests)
        runner.add_selectable(self.clear_requests, self.on_clear_requests)
        runner.add_timer("counters", TICK_S, self.tick)

    def objects_changed(self) -> None:
        """The shell applied ASIC_STATE changes: objects may have come or gone."""
        self.dirty = True

    def rename(self, renamed: dict[str, str]) -> None:
        """Objects that took new ids (an APPLY_VIEW) keep their counters: their rows, and their COUNTERS
        and watermark hashes renamed in COUNTERS_DB (what was published stays published)."""
        moved = [(old, new) for old, new in renamed.items()
                 if any(table.rename(old, new) for table in self.stats.tables.values())]
        if not moved:
            return
        self.watchdog.forget_published()
        pipe = self.counters.client.pipeline(transaction=False)
        for old, new in moved:
            for table in (COUNTERS_TABLE, *wm.WATERMARK_TABLES):
                self._rename_hash(keys=[f"{table}:{old}", f"{table}:{new}"], client=pipe)
        pipe.execute()
        log.info("syncd.counters.renamed objects=%d", len(moved))

    def resync_now(self) -> None:
        """Make the stat rows follow the store now (before counting into objects created a moment ago)."""
        if self.dirty:
            pipe = self.counters.client.pipeline(transaction=False)
            self._resync(pipe)
            pipe.execute()

    def poll_now(self) -> None:
        """Poll every enabled group at once (a traffic run just counted): COUNTERS_DB shows it now."""
        now = self.clock()
        for state in self.groups.values():
            if state.enabled and state.group.key != WATCHDOG_GROUP:  # its timers count real polls
                state.next_due = min(state.next_due, now)
        self._guarded("poll_now", lambda: self.step(now))

    # -- the clock -------------------------------------------------------------------------------
    def tick(self) -> None:
        self._guarded("tick", lambda: self.step(self.clock()))

    def step(self, now: float) -> None:
        """Resync rows if needed, poll every group that is due, run the periodic watermark clear."""
        pipe = self.counters.client.pipeline(transaction=False)
        if self.dirty:
            self._resync(pipe)
        writes: dict[str, dict[str, str]] = {}  # COUNTERS hash -> fields: every group of this tick in one write
        for state in self.groups.values():
            if state.enabled and now >= state.next_due:
                self._poll(state, writes, pipe)
                if state.group.key == WATCHDOG_GROUP:
                    self.watchdog.poll(self.store_of(), state.interval_ms, pipe)
                state.next_due += state.interval_ms / 1000
                if state.next_due <= now:
                    state.next_due = now + state.interval_ms / 1000
        self._publish_listing()
        running = self._watermarks_running()
        if self.periodic.expired(running, now):
            self._zero_fields(pipe, wm.PERIODIC_WATERMARKS, wm.PERIODIC_FIELDS)
        self.periodic.update(running, now)
        items = list(writes.items())
        for start in range(0, len(items), WRITE_CHUNK):  # Redis serves other clients between the calls
            chunk = dict(items[start:start + WRITE_CHUNK])
            self._write_hashes(args=[json.dumps(chunk, separators=(",", ":"))], client=pipe)
        if len(pipe):
            try:
                pipe.execute()
            except Exception:
                self._forget_published()  # what this tick meant to write is written again next time
                raise

    def _forget_published(self) -> None:
        self.watchdog.forget_published()
        for state in self.groups.values():
            for part in state.parts:
                part.last.clear()
                part.snapshot = None

    def _guarded(self, what: str, action: Callable[[], None]) -> None:
        """Run a callback of the loop: a program bug is logged (re-raised when strict), never fatal. A
        key this writer owns that is not a hash (garbage written by hand) fails its writes: it is
        replaced (``repair``), and the next tick writes everything again."""
        try:
            with map_redis_errors(f"syncd counters {what}"):
                action()
        except DbConnectionError:
            raise
        except WrongTypeError as error:
            log.warning("syncd.counters.wrong_type in=%s error=%s", what, error)
            self.repair()
        except Exception:
            if self.strict:
                raise
            log.exception("syncd.counters.crash in=%s", what)

    def repair(self) -> int:
        """Delete the keys of the objects' counter and watermark hashes that are not hashes (their next
        write makes them rows again), and forget what was published so that it is written again.
        Returns how many were replaced."""
        names = [f"{table}:{oid}" for kind in STATS_BY_KIND for oid in self.stats.table(kind).rows
                 for table in (COUNTERS_TABLE, *wm.WATERMARK_TABLES)]
        with map_redis_errors("syncd counters repair"):
            pipe = self.counters.client.pipeline(transaction=False)
            for name in names:
                pipe.type(name)
            wrong = [name for name, kind in zip(names, pipe.execute(), strict=True) if kind not in ("hash", "none")]
            if wrong:
                self.counters.client.delete(*wrong)
        for name in wrong:
            log.warning("db.bad_key.replaced db=%s key=%s reason=not a hash: replaced by the counters written next",
                        COUNTERS_DB, name)
        self._forget_published()
        return len(wrong)

    # -- rows follow the object store ------------------------------------------------------------
    def _resync(self, pipe: Any) -> None:
        self.dirty = False
        added, removed = self.stats.sync(counted_objects(self.store_of()))
        if not added and not removed:
            return
        self.watchdog.forget_published()  # a removed object's hash is deleted; an id may come back
        for kind, oid in removed:
            pipe.delete(f"{COUNTERS_TABLE}:{oid}", *(f"{t}:{oid}" for t in wm.WATERMARK_TABLES))
            log.debug("syncd.counters.removed kind=%s oid=%s", kind.sai_name, oid)
        fresh: dict[T, set[int]] = {}
        for kind, oid in added:
            fresh.setdefault(kind, set()).add(self.stats.table(kind).rows[oid])
        for state in self.groups.values():
            for part in state.parts:  # forget what was published for rows now gone or reused
                live = set(self.stats.table(part.kind).rows.values()) - fresh.get(part.kind, set())
                part.last = {row: values for row, values in part.last.items() if row in live}
                part.snapshot = None
        if added:
            self._take_back(added)
        self.listing_stale = True
        log.info("syncd.counters.objects added=%d removed=%d", len(added), len(removed))

    def _take_back(self, added: list[tuple[T, str]]) -> None:
        """Values an earlier syncd published for these objects (a restart): the ASIC keeps counting."""
        read = self.counters.client.pipeline(transaction=False)
        for _, oid in added:
            read.hgetall(f"{COUNTERS_TABLE}:{oid}")
        for (kind, oid), fields in zip(added, read.execute(raise_on_error=False), strict=True):
            if not isinstance(fields, dict):  # not a hash: nothing to take back (the tick's write replaces it)
                continue
            table = self.stats.table(kind)
            for name, text in fields.items():
                # not the watermarks: the ASIC cleared them when they were read
                if name in table.columns and name not in CLEARED_ON_READ and text.isdecimal():
                    try:
                        table.set(oid, name, int(text))
                    except OverflowError:
                        log.warning("syncd.counters.restore_skipped oid=%s stat=%s value=%s", oid, name, text)

    # -- FLEX_COUNTER_DB: what is polled, as SONiC lists it -----------------------------------------
    def _publish_listing(self) -> None:
        if not self.listing_stale:
            return
        self.listing_stale = False
        pipe = self.flex.client.pipeline(transaction=False)
        for state in self.groups.values():
            group = state.group
            if group.key == WATCHDOG_GROUP or not state.configured:
                continue  # the watchdog's rows are orchagent's (PfcWdOrch)
            pipe.hset(f"{FLEX_COUNTER_GROUP_TABLE}:{group.name}", mapping={
                "POLL_INTERVAL": str(state.interval_ms),
                "FLEX_COUNTER_STATUS": "enable" if state.enabled else "disable",
                "STATS_MODE": "STATS_MODE_READ_AND_CLEAR" if group.read_and_clear else "STATS_MODE_READ"})
            live = {oid: (kind, names) for kind, names in group.parts for oid in self.stats.table(kind).rows}
            # enabled: every object polled; disabled: the rows stay (flexcounterorch only turns the group off)
            wanted = live.keys() if state.enabled else state.listed & live.keys()
            for oid in state.listed - live.keys():
                pipe.delete(f"{FLEX_COUNTER_TABLE}:{group.name}:{oid}")
            for oid in wanted - state.listed:
                kind, names = live[oid]
                pipe.hset(f"{FLEX_COUNTER_TABLE}:{group.name}:{oid}", ID_LIST_FIELDS[kind], ",".join(names))
            state.listed = set(wanted)
        pipe.execute()

    # -- polling ---------------------------------------------------------------------------------
    def _poll(self, state: GroupState, writes: dict[str, dict[str, str]], pipe: Any) -> None:
        group = state.group
        for part in state.parts:
            table = self.stats.table(part.kind)
            if not group.watermark and part.snapshot is not None and part.snapshot == table.values:
                continue  # nothing in the table changed since this group last published it
            records = []
            for oid, row in table.rows.items():
                current = part.pick(table.row_values(row))
                previous = part.last.get(row)
                if current != previous:
                    if previous is None:
                        fields = dict(zip(part.names, map(str, current), strict=True))
                    else:
                        fields = {n: str(v) for n, v, p in zip(part.names, current, previous, strict=True) if v != p}
                    writes.setdefault(f"{COUNTERS_TABLE}:{oid}", {}).update(fields)
                    part.last[row] = current
                if group.watermark and (previous is None or any(current)):
                    records.append((oid, part.names, current))
            part.snapshot = table.values[:]
            if group.read_and_clear:
                table.clear_columns(part.columns)
            if records:
                self._raise_wm(args=wm.raise_args(records), client=pipe)

    def _watermarks_running(self) -> bool:
        return any(self.groups[key].enabled for key in wm.PERIODIC_GROUPS)

    def _zero_fields(self, pipe: Any, table: str, fields: Sequence[wm.WatermarkField]) -> None:
        """WatermarkOrch's clearSingleWm: the field becomes "0" for every object it applies to."""
        store = self.store_of()
        for target in fields:
            for oid in self.stats.table(target.kind).rows:
                if target.queue_type is not None:
                    obj = store.find(T.QUEUE, oid)
                    if obj is None or obj.attrs.get("SAI_QUEUE_ATTR_TYPE") != target.queue_type:
                        continue
                pipe.hset(f"{table}:{oid}", target.stat, "0")

    # -- configuration ---------------------------------------------------------------------------
    def on_flex_row(self, task: KeyOpFieldsValues) -> Result:
        """CONFIG_DB FLEX_COUNTER_TABLE|<group>, as flexcounterorch takes it."""
        state = self.groups.get(task.key)
        if state is None:
            if task.key in NOT_MODELLED:
                return Result.ignored(f"{task.key}: counters this switch does not model")
            return Result.invalid(f"{task.key} is not a flex counter group ({', '.join(GROUPS_BY_KEY)})")
        if task.is_del:
            return Result.ignored("flexcounterorch ignores the removal of a group's row")
        setting, problems = parse_group_row(task.key, task.fields)
        state.configured = True
        self.listing_stale = True
        now = self.clock()
        if setting.interval_ms is not None and setting.interval_ms != state.interval_ms:
            state.next_due += (setting.interval_ms - state.interval_ms) / 1000
            state.interval_ms = setting.interval_ms
        if setting.enabled is not None and setting.enabled != state.enabled:
            state.enabled = setting.enabled
            state.next_due = now  # polling starts at once (syncd's flex counter thread polls, then waits)
            log.info("syncd.counters.group key=%s enabled=%s interval_ms=%d", task.key, state.enabled,
                     state.interval_ms)
        self.periodic.update(self._watermarks_running(), now)
        return Result.invalid("; ".join(problems)) if problems else Result.success()

    def on_wd_group(self, task: KeyOpFieldsValues) -> Result:
        """FLEX_COUNTER_DB FLEX_COUNTER_GROUP_TABLE:PFC_WD: the watchdog's poll interval (PFC_WD|GLOBAL)."""
        result = self.watchdog.on_group_row(task)
        state = self.groups[WATCHDOG_GROUP]
        interval = self.watchdog.poll_interval_ms
        if result.done and not result.rejected and interval and interval != state.interval_ms:
            state.next_due += (interval - state.interval_ms) / 1000
            state.interval_ms = interval
        return result

    def on_watermark_row(self, task: KeyOpFieldsValues) -> Result:
        """CONFIG_DB WATERMARK_TABLE|TELEMETRY_INTERVAL {interval: seconds}."""
        if task.key != wm.TELEMETRY_INTERVAL_KEY:
            return Result.invalid(f"{task.key}: the only key is {wm.TELEMETRY_INTERVAL_KEY}")
        if task.is_del:
            return Result.ignored("WatermarkOrch ignores the removal of the row")
        value = task.fields.get(wm.INTERVAL_FIELD)
        if value is None:
            return Result.ignored("no interval")
        try:
            self.periodic.set_interval(wm.parse_telemetry_interval(value))
        except ValueError as exc:
            return Result.invalid(f"{wm.INTERVAL_FIELD}={value!r}: {exc}")
        return Result.success()

    # -- requests --------------------------------------------------------------------------------
    def on_set_requests(self) -> None:
        assert self.set_requests is not None
        for note in self.set_requests.pops():
            task = KeyOpFieldsValues(note.data, note.op, note.fvs)
            self._guarded("set_request", functools.partial(self._set_request, task))

    def _set_request(self, task: KeyOpFieldsValues) -> None:
        try:
            request = parse_set_request(task.op, task.key, task.fvs)
            apply_set_request(self.stats, request, self._resolve(request))
        except BadCounterRequest as exc:
            self._report(COUNTERS_DB, SET_REQUEST_CHANNEL, task, str(exc))
            return
        log.info("syncd.counters.set object=%s op=%s stats=%d", task.key, task.op, len(task.fvs))
        self._clear_report(COUNTERS_DB, SET_REQUEST_CHANNEL, task.key)

    def _resolve(self, request: SetRequest) -> dict[T, str]:
        """The object id per kind the request means: the oid itself, or the name in each name map."""
        if self.dirty:  # an object created a moment ago is in the store but not yet in the tables
            self._resync(self.counters.client)
        kinds = sorted(request.kinds)
        if request.by_oid:
            return {kind: request.target for kind in kinds}
        pipe = self.counters.client.pipeline(transaction=False)
        for kind in kinds:
            pipe.hget(NAME_MAPS[kind], request.target)
        found = dict(zip(kinds, pipe.execute(raise_on_error=False), strict=True))
        unreadable = [NAME_MAPS[kind] for kind in kinds if isinstance(found[kind], Exception)]
        if unreadable:
            raise BadCounterRequest(f"{request.target}: {', '.join(unreadable)} is not a hash (garbage in COUNTERS_DB)")
        missing = [kind.sai_name for kind in kinds if not found[kind]]
        if missing:
            raise BadCounterRequest(f"{request.target}: no {' or '.join(missing)} of that name")
        return {kind: oid for kind, oid in found.items() if oid}

    def on_clear_requests(self) -> None:
        assert self.clear_requests is not None
        for note in self.clear_requests.pops():
            task = KeyOpFieldsValues(note.data, note.op, note.fvs)
            self._guarded("clear_request", functools.partial(self._clear_request, task))

    def _clear_request(self, task: KeyOpFieldsValues) -> None:
        try:
            table, target = wm.plan_clear(task.op, task.key)
        except ValueError as exc:
            self._report(APPL_DB, wm.CLEAR_REQUEST_CHANNEL, task, str(exc))
            return
        pipe = self.counters.client.pipeline(transaction=False)
        self._zero_fields(pipe, table, (target,))
        pipe.execute()
        log.info("syncd.counters.watermarks_cleared table=%s field=%s", table, target.stat)

    # -- reporting -------------------------------------------------------------------------------
    def _report(self, db: str, channel: str, task: KeyOpFieldsValues, reason: str) -> None:
        log.warning("syncd.counters.refused channel=%s key=%s op=%s reason=%s", channel, task.key, task.op, reason)
        self._rejected.add(f"{db}:{channel}:{task.key}")
        if self.reporter is not None:
            self.reporter.rejected(db, channel, task, Result.invalid(reason))

    def _clear_report(self, db: str, channel: str, key: str) -> None:
        name = f"{db}:{channel}:{key}"
        if name in self._rejected:
            self._rejected.discard(name)
            if self.reporter is not None:
                self.reporter.cleared(db, channel, key)
