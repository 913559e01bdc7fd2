"""The fast path's shell in syncd: keep the compiled tables current, answer packet traces, run traffic jobs.

* Compilation is debounced: every applied ASIC_STATE batch marks the tables stale; they are rebuilt
  once the store has been quiet for ``QUIET_S``, and at once when a trace or a traffic run needs them.
  Nothing is compiled before the first trace, run or export asks for tables: a switch nobody traces
  (most of a lab's, while it boots) keeps the CPU for programming and never holds the tables' memory
  (the IPv4 LPM alone is 64 MiB per virtual router); from then on they are kept current.
  A steady stream of changes (a full routing table arriving) is never interrupted by a compile: it would
  take the CPU that programming needs, for tables nobody has asked for yet. The new ``Tables`` replaces
  the old in one assignment.
* Traces (``NOS_TRACE|<id>`` + ``NOS_TRACE_REQUEST``) are answered in the loop: one packet is cheap.
* Traffic runs (``NOS_TRAFFIC_JOB|<id>`` + ``NOS_TRAFFIC_REQUEST``) run in a forked child with the
  tables of that moment, so syncd keeps answering orchagent meanwhile. The child writes progress and
  the result into the job's hash and sends the counter updates and the learnt MACs back over a pipe;
  the parent applies them to the ASIC's counters, polls every counter group at once, adds the learnt
  MACs to the FDB (``apply_learned``) and only then marks the job done, so a client that sees ``done``
  finds the run in COUNTERS_DB and its MACs in ``nos show mac``. One run at a time; others wait queued.
* A fabric run (``nos lab traffic run``) spans several switches, so it runs in the lab's process, on
  every switch's tables at one moment: a job with ``kind`` ``export`` is answered, once the store has
  settled like a run, with the compiled tables as bytes (``fastpath.tables_codec``) in the STATE_DB
  string ``NOS_TRAFFIC_EXPORT|<id>`` (expiring with the job) and the cable lengths in the job's
  ``cables``; a job with ``kind`` ``import`` hands back that run's share of this switch's counters
  (``updates``: JSON ``[[oid, stat, value, mode], ...]`` as ``fastpath.run_counters`` makes them) and
  watchdog events, applied as a run's own are before ``done``. An export with ``now`` 1 does not wait
  for the store to settle: it is the data plane of that moment, mid-change, compiled in a forked child
  from the store as it was at the fork (``at``), so that syncd keeps answering orchagent meanwhile;
  one with ``since`` (a version an earlier export gave) is answered ``unchanged``, without the tables,
  while they are that.
* Learnt MACs (``syncd_sim.learning``) become dynamic FDB entries in the store, persisted to
  ASIC_STATE and reported on ASIC_DB ``NOTIFICATIONS`` as ``fdb_event`` (LEARNED / MOVE), as syncd does
  with a real ASIC's learning callback; the tables are then stale.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from nos.daemon.runner import Runner
from nos.db import Table
from nos.db.connector import Databases
from nos.db.errors import map_redis_errors
from nos.db.subscription import Subscription
from nos.sai.types import ObjectType as T
from nos.schema.dbconfig import CONFIG_DB, COUNTERS_DB, STATE_DB
from nos.schema.tables import (
    CFG_PORT_CABLE_LEN_TABLE_NAME,
    COUNTERS_BUFFER_POOL_NAME_MAP,
    NOS_TRACE,
    NOS_TRACE_REQUEST,
    NOS_TRAFFIC_EXPORT,
    NOS_TRAFFIC_JOB,
    NOS_TRAFFIC_REQUEST,
    PFC_WD_ACTION_CHANNEL,
)
from syncd_sim import traffic_requests as requests
from syncd_sim.counters import CounterWriter
from syncd_sim.objects import Change, ObjectStore

if TYPE_CHECKING:  # the compiler, model and forwarding load numpy: imported on first use, not at syncd start
    from fastpath.tables import Tables
    from syncd_sim import learning

log = logging.getLogger(__name__)

CONSUMES = ((STATE_DB, NOS_TRAFFIC_JOB), (STATE_DB, NOS_TRAFFIC_REQUEST), (STATE_DB, NOS_TRACE),
            (STATE_DB, NOS_TRACE_REQUEST), (CONFIG_DB, CFG_PORT_CABLE_LEN_TABLE_NAME),
            (COUNTERS_DB, COUNTERS_BUFFER_POOL_NAME_MAP))
PRODUCES = ((STATE_DB, NOS_TRAFFIC_JOB), (STATE_DB, NOS_TRACE), (STATE_DB, NOS_TRAFFIC_EXPORT),
            (COUNTERS_DB, PFC_WD_ACTION_CHANNEL))

QUIET_S = 0.5        # recompile once the store has been unchanged this long
MAX_WAIT_S = 10.0    # a traffic run waits at most this long for the store to settle (orchagent programming)
TICK_S = 0.1
EXPORT_TTL_S = 600   # an export's tables are read at once; they go away on their own
AsicChanged = Callable[[list[Change], list[tuple[str, str]]], None]   # (ASIC_STATE changes, notifications)


class Channel:
    """A plain pub/sub channel as a selectable: each message is a job id (a bare string, or the data
    of a swss-common notification ``[op, id]``)."""

    def __init__(self, db: Any, name: str) -> None:
        self._sub = Subscription(db)
        self._sub.subscribe(channels=[name])
        self._ids: list[str] = []

    def fileno(self) -> int:
        return self._sub.fileno()

    def read_messages(self) -> None:
        for msg in self._sub.drain():
            self._ids.append(requests.job_id_of(str(msg.data)))

    def has_work(self) -> bool:
        return bool(self._ids)

    def pops(self) -> list[str]:
        ids, self._ids = self._ids, []
        return [i for i in ids if i]


@dataclass
class Child:
    """A running traffic job: its process and the read end of its pipe (a selectable)."""

    job_id: str
    pid: int
    fd: int
    data: bytearray = field(default_factory=bytearray)
    eof: bool = False

    def fileno(self) -> int:
        return self.fd

    def read_messages(self) -> None:
        while not self.eof:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                self.eof = True
            self.data += chunk

    def has_work(self) -> bool:
        return self.eof


class FastPathShell:
    def __init__(self, dbs: Databases, store_of: Callable[[], ObjectStore], counters: CounterWriter,
                 asic_changed: AsicChanged | None = None) -> None:
        self.dbs = dbs
        self.store_of = store_of
        self.counters = counters
        self.asic_changed = asic_changed   # persists the ASIC's own changes and sends its notifications
        self.jobs = Table(dbs[STATE_DB], NOS_TRAFFIC_JOB)
        self.traces = Table(dbs[STATE_DB], NOS_TRACE)
        self.tables: Tables | None = None
        self.version = 0
        self.last_change = 0.0
        self.stale = True
        self.generation = 0                # store changes so far: the version of a ``now`` export
        self.exporters: list[int] = []     # forked ``now`` exports not yet reaped
        self.queued: list[str] = []
        self.waiting_since: float | None = None
        self.child: Child | None = None
        self.runner: Runner | None = None

    def register(self, runner: Runner) -> None:
        self.runner = runner
        self.trace_requests = Channel(self.dbs[STATE_DB], NOS_TRACE_REQUEST)
        self.traffic_requests = Channel(self.dbs[STATE_DB], NOS_TRAFFIC_REQUEST)
        runner.add_selectable(self.trace_requests, self.on_trace_requests)
        runner.add_selectable(self.traffic_requests, self.on_traffic_requests)
        runner.add_timer("fastpath", TICK_S, self.tick)
        self.queued = requests.queued_jobs(self.jobs)  # asked for while syncd was down

    # -- compiled tables ---------------------------------------------------------------------------
    def changed(self) -> None:
        """The store changed (an applied batch): the tables are stale."""
        self.stale = True
        self.generation += 1
        self.last_change = time.monotonic()

    def tick(self) -> None:
        self._reap_exporters()
        if self.tables is not None and self.stale and time.monotonic() - self.last_change >= QUIET_S:
            self.current()
        self._next_job()

    def settled(self) -> bool:
        """No ASIC change for QUIET_S: orchagent is not in the middle of programming something."""
        return not self.stale or time.monotonic() - self.last_change >= QUIET_S

    def _next_job(self) -> None:
        """Start the oldest queued run once the store has settled (or has been busy for MAX_WAIT_S)."""
        if self.child is not None or not self.queued:
            return
        now = time.monotonic()
        if self.waiting_since is None:
            self.waiting_since = now
        if self.settled() or now - self.waiting_since >= MAX_WAIT_S or self._wants_now(self.queued[0]):
            self.waiting_since = None
            self._start(self.queued.pop(0))

    def _wants_now(self, job_id: str) -> bool:
        """An export asked for with ``now`` 1: the tables as the ASIC holds them this moment, settled or
        not (a lab looking at a data plane while its control plane reacts: ``nos.lab.across``)."""
        row = self.jobs.get(job_id) or {}
        return row.get("kind") == requests.KIND_EXPORT and row.get("now") == "1"

    def current(self) -> Tables:
        """The compiled tables, rebuilt first if the store changed since."""
        if self.stale or self.tables is None:
            started = time.perf_counter()
            self.version += 1
            from syncd_sim.compile import compile_store

            tables = compile_store(self.store_of(), version=self.version, watchdog_rows=self.counters.watchdog.rows())
            self.tables = self._named_pools(tables)
            self.stale = False
            log.info("syncd.fastpath.compiled version=%d ports=%d ms=%.1f", self.version,
                     self.tables.ports.n, (time.perf_counter() - started) * 1000)
        return self.tables

    def _named_pools(self, tables: Tables) -> Tables:
        return named_pools(self.dbs, tables)

    # -- traces ------------------------------------------------------------------------------------
    def on_trace_requests(self) -> None:
        from syncd_sim import traffic_jobs as jobs

        for trace_id in self.trace_requests.pops():
            row = self.traces.get(trace_id) or {}
            try:
                answer = jobs.answer_trace(self.current(), row.get("packet", ""))
            except requests.JobError as exc:
                self.traces.set(trace_id, {"state": "failed", "error": str(exc)})
                continue
            self.traces.set(trace_id, {"state": "done", "result": json.dumps(answer)})

    # -- traffic jobs ------------------------------------------------------------------------------
    def on_traffic_requests(self) -> None:
        for job_id in self.traffic_requests.pops():
            if job_id not in self.queued and (self.child is None or self.child.job_id != job_id):
                self.queued.append(job_id)
        self._next_job()

    def _start(self, job_id: str) -> None:
        row = self.jobs.get(job_id)
        if not row or row.get("state") != "queued":
            return
        kind = row.get("kind", requests.KIND_RUN)
        if kind != requests.KIND_RUN:
            self._answer_in_loop(job_id, kind, row)
            return
        tables = self.current()
        cables = requests.parse_cables(Table(self.dbs[CONFIG_DB], CFG_PORT_CABLE_LEN_TABLE_NAME).get("AZURE") or {})
        self.jobs.set(job_id, {"state": "running", "progress": "0"})
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read_fd)
            _child_main(self.dbs.url, job_id, row.get("scenario", ""), tables, cables, write_fd)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        self.child = Child(job_id, pid, read_fd)
        assert self.runner is not None
        self.runner.add_selectable(self.child, self.on_child_done)
        log.info("syncd.fastpath.job_started id=%s pid=%d", job_id, pid)

    def _answer_in_loop(self, job_id: str, kind: str, row: dict[str, str]) -> None:
        """An export or import job (see the module docstring): quick, answered here, then the next."""
        try:
            if kind == requests.KIND_EXPORT and row.get("now") == "1":
                self._export_now(job_id, row.get("since", ""))
            elif kind == requests.KIND_EXPORT:
                self._export(job_id, row.get("since", ""))
            elif kind == requests.KIND_IMPORT:
                imported = requests.parse_import(row)
                self._apply(imported.updates)
                self._report_storms(imported.watchdog)
                self.apply_learned(_learnt(imported.learned))
                self.jobs.set(job_id, {"state": "done", "progress": "1", "applied": str(len(imported.updates))})
            else:
                raise requests.JobError(f"NOS_TRAFFIC_JOB|{job_id}: kind {kind!r} is not run, export or import")
        except requests.JobError as exc:
            self.jobs.set(job_id, {"state": "failed", "error": str(exc)})
        log.info("syncd.fastpath.job_answered id=%s kind=%s", job_id, kind)
        self._next_job()

    def _export(self, job_id: str, since: str = "") -> None:
        from fastpath.tables_codec import encode

        if since and not self.stale and self.tables is not None and str(self.tables.version) == since:
            self.jobs.set(job_id, {"state": "done", "progress": "1", "unchanged": "1", "version": since})
            return
        tables = self.current()
        cables = requests.parse_cables(Table(self.dbs[CONFIG_DB], CFG_PORT_CABLE_LEN_TABLE_NAME).get("AZURE") or {})
        db = self.dbs[STATE_DB]
        key = db.row_name(NOS_TRAFFIC_EXPORT, job_id)
        with map_redis_errors(f"set {key}"):
            db.client.set(key, encode(tables), ex=EXPORT_TTL_S)
        self.jobs.set(job_id, {"state": "done", "progress": "1", "export": key, "cables": json.dumps(cables),
                               "version": str(tables.version)})

    def _export_now(self, job_id: str, since: str) -> None:
        """The tables of this moment, mid-change, without holding syncd up: a forked child compiles the
        store as it is at the fork (``at``, epoch seconds) while syncd goes on answering orchagent.
        Versioned by the store's changes: ``since`` that version is answered ``unchanged`` at once."""
        mark = f"g{self.generation}"
        if since == mark:
            self.jobs.set(job_id, {"state": "done", "progress": "1", "unchanged": "1", "version": mark,
                                   "at": repr(time.time())})
            return
        cables = requests.parse_cables(Table(self.dbs[CONFIG_DB], CFG_PORT_CABLE_LEN_TABLE_NAME).get("AZURE") or {})
        watchdog = self.counters.watchdog.rows()
        at = time.time()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            _export_child(self.dbs.url, job_id, self.store_of(), watchdog, cables, mark, at)
        self.exporters.append(pid)

    def _reap_exporters(self) -> None:
        for pid in list(self.exporters):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.exporters.remove(pid)

    def on_child_done(self) -> None:
        child = self.child
        if child is None or not child.eof:
            return
        assert self.runner is not None
        self.runner.remove_selectable(child)
        os.close(child.fd)
        _, status = os.waitpid(child.pid, 0)
        self.child = None
        try:
            message = json.loads(bytes(child.data) or b"null")
        except ValueError:
            message = None
        if not isinstance(message, dict):
            self.jobs.set(child.job_id, {"state": "failed",
                                         "error": f"the model process ended without a result (status {status})"})
        elif message.get("error"):
            self.jobs.set(child.job_id, {"state": "failed", "error": str(message["error"])})
        else:
            self._apply(message.get("updates", []))
            self.apply_learned(_learnt(message.get("learned", [])))
            self._report_storms(message.get("watchdog", []))
            self.jobs.set(child.job_id, {"state": "done", "progress": "1"})
        log.info("syncd.fastpath.job_ended id=%s status=%d", child.job_id, status)
        self._next_job()

    def _apply(self, rows: list[list[Any]]) -> None:
        stats = self.counters.stats
        self.counters.resync_now()
        applied = 0
        for oid, stat, value, mode in rows:
            table = stats.find(oid)
            if table is None or stat not in table.columns:
                continue
            if mode == "max":  # run_counters.MAX: a watermark
                table.raise_to(oid, stat, int(value))
            else:
                table.increment(oid, stat, int(value))
            applied += 1
        self.counters.poll_now()
        log.info("syncd.fastpath.counters_applied stats=%d", applied)

    # -- learning ----------------------------------------------------------------------------------
    def _report_storms(self, events: list[list[str]]) -> None:
        """The run's watchdog events on queues the daemon watches, published as its own poll publishes
        them (orchagent applies the action and counts them in ``show pfcwd stats``; a storm still on at
        the run's end is restored by the daemon's watchdog once its restoration time passes quietly)."""
        self.counters.watchdog.report([(queue, event) for queue, event in events])

    def apply_learned(self, learnt: list[learning.LearntMac]) -> list[learning.FdbEvent]:
        """Add learnt MACs to the FDB (new entries, moves), persist them and send ``fdb_event``."""
        if not learnt:
            return []
        store = self.store_of()
        switch_id = next(iter(store.of_type(T.SWITCH)), "")
        changes: list[Change] = []
        from syncd_sim import learning

        done: list[learning.FdbEvent] = []
        for event in learning.plan(learnt, store, switch_id):
            if event.event == learning.LEARNED:
                outcome = store.create(T.FDB_ENTRY, event.key, event.attrs())
            else:
                outcome = store.set(T.FDB_ENTRY, event.key, learning.BRIDGE_PORT_ID, event.bridge_port)
            if not outcome.ok:
                log.warning("syncd.fastpath.learn_refused key=%s status=%s reason=%s", event.key, outcome.status,
                            outcome.reason)
                continue
            changes += outcome.changes
            done.append(event)
        if done:
            if self.asic_changed is not None:
                self.asic_changed(changes, [(learning.FDB_EVENT, learning.notification_data(done))])
            self.changed()
        log.info("syncd.fastpath.learned reported=%d applied=%d", len(learnt), len(done))
        return done


def _child_databases(url: str) -> Databases:
    """A forked child's own start: syncd's signal handling undone, connections of its own."""
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    return Databases(url)


def _child_main(url: str, job_id: str, scenario: str, tables: Tables, cables: dict[str, float], fd: int) -> None:
    """The forked model process: run, write the result, send the counter updates, exit."""
    code = 0
    try:
        dbs = _child_databases(url)
        hash_ = Table(dbs[STATE_DB], NOS_TRAFFIC_JOB)
        try:
            from syncd_sim import traffic_jobs as jobs

            out = jobs.run_traffic(scenario, tables, cables, lambda fields: hash_.set(job_id, fields))
            message: dict[str, Any] = {"updates": [[u.oid, u.stat, u.value, u.mode] for u in out.updates],
                                       "learned": [m.wire() for m in out.learned],
                                       "watchdog": [list(e) for e in out.watchdog]}
        except requests.JobError as exc:
            message = {"error": str(exc)}
        except Exception as exc:  # a model bug must not leave the job running forever
            logging.getLogger(__name__).exception("syncd.fastpath.job_crashed id=%s", job_id)
            message = {"error": f"the model failed: {type(exc).__name__}: {exc}"}
        with os.fdopen(fd, "wb") as pipe:
            pipe.write(json.dumps(message).encode())
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def named_pools(dbs: Databases, tables: Tables) -> Tables:
    """Pools by their CONFIG_DB names (COUNTERS_BUFFER_POOL_NAME_MAP) rather than their object ids."""
    names = Table(dbs[COUNTERS_DB], COUNTERS_BUFFER_POOL_NAME_MAP).get("") or {}  # not a hash: reported
    by_oid = {oid: name for name, oid in names.items()}
    pools = tables.buffers
    named = tuple(by_oid.get(oid, oid) for oid in pools.pool_oids)
    return replace(tables, buffers=replace(pools, pool_names=named))


def _export_child(url: str, job_id: str, store: ObjectStore, watchdog: Any, cables: dict[str, float], mark: str,
                  at: float) -> None:
    """A forked ``now`` export: compile the store as it was at the fork, hand the tables over, exit."""
    code = 0
    try:
        dbs = _child_databases(url)
        jobs = Table(dbs[STATE_DB], NOS_TRAFFIC_JOB)
        try:
            from fastpath.tables_codec import encode
            from syncd_sim.compile import compile_store

            tables = named_pools(dbs, compile_store(store, version=0, watchdog_rows=watchdog))
            db = dbs[STATE_DB]
            key = db.row_name(NOS_TRAFFIC_EXPORT, job_id)
            db.client.set(key, encode(tables), ex=EXPORT_TTL_S)
            jobs.set(job_id, {"state": "done", "progress": "1", "export": key, "cables": json.dumps(cables),
                              "version": mark, "at": repr(at)})
        except Exception as exc:  # a compiler bug must not leave the job queued forever
            logging.getLogger(__name__).exception("syncd.fastpath.export_crashed id=%s", job_id)
            jobs.set(job_id, {"state": "failed", "error": f"the export failed: {type(exc).__name__}: {exc}"})
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _learnt(rows: object) -> list[learning.LearntMac]:
    """The pipe's ``learned`` rows (malformed ones are skipped)."""
    from syncd_sim import learning

    out = []
    for row in rows if isinstance(rows, list) else []:
        try:
            out.append(learning.LearntMac.from_wire(row))
        except (TypeError, ValueError):
            log.warning("syncd.fastpath.bad_learnt_row row=%r", row)
    return out
