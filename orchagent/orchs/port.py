"""PortOrch: APPL_DB PORT_TABLE -> SAI ports, host interfaces and port serdes; oper state; COUNTERS maps.

Boot (as portsorch): port rows wait until ``PortConfigDone``; then every configured port is created
in one bulk request, the queue / priority-group / scheduler-group lists of all ports are read in one
pipelined round trip, host interfaces are created in bulk, and the COUNTERS_DB name maps published.
Afterwards each row is a task: a new port is created, a changed field becomes a SAI set, a deleted
port is removed once nothing refers to it (VLAN or LAG membership, router interface).
Oper state comes from syncd's ``port_state_change``: APPL_DB ``oper_status``, STATE_DB, the host
interface's oper status, and an ``OperChanged`` event for other orchs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice

from nos.daemon.task import Result
from nos.db import Notification, Table
from nos.db.keyops import KeyOpFieldsValues
from nos.db.notification import notification_ok, report_bad_notification
from nos.db.table import write_hashes
from nos.sai import status as st
from nos.sai.ops import OpKind, SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import parse_list, sai_bool, sai_list
from nos.schema.dbconfig import APPL_DB, ASIC_DB, COUNTERS_DB, STATE_DB
from nos.schema.tables import (
    APP_PORT_TABLE_NAME,
    ASIC_NOTIFICATIONS_CHANNEL,
    COUNTERS_PG_INDEX_MAP,
    COUNTERS_PG_NAME_MAP,
    COUNTERS_PG_PORT_MAP,
    COUNTERS_PORT_NAME_MAP,
    COUNTERS_QUEUE_INDEX_MAP,
    COUNTERS_QUEUE_NAME_MAP,
    COUNTERS_QUEUE_PORT_MAP,
    COUNTERS_QUEUE_TYPE_MAP,
    PORT_CONFIG_DONE_KEY,
    PORT_INIT_DONE_KEY,
    STATE_BUFFER_MAXIMUM_VALUE_TABLE,
    STATE_PORT_TABLE_NAME,
)
from orchagent.core.deps import OrchDeps
from orchagent.core.events import MtuChanged, OperChanged, PfcAsymChanged
from orchagent.core.registry import Interface, Kind
from orchagent.orchs.port_fields import (
    MTU_OVERHEAD,
    PORT_STATE_CHANGE,
    BadField,
    changed,
    parse_lanes,
    parse_port_states,
    port_attrs,
    serdes_attrs,
)
from orchagent.orchs.port_state import (
    HOST_TX_SIGNAL,
    PORT_HOST_TX_READY,
    config_state,
    flap_fields,
    hostif_attrs,
    oper_up_state,
    parse_host_tx_ready,
    polled_state,
    refused,
)

log = logging.getLogger(__name__)

LISTS = ("SAI_PORT_ATTR_QOS_QUEUE_LIST", "SAI_PORT_ATTR_INGRESS_PRIORITY_GROUP_LIST",
         "SAI_PORT_ATTR_QOS_SCHEDULER_GROUP_LIST", "SAI_PORT_ATTR_QOS_MAXIMUM_HEADROOM_SIZE",
         "SAI_PORT_ATTR_SUPPORTED_SPEED")
MARKERS = (PORT_CONFIG_DONE_KEY, PORT_INIT_DONE_KEY)
PFC_SEPARATE = "SAI_PORT_PRIORITY_FLOW_CONTROL_MODE_SEPARATE"


@dataclass
class PortObjects:
    """What orchagent created for one port."""

    name: str
    oid: str
    lanes: list[int]
    attrs: dict[str, str]
    hostif: str = ""
    serdes: str = ""
    serdes_attrs: list[tuple[str, str]] = field(default_factory=list)
    queues: list[str] = field(default_factory=list)
    pgs: list[str] = field(default_factory=list)
    scheduler_groups: list[str] = field(default_factory=list)
    supported_speeds: list[str] = field(default_factory=list)
    oper_up: bool = False
    flaps: int = 0


def name_maps(port: PortObjects) -> dict[str, dict[str, str]]:
    """COUNTERS_DB name maps of a port, its queues and priority groups: map -> fields (pure)."""
    maps: dict[str, dict[str, str]] = {COUNTERS_PORT_NAME_MAP: {port.name: port.oid}}
    for i, queue in enumerate(port.queues):
        maps.setdefault(COUNTERS_QUEUE_NAME_MAP, {})[f"{port.name}:{i}"] = queue
        maps.setdefault(COUNTERS_QUEUE_PORT_MAP, {})[queue] = port.oid
        maps.setdefault(COUNTERS_QUEUE_INDEX_MAP, {})[queue] = str(i)
        maps.setdefault(COUNTERS_QUEUE_TYPE_MAP, {})[queue] = "SAI_QUEUE_TYPE_UNICAST"
    for i, pg in enumerate(port.pgs):
        maps.setdefault(COUNTERS_PG_NAME_MAP, {})[f"{port.name}:{i}"] = pg
        maps.setdefault(COUNTERS_PG_PORT_MAP, {})[pg] = port.oid
        maps.setdefault(COUNTERS_PG_INDEX_MAP, {})[pg] = str(i)
    return maps


def name_map_fields(port: PortObjects) -> dict[str, list[str]]:
    """The fields ``name_maps`` writes for the port, by map (what its removal deletes)."""
    return {name: list(fields) for name, fields in name_maps(port).items()}


def create_op(oid: str, lanes: list[int], attrs: list[tuple[str, str]]) -> SaiOp:
    """addPortBulk: the lanes, the configured attributes, and the host tx signal off (CMIS sync)."""
    return SaiOp.create(T.PORT, oid, ("SAI_PORT_ATTR_HW_LANE_LIST", sai_list(lanes)), *attrs, (HOST_TX_SIGNAL, "false"))


class PortOrch:
    CONSUMES = ((APPL_DB, APP_PORT_TABLE_NAME),)
    PRODUCES = ((APPL_DB, APP_PORT_TABLE_NAME), (STATE_DB, STATE_PORT_TABLE_NAME),
                (STATE_DB, STATE_BUFFER_MAXIMUM_VALUE_TABLE), (COUNTERS_DB, COUNTERS_PORT_NAME_MAP),
                (COUNTERS_DB, COUNTERS_QUEUE_NAME_MAP), (COUNTERS_DB, COUNTERS_PG_NAME_MAP))

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.sai = deps.sai
        self.ports: dict[str, PortObjects] = {}
        self.by_oid: dict[str, str] = {}
        self.initialized = False
        self.appl = Table(deps.dbs[APPL_DB], APP_PORT_TABLE_NAME)
        self.state = Table(deps.dbs[STATE_DB], STATE_PORT_TABLE_NAME)
        self.buffer_max = Table(deps.dbs[STATE_DB], STATE_BUFFER_MAXIMUM_VALUE_TABLE)

    # -- tasks ------------------------------------------------------------------------------------
    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        if task.key == PORT_CONFIG_DONE_KEY:
            return self._config_done(task) if task.is_set else Result.ignored()
        if task.key in MARKERS:
            return Result.ignored()
        if not self.initialized:
            return Result.retry("waiting for PortConfigDone")
        if task.is_del:
            return self._remove(task.key)
        return self._set(task.key, task.fields)

    def handle_batch(self, table: str, tasks: list[KeyOpFieldsValues]) -> list[Result]:
        """One task per port: attribute changes of existing ports go to the ASIC in one bulk set
        (SONiC's bulker; one request and one answer for a 128-port mtu change); everything else
        (creates, removals, lane or serdes changes, the markers) is handled one by one."""
        results: list[Result | None] = []
        updates: list[tuple[int, PortObjects, list[tuple[str, str]]]] = []
        for task in tasks:
            update = self._plain_update(task) if self.initialized else None
            if update is None:
                results.append(self.handle(table, task))
            else:
                updates.append((len(results), *update))
                results.append(None)
        for index, result in zip((i for i, _, _ in updates), self._bulk_update(updates), strict=True):
            results[index] = result
        return [r if r is not None else Result.failed("internal error: no result") for r in results]

    def _plain_update(self, task: KeyOpFieldsValues) -> tuple[PortObjects, list[tuple[str, str]]] | None:
        """(port, attributes to set) when ``task`` only changes attributes of an existing port."""
        port = self.ports.get(task.key)
        if port is None or not task.is_set or task.key in MARKERS:
            return None
        try:
            attrs, notes = port_attrs(task.fields)
            serdes = serdes_attrs(task.fields)
            lanes = parse_lanes(task.fields["lanes"]) if "lanes" in task.fields else None
        except BadField:
            return None  # the one-by-one path says why
        if (lanes is not None and lanes != port.lanes) or (serdes and serdes != port.serdes_attrs):
            return None
        if refused(task.fields, attrs, port.attrs, port.supported_speeds)[1]:
            return None
        for note in notes:
            log.info("orch.port.ignored port=%s %s", port.name, note)
        return port, attrs

    def _bulk_update(self, updates: list[tuple[int, PortObjects, list[tuple[str, str]]]]) -> list[Result]:
        """One bulk set for every changed attribute of these ports (in order: a port's attributes in
        its field order, as ``_update`` sends them); a port with a refused attribute fails, keeping
        the attributes the ASIC took."""
        wanted = [changed(port.attrs.items(), attrs) for _, port, attrs in updates]
        entries = [(port.oid, (pair,)) for (_, port, _), pairs in zip(updates, wanted, strict=True) for pair in pairs]
        statuses = iter(self.sai.bulk(OpKind.SET, T.PORT, entries) if entries else [])
        results = []
        for (_, port, attrs), pairs in zip(updates, wanted, strict=True):
            codes = zip(pairs, islice(statuses, len(pairs)), strict=True)
            refused = {attr: code for (attr, _), code in codes if code != st.SUCCESS}
            self._updated(port, [(attr, value) for attr, value in attrs if attr not in refused], [])
            results.append(Result.failed("bulk set refused: " + ", ".join(f"{a} {c}" for a, c in refused.items()))
                           if refused else Result.success())
        return results

    def _config_done(self, task: KeyOpFieldsValues) -> Result:
        if self.initialized:
            return Result.ignored("ports already initialised")
        rows = {k: v for k, v in self.appl.get_all().items() if k not in MARKERS}
        expected = int(task.fields.get("count", "0"))
        if len(rows) < expected:
            return Result.retry(f"{len(rows)} of {expected} ports in PORT_TABLE")
        self._create_ports(rows)
        self.initialized = True
        return Result.success()

    def _set(self, name: str, fields: dict[str, str]) -> Result:
        try:
            attrs, notes = port_attrs(fields)
            serdes = serdes_attrs(fields)
            lanes = parse_lanes(fields["lanes"]) if "lanes" in fields else None
        except BadField as why:
            return Result.invalid(str(why))
        for note in notes:
            log.info("orch.port.ignored port=%s %s", name, note)
        port = self.ports.get(name)
        if port is not None and refused(fields, attrs, port.attrs, port.supported_speeds)[1]:
            return self._refuse(port, fields, attrs)
        if lanes is not None and (port is None or lanes != port.lanes):
            holders = self._lane_holders(name, lanes)
            if holders:  # e.g. a breakout: the old ports' deletions have not arrived yet
                return Result.retry(f"lanes of {name} are still used by {', '.join(holders)}")
        if port is not None and lanes is not None and lanes != port.lanes:
            removed = self._remove(name)
            if not removed.done or removed.rejected:
                return removed
            port = None
        if port is None:
            if lanes is None or "SAI_PORT_ATTR_SPEED" not in dict(attrs):
                return Result.invalid("a new port needs lanes and speed")
            problem = self._create_one(name, fields)
            return Result.failed(problem) if problem else Result.success()
        return self._update(port, attrs, serdes)

    def _refuse(self, port: PortObjects, fields: dict[str, str], attrs: list[tuple[str, str]]) -> Result:
        """A speed the port does not support or ``fec auto``: SONiC drops the task there (no retry); the
        fields it handles before that one are applied."""
        kept, reason = refused(fields, attrs, port.attrs, port.supported_speeds)
        done = self._update(port, kept, [])
        return done if done.rejected else Result.invalid(reason)

    def _lane_holders(self, name: str, lanes: list[int]) -> list[str]:
        wanted = set(lanes)
        return sorted(p.name for p in self.ports.values() if p.name != name and wanted & set(p.lanes))

    def _update(self, port: PortObjects, attrs: list[tuple[str, str]], serdes: list[tuple[str, str]]) -> Result:
        ops = [SaiOp.set(T.PORT, port.oid, attr, value) for attr, value in changed(port.attrs.items(), attrs)]
        if serdes and serdes != port.serdes_attrs:
            if port.serdes:
                ops.append(SaiOp.remove(T.PORT_SERDES, port.serdes))
            port.serdes = self.sai.alloc(T.PORT_SERDES)
            ops.append(SaiOp.create(T.PORT_SERDES, port.serdes, ("SAI_PORT_SERDES_ATTR_PORT_ID", port.oid), *serdes))
        result = self.sai.apply(ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        self._updated(port, attrs, serdes)
        return Result.success()

    def _updated(self, port: PortObjects, attrs: list[tuple[str, str]], serdes: list[tuple[str, str]]) -> None:
        """Record attributes the ASIC took; other orchs hear of a new mtu."""
        old_mtu = port.attrs.get("SAI_PORT_ATTR_MTU")
        old = dict(port.attrs)
        port.attrs.update(attrs)
        self._write_config_state(port, old, attrs, first=False)
        port.serdes_attrs = serdes or port.serdes_attrs
        self._track(port)
        if port.attrs.get("SAI_PORT_ATTR_MTU") != old_mtu:
            self.deps.bus.publish(MtuChanged(port.name, int(port.attrs["SAI_PORT_ATTR_MTU"]) - MTU_OVERHEAD))

    def _remove(self, name: str) -> Result:
        port = self.ports.get(name)
        if port is None:
            return Result.ignored("no such port")
        users = self.deps.registry.in_use(name)
        if users:
            return Result.retry(f"{name} is still used by {users} object(s)")
        ops = []
        if port.serdes:
            ops.append(SaiOp.remove(T.PORT_SERDES, port.serdes))
        if port.hostif:
            ops.append(SaiOp.remove(T.HOSTIF, port.hostif))
        ops.append(SaiOp.remove(T.PORT, port.oid))
        result = self.sai.apply(ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        self._forget(port)
        return Result.success()

    # -- creating ports (bulk) ---------------------------------------------------------------------
    def _plan(self, rows: dict[str, dict[str, str]]) -> dict[str, PortObjects]:
        planned: dict[str, PortObjects] = {}
        for name, fields in sorted(rows.items()):
            try:
                attrs, _ = port_attrs(fields)
                lanes = parse_lanes(fields.get("lanes", ""))
            except BadField as why:
                log.error("orch.port.invalid port=%s reason=%s", name, why)
                continue
            planned[name] = PortObjects(name, self.sai.alloc(T.PORT), lanes, dict(attrs))
        return planned

    def _create_ports(self, rows: dict[str, dict[str, str]]) -> list[str]:
        """Boot: every port in one bulk create, then host interfaces and maps; returns the created names."""
        planned = list(self._plan(rows).values())
        entries = [(p.oid, create_op(p.oid, p.lanes, list(p.attrs.items())).attrs) for p in planned]
        statuses = self.sai.bulk(OpKind.CREATE, T.PORT, entries)
        created = [p for p, code in zip(planned, statuses, strict=True) if code == st.SUCCESS]
        self._finish(created, rows)
        return [p.name for p in created]

    def _create_one(self, name: str, fields: dict[str, str]) -> str:
        """A port added after boot (e.g. a breakout child); returns why it failed, or ''."""
        planned = self._plan({name: fields}).get(name)
        if planned is None:
            return f"invalid port {name}"
        result = self.sai.apply([create_op(planned.oid, planned.lanes, list(planned.attrs.items()))])
        if not result.ok:
            return f"{result.status} {result.reason}"
        self._finish([planned], {name: {**(self.appl.get(name) or {}), **fields}})
        return ""

    def _finish(self, ports: list[PortObjects], rows: dict[str, dict[str, str]]) -> None:
        self._read_lists(ports)
        self._create_hostifs(ports, rows)
        state = self.state.get_many([p.name for p in ports])
        writes: dict[str, dict[str, str]] = {}
        for port in ports:
            self._track(port)
            self._publish_maps(port)
            self._create_serdes(port, rows[port.name])
            fields = config_state({}, list(port.attrs.items()), first=True)[0]
            if "host_tx_ready" not in (state.get(port.name) or {}):  # initHostTxReadyState
                fields["host_tx_ready"] = "false"
            writes[self.state.key_name(port.name)] = fields
        write_hashes(self.deps.dbs[STATE_DB], writes)

    def _write_config_state(self, port: PortObjects, old: dict[str, str], attrs: list[tuple[str, str]],
                            first: bool) -> None:
        sets, drops = config_state(old, attrs, first)
        if drops:
            self.state.hdel(port.name, *drops)
        if sets:
            self.state.set(port.name, sets)

    def _read_lists(self, ports: list[PortObjects]) -> None:
        result = self.sai.apply([SaiOp.get(T.PORT, p.oid, *LISTS) for p in ports])
        for port, values in zip(ports, result.values, strict=False):
            port.queues = parse_list(values[LISTS[0]])
            port.pgs = parse_list(values[LISTS[1]])
            port.scheduler_groups = parse_list(values[LISTS[2]])
            self.buffer_max.set(port.name, {"max_queues": str(len(port.queues)),
                                            "max_priority_groups": str(len(port.pgs)),
                                            "max_headroom_size": values[LISTS[3]]})
            # portsorch initPortSupportedSpeeds: what `config interface speed` checks against
            port.supported_speeds = parse_list(values[LISTS[4]])
            self.state.set(port.name, {"supported_speeds": ",".join(port.supported_speeds)})

    def _create_hostifs(self, ports: list[PortObjects], rows: dict[str, dict[str, str]]) -> None:
        """initializePorts: the oper status APPL_DB holds (``down`` written when it holds none) is the
        starting oper state and the host interface's; then the host interfaces in one bulk."""
        entries = []
        unset: dict[str, dict[str, str]] = {}
        for port in ports:
            oper = rows.get(port.name, {}).get("oper_status", "")
            port.oper_up = oper == "up"
            if not oper:
                unset[self.appl.key_name(port.name)] = {"oper_status": "down"}
            port.hostif = self.sai.alloc(T.HOSTIF)
            entries.append((port.hostif, hostif_attrs(port.oid, port.name, port.oper_up)))
        write_hashes(self.deps.dbs[APPL_DB], unset)
        for port, code in zip(ports, self.sai.bulk(OpKind.CREATE, T.HOSTIF, entries), strict=True):
            if code != st.SUCCESS:
                port.hostif = ""

    def _create_serdes(self, port: PortObjects, fields: dict[str, str]) -> None:
        try:
            attrs = serdes_attrs(fields)
        except BadField as why:
            log.error("orch.port.serdes_invalid port=%s reason=%s", port.name, why)
            return
        if attrs:
            self._update(port, [], attrs)

    def _track(self, port: PortObjects) -> None:
        self.ports[port.name] = port
        self.by_oid[port.oid] = port.name
        entry = self.deps.registry.get(port.name) or self.deps.registry.add(Interface(port.name, Kind.PORT, port.oid))
        entry.admin_up = port.attrs.get("SAI_PORT_ATTR_ADMIN_STATE") == "true"
        entry.mtu = int(port.attrs.get("SAI_PORT_ATTR_MTU", "9122")) - MTU_OVERHEAD
        entry.speed = int(port.attrs.get("SAI_PORT_ATTR_SPEED", "0"))
        entry.hostif = port.hostif
        entry.oper_up = port.oper_up
        separate = port.attrs.get("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_MODE") == PFC_SEPARATE
        if separate != entry.pfc_asym:  # QosOrch re-applies the PFC bitmask in the new mode
            entry.pfc_asym = separate
            self.deps.bus.publish(PfcAsymChanged(port.name, separate))

    def _forget(self, port: PortObjects) -> None:
        self.ports.pop(port.name, None)
        self.by_oid.pop(port.oid, None)
        self.deps.registry.remove(port.name)
        write_hashes(self.deps.dbs[COUNTERS_DB], {}, name_map_fields(port))
        self.buffer_max.delete(port.name)

    def _publish_maps(self, port: PortObjects) -> None:
        write_hashes(self.deps.dbs[COUNTERS_DB], name_maps(port))  # a map that is not a hash is replaced

    # -- oper state (syncd notifications) -----------------------------------------------------------
    def on_notifications(self, notes: list[Notification]) -> None:
        """syncd's ``port_state_change``: the host interfaces' oper status of the whole batch goes to
        the ASIC in one bulk set (128 ports coming up are one request, not 128). ``port_host_tx_ready``:
        STATE_DB ``host_tx_ready`` of a port that has a STATE_DB row (setHostTxReady)."""
        hostifs: list[tuple[str, tuple[tuple[str, str], ...]]] = []
        for note in notes:
            if note.op == PORT_STATE_CHANGE:
                hostifs += self._port_state_change(note.data)
            elif note.op == PORT_HOST_TX_READY:
                self._host_tx_ready(note.data)
        if hostifs:
            self.sai.bulk(OpKind.SET, T.HOSTIF, hostifs)  # a refusal is logged by the client

    def _parsed(self, kind: str, parse: Callable[[str], list[tuple[str, bool]]],
                data: str) -> list[tuple[str, bool]]:
        """A notification's (port oid, flag) pairs; a bad one is logged and reported, giving none."""
        asic = self.deps.dbs[ASIC_DB]
        try:
            pairs = parse(data)
        except ValueError as why:
            log.warning("orch.port.bad_notification data=%s reason=%s", data[:200], why)
            report_bad_notification(asic, ASIC_NOTIFICATIONS_CHANNEL, kind, str(why))
            return []
        notification_ok(asic, ASIC_NOTIFICATIONS_CHANNEL, kind)
        return pairs

    def _port_state_change(self, data: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
        hostifs = []
        for oid, up in self._parsed(PORT_STATE_CHANGE, parse_port_states, data):
            name = self.by_oid.get(oid)
            if name is not None:
                hostifs += self._oper(name, up)
        return hostifs

    def _host_tx_ready(self, data: str) -> None:
        for oid, ready in self._parsed(PORT_HOST_TX_READY, parse_host_tx_ready, data):
            name = self.by_oid.get(oid)
            if name is not None and self.state.get(name) is not None:
                self.state.set(name, {"host_tx_ready": "true" if ready else "false"})

    def _oper(self, name: str, up: bool) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
        """Record a port's oper state change (a repeated state changes nothing, as updatePortOperStatus);
        returns its host interface's oper-status set (for the bulk)."""
        port = self.ports[name]
        if up == port.oper_up:
            return []
        port.oper_up = up
        port.flaps += 1
        entry = self.deps.registry.get(name)
        if entry is not None:
            entry.oper_up = up
        status = "up" if up else "down"
        self.appl.set(name, flap_fields(port.flaps, up))
        state = polled_state(port.attrs, oper_changed=True)
        if up:
            state.update(oper_up_state(port.attrs))
        if state:
            self.state.set(name, state)
        log.info("orch.port.oper port=%s status=%s", name, status)
        self.deps.bus.publish(OperChanged(name, up))
        return [(port.hostif, (("SAI_HOSTIF_ATTR_OPER_STATUS", sai_bool(up)),))] if port.hostif else []

ORCH = PortOrch
PRIORITY = 0
