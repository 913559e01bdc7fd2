"""QosOrch: the CONFIG_DB QoS tables -> SAI QOS_MAPs, SCHEDULERs, WREDs and their bindings, as
SONiC's qosorch reads them (straight from CONFIG_DB, not APPL_DB).

* The eleven map tables each make one QOS_MAP (``qos_maps``); SCHEDULER and WRED_PROFILE one
  SCHEDULER / WRED (``qos_profiles``). A changed row updates the same object in place.
* PORT_QOS_MAP binds maps and a port scheduler to ports and sets the PFC bitmask
  (``SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL``, or ``_TX`` in asymmetric mode); ``global`` sets the
  switch's DSCP_TO_TC map. QUEUE puts a scheduler on the queue's parent scheduler group and a WRED
  profile on the queue. A field that is no longer in the row is unbound (oid:0x0).
* References: a row naming an object that does not exist yet waits (NEED_RETRY), as does removing
  an object some row still names, or binding to a port that is not created yet. An object whose DEL
  waits counts as gone until it is removed: rows that name it (again) wait, and so do its own SETs
  (qosorch's ``m_pendingRemove``, Orch::parseReference), so DEL+SET of a used map changes nothing
  until its users let go, then re-creates it. Bad data is refused
  (INVALID) with its field named, before anything is sent.
* The PFC bitmask follows PORT ``pfc_asym`` (PortOrch's ``PfcAsymChanged``), as PortsOrch::setPortPfcAsym;
  every change of the bitmasks is announced as ``PfcEnableChanged``.
"""

from __future__ import annotations

import logging

from nos.daemon.task import Result
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import parse_list
from nos.schema import tables as tbl
from nos.schema.dbconfig import CONFIG_DB
from orchagent.core.deps import OrchDeps
from orchagent.core.events import PfcAsymChanged, PfcEnableChanged
from orchagent.core.planned import Planned, run_planned
from orchagent.core.registry import Kind
from orchagent.orchs import qos_maps, qos_ports, qos_profiles
from orchagent.orchs.qos_ports import NULL_OID, InvalidQosRow, Ref
from orchagent.orchs.qos_state import PortTree, QosObject, QosRefs, parents_of

log = logging.getLogger(__name__)

OBJECT_TYPES = {**{table: T.QOS_MAP for table in qos_maps.MAP_KINDS},
                tbl.CFG_SCHEDULER_TABLE_NAME: T.SCHEDULER, tbl.CFG_WRED_PROFILE_TABLE_NAME: T.WRED}
PORT_LISTS = ("SAI_PORT_ATTR_QOS_QUEUE_LIST", "SAI_PORT_ATTR_QOS_SCHEDULER_GROUP_LIST")
SCHEDULER_PROFILE = "SAI_SCHEDULER_GROUP_ATTR_SCHEDULER_PROFILE_ID"
SWITCH_LIMITS = ("SAI_SWITCH_ATTR_NUMBER_OF_QUEUES", "SAI_SWITCH_ATTR_MAX_NUMBER_OF_FORWARDING_CLASSES")


def read_limits(deps: OrchDeps) -> qos_maps.Limits:
    """The switch's queue and forwarding-class counts (one traffic class per queue on this ASIC)."""
    values = deps.sai.get(T.SWITCH, deps.switch.switch_id, *SWITCH_LIMITS)
    queues = int(values[SWITCH_LIMITS[0]])
    return qos_maps.Limits(traffic_classes=queues, queues=queues, forwarding_classes=int(values[SWITCH_LIMITS[1]]))


class QosOrch:
    CONSUMES = tuple((CONFIG_DB, table) for table in (
        *qos_maps.MAP_KINDS, tbl.CFG_SCHEDULER_TABLE_NAME, tbl.CFG_WRED_PROFILE_TABLE_NAME,
        tbl.CFG_QUEUE_TABLE_NAME, tbl.CFG_PORT_QOS_MAP_TABLE_NAME))

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.sai = deps.sai
        self.limits = read_limits(deps)
        self.objects: dict[Ref, QosObject] = {}
        self.refs = QosRefs()
        self.trees: dict[str, PortTree] = {}         # port oid -> queues and their groups
        self.pfc: dict[str, tuple[int, int]] = {}    # port -> (pfc_enable, pfcwd_sw_enable)
        deps.bus.subscribe(PfcAsymChanged, self._asym_changed)

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        if table == tbl.CFG_PORT_QOS_MAP_TABLE_NAME:
            return self._port_qos(task)
        if table == tbl.CFG_QUEUE_TABLE_NAME:
            return self._queue(task)
        if task.is_del:
            return self._remove(table, task.key)
        try:
            return self._set_object(table, task.key, task.fields)
        except (qos_maps.InvalidMap, qos_profiles.InvalidProfile) as why:
            return Result.invalid(str(why))

    # -- maps, schedulers, WRED profiles -----------------------------------------------------------
    def _set_object(self, table: str, name: str, fields: dict[str, str]) -> Result:
        current = self.objects.get((table, name))
        if current is not None and current.pending_remove:
            return Result.retry(f"{table}|{name} is waiting to be removed")
        if table == tbl.CFG_WRED_PROFILE_TABLE_NAME:
            attrs = qos_profiles.wred_attrs(fields)
            create = qos_profiles.wred_create_attrs(attrs)
            update = qos_profiles.wred_update_attrs(current.attrs, attrs) if current else []
        elif table == tbl.CFG_SCHEDULER_TABLE_NAME:
            create = qos_profiles.scheduler_attrs(fields)
            attrs = dict(create)
            update = [(a, v) for a, v in create if current is not None and current.attrs.get(a) != v]
        else:
            create = list(qos_maps.map_attrs(table, qos_maps.parse_map(table, fields, self.limits)))
            attrs = dict(create)
            update = [create[1]] if current is not None and current.attrs.get(create[1][0]) != create[1][1] else []
        kind = OBJECT_TYPES[table]
        if current is None:
            current = QosObject(self.sai.alloc(kind))
            ops = [SaiOp.create(kind, current.oid, *create)]
        else:
            ops = [SaiOp.set(kind, current.oid, a, v) for a, v in update]
        result = self.sai.apply(ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        current.attrs.update(dict(create) if not current.attrs else attrs)
        self.objects[(table, name)] = current
        return Result.success()

    def _remove(self, table: str, name: str) -> Result:
        current = self.objects.get((table, name))
        if current is None:
            return Result.ignored(f"no {table} {name}")
        users = self.refs.users((table, name))
        if users:
            current.pending_remove = True
            return Result.retry(f"{table}|{name} is still used by {', '.join(users[:3])}")
        result = self.sai.apply([SaiOp.remove(OBJECT_TYPES[table], current.oid)])
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        del self.objects[(table, name)]
        return Result.success()

    def _resolve(self, refs: dict[str, Ref]) -> dict[str, str] | str:
        """field -> object id, or why not (the first object that does not exist yet)."""
        oids = {}
        for field_name, ref in sorted(refs.items()):
            found = self.objects.get(ref)
            if found is None:
                return f"field {field_name!r}: {ref[0]}|{ref[1]} does not exist yet"
            if found.pending_remove:
                return f"field {field_name!r}: {ref[0]}|{ref[1]} is waiting to be removed"
            oids[field_name] = found.oid
        return oids

    def _port_oid(self, name: str) -> str:
        entry = self.deps.registry.get(name)
        return entry.oid if entry is not None and entry.kind is Kind.PORT and entry.oid else ""

    # -- PORT_QOS_MAP ------------------------------------------------------------------------------
    def _port_qos(self, task: KeyOpFieldsValues) -> Result:
        key, referrer = task.key, (tbl.CFG_PORT_QOS_MAP_TABLE_NAME, task.key)
        before = self.refs.of(referrer)
        if task.is_del:
            parsed = qos_ports.PortQos({}, 0, 0)
        else:
            try:
                parsed = qos_ports.parse_port_qos(key, task.fields)
            except InvalidQosRow as why:
                return Result.invalid(str(why))
        oids = self._resolve(parsed.refs)
        if isinstance(oids, str):
            return Result.retry(oids)
        updates = {qos_ports.port_attr(key, f): oid for f, oid in oids.items()}
        updates.update({qos_ports.port_attr(key, f): NULL_OID for f in before if f not in parsed.refs})
        if key == qos_ports.GLOBAL_KEY:
            switch = self.deps.switch.switch_id
            return self._commit([SaiOp.set(T.SWITCH, switch, a, v) for a, v in sorted(updates.items())],
                                referrer, parsed.refs)
        ports = [p for p in key.split(",") if p]
        missing = [p for p in ports if not self._port_oid(p)]
        if missing and not task.is_del:
            return Result.retry(f"port {missing[0]} does not exist yet")
        ops: list[SaiOp] = []
        for port in (p for p in ports if p not in missing):
            oid = self._port_oid(port)
            ops += [SaiOp.set(T.PORT, oid, a, v) for a, v in sorted(updates.items())]
            ops += self._pfc_ops(port, oid, parsed.pfc_enable or 0, task.is_del)
        result = self._commit(ops, referrer, parsed.refs)
        if result.done and not result.rejected:
            for port in ports:
                self._pfc_changed(port, parsed.pfc_enable or 0, parsed.pfcwd_sw_enable or 0)
        return result

    def _pfc_ops(self, port: str, oid: str, mask: int, removing: bool) -> list[SaiOp]:
        """qosorch: the bitmask is set when it or the old one is not zero (always on a delete)."""
        old = self.pfc.get(port, (0, 0))[0]
        if not (mask or old or removing):
            return []
        entry = self.deps.registry.get(port)
        separate = entry is not None and entry.pfc_asym
        return [SaiOp.set(T.PORT, oid, a, v) for a, v in qos_ports.pfc_attrs(mask, separate)]

    def _pfc_changed(self, port: str, pfc: int, pfcwd: int) -> None:
        if self.pfc.get(port, (0, 0)) != (pfc, pfcwd):
            self.pfc[port] = (pfc, pfcwd)
            self.deps.bus.publish(PfcEnableChanged(port, pfc, pfcwd))

    def _commit(self, ops: list[SaiOp], referrer: tuple[str, str], refs: dict[str, Ref]) -> Result:
        result = self.sai.apply(ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        self.refs.replace(referrer, refs)
        return Result.success()

    def _asym_changed(self, event: PfcAsymChanged) -> None:
        oid = self._port_oid(event.name)
        if not oid:
            return
        mask = self.pfc.get(event.name, (0, 0))[0]
        result = self.sai.apply([SaiOp.set(T.PORT, oid, a, v) for a, v in qos_ports.asym_attrs(mask, event.separate)])
        if not result.ok:
            log.error("orch.qos.pfc_asym_failed port=%s status=%s reason=%s", event.name, result.status, result.reason)

    # -- QUEUE -------------------------------------------------------------------------------------
    def handle_batch(self, table: str, tasks: list[KeyOpFieldsValues]) -> list[Result]:
        """A pop's tasks: QUEUE's sets planned and sent together (``run_planned``), the ports' queue
        trees read in two rounds first; every other table one by one."""
        if table != tbl.CFG_QUEUE_TABLE_NAME:
            return [self.handle(table, task) for task in tasks]
        self._prefetch_trees(tasks)
        return run_planned(self.sai, tasks, lambda task: None if task.is_del else self._queue_plan(task),
                           self._queue)

    def _prefetch_trees(self, tasks: list[KeyOpFieldsValues]) -> None:
        oids: set[str] = set()
        for task in tasks:
            try:
                ports = qos_ports.parse_queue_key(task.key).ports
            except InvalidQosRow:
                continue
            oids.update(o for o in map(self._port_oid, ports) if o and o not in self.trees)
        wanted = sorted(oids)
        lists = self.sai.apply_many([[SaiOp.get(T.PORT, oid, *PORT_LISTS)] for oid in wanted])
        known = [(oid, parse_list(r.values[0][PORT_LISTS[0]]), parse_list(r.values[0][PORT_LISTS[1]]))
                 for oid, r in zip(wanted, lists, strict=True) if r.ok]
        answers = self.sai.apply_many([[SaiOp.get(T.SCHEDULER_GROUP, g, "SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST")
                                        for g in groups] for _, _, groups in known])
        for (oid, queues, groups), answer in zip(known, answers, strict=True):
            if answer.ok:
                children = {g: parse_list(v["SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST"])
                            for g, v in zip(groups, answer.values, strict=False)}
                self.trees[oid] = PortTree(oid, tuple(queues), parents_of(queues, children))

    def _queue(self, task: KeyOpFieldsValues) -> Result:
        planned = self._queue_plan(task)
        if isinstance(planned, Result):
            return planned
        failed = self.sai.apply(planned.ops)
        return planned.done() if failed.ok else Result.failed(f"{failed.status} {failed.reason}")

    def _queue_plan(self, task: KeyOpFieldsValues) -> Result | Planned:
        referrer = (tbl.CFG_QUEUE_TABLE_NAME, task.key)
        try:
            key = qos_ports.parse_queue_key(task.key)
            refs = {} if task.is_del else qos_ports.parse_queue_refs(task.fields)
        except InvalidQosRow as why:
            return Result.invalid(str(why))
        if qos_ports.CPU_PORT in key.ports:
            return Result.ignored("CPU queues are not modelled")
        oids = self._resolve(refs)
        if isinstance(oids, str):
            return Result.retry(oids)
        before = self.refs.of(referrer)
        wanted = {f: oids.get(f, NULL_OID) for f in qos_ports.QUEUE_FIELDS
                  if f in oids or f in before or task.is_del}
        ops: list[SaiOp] = []
        for port in key.ports:
            oid = self._port_oid(port)
            if not oid:
                if task.is_del:
                    continue
                return Result.retry(f"port {port} does not exist yet")
            tree = self._tree(oid)
            if key.high >= len(tree.queues):
                return Result.invalid(f"key {task.key!r}: queue {key.high} is outside 0..{len(tree.queues) - 1}")
            ops += queue_ops(tree, key.low, key.high, wanted)

        def done() -> Result:
            self.refs.replace(referrer, refs)
            return Result.success()
        return Planned(ops, done)

    def _tree(self, port_oid: str) -> PortTree:
        """The port's queues and their parent groups, read from the ASIC once per port."""
        tree = self.trees.get(port_oid)
        if tree is None:
            lists = self.sai.get(T.PORT, port_oid, *PORT_LISTS)
            queues, groups = parse_list(lists[PORT_LISTS[0]]), parse_list(lists[PORT_LISTS[1]])
            answer = self.sai.apply([SaiOp.get(T.SCHEDULER_GROUP, g, "SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST")
                                     for g in groups])
            children = {g: parse_list(v["SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST"])
                        for g, v in zip(groups, answer.values, strict=False)}
            tree = self.trees[port_oid] = PortTree(port_oid, tuple(queues), parents_of(queues, children))
        return tree


def queue_ops(tree: PortTree, low: int, high: int, wanted: dict[str, str]) -> list[SaiOp]:
    """Scheduler on each queue's parent scheduler group, WRED profile on the queue (qosorch's
    applySchedulerToQueueSchedulerGroup / applyWredProfileToQueue)."""
    ops = []
    for index in range(low, high + 1):
        if "scheduler" in wanted and tree.parents[index]:
            ops.append(SaiOp.set(T.SCHEDULER_GROUP, tree.parents[index], SCHEDULER_PROFILE, wanted["scheduler"]))
        if "wred_profile" in wanted:
            ops.append(SaiOp.set(T.QUEUE, tree.queues[index], "SAI_QUEUE_ATTR_WRED_PROFILE_ID", wanted["wred_profile"]))
    return ops


ORCH = QosOrch
