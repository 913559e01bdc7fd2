"""PfcWdOrch: CONFIG_DB PFC_WD -> the PFC watchdog on each lossless queue (swss orchagent/pfcwdorch.cpp,
``PfcWdSwOrch`` as on the virtual switch).

* ``PFC_WD|<port>`` starts the watchdog on the port's watched priorities (``PORT_QOS_MAP``, see
  ``pfcwd_rows``): each queue of such a priority is registered in FLEX_COUNTER_DB
  ``FLEX_COUNTER_TABLE:PFC_WD:<queue oid>`` (and the port in ``...:PFC_WD:<port oid>``), and its
  COUNTERS_DB hash gets ``PFC_WD_DETECTION_TIME``/``_RESTORATION_TIME`` (µs), ``PFC_WD_ACTION``,
  ``PFC_WD_STATUS`` operational and the storm counts. A port with no watched priority waits (NEED_RETRY,
  as SONiC); an unknown port is invalid. A DEL unregisters: the four fields go, the counts stay.
* ``PFC_WD|GLOBAL``: ``POLL_INTERVAL`` -> FLEX_COUNTER_DB ``FLEX_COUNTER_GROUP_TABLE:PFC_WD``;
  ``BIG_RED_SWITCH`` enable puts a drop action on every queue of every port's watchdog bitmask
  (``pfcwd_sw_enable``), counted and shown as a storm (``PFC_WD_STATUS`` stormed,
  ``BIG_RED_SWITCH_MODE`` enable), and makes syncd's storms be ignored; disable commits them as
  restored and ends them. Deleting GLOBAL changes nothing (the switch stays as it is).
* ``PORT_QOS_MAP`` DEL leaves the port's watchdog bitmask as it was (qosorch clears only PFC), so
  ``PFC_WD`` on that port still watches those queues; a SET always sets it (absent: none).
* syncd detects storms (``syncd_sim.pfcwd``) and publishes ``["<queue oid>","storm"|"restore"]`` on
  COUNTERS_DB ``PFC_WD_ACTION``: a storm starts the queue's action (``pfcwd_action``), sets
  ``PFC_WD_STATUS`` stormed, counts ``PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED`` and records APPL_DB
  ``PFC_WD_TABLE_INSTORM|<port>`` ``{"<index>": "storm"}``; a restore ends it (``..._RESTORED``, the
  TX/RX counters and their ``_LAST``, the INSTORM field removed). Every second the counters of stormed
  queues are brought up to date (SONiC's ``PFC_WD_COUNTERS_POLL``).
* APPL_DB ``PFC_WD_TABLE|<port>`` ``{"<index>": "storm"}`` (warm-reboot replay, plain hashes): a storm
  is started on that queue at once. Bad rows are refused and reported; nothing stops the orch.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import NotificationConsumer, Table
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import parse_list
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, COUNTERS_DB, FLEX_COUNTER_DB
from nos.schema.tables import (
    APP_PFC_WD_INSTORM_TABLE_NAME,
    APP_PFC_WD_TABLE_NAME,
    CFG_PFC_WD_TABLE_NAME,
    CFG_PORT_QOS_MAP_TABLE_NAME,
    COUNTERS_TABLE,
    FLEX_COUNTER_GROUP_TABLE,
    FLEX_COUNTER_TABLE,
    PFC_WD_ACTION_CHANNEL,
)
from orchagent.core.deps import OrchDeps
from orchagent.core.l3 import InvalidEntry
from orchagent.core.registry import Kind
from orchagent.orchs import pfcwd_rows as rows
from orchagent.orchs.pfcwd_action import Actions, Handler

log = logging.getLogger(__name__)

GLOBAL_KEY = "GLOBAL"
GROUP = "PFC_WD"
DEFAULT_POLL_MS = 100        # PFC_WD_POLL_MSECS
COMMIT_INTERVAL_S = 1.0      # COUNTER_CHECK_POLL_TIMEOUT_SEC
STORM = "storm"
CONSUMES = ((COUNTERS_DB, PFC_WD_ACTION_CHANNEL),)


@dataclass
class Entry:
    """A watched queue (SONiC's PfcWdQueueEntry)."""

    port: str          # port name
    port_oid: str
    index: int
    action: str


class PfcWdOrch:
    CONSUMES = ((CONFIG_DB, CFG_PFC_WD_TABLE_NAME), (CONFIG_DB, CFG_PORT_QOS_MAP_TABLE_NAME),
                (APPL_DB, APP_PFC_WD_TABLE_NAME))
    SUBSCRIBED = ((APPL_DB, APP_PFC_WD_TABLE_NAME),)   # plain hashes (SubscriberStateTable, as SONiC)
    PRODUCES = ((COUNTERS_DB, COUNTERS_TABLE), (FLEX_COUNTER_DB, FLEX_COUNTER_TABLE),
                (FLEX_COUNTER_DB, FLEX_COUNTER_GROUP_TABLE), (APPL_DB, APP_PFC_WD_INSTORM_TABLE_NAME))

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.actions = Actions(deps.sai)
        self.masks: dict[str, rows.QosMasks] = {}
        self.configs: dict[str, rows.WdConfig] = {}
        self.entries: dict[str, Entry] = {}
        self.handlers: dict[str, Handler] = {}
        self.brs_handlers: dict[str, Handler] = {}
        self.brs_on = False                         # m_bigRedSwitchFlag
        self.queues: dict[str, list[str]] = {}     # port oid -> queue oids (a SAI get, once)
        self.pgs: dict[str, list[str]] = {}
        self.counters = Table(deps.dbs[COUNTERS_DB], COUNTERS_TABLE)
        self.flex = Table(deps.dbs[FLEX_COUNTER_DB], FLEX_COUNTER_TABLE)
        self.flex_groups = Table(deps.dbs[FLEX_COUNTER_DB], FLEX_COUNTER_GROUP_TABLE)
        self.instorm = Table(deps.dbs[APPL_DB], APP_PFC_WD_INSTORM_TABLE_NAME)
        self.notes: NotificationConsumer | None = None
        self.flex_groups.set(GROUP, {"POLL_INTERVAL": str(DEFAULT_POLL_MS), "STATS_MODE": "STATS_MODE_READ"})

    def register(self, runner: Runner) -> None:
        """syncd's storm/restore notifications, and the periodic counter commit."""
        self.notes = NotificationConsumer(self.deps.dbs[COUNTERS_DB], PFC_WD_ACTION_CHANNEL)
        runner.add_selectable(self.notes, self.on_actions)
        runner.add_timer("pfcwd_counters", COMMIT_INTERVAL_S, self.commit_all)

    # -- tasks -----------------------------------------------------------------------------------
    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        if not self.deps.registry.of_kind(Kind.PORT):
            return Result.retry("ports are not ready")
        if table == CFG_PORT_QOS_MAP_TABLE_NAME:
            return self._qos(task)
        if table == APP_PFC_WD_TABLE_NAME:
            return self._replay(task) if task.is_set else Result.ignored()
        if task.key == GLOBAL_KEY:
            return self._global(task)
        return self._stop(task.key) if task.is_del else self._start(task.key, task.fields)

    def _port_oid(self, name: str) -> str | None:
        entry = self.deps.registry.get(name)
        return entry.oid if entry is not None and entry.kind is Kind.PORT else None

    def _qos(self, task: KeyOpFieldsValues) -> Result:
        if task.key == "global":
            return Result.ignored()
        try:
            parsed = rows.parse_qos_row(task.fields) if task.is_set else None
        except InvalidEntry as exc:
            return Result.invalid(str(exc))
        for port in task.key.split(","):
            old = self.masks.get(port, rows.QosMasks())
            # qosorch's DEL clears PFC but leaves the watchdog bitmask as it was (a SET saves it always)
            masks = parsed if parsed is not None else rows.QosMasks(0, old.watch)
            self.masks[port] = masks
            cfg = self.configs.get(port)
            if cfg is not None and old.watch != masks.watch:  # the watched priorities changed: re-register
                self._stop(port)
                self._start_config(port, cfg)
        return Result.success()

    def _start(self, port: str, fields: dict[str, str]) -> Result:
        if self._port_oid(port) is None:
            return Result.invalid(f"{port} is not a physical port")
        try:
            cfg = rows.parse_port_row(fields)
        except InvalidEntry as exc:
            return Result.invalid(str(exc))
        if port in self.configs:
            self._stop(port)
        return self._start_config(port, cfg)

    def _start_config(self, port: str, cfg: rows.WdConfig) -> Result:
        port_oid = self._port_oid(port)
        mask = self.masks.get(port, rows.QosMasks()).watch
        if port_oid is None:
            return Result.invalid(f"{port} is not a physical port")
        if not mask:
            return Result.retry(f"no lossless priority on {port} (PORT_QOS_MAP pfcwd_sw_enable)")
        queues = self._queues(port_oid)
        self.configs[port] = cfg
        self.flex.set(f"{GROUP}:{port_oid}", {"PORT_COUNTER_ID_LIST": rows.port_counter_ids(mask)})
        for index in rows.priorities_of(mask):
            if index >= len(queues):
                continue
            queue = queues[index]
            self.entries[queue] = Entry(port, port_oid, index, cfg.action)
            self.counters.set(queue, rows.queue_fields(cfg))
            self.flex.set(f"{GROUP}:{queue}", {"QUEUE_COUNTER_ID_LIST": rows.QUEUE_COUNTER_IDS})
            self.counters.set(queue, rows.WdStats.from_fields(self.counters.get(queue) or {}).registered())
        log.info("orch.pfcwd.started port=%s action=%s detection_ms=%d priorities=%s", port, cfg.action,
                 cfg.detection_ms, rows.priorities_of(mask))
        return Result.success()

    def _stop(self, port: str) -> Result:
        cfg = self.configs.pop(port, None)
        port_oid = self._port_oid(port)
        if cfg is None or port_oid is None:
            return Result.ignored(f"the watchdog is not running on {port}")
        self.flex.delete(f"{GROUP}:{port_oid}")
        for queue, entry in list(self.entries.items()):
            if entry.port != port:
                continue
            self.flex.delete(f"{GROUP}:{queue}")
            handler = self.handlers.pop(queue, None)
            if handler is not None:
                self._end(handler, periodic=False)
            del self.entries[queue]
            self.counters.hdel(queue, *rows.UNREGISTER_FIELDS)
        log.info("orch.pfcwd.stopped port=%s", port)
        return Result.success()

    def _global(self, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            return Result.ignored("PfcWdOrch keeps the last global settings")
        cfg, problems = rows.parse_global(task.fields)
        if cfg.poll_interval_ms is not None:
            self.flex_groups.set(GROUP, {"POLL_INTERVAL": str(cfg.poll_interval_ms)})
        if cfg.big_red_switch is True:
            self._brs_enable()
        elif cfg.big_red_switch is False:
            self._brs_disable()
        return Result.invalid("; ".join(problems)) if problems else Result.success()

    def _replay(self, task: KeyOpFieldsValues) -> Result:
        """APPL_DB PFC_WD_TABLE: storms that were in progress before a restart."""
        port_oid = self._port_oid(task.key)
        if port_oid is None:
            return Result.invalid(f"{task.key} is not a physical port")
        queues = self._queues(port_oid)
        problems = []
        for index, status in task.fvs:
            if not index.isdecimal() or int(index) >= len(queues):
                problems.append(f"{index!r}: not a queue index of {task.key}")
            elif status != STORM:
                problems.append(f"queue {index}: {status!r} is not {STORM}")
            elif queues[int(index)] not in self.entries:
                problems.append(f"queue {index}: the watchdog does not watch it")
            else:
                self._storm(queues[int(index)])
        return Result.invalid("; ".join(problems)) if problems else Result.success()

    # -- storms ----------------------------------------------------------------------------------
    def on_actions(self) -> None:
        assert self.notes is not None
        for note in self.notes.pops():
            queue, event = note.op, note.data
            if queue not in self.entries:
                log.warning("orch.pfcwd.unregistered queue=%s event=%s", queue, event)
            elif self.brs_on:
                log.info("orch.pfcwd.ignored_in_big_red_switch queue=%s event=%s", queue, event)
            elif event == STORM:
                self._storm(queue)
            elif event == "restore":
                self._restore(queue)
            else:
                log.warning("orch.pfcwd.unknown_event queue=%s event=%s", queue, event)

    def _storm(self, queue: str) -> None:
        entry = self.entries[queue]
        if queue in self.handlers:
            return
        handler = Handler(queue, entry.port_oid, entry.index, entry.action, self._hw_stats(queue, entry))
        self.handlers[queue] = handler
        self.counters.set(queue, rows.on_storm(rows.WdStats.from_fields(self.counters.get(queue) or {})).to_fields())
        self.actions.start(handler)
        self.instorm.set(entry.port, {str(entry.index): STORM})
        log.warning("orch.pfcwd.storm port=%s queue_index=%d action=%s", entry.port, entry.index, entry.action)

    def _restore(self, queue: str) -> None:
        handler = self.handlers.pop(queue, None)
        if handler is None:
            return
        self._end(handler, periodic=False)
        entry = self.entries[queue]
        log.warning("orch.pfcwd.restored port=%s queue_index=%d", entry.port, entry.index)

    def _end(self, handler: Handler, periodic: bool) -> None:
        self._commit(handler, periodic)
        if not periodic:
            self.actions.end(handler)
            entry = self.entries.get(handler.queue)
            if entry is not None:
                self.instorm.hdel(entry.port, str(entry.index))

    def _commit(self, handler: Handler, periodic: bool) -> None:
        entry = self.entries.get(handler.queue) or Entry("", handler.port, handler.index, handler.action)
        now = self._hw_stats(handler.queue, entry)
        stats = rows.WdStats.from_fields(self.counters.get(handler.queue) or {})
        self.counters.set(handler.queue, rows.on_commit(stats, handler.base, now, periodic).to_fields())
        handler.base = now

    def commit_all(self) -> None:
        for handler in list(self.handlers.values()) + list(self.brs_handlers.values()):
            self._commit(handler, periodic=True)

    def _hw_stats(self, queue: str, entry: Entry) -> rows.HwStats:
        q = self.counters.get(queue) or {}
        pgs = self._pgs(entry.port_oid)
        pg = (self.counters.get(pgs[entry.index]) or {}) if entry.index < len(pgs) else {}

        def num(values: dict[str, str], name: str) -> int:
            text = values.get(name, "0")
            return int(text) if text.isdecimal() else 0
        return rows.HwStats(num(q, "SAI_QUEUE_STAT_PACKETS"), num(q, "SAI_QUEUE_STAT_DROPPED_PACKETS"),
                            num(pg, "SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS"),
                            num(pg, "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"))

    # -- big red switch --------------------------------------------------------------------------
    def _brs_enable(self) -> None:
        """PfcWdSwOrch::enableBigRedSwitchMode: every queue of the watchdog bitmask (``pfcwd_sw_enable``)
        of every port drops, as in a storm (counted, status stormed, ``BIG_RED_SWITCH_MODE`` enable);
        storms in progress end first (counted as restored); syncd's storms are ignored meanwhile."""
        self.brs_on = True
        watched = [(port, self.masks.get(port.name, rows.QosMasks()).watch)
                   for port in self.deps.registry.of_kind(Kind.PORT)]
        for port, mask in watched:
            queues = self._queues(port.oid) if mask else []
            for index in rows.priorities_of(mask):
                if index < len(queues):
                    self.counters.set(queues[index], {"BIG_RED_SWITCH_MODE": "enable"})
        for queue, handler in list(self.handlers.items()):
            self._commit(handler, periodic=False)
            self.actions.end(handler)
            del self.handlers[queue]
        for port, mask in watched:
            queues = self._queues(port.oid) if mask else []
            for index in rows.priorities_of(mask):
                if index >= len(queues) or queues[index] in self.brs_handlers:
                    continue
                queue = queues[index]
                entry = Entry(port.name, port.oid, index, "drop")
                handler = Handler(queue, port.oid, index, "drop", self._hw_stats(queue, entry))
                self.brs_handlers[queue] = handler
                stats = rows.WdStats.from_fields(self.counters.get(queue) or {})
                self.counters.set(queue, rows.on_storm(stats).to_fields())
                self.actions.start(handler)
        log.warning("orch.pfcwd.big_red_switch enabled queues=%d", len(self.brs_handlers))

    def _brs_disable(self) -> None:
        """disableBigRedSwitchMode: each dropped queue's counters are committed as a restoration and
        the queue is given back; ``BIG_RED_SWITCH_MODE`` goes."""
        self.brs_on = False
        for queue, handler in self.brs_handlers.items():
            self._commit(handler, periodic=False)
            self.actions.end(handler)
            self.counters.hdel(queue, "BIG_RED_SWITCH_MODE")
        if self.brs_handlers:
            log.warning("orch.pfcwd.big_red_switch disabled queues=%d", len(self.brs_handlers))
        self.brs_handlers.clear()

    # -- the port's queues and PGs (read from the ASIC once) ----------------------------------------
    def _queues(self, port_oid: str) -> list[str]:
        if port_oid not in self.queues:
            self._read_lists(port_oid)
        return self.queues.get(port_oid, [])

    def _pgs(self, port_oid: str) -> list[str]:
        if port_oid not in self.pgs:
            self._read_lists(port_oid)
        return self.pgs.get(port_oid, [])

    def _read_lists(self, port_oid: str) -> None:
        q_attr, pg_attr = "SAI_PORT_ATTR_QOS_QUEUE_LIST", "SAI_PORT_ATTR_INGRESS_PRIORITY_GROUP_LIST"
        result = self.deps.sai.apply([SaiOp.get(T.PORT, port_oid, q_attr, pg_attr)])
        if result.ok:
            self.queues[port_oid] = parse_list(result.values[0][q_attr])
            self.pgs[port_oid] = parse_list(result.values[0][pg_attr])


ORCH = PfcWdOrch
PRIORITY = 90
