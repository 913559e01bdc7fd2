"""The syncd shell: consume ASIC_STATE requests, apply them to the object store, persist the
``ASIC_STATE:*`` hashes, answer every request on GETRESPONSE, send notifications.

It also stands in for the kernel and the netlink half of portsyncd: creating a port's NETDEV host
interface makes the netdev appear in STATE_DB ``PORT_TABLE|<name>`` (state ok), and the host
interface's oper status is its ``netdev_oper_status``.
"""

from __future__ import annotations

import gc
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from nos.daemon.runner import Runner
from nos.db import NotificationProducer, Table
from nos.db.connector import Databases
from nos.db.keyops import FieldValues
from nos.db.queue_table import ConsumerTable, ProducerTable, QueuedOp
from nos.sai import status as st
from nos.sai.keys import ASIC_STATE_PREFIX, split_object_key
from nos.sai.types import ObjectType as T
from nos.sai.types import make_oid
from nos.schema.dbconfig import ASIC_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    ASIC_GETRESPONSE_TABLE,
    ASIC_NOTIFICATIONS_CHANNEL,
    ASIC_STATE_TABLE,
    CFG_DEVICE_METADATA_TABLE_NAME,
    STATE_PORT_TABLE_NAME,
)
from syncd_sim.behaviours import AsicBehaviour
from syncd_sim.counters import CounterWriter
from syncd_sim.fastpath_shell import FastPathShell
from syncd_sim.objects import Change, ObjectStore, Outcome
from syncd_sim.platform import load_platform
from syncd_sim.protocol import BULK_OPS, INIT_VIEW, NOTIFY_SYNCD_ATTR, Request, decode, split_bulk_attrs
from syncd_sim.restore import restore

log = logging.getLogger(__name__)

CONSUMES = ((ASIC_DB, ASIC_STATE_TABLE), (CONFIG_DB, CFG_DEVICE_METADATA_TABLE_NAME))
PRODUCES = ((ASIC_DB, ASIC_STATE_TABLE), (ASIC_DB, ASIC_GETRESPONSE_TABLE), (ASIC_DB, ASIC_NOTIFICATIONS_CHANNEL),
            (ASIC_DB, "VIDCOUNTER"), (STATE_DB, STATE_PORT_TABLE_NAME))
VIDCOUNTER = "VIDCOUNTER"
STATE_HASH = "NOS_SYNCD_STATE"  # ours: ids of the built-in objects, to rebuild after a restart
FREEZE_EVERY = 4096  # objects added between gc.freeze() calls
COUNTS_HASH = "NOS_SYNCD_OBJECT_COUNTS"  # ours: objects per type, cheap to poll (benchmarks, readiness)
# One batch's ASIC_STATE writes in one call (ARGV: key, n, n field/value pairs ...; n = 0 deletes the key):
# far cheaper for 100k-route batches than one pipelined command per object.
WRITE_CHANGES = """
local i = 1
while i <= #ARGV do
    local n = tonumber(ARGV[i + 1])
    if n == 0 then
        redis.call('DEL', ARGV[i])
    else
        redis.call('HSET', ARGV[i], unpack(ARGV, i + 2, i + 1 + 2 * n))
    end
    i = i + 2 + 2 * n
end
return 0
"""


@dataclass
class Batch:
    """What one pop produced: ASIC_STATE writes, responses in order, side effects."""

    changes: list[Change] = field(default_factory=list)
    responses: list[tuple[str, str, FieldValues]] = field(default_factory=list)
    netdevs: list[tuple[str, dict[str, str] | None]] = field(default_factory=list)


class Syncd:
    def __init__(self, dbs: Databases) -> None:
        self.dbs = dbs
        self.asic = dbs[ASIC_DB]
        self.requests = ConsumerTable(self.asic, ASIC_STATE_TABLE, pop_batch_size=256)
        self.responses = ProducerTable(self.asic, ASIC_GETRESPONSE_TABLE)
        self.notifications = NotificationProducer(self.asic, ASIC_NOTIFICATIONS_CHANNEL)
        self.state_ports = Table(dbs[STATE_DB], STATE_PORT_TABLE_NAME)
        self.hostif_names: dict[str, str] = {}
        self.behaviour = AsicBehaviour(load_platform(self._hwsku()))
        self.store = ObjectStore(self.alloc, self.behaviour)
        self.counters = CounterWriter(dbs, lambda: self.store)  # COUNTERS_DB, polled on the runner's timer
        self.fastpath = FastPathShell(dbs, lambda: self.store, self.counters,  # compiled tables, traces, traffic
                                      self.asic_changed)
        self._write = self.asic.script("syncd_write_changes", WRITE_CHANGES)
        self._frozen = 0  # objects in the store when the heap was last frozen (see on_ready)
        self._restore()

    def _restore(self) -> None:
        """A restarted syncd: rebuild the store from ASIC_STATE (nothing there on a fresh switch)."""
        builtins: dict[str, str] = self.asic.client.hgetall(STATE_HASH)  # type: ignore[assignment]
        if not builtins:
            return
        names = list(self.asic.client.scan_iter(ASIC_STATE_PREFIX + "*", count=1000))
        pipe = self.asic.client.pipeline(transaction=False)
        for name in names:
            pipe.hgetall(name)
        rows = {name[len(ASIC_STATE_PREFIX):]: fields for name, fields in zip(names, pipe.execute(), strict=True)}
        self.hostif_names = restore(self.store, self.behaviour, rows, builtins)
        log.info("syncd.restored objects=%d", len(self.store.objects))

    def _hwsku(self) -> str | None:
        row = Table(self.dbs[CONFIG_DB], CFG_DEVICE_METADATA_TABLE_NAME).get("localhost") or {}
        return row.get("hwsku")

    def alloc(self, object_type: T, count: int) -> list[str]:
        last = int(self.asic.client.incrby(VIDCOUNTER, count))
        return [make_oid(object_type, index) for index in range(last - count + 1, last + 1)]

    def register(self, runner: Runner) -> None:
        """Wire the daemon: the ASIC_STATE request queue, and the counter writer's inputs and timer."""
        runner.add_selectable(self.requests, self.on_ready)
        self.counters.register(runner)
        self.fastpath.register(runner)

    # -- the loop body ---------------------------------------------------------------------------
    def on_ready(self) -> None:
        batch = Batch()
        for queued in self.requests.pops():
            batch.responses.append(self._answer(queued, batch))
        self._flush(batch)
        if batch.changes:
            self.counters.objects_changed()
            self.fastpath.changed()
        if len(self.store.objects) - self._frozen >= FREEZE_EVERY:
            # The object store is long-lived and free of cycles: keep it out of every full cyclic-GC
            # pass (they took 100+ ms at 100k routes and stalled the request stream).
            gc.freeze()
            self._frozen = len(self.store.objects)

    def _answer(self, queued: QueuedOp, batch: Batch) -> tuple[str, str, FieldValues]:
        try:
            request = decode(queued.key, queued.op, queued.fvs)
        except ValueError as exc:
            log.warning("syncd.request.malformed key=%s op=%s error=%s", queued.key, queued.op, exc)
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
        batch.changes += outcome.changes
        self._side_effects(request, batch)
        return (outcome.status, "getresponse", tuple(outcome.values.items()))

    def _side_effects(self, request: Request, batch: Batch) -> None:
        if request.object_type is T.HOSTIF:
            self._netdev(request, batch)
        elif request.object_type is T.PORT and request.op == "remove":
            self.behaviour.forget_port(request.object_id)

    def _netdev(self, request: Request, batch: Batch) -> None:
        """The simulated kernel: NETDEV host interfaces are the ports' netdevs in STATE_DB."""
        fields = dict(request.fvs)
        if request.op == "create" and fields.get("SAI_HOSTIF_ATTR_TYPE") == "SAI_HOSTIF_TYPE_NETDEV":
            name = fields.get("SAI_HOSTIF_ATTR_NAME", "")
            self.hostif_names[request.object_id] = name
            up = fields.get("SAI_HOSTIF_ATTR_OPER_STATUS") == "true"
            batch.netdevs.append((name, {"state": "ok", "netdev_oper_status": "up" if up else "down"}))
        elif request.op == "set" and "SAI_HOSTIF_ATTR_OPER_STATUS" in fields:
            known = self.hostif_names.get(request.object_id)
            if known:
                name = known
                up = fields["SAI_HOSTIF_ATTR_OPER_STATUS"] == "true"
                batch.netdevs.append((name, {"netdev_oper_status": "up" if up else "down"}))
        elif request.op == "remove":
            gone = self.hostif_names.pop(request.object_id, "")
            if gone:
                batch.netdevs.append((gone, None))

    # -- persisting -------------------------------------------------------------------------------
    def _flush(self, batch: Batch) -> None:
        if batch.changes:
            args: list[str] = []
            for change in batch.changes:
                if change.fields is None:
                    args += (change.key, "0")
                else:
                    args += (change.key, str(len(change.fields)))
                    for item in change.fields.items():
                        args += item
            counts = {kind.sai_name: str(len(objs)) for kind, objs in self.store.by_type.items()}
            args += (COUNTS_HASH, str(len(counts)))
            for item in counts.items():
                args += item
            self._write(args=args)
        for name, fields in batch.netdevs:
            if fields is None:
                self.state_ports.delete(name)
            else:
                self.state_ports.set(name, fields)
        if batch.responses:
            self.responses.send(batch.responses)
        self._notify_oper_changes()

    def asic_changed(self, changes: list[Change], notes: list[tuple[str, str]]) -> None:
        """The ASIC changed its own state (learnt MACs): persist like a batch's changes, then notify,
        as syncd writes a learnt entry into ASIC_STATE before it sends ``fdb_event``."""
        self._flush(Batch(changes=changes))
        for op, data in notes:
            self.notifications.send(op, data)

    def _notify_oper_changes(self) -> None:
        changes, self.behaviour.oper_changes = self.behaviour.oper_changes, []
        for port, status in changes:
            data = json.dumps([{"port_id": port, "port_state": status, "port_error_status": "0"}],
                              separators=(",", ":"))
            self.notifications.send("port_state_change", data)

    # -- restart ---------------------------------------------------------------------------------
    def reset(self) -> None:
        """INIT_VIEW on a cold start: forget every object (the client rebuilds its view)."""
        names = [n for n in self.asic.client.keys(ASIC_STATE_PREFIX + "*")]
        if names:
            self.asic.client.delete(*names)
        self.asic.client.delete(STATE_HASH, COUNTS_HASH)
        for name in list(self.hostif_names.values()):
            self.state_ports.delete(name)
        self.hostif_names.clear()
        self.behaviour = AsicBehaviour(load_platform(self._hwsku()))
        self.store = ObjectStore(self.alloc, self.behaviour)
        self.counters.objects_changed()
        self.fastpath.changed()


# -- request handlers ------------------------------------------------------------------------------

def _create(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    outcome = s.store.create(r.object_type, r.object_id, r.fvs)
    if outcome.ok and r.object_type is T.SWITCH:
        d = s.behaviour.defaults
        s.asic.client.hset(STATE_HASH, mapping={"switch": d.switch, "cpu_port": d.cpu_port, "default_vr": d.default_vr,
                                                "default_vlan": d.default_vlan, "default_bridge": d.default_bridge})
    return s._single(outcome, r, b)


def _set(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    if len(r.fvs) != 1:
        return (st.INVALID_PARAMETER, "getresponse", (("reason", "set takes exactly one attribute"),))
    attr, value = r.fvs[0]
    return s._single(s.store.set(r.object_type, r.object_id, attr, value), r, b)


def _remove(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    return s._single(s.store.remove(r.object_type, r.object_id), r, b)


def _get(s: Syncd, r: Request, b: Batch) -> tuple[str, str, FieldValues]:
    return s._single(s.store.get(r.object_type, r.object_id, [name for name, _ in r.fvs]), r, b)


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
            outcome = _STORE_OPS[op](s.store, r.object_type, object_id, attrs)
            if outcome.ok:
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
    if fields.get(NOTIFY_SYNCD_ATTR) == INIT_VIEW:
        s.reset()
    return (st.SUCCESS, "getresponse", ())


Handler = Callable[[Syncd, Request, Batch], tuple[str, str, FieldValues]]
_HANDLERS: dict[str, Handler] = {
    "create": _create, "set": _set, "remove": _remove, "get": _get, "notify": _notify,
    **{op: _bulk for op in BULK_OPS},
}

__all__ = ["Syncd", "split_object_key"]
