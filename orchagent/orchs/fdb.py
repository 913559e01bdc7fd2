"""FdbOrch: APPL_DB FDB_TABLE -> SAI FDB entries, and STATE_DB FDB_TABLE for the entries it programs.

What fdborch does for provisioned MACs (``doTask``, ``addFdbEntry``, ``removeFdbEntry``,
``updateVlanMember``, ``updatePortOperState``):

* ``FDB_TABLE:Vlan<id>:<mac>`` {port, type dynamic|static, discard}; the MAC may be written with ``-``
  or ``:``. The entry is ``SAI_OBJECT_TYPE_FDB_ENTRY`` keyed {bvid: the VLAN's oid, mac: upper case with
  colons, switch_id} with ``SAI_FDB_ENTRY_ATTR_TYPE``, ``SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID`` and
  ``SAI_FDB_ENTRY_ATTR_PACKET_ACTION`` (DROP when ``discard`` is ``true``, else FORWARD), as
  ``addFdbEntry`` builds it; a changed entry sets each of the three attributes. STATE_DB
  ``FDB_TABLE|Vlan<id>:<mac, lower case>`` {port, type} follows.
* It waits (NEED_RETRY) until the VLAN exists and the port (or LAG) is a member of it: fdborch keeps
  such entries in ``saved_fdb_entries`` and retries them when the member joins.
* When a member is about to leave a VLAN its entries there are flushed (removed, STATE_DB row
  deleted): dynamic ones are forgotten, static ones are held and re-programmed when it joins again.
  A port or LAG going oper down flushes its dynamic entries (SAI flush's default entry type).

And for MACs the ASIC learns (``update(sai_fdb_event_t, ...)``, syncd's ``fdb_event`` on ASIC_DB
``NOTIFICATIONS``; syncd has already written the entry into ASIC_STATE):

* ``SAI_FDB_EVENT_LEARNED``: a MAC not yet known is recorded on the port/LAG that owns the bridge port
  and STATE_DB ``FDB_TABLE|Vlan<id>:<mac>`` {port, type dynamic} is written; a MAC already known is
  ignored. ``SAI_FDB_EVENT_MOVE``: the entry now points at the new port (a report of where it already
  is is ignored). An unknown VLAN or bridge port is logged and ignored, as fdborch does.
* ``SAI_FDB_EVENT_AGED``: the entry is forgotten and its STATE_DB row deleted (static entries never age).
  ``SAI_FDB_EVENT_FLUSHED``: the dynamic entries of the bridge port and/or VLAN it names (all of them
  when it names neither) are forgotten likewise.
* APPL_DB channel ``FLUSHFDBREQUEST`` (``sonic-clear fdb``, sonic-utilities ``fdbclear``): ``["ALL", "ALL"]``,
  ``["PORT", "<port or LAG>"]``, ``["VLAN", "<vid>"]``, ``["PORTVLAN", "<port>|<vid>"]`` flush the dynamic
  entries so named (fdborch ``handleNotification``: SAI flush with entry type DYNAMIC); an unknown port or
  VLAN, one without a bridge port, a malformed request or an unknown op is logged and ignored.
* A learnt entry is flushed like a provisioned dynamic one (a member leaving its VLAN, a port going
  down); deleting its APPL_DB row does not remove it (fdborch ``removeFdbEntry`` ignores a delete whose
  origin differs), and an APPL_DB row for it takes it over (a SAI set).

And for MC-LAG (``fdb_origin`` says what each origin decides): APPL_DB ``MCLAG_FDB_TABLE:Vlan<id>:<mac>``
{port, type static|dynamic|dynamic_local} holds the MACs the MC-LAG peer learnt, written by
mclagsyncd; they are programmed static (with ALLOW_MAC_MOVE when dynamic on the peer), listed in
STATE_DB ``MCLAG_REMOTE_FDB_TABLE``, never flushed nor aged out; an MCLAG interface going down keeps its
MACs (``OrchDeps.mlag``, from MlagOrch).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass

from nos.daemon.runner import Runner
from nos.daemon.task import Result, TaskStatus
from nos.db import Notification, NotificationConsumer, Table
from nos.db.keyops import KeyOpFieldsValues
from nos.db.notification import notification_ok, report_bad_notification
from nos.sai.keys import fdb_key
from nos.sai.ops import SaiOp
from nos.sai.types import NULL_OID
from nos.sai.types import ObjectType as T
from nos.schema.dbconfig import APPL_DB, ASIC_DB, STATE_DB
from nos.schema.tables import (
    APP_FDB_TABLE_NAME,
    APP_FLUSH_FDB_REQUEST_CHANNEL,
    APP_MCLAG_FDB_TABLE_NAME,
    ASIC_NOTIFICATIONS_CHANNEL,
    STATE_FDB_TABLE_NAME,
    STATE_MCLAG_REMOTE_FDB_TABLE_NAME,
)
from orchagent.core.deps import OrchDeps
from orchagent.core.events import OperChanged
from orchagent.core.registry import Kind
from orchagent.orchs import fdb_origin as origins
from orchagent.orchs.fdb_origin import DYNAMIC, DYNAMIC_LOCAL, LEARNT, PEER, PROVISIONED, STATIC
from orchagent.orchs.l2_common import (
    Bridgeable,
    FieldTable,
    InvalidEntry,
    Plan,
    VlanMemberChanged,
    parse_fields,
    snapshot,
    split_key,
    to_mac,
)
from orchagent.orchs.vlan import parse_vlan_name

log = logging.getLogger(__name__)

CONSUMES = ((APPL_DB, APP_FDB_TABLE_NAME), (APPL_DB, APP_MCLAG_FDB_TABLE_NAME))
READS = ((APPL_DB, APP_FLUSH_FDB_REQUEST_CHANNEL),)   # read by ``register``, not an orch consumer
PRODUCES = ((STATE_DB, STATE_FDB_TABLE_NAME), (STATE_DB, STATE_MCLAG_REMOTE_FDB_TABLE_NAME))
ORIGIN_OF = {APP_FDB_TABLE_NAME: PROVISIONED, APP_MCLAG_FDB_TABLE_NAME: PEER}

FDB_EVENT = "fdb_event"
LEARNED, AGED, MOVE, FLUSHED = (f"SAI_FDB_EVENT_{e}" for e in ("LEARNED", "AGED", "MOVE", "FLUSHED"))
BRIDGE_PORT_ID = "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID"
FORWARD, DROP = "SAI_PACKET_ACTION_FORWARD", "SAI_PACKET_ACTION_DROP"
FDB_TYPES = {DYNAMIC: "SAI_FDB_ENTRY_TYPE_DYNAMIC", STATIC: "SAI_FDB_ENTRY_TYPE_STATIC"}
PEER_TYPES = (DYNAMIC, STATIC, DYNAMIC_LOCAL)   # mclagsyncd's


# ---- row type ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class FdbEntry:
    """An FDB_TABLE row (``mac`` in SAI form)."""

    vlan: str
    vid: int
    mac: str
    port: str = ""
    type: str = DYNAMIC
    discard: bool = False
    origin: str = PROVISIONED

    @property
    def ident(self) -> tuple[str, str]:
        return self.vlan, self.mac

    @property
    def state_key(self) -> str:
        """fdborch's STATE_DB key: ``Vlan<id>:`` + MacAddress::to_string() (lower case)."""
        return f"{self.vlan}:{self.mac.lower()}"


def _fdb_type(value: str) -> str:
    if value not in FDB_TYPES:
        raise InvalidEntry(f"{value!r} is not dynamic or static")
    return value


def _peer_type(value: str) -> str:
    if value not in PEER_TYPES:
        raise InvalidEntry(f"{value!r} is not one of {', '.join(PEER_TYPES)}")
    return value


def _port(value: str) -> str:
    if not value:
        raise InvalidEntry("port is empty")
    return value


def _discard(value: str) -> bool:
    return value == "true"      # fdborch: anything but "true" forwards


FIELDS: FieldTable = {"port": ("port", _port), "type": ("type", _fdb_type), "discard": ("discard", _discard)}
PEER_FIELDS: FieldTable = {**FIELDS, "type": ("type", _peer_type)}


@dataclass(frozen=True)
class Installed:
    """An entry in the ASIC: the row, its SAI key and the bridge port it points at."""

    entry: FdbEntry          # as kept (``fdb_origin.stored``)
    key: str
    bridge_port: str

    @property
    def learnt(self) -> bool:
        """Reported by the ASIC (fdb_event), not provisioned in APPL_DB."""
        return self.entry.origin == LEARNT

    @property
    def flushable(self) -> bool:
        return origins.sai_flushable(self.entry.origin, self.entry.type)


@dataclass(frozen=True)
class FdbNotice:
    """One entry of syncd's ``fdb_event`` (null oids as ``""``)."""

    event: str
    key: str             # the entry's SAI key (canonical JSON)
    bvid: str
    mac: str             # SAI form
    bridge_port: str


# ---- parse / plan ------------------------------------------------------------------------------

def parse_key(key: str) -> tuple[str, int, str]:
    """``Vlan<id>:<mac>`` -> (VLAN name, id, MAC in SAI form); raises InvalidEntry."""
    vlan, mac = split_key(key, "Vlan<id>:<mac>")
    return vlan, parse_vlan_name(vlan), to_mac(mac)


def parse(key: str, fvs: tuple[tuple[str, str], ...], origin: str = PROVISIONED) -> FdbEntry:
    """A row of FDB_TABLE (``origin`` provisioned) or MCLAG_FDB_TABLE (``origin`` mclag)."""
    entry = FdbEntry(*parse_key(key), **parse_fields(fvs, PEER_FIELDS if origin == PEER else FIELDS), origin=origin)
    if not entry.port:
        raise InvalidEntry("field 'port' is required")
    return entry


def plan(entry: FdbEntry, vlan_oid: str, target: Bridgeable | None, current: Installed | None,
         switch_id: str) -> Plan[Installed]:
    """Program the entry once its VLAN exists and its port is a member (a set when it changed)."""
    if not vlan_oid:
        return Plan.retry(f"VLAN {entry.vlan} does not exist yet")
    if target is None or entry.vid not in target.vlans or not target.bridge_port:
        return Plan.retry(f"waiting for {entry.port} to become a member of {entry.vlan}")
    origin, type_ = origins.stored(entry.origin, entry.type)
    kept = FdbEntry(entry.vlan, entry.vid, entry.mac, entry.port, type_, entry.discard, origin)
    installed = Installed(kept, fdb_key(entry.mac, vlan_oid, switch_id), target.bridge_port)
    move = ((("SAI_FDB_ENTRY_ATTR_ALLOW_MAC_MOVE", "true"),) if origins.allows_move(entry.origin, entry.type)
            else ())
    attrs = (("SAI_FDB_ENTRY_ATTR_TYPE", origins.sai_type(entry.origin, entry.type)), *move,
             ("SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID", target.bridge_port),
             ("SAI_FDB_ENTRY_ATTR_PACKET_ACTION", DROP if entry.discard else FORWARD))
    if current is None or current.key != installed.key:
        return Plan((SaiOp.create(T.FDB_ENTRY, installed.key, *attrs),), installed)
    if current == installed:
        return Plan((), installed)
    return Plan(tuple(SaiOp.set(T.FDB_ENTRY, installed.key, a, v) for a, v in attrs), installed)


def plan_flush(entries: Iterable[Installed]) -> tuple[SaiOp, ...]:
    return tuple(SaiOp.remove(T.FDB_ENTRY, installed.key) for installed in entries)


def _oid(value: object) -> str:
    return "" if not isinstance(value, str) or value == NULL_OID else value


def parse_notice(item: object) -> FdbNotice:
    """One item of an ``fdb_event`` (sairedis ``sai_serialize_fdb_event_ntf``); raises ValueError."""
    if not isinstance(item, dict):
        raise ValueError("not an object")
    try:
        key = json.loads(str(item.get("fdb_entry", "")))
    except RecursionError:
        raise ValueError("fdb_entry is nested too deep") from None
    attrs = item.get("list") or []
    if not isinstance(key, dict) or not isinstance(attrs, list):
        raise ValueError("fdb_entry is not a JSON object or list is not a list")
    bridge_port = next((a.get("value") for a in attrs if isinstance(a, dict) and a.get("id") == BRIDGE_PORT_ID), "")
    bvid, mac = _oid(key.get("bvid")), to_mac(str(key.get("mac", "")))
    return FdbNotice(str(item.get("fdb_event", "")), fdb_key(mac, bvid, _oid(key.get("switch_id"))), bvid, mac,
                     _oid(bridge_port))


def parse_fdb_event(data: str, problems: list[str] | None = None) -> list[FdbNotice]:
    """The notification's entries; malformed ones are logged, left out and said in ``problems``."""
    try:
        items = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        items = None
    if not isinstance(items, list):
        log.warning("orch.fdb.bad_notification data=%s", data[:200])
        if problems is not None:
            problems.append(f"not a JSON list: {data[:200]!r}")
        return []
    out = []
    for item in items:
        try:
            out.append(parse_notice(item))
        except ValueError as why:
            log.warning("orch.fdb.bad_notification item=%s reason=%s", str(item)[:200], why)
            if problems is not None:
                problems.append(f"item {str(item)[:100]!r}: {why}")
    return out


def plan_learnt(notice: FdbNotice, vlan: str, vid: int, port: str, current: Installed | None) -> Installed | None:
    """fdborch ``update`` for LEARNED and MOVE: the entry to record, None when nothing changes (a
    LEARNED of a MAC already known, a report of where it already is)."""
    if current is not None and current.entry.origin == PEER:    # a local learn takes a peer MAC over
        if notice.event == LEARNED or current.bridge_port != notice.bridge_port:
            return Installed(FdbEntry(vlan, vid, notice.mac, port, DYNAMIC, origin=LEARNT), current.key,
                             notice.bridge_port)
        return None
    if current is not None and (notice.event == LEARNED or current.bridge_port == notice.bridge_port):
        return None
    return Installed(FdbEntry(vlan, vid, notice.mac, port, DYNAMIC, origin=LEARNT), notice.key, notice.bridge_port)


@dataclass(frozen=True)
class FlushRequest:
    """What a FLUSHFDBREQUEST names: a port or LAG and/or a VLAN ("" = any)."""

    port: str = ""
    vlan: str = ""


FLUSH_OPS = ("ALL", "PORT", "VLAN", "PORTVLAN")


def parse_flush_request(op: str, data: str) -> FlushRequest:
    """fdbclear's request -> FlushRequest; raises ValueError for an unknown op or a malformed name."""
    if op == "ALL":
        return FlushRequest()
    if op == "PORT" and data:
        return FlushRequest(port=data)
    if op == "VLAN" and data:
        return FlushRequest(vlan=f"Vlan{data}")
    port, sep, vid = data.partition("|")
    if op == "PORTVLAN" and sep and port and vid:
        return FlushRequest(port=port, vlan=f"Vlan{vid}")
    raise ValueError(f"not a flush request: op={op!r} data={data!r}")


def flush_targets(request: FlushRequest, installed: Iterable[Installed]) -> list[Installed]:
    """The dynamic entries a flush request names (fdborch flushes SAI_FDB_FLUSH_ENTRY_TYPE_DYNAMIC)."""
    return [i for i in installed if i.flushable
            and (not request.port or i.entry.port == request.port)
            and (not request.vlan or i.entry.vlan == request.vlan)]


def flushed(notice: FdbNotice, installed: Iterable[Installed], vlan: str) -> list[Installed]:
    """The dynamic entries a FLUSHED event names (by bridge port and/or VLAN; all when neither)."""
    return [i for i in installed if i.flushable
            and (not notice.bridge_port or i.bridge_port == notice.bridge_port)
            and (not notice.bvid or i.entry.vlan == vlan)]


# ---- the orch ----------------------------------------------------------------------------------

class FdbOrch:
    """Provisioned FDB entries, following VLAN membership and port state."""

    CONSUMES = CONSUMES

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.installed: dict[tuple[str, str], Installed] = {}
        self.held: dict[tuple[str, str], FdbEntry] = {}    # static or peer entries whose port left the VLAN
        self.state = Table(deps.dbs[STATE_DB], STATE_FDB_TABLE_NAME)
        self.peer_state = Table(deps.dbs[STATE_DB], STATE_MCLAG_REMOTE_FDB_TABLE_NAME)
        deps.bus.subscribe(VlanMemberChanged, self._on_member)
        deps.bus.subscribe(OperChanged, self._on_oper)

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        origin = ORIGIN_OF.get(table, PROVISIONED)
        try:
            if task.is_del:
                return self._remove(*parse_key(task.key), origin)
            entry = parse(task.key, task.fvs, origin)
        except InvalidEntry as why:
            return Result.ignored(f"deleted {why}") if task.is_del else Result.invalid(str(why))
        self.held.pop(entry.ident, None)
        return self._install(entry)

    def _install(self, entry: FdbEntry) -> Result:
        vlan = self.deps.registry.get(entry.vlan)
        vlan_oid = vlan.oid if vlan is not None and vlan.kind is Kind.VLAN else ""
        target = snapshot(self.deps.registry, entry.port)
        current = self.installed.get(entry.ident)
        if current is not None and target is not None:
            why = origins.kept(current.entry.origin, current.entry.type, current.bridge_port, entry.origin,
                               entry.type, target.bridge_port)
            if why:
                return Result.ignored(f"{entry.vlan}:{entry.mac}: {why}")
        decided = plan(entry, vlan_oid, target, current, self.deps.switch.switch_id)
        if not decided.go or decided.state is None:
            return decided.result
        result = self.deps.sai.apply(decided.ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        self._record(decided.state, current)
        if entry.origin == PEER and entry.type == DYNAMIC_LOCAL:
            self.peer_state.delete(entry.state_key)
        return Result.success()

    def _record(self, installed: Installed, previous: Installed | None) -> None:
        """Keep the entry and its STATE_DB row: FDB_TABLE for local MACs, MCLAG_REMOTE_FDB_TABLE for the peer's."""
        entry = installed.entry
        self.installed[entry.ident] = installed
        row = {"port": entry.port, "type": entry.type}
        was_local = previous is None or origins.is_local(previous.entry.origin)
        if origins.is_local(entry.origin):
            self.state.set(entry.state_key, row)
            if not was_local:
                self.peer_state.delete(entry.state_key)
        else:
            self.peer_state.set(entry.state_key, row)
            if previous is not None and was_local:
                self.state.delete(entry.state_key)

    def _remove(self, vlan: str, _vid: int, mac: str, origin: str = PROVISIONED) -> Result:
        held = self.held.get((vlan, mac))
        if held is not None and held.origin == origin:
            del self.held[(vlan, mac)]
        current = self.installed.get((vlan, mac))
        if current is None:
            return Result.success() if held else Result.ignored(f"no FDB entry {vlan}:{mac}")
        if current.entry.origin != origin and not self._peer_takes_down(current, origin):
            return Result.ignored(f"{vlan}:{mac} is {current.entry.origin}, not {origin}: kept")
        result = self.deps.sai.apply(plan_flush([current]))
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        self._forget([current], hold_static=False)
        return Result.success()

    def _peer_takes_down(self, current: Installed, origin: str) -> bool:
        """fdborch: the peer's delete removes a local learn on an MCLAG interface that is oper down."""
        port = self.deps.registry.get(current.entry.port)
        return (origin == PEER and current.learnt and port is not None and not port.oper_up
                and self.deps.mlag.is_mclag_interface(port.name))

    # -- FLUSHFDBREQUEST (sonic-clear fdb) ---------------------------------------------------------
    def register(self, runner: Runner) -> None:
        """The flush requests of ``sonic-clear fdb`` (APPL_DB channel FLUSHFDBREQUEST)."""
        self.flush_requests = NotificationConsumer(self.deps.dbs[APPL_DB], APP_FLUSH_FDB_REQUEST_CHANNEL)
        runner.add_selectable(self.flush_requests, self.on_flush_requests, APP_FLUSH_FDB_REQUEST_CHANNEL)

    def on_flush_requests(self) -> None:
        for note in self.flush_requests.pops():
            self.flush_request(note.op, note.data)

    def flush_request(self, op: str, data: str) -> None:
        try:
            request = parse_flush_request(op, data)
        except ValueError as why:
            log.error("orch.fdb.bad_flush_request reason=%s", why)
            return
        missing = self._flush_refusal(request)
        if missing:
            log.error("orch.fdb.flush_request_ignored op=%s data=%s reason=%s", op, data, missing)
            return
        log.info("orch.fdb.flush_request op=%s data=%s", op, data)
        self._flush(flush_targets(request, self.installed.values()), hold_static=False)

    def _flush_refusal(self, request: FlushRequest) -> str:
        """Why fdborch would not flush (unknown port/VLAN, port without bridge port); "" = go."""
        if request.port:
            port = self.deps.registry.get(request.port)
            if port is None or port.kind not in (Kind.PORT, Kind.LAG):
                return f"no port {request.port}"
            if not port.bridge_port:
                return f"{request.port} has no bridge port"
        if request.vlan:
            vlan = self.deps.registry.get(request.vlan)
            if vlan is None or vlan.kind is not Kind.VLAN:
                return f"no VLAN {request.vlan}"
        return ""

    # -- syncd's fdb_event ------------------------------------------------------------------------
    def on_notifications(self, notes: list[Notification]) -> None:
        asic = self.deps.dbs[ASIC_DB]
        for note in notes:
            if note.op == FDB_EVENT:
                problems: list[str] = []
                for notice in parse_fdb_event(note.data, problems):
                    self._on_notice(notice)
                if problems:
                    report_bad_notification(asic, ASIC_NOTIFICATIONS_CHANNEL, FDB_EVENT, "; ".join(problems[:3]))
                else:
                    notification_ok(asic, ASIC_NOTIFICATIONS_CHANNEL, FDB_EVENT)

    def _on_notice(self, notice: FdbNotice) -> None:
        vlan = self.deps.registry.get(self.deps.registry.name_of(notice.bvid) or "") if notice.bvid else None
        vlan_name = vlan.name if vlan is not None and vlan.kind is Kind.VLAN else ""
        if notice.event == FLUSHED:
            self._forget(flushed(notice, list(self.installed.values()), vlan_name), hold_static=False)
        elif notice.event == AGED:
            current = self.installed.get((vlan_name, notice.mac))
            if current is not None and current.entry.origin == PEER:
                self._put_back(current)
            elif current is not None and current.entry.type == DYNAMIC:
                self._forget([current], hold_static=False)
        elif notice.event in (LEARNED, MOVE):
            self._learnt(notice, vlan_name)
        else:
            log.warning("orch.fdb.unknown_event event=%s key=%s", notice.event, notice.key)

    def _learnt(self, notice: FdbNotice, vlan: str) -> None:
        port = self._bridge_port_owner(notice.bridge_port)
        if not vlan or port is None:
            log.error("orch.fdb.learn_unresolved event=%s key=%s bridge_port=%s", notice.event, notice.key,
                      notice.bridge_port)
            return
        current = self.installed.get((vlan, notice.mac))
        recorded = plan_learnt(notice, vlan, parse_vlan_name(vlan), port, current)
        if recorded is None:
            return
        if current is not None and current.entry.origin == PEER:
            ops = origins.learn_over_peer(notice.event == MOVE, current.key, current.bridge_port, notice.bridge_port)
            result = self.deps.sai.apply(ops)
            if not result.ok:
                log.error("orch.fdb.peer_mac_update_failed key=%s:%s status=%s reason=%s", vlan, notice.mac,
                          result.status, result.reason)
        self._record(recorded, current)
        log.info("orch.fdb.learnt event=%s key=%s:%s port=%s", notice.event, vlan, notice.mac, port)

    def _bridge_port_owner(self, bridge_port: str) -> str | None:
        """The port or LAG whose bridge port this is."""
        if not bridge_port:
            return None
        return next((i.name for i in self.deps.registry.interfaces.values()
                     if i.bridge_port == bridge_port and i.kind in (Kind.PORT, Kind.LAG)), None)

    # -- events ----------------------------------------------------------------------------------
    def _on_member(self, event: VlanMemberChanged) -> None:
        if not event.added:
            self._flush([i for i in self.installed.values()
                         if i.entry.vlan == event.vlan and i.entry.port == event.member], hold_static=True)
            return
        for entry in [e for e in self.held.values() if e.vlan == event.vlan and e.port == event.member]:
            result = self._install(entry)
            if result.status is TaskStatus.SUCCESS or result.rejected:
                del self.held[entry.ident]
            if result.rejected:
                log.error("orch.fdb.restore_failed key=%s:%s reason=%s", entry.vlan, entry.mac, result.reason)

    def _put_back(self, current: Installed) -> None:
        """fdborch: an aged peer MAC is created again (the peer still reaches it)."""
        result = self.deps.sai.apply((origins.recreate_peer(current.key, current.bridge_port),))
        if not result.ok and result.status != "SAI_STATUS_ITEM_ALREADY_EXISTS":   # still there: nothing to do
            log.error("orch.fdb.peer_mac_restore_failed key=%s:%s status=%s reason=%s", current.entry.vlan,
                      current.entry.mac, result.status, result.reason)

    def _on_oper(self, event: OperChanged) -> None:
        if event.up:
            return
        if self.deps.mlag.is_mclag_interface(event.name):
            log.info("orch.fdb.no_flush_on_mclag_interface port=%s", event.name)
            return
        self._flush([i for i in self.installed.values() if i.entry.port == event.name and i.flushable],
                    hold_static=True)

    def _flush(self, entries: list[Installed], hold_static: bool) -> None:
        if not entries:
            return
        result = self.deps.sai.apply(plan_flush(entries))
        if not result.ok:
            log.error("orch.fdb.flush_failed entries=%d status=%s reason=%s", len(entries), result.status,
                      result.reason)
            return
        self._forget(entries, hold_static)

    def _forget(self, entries: list[Installed], hold_static: bool) -> None:
        for installed in entries:
            entry = installed.entry
            del self.installed[entry.ident]
            (self.state if origins.is_local(entry.origin) else self.peer_state).delete(entry.state_key)
            if hold_static and (entry.type == STATIC or entry.origin == PEER):
                self.held[entry.ident] = entry
            log.info("orch.fdb.flushed key=%s:%s port=%s", entry.vlan, entry.mac, entry.port)


ORCH = FdbOrch
PRIORITY = 30
