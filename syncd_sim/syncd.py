"""The syncd shell: consume ASIC_STATE requests, apply them to the object store, persist the
``ASIC_STATE:*`` hashes, answer every request on GETRESPONSE, send notifications.

It also stands in for the kernel and the netlink half of portsyncd: creating a port's NETDEV host
interface makes the netdev appear in STATE_DB ``PORT_TABLE|<name>`` (state ok), and the host
interface's oper status is its ``netdev_oper_status``. The netdev's admin state and MTU are what
portmgrd gives the kernel, the port's (``ip link set``; linksync.cpp writes ``admin_status`` and ``mtu``
with every netlink message): here they follow the port's SAI admin state and MTU.

Restarts (STYLE.md 10):
* A batch is done whole or not at all: the pop copies it into an in-flight list and one script writes its
  ASIC_STATE changes, its answers and the end of that list (``syncd_sim.persist``). A restarted syncd_sim
  rebuilds its store from ASIC_STATE (``syncd_sim.restore``), does the unfinished batch again, and says
  again what the kernel and the ports' link state are (netdevs in STATE_DB, ``port_state_change``).
* Every answer carries the number of its request in the client's session (``nos.sai.session``), kept in
  ``NOS_SYNCD_STATE`` with each batch, so a restarted syncd_sim goes on numbering where it stopped.
* Link carrier (``syncd_sim.links``): STATE_DB ``NOS_LINK_TABLE|<port>`` rows, written by a lab, are
  followed through keyspace events (a ``SubscriberStateTable``: every row at start, then changes). A
  port's oper status is admin up and carrier up; a change sends ``port_state_change`` as an admin
  change does, and the compiled tables are stale. The rows are also read before a restart restores
  the store, so that the links said again at start are the current ones.
* INIT_VIEW on a running ASIC (a restarted orchagent) starts a temporary view: the requests build it
  while the current view goes on forwarding (and learning); APPLY_VIEW makes it the ASIC's, keeping
  what both views have (``syncd_sim.view``) and writing only the difference to ASIC_STATE. A syncd_sim
  restarted during a temporary view has lost it, and answers that session's requests ``lost`` (the
  client starts over). INIT_VIEW on an empty ASIC (a cold boot) needs no temporary view.
"""

from __future__ import annotations

import gc
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import NotificationProducer, SubscriberStateTable, Table
from nos.db.connector import Databases
from nos.db.keyops import FieldValues, KeyOpFieldsValues
from nos.db.producer_state import channel_name
from nos.db.queue_table import ConsumerTable, QueuedOp, queue_name
from nos.sai import status as st
from nos.sai.keys import ASIC_STATE_PREFIX, split_object_key
from nos.sai.session import LOST, SESSION_ATTR, tag
from nos.sai.types import ObjectType as T
from nos.sai.types import make_oid
from nos.schema.dbconfig import ASIC_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    ASIC_GETRESPONSE_TABLE,
    ASIC_NOTIFICATIONS_CHANNEL,
    ASIC_STATE_TABLE,
    CFG_DEVICE_METADATA_TABLE_NAME,
    NOS_LINK_TABLE,
    STATE_PORT_TABLE_NAME,
)
from syncd_sim import view as views
from syncd_sim.behaviours import AsicBehaviour, Inherited
from syncd_sim.counters import CounterWriter
from syncd_sim.errors import BadLinkRow
from syncd_sim.fastpath_shell import FastPathShell
from syncd_sim.links import Carriers, parse_carrier
from syncd_sim.objects import Change, ObjectStore, Outcome
from syncd_sim.persist import COMMIT, commit_calls
from syncd_sim.platform import load_platform
from syncd_sim.protocol import APPLY_VIEW, BULK_OPS, INIT_VIEW, NOTIFY_SYNCD_ATTR, Request, decode, split_bulk_attrs
from syncd_sim.restore import restore

log = logging.getLogger(__name__)

CONSUMES = ((ASIC_DB, ASIC_STATE_TABLE), (CONFIG_DB, CFG_DEVICE_METADATA_TABLE_NAME), (STATE_DB, NOS_LINK_TABLE))
PRODUCES = ((ASIC_DB, ASIC_STATE_TABLE), (ASIC_DB, ASIC_GETRESPONSE_TABLE), (ASIC_DB, ASIC_NOTIFICATIONS_CHANNEL),
            (ASIC_DB, "VIDCOUNTER"), (STATE_DB, STATE_PORT_TABLE_NAME))
VIDCOUNTER = "VIDCOUNTER"
STATE_HASH = "NOS_SYNCD_STATE"  # ours: ids of the built-in objects, the client's session, the view in progress
INFLIGHT = "NOS_SYNCD_INFLIGHT"  # ours: the batch being worked on (found again after a kill)
FREEZE_EVERY = 4096  # objects added between gc.freeze() calls
COUNTS_HASH = "NOS_SYNCD_OBJECT_COUNTS"  # ours: objects per type, cheap to poll (benchmarks, readiness)
TEMP = "temp"  # NOS_SYNCD_STATE view: a temporary view was being built
BUILTINS = ("switch", "cpu_port", "default_vr", "default_vlan", "default_bridge")  # NOS_SYNCD_STATE fields


@dataclass
class Batch:
    """What one pop produced: ASIC_STATE writes, responses in order, side effects."""

    changes: list[Change] = field(default_factory=list)
    responses: list[tuple[str, str, FieldValues]] = field(default_factory=list)
    netdevs: list[tuple[str, dict[str, str] | None]] = field(default_factory=list)
    state: dict[str, str] = field(default_factory=dict)  # NOS_SYNCD_STATE fields to write with it


@dataclass
class View:
    """An object store with its behaviour and the netdevs of its host interfaces."""

    store: ObjectStore
    behaviour: AsicBehaviour
    hostif_names: dict[str, str] = field(default_factory=dict)
    persisted: bool = True  # the ASIC's view; a temporary one is not written to ASIC_STATE


class Syncd:
    def __init__(self, dbs: Databases) -> None:
        self.dbs = dbs
        self.asic = dbs[ASIC_DB]
        self.requests = ConsumerTable(self.asic, ASIC_STATE_TABLE, pop_batch_size=256, inflight=INFLIGHT)
        self._answer_keys = [INFLIGHT, queue_name(ASIC_GETRESPONSE_TABLE),
                             channel_name(ASIC_GETRESPONSE_TABLE, self.asic.id)]
        self.notifications = NotificationProducer(self.asic, ASIC_NOTIFICATIONS_CHANNEL)
        self.state_ports = Table(dbs[STATE_DB], STATE_PORT_TABLE_NAME)
        self.platform = load_platform(self._hwsku())
        self.carriers = Carriers()  # the lab's carrier rows, shared by every view
        self.live = self._new_view()
        self.temp: View | None = None
        self.session = ""
        self.seq = 0
        self.lost = False  # the session's temporary view was lost in a restart
        self.counters = CounterWriter(dbs, lambda: self.live.store)  # COUNTERS_DB, polled on the runner's timer
        self.fastpath = FastPathShell(dbs, lambda: self.live.store, self.counters,  # compiled tables, traces, traffic
                                      self.asic_changed)
        self._commit = self.asic.script("syncd_commit", COMMIT)
        self._frozen = 0  # objects in the store when the heap was last frozen (see on_ready)
        self._read_carriers()
        self._restore()
        self._run(self.requests.recover())  # the batch a killed predecessor had not finished

    def _new_view(self, inherited: Inherited | None = None) -> View:
        behaviour = AsicBehaviour(self.platform, inherited=inherited, carriers=self.carriers)
        return View(ObjectStore(self.alloc, behaviour), behaviour, persisted=inherited is None)

    # the ASIC's view, by the names the rest of the daemon (and tests) know it by
    @property
    def store(self) -> ObjectStore:
        return self.live.store

    @property
    def behaviour(self) -> AsicBehaviour:
        return self.live.behaviour

    @property
    def hostif_names(self) -> dict[str, str]:
        return self.live.hostif_names

    @property
    def view(self) -> View:
        """Where requests apply: the temporary view while one is built, else the ASIC's."""
        return self.temp if self.temp is not None else self.live

    def _restore(self) -> None:
        """A restarted syncd: rebuild the store from ASIC_STATE (nothing there on a fresh switch), say
        again what the netdevs and the links are, and go on with the client's session."""
        state: dict[str, str] = self.asic.client.hgetall(STATE_HASH)  # type: ignore[assignment]
        self.session, self.seq = state.get("session", ""), int(state.get("seq", "0") or 0)
        self.lost = state.get("view") == TEMP
        if not state.get("switch"):
            return
        names = list(self.asic.client.scan_iter(ASIC_STATE_PREFIX + "*", count=1000))
        pipe = self.asic.client.pipeline(transaction=False)
        for name in names:
            pipe.hgetall(name)
        rows = {name[len(ASIC_STATE_PREFIX):]: fields for name, fields in zip(names, pipe.execute(), strict=True)}
        builtins = {name: state[name] for name in BUILTINS if name in state}
        self.live.hostif_names.update(restore(self.live.store, self.live.behaviour, rows, builtins))
        for oid, name in self.live.hostif_names.items():
            hostif = self.live.store.find(T.HOSTIF, oid)
            up = hostif is not None and hostif.attrs.get("SAI_HOSTIF_ATTR_OPER_STATUS") == "true"
            port = self.live.store.find(T.PORT, hostif.attrs.get("SAI_HOSTIF_ATTR_OBJ_ID", "")) if hostif else None
            link = netdev_link(port.attrs) if port is not None else {}
            self.state_ports.set(name, {"state": "ok", **link, "netdev_oper_status": "up" if up else "down"})
        self.live.behaviour.oper_changes = sorted(self.live.behaviour.oper.items())
        self._notify_oper_changes()
        log.info("syncd.restored objects=%d session=%s seq=%d lost_view=%s", len(self.live.store.objects),
                 self.session, self.seq, self.lost)

    def _read_carriers(self) -> None:
        """The carrier rows there are now (a bad one is left to the subscriber, which reports it)."""
        for name, fields in Table(self.dbs[STATE_DB], NOS_LINK_TABLE).get_all().items():
            try:
                self.carriers.update(name, parse_carrier(name, fields))
            except BadLinkRow:
                continue

    def on_link_row(self, task: KeyOpFieldsValues) -> Result:
        """A ``NOS_LINK_TABLE`` row was set or deleted (deleted: carrier up): the oper status of the
        port so named follows, in every view, and is notified; a bad row changes nothing."""
        try:
            up = True if task.is_del else parse_carrier(task.key, dict(task.fvs))
        except BadLinkRow as exc:
            return Result.invalid(str(exc))
        if not self.carriers.update(task.key, up):
            return Result.ignored("carrier unchanged")
        views_ = [self.live] if self.temp is None else [self.live, self.temp]
        changed = [v.behaviour.carrier_changed(v.store, task.key) for v in views_]
        log.info("syncd.link.carrier port=%s carrier=%s oper_changed=%s", task.key, "up" if up else "down",
                 any(changed))
        if changed[0]:
            self.fastpath.changed()  # the ASIC's tables hold the ports' oper status
        self._notify_oper_changes()
        return Result.success()

    def _hwsku(self) -> str | None:
        row = Table(self.dbs[CONFIG_DB], CFG_DEVICE_METADATA_TABLE_NAME).get("localhost") or {}
        return row.get("hwsku")

    def alloc(self, object_type: T, count: int) -> list[str]:
        last = int(self.asic.client.incrby(VIDCOUNTER, count))
        return [make_oid(object_type, index) for index in range(last - count + 1, last + 1)]

    def register(self, runner: Runner) -> None:
        """Wire the daemon: the ASIC_STATE request queue, and the counter writer's inputs and timer."""
        runner.add_selectable(self.requests, self.on_ready)
        links = SubscriberStateTable(self.dbs[STATE_DB], NOS_LINK_TABLE)
        runner.add_consumer(TableConsumer(STATE_DB, NOS_LINK_TABLE, links, self.on_link_row))
        self.counters.register(runner)
        self.fastpath.register(runner)

    # -- the loop body ---------------------------------------------------------------------------
    def on_ready(self) -> None:
        self._run(self.requests.pops())

    def _run(self, queued: list[QueuedOp]) -> None:
        if not queued:
            return
        batch = Batch()
        for request in queued:
            status, op, fvs = self._lost(request) if self.lost else self._answer(request, batch)
            self.seq += 1  # a session's own notify set it to -1: it is request 0
            batch.responses.append((status, op, (*fvs, tag(self.session, LOST if self.lost else self.seq))))
        batch.state.update(session=self.session, seq=str(self.seq))
        self._flush(batch)
        if batch.changes:
            self.counters.objects_changed()
            self.fastpath.changed()
        if len(self.live.store.objects) - self._frozen >= FREEZE_EVERY:
            # The object store is long-lived and free of cycles: keep it out of every full cyclic-GC
            # pass (they took 100+ ms at 100k routes and stalled the request stream).
            gc.freeze()
            self._frozen = len(self.live.store.objects)

    def _lost(self, queued: QueuedOp) -> tuple[str, str, FieldValues]:
        """A request of a session whose temporary view was lost: not done (a new session may begin)."""
        if queued.op == "notify" and any(f == SESSION_ATTR for f, _ in queued.fvs):
            return self._answer(queued, Batch())
        return (st.FAILURE, "getresponse", (("reason", "syncd_sim restarted and lost this session's view"),))

    def _answer(self, queued: QueuedOp, batch: Batch) -> tuple[str, str, FieldValues]:
        if queued.error:
            log.warning("syncd.request.unreadable key=%s op=%s error=%s", queued.key[:120], queued.op, queued.error)
            return (st.INVALID_PARAMETER, "getresponse", (("reason", queued.error),))
        try:
            request = decode(queued.key, queued.op, queued.fvs)
        except ValueError as exc:
            log.warning("syncd.request.malformed key=%s op=%s error=%s", queued.key[:120], queued.op, exc)
            return (st.INVALID_PARAMETER, "getresponse", (("reason", str(exc)),))
        handler: Handler | None = _HANDLERS.get(request.op)
        if handler is None:
            return (st.NOT_IMPLEMENTED, "getresponse", (("reason", f"operation {request.op} is not implemented"),))
        return handler(self, request, batch)

    def _single(self, outcome: Outcome, request: Request, batch: Batch) -> tuple[str, str, FieldValues]:
        if not outcome.ok:
            log.warning("syncd.refused op=%s key=%s:%s status=%s reason=%s", request.op,
                        request.object_type.sai_name, request.object_id[:120], outcome.status, outcome.reason)
            return (outcome.status, "getresponse", (("reason", outcome.reason),))
        if self.view.persisted:
            batch.changes += outcome.changes
        self._side_effects(request, batch)
        return (outcome.status, "getresponse", tuple(outcome.values.items()))

    def _side_effects(self, request: Request, batch: Batch) -> None:
        if request.object_type is T.HOSTIF:
            self._netdev(request, batch)
        elif request.object_type is T.PORT and request.op == "remove":
            self.view.behaviour.forget_port(request.object_id)
        elif request.object_type is T.PORT and request.op == "set":
            link = netdev_link(dict(request.fvs))
            if link:
                batch.netdevs += [(name, link) for name in self._netdevs_of(request.object_id)]

    def _netdevs_of(self, port_oid: str) -> list[str]:
        found = []
        for oid, name in self.view.hostif_names.items():
            hostif = self.view.store.find(T.HOSTIF, oid)
            if hostif is not None and hostif.attrs.get("SAI_HOSTIF_ATTR_OBJ_ID") == port_oid:
                found.append(name)
        return found

    def _netdev(self, request: Request, batch: Batch) -> None:
        """The simulated kernel: NETDEV host interfaces are the ports' netdevs in STATE_DB."""
        fields = dict(request.fvs)
        names = self.view.hostif_names
        if request.op == "create" and fields.get("SAI_HOSTIF_ATTR_TYPE") == "SAI_HOSTIF_TYPE_NETDEV":
            name = fields.get("SAI_HOSTIF_ATTR_NAME", "")
            names[request.object_id] = name
            up = fields.get("SAI_HOSTIF_ATTR_OPER_STATUS") == "true"
            port = self.view.store.find(T.PORT, fields.get("SAI_HOSTIF_ATTR_OBJ_ID", ""))
            link = netdev_link(port.attrs) if port is not None else {}
            batch.netdevs.append((name, {"state": "ok", **link, "netdev_oper_status": "up" if up else "down"}))
        elif request.op == "set" and "SAI_HOSTIF_ATTR_OPER_STATUS" in fields:
            known = names.get(request.object_id)
            if known:
                up = fields["SAI_HOSTIF_ATTR_OPER_STATUS"] == "true"
                batch.netdevs.append((known, {"netdev_oper_status": "up" if up else "down"}))
        elif request.op == "remove":
            gone = names.pop(request.object_id, "")
            if gone:
                batch.netdevs.append((gone, None))

    # -- persisting -------------------------------------------------------------------------------
    def _flush(self, batch: Batch) -> None:
        changes = batch.changes
        if changes or batch.state:
            counts = {kind.sai_name: str(len(objs)) for kind, objs in self.live.store.by_type.items()}
            changes = [*changes, Change(COUNTS_HASH, counts)] if changes else changes
            if batch.state:
                changes = [*changes, Change(STATE_HASH, batch.state)]
        if changes or batch.responses:
            for args in commit_calls(changes, batch.responses):
                self._commit(keys=self._answer_keys, args=args)
        for name, fields in batch.netdevs:
            if fields is None:
                self.state_ports.delete(name)
            else:
                self.state_ports.set(name, fields)
        self._notify_oper_changes()

    def asic_changed(self, changes: list[Change], notes: list[tuple[str, str]]) -> None:
        """The ASIC changed its own state (learnt MACs): persist like a batch's changes, then notify,
        as syncd writes a learnt entry into ASIC_STATE before it sends ``fdb_event``."""
        self._flush(Batch(changes=changes))
        for op, data in notes:
            self.notifications.send(op, data)

    def _notify_oper_changes(self) -> None:
        views_ = [self.live] if self.temp is None else [self.live, self.temp]
        for current in views_:
            changes, current.behaviour.oper_changes = current.behaviour.oper_changes, []
            for port, status in changes:
                data = json.dumps([{"port_id": port, "port_state": status, "port_error_status": "0"}],
                                  separators=(",", ":"))
                self.notifications.send("port_state_change", data)

    # -- views -----------------------------------------------------------------------------------
    def init_view(self, batch: Batch) -> None:
        """INIT_VIEW: build a temporary view beside a running ASIC (none needed on an empty one)."""
        self.temp = None
        if not self.live.store.objects:
            return
        self.temp = self._new_view(Inherited.of(self.live.store, self.live.behaviour.defaults))
        batch.state["view"] = TEMP
        log.info("syncd.view.init objects=%d (the current view keeps forwarding)", len(self.live.store.objects))

    def apply_view(self, batch: Batch) -> None:
        """APPLY_VIEW: the temporary view becomes the ASIC's; ASIC_STATE gets only the difference."""
        batch.state["view"] = ""
        if self.temp is None:
            return
        old, new = self.live, self.temp
        started = time.perf_counter()
        comparison = views.compare(old.store, new.store)
        for entry in views.learnt_entries(old.store, new.store, comparison.matched):
            new.store.create(entry.object_type, entry.object_id, list(entry.attrs.items()))
        batch.changes += views.changes(old.store, new.store)
        for name in set(old.hostif_names.values()) - set(new.hostif_names.values()):
            batch.netdevs.append((name, None))
        new.behaviour.inherited = None
        new.persisted = True
        self.live, self.temp = new, None
        self.counters.rename(comparison.renamed)
        kept = len(comparison.matched)
        log.info("syncd.view.apply objects=%d kept=%d new=%d removed=%d writes=%d compare_ms=%.0f",
                 len(new.store.objects),
                 kept, len(new.store.objects) - kept, len(old.store.objects) - kept, len(batch.changes),
                 (time.perf_counter() - started) * 1000)

# -- request handlers ------------------------------------------------------------------------------

def _create(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    outcome = s.view.store.create(r.object_type, r.object_id, r.fvs)
    if outcome.ok and r.object_type is T.SWITCH:
        d = s.view.behaviour.defaults
        b.state.update(switch=d.switch, cpu_port=d.cpu_port, default_vr=d.default_vr, default_vlan=d.default_vlan,
                       default_bridge=d.default_bridge)
    return s._single(outcome, r, b)


def _set(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    if len(r.fvs) != 1:
        return (st.INVALID_PARAMETER, "getresponse", (("reason", "set takes exactly one attribute"),))
    attr, value = r.fvs[0]
    return s._single(s.view.store.set(r.object_type, r.object_id, attr, value), r, b)


MTU_OVERHEAD = 22  # SAI port MTU = netdev MTU + Ethernet header, FCS and one VLAN tag


def netdev_link(port_attrs: dict[str, str]) -> dict[str, str]:
    """The netdev's STATE_DB ``admin_status`` / ``mtu`` for these port attributes (those present)."""
    out = {}
    if "SAI_PORT_ATTR_ADMIN_STATE" in port_attrs:
        out["admin_status"] = "up" if port_attrs["SAI_PORT_ATTR_ADMIN_STATE"] == "true" else "down"
    if port_attrs.get("SAI_PORT_ATTR_MTU", "").isdigit():
        out["mtu"] = str(int(port_attrs["SAI_PORT_ATTR_MTU"]) - MTU_OVERHEAD)
    return out


def _remove(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    return s._single(s.view.store.remove(r.object_type, r.object_id), r, b)


def _get(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    return s._single(s.view.store.get(r.object_type, r.object_id, [name for name, _ in r.fvs]), r, b)


def _bulk(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    op = r.op.removeprefix("bulk")
    direct = r.object_type in _NO_SIDE_EFFECTS and op in _STORE_OPS  # the hot path: routes, next hops
    statuses = []
    for object_id, joined in r.fvs:
        try:
            attrs = split_bulk_attrs(joined)
        except ValueError as exc:
            statuses.append((st.INVALID_PARAMETER, str(exc)))
            continue
        if direct:
            outcome = _STORE_OPS[op](s.view.store, r.object_type, object_id, attrs)
            if outcome.ok:
                if s.view.persisted:
                    b.changes += outcome.changes
            else:
                log.warning("syncd.refused op=%s key=%s:%s status=%s reason=%s", r.op, r.object_type.sai_name,
                            object_id[:120], outcome.status, outcome.reason)
            statuses.append((outcome.status, outcome.reason))
            continue
        sub = Request(op, r.object_type, object_id, tuple(attrs))
        status, _, fvs = _HANDLERS[sub.op](s, sub, b)
        statuses.append((status, dict(fvs).get("reason", "")))
    overall = st.SUCCESS if all(code == st.SUCCESS for code, _ in statuses) else st.FAILURE
    return (overall, "getresponse", tuple((code, reason) for code, reason in statuses))


def _store_set(store: ObjectStore, object_type: T, object_id: str, attrs: list[tuple[str, str]]) -> Outcome:
    if len(attrs) != 1:
        return Outcome(st.INVALID_PARAMETER, "set takes exactly one attribute")
    return store.set(object_type, object_id, *attrs[0])


StoreOp = Callable[[ObjectStore, T, str, list[tuple[str, str]]], Outcome]
_STORE_OPS: dict[str, StoreOp] = {
    "create": lambda store, kind, oid, attrs: store.create(kind, oid, attrs),
    "remove": lambda store, kind, oid, attrs: store.remove(kind, oid),
    "set": _store_set,
}
_NO_SIDE_EFFECTS = frozenset(T) - {T.SWITCH, T.HOSTIF, T.PORT}  # types _create/_side_effects treat specially


def _notify(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    fields = dict(r.fvs)
    if SESSION_ATTR in fields:  # a client (re)starts: its answers are numbered from this one, 0
        s.session, s.seq, s.lost = fields[SESSION_ATTR], -1, False
        log.info("syncd.session.begin session=%s", s.session)
    what = fields.get(NOTIFY_SYNCD_ATTR)
    if what == INIT_VIEW:
        s.init_view(b)
    elif what == APPLY_VIEW:
        s.apply_view(b)
    return (st.SUCCESS, "getresponse", ())


Handler = Callable[[Syncd, Request, Batch], tuple[str, str, FieldValues]]
_HANDLERS: dict[str, Handler] = {
    "create": _create, "set": _set, "remove": _remove, "get": _get, "notify": _notify,
    **{op: _bulk for op in BULK_OPS},
}

__all__ = ["Syncd", "split_object_key"]
