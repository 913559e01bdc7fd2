"""FdbOrch: APPL_DB FDB_TABLE -> SAI FDB entries, and STATE_DB FDB_TABLE for the entries it programs.

What fdborch does for provisioned MACs (``doTask``, ``addFdbEntry``, ``removeFdbEntry``,
``updateVlanMember``, ``updatePortOperState``):

* ``FDB_TABLE:Vlan<id>:<mac>`` {port, type dynamic|static}; the MAC may be written with ``-`` or ``:``.
  The entry is ``SAI_OBJECT_TYPE_FDB_ENTRY`` keyed {bvid: the VLAN's oid, mac: upper case with colons,
  switch_id} with ``SAI_FDB_ENTRY_ATTR_TYPE`` and ``SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID``; a changed port
  or type is a SAI set. STATE_DB ``FDB_TABLE|Vlan<id>:<mac, lower case>`` {port, type} follows.
* It waits (NEED_RETRY) until the VLAN exists and the port (or LAG) is a member of it: fdborch keeps
  such entries in ``saved_fdb_entries`` and retries them when the member joins.
* When a member is about to leave a VLAN its entries there are flushed (removed, STATE_DB row
  deleted): dynamic ones are forgotten, static ones are held and re-programmed when it joins again.
  A port or LAG going oper down flushes its dynamic entries (SAI flush's default entry type).

Learned MACs (syncd ``fdb_event``) are not handled: the simulated ASIC does not report learning yet.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from nos.daemon.task import Result, TaskStatus
from nos.db import Table
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.keys import fdb_key
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.schema.dbconfig import APPL_DB, STATE_DB
from nos.schema.tables import APP_FDB_TABLE_NAME, STATE_FDB_TABLE_NAME
from orchagent.core.deps import OrchDeps
from orchagent.core.events import OperChanged
from orchagent.core.registry import Kind
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

CONSUMES = ((APPL_DB, APP_FDB_TABLE_NAME),)
PRODUCES = ((STATE_DB, STATE_FDB_TABLE_NAME),)

DYNAMIC, STATIC = "dynamic", "static"
FDB_TYPES = {DYNAMIC: "SAI_FDB_ENTRY_TYPE_DYNAMIC", STATIC: "SAI_FDB_ENTRY_TYPE_STATIC"}


# ---- row type ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class FdbEntry:
    """An FDB_TABLE row (``mac`` in SAI form)."""

    vlan: str
    vid: int
    mac: str
    port: str = ""
    type: str = DYNAMIC

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


def _port(value: str) -> str:
    if not value:
        raise InvalidEntry("port is empty")
    return value


FIELDS: FieldTable = {"port": ("port", _port), "type": ("type", _fdb_type)}


@dataclass(frozen=True)
class Installed:
    """An entry in the ASIC: the row, its SAI key and the bridge port it points at."""

    entry: FdbEntry
    key: str
    bridge_port: str


# ---- parse / plan ------------------------------------------------------------------------------

def parse_key(key: str) -> tuple[str, int, str]:
    """``Vlan<id>:<mac>`` -> (VLAN name, id, MAC in SAI form); raises InvalidEntry."""
    vlan, mac = split_key(key, "Vlan<id>:<mac>")
    return vlan, parse_vlan_name(vlan), to_mac(mac)


def parse(key: str, fvs: tuple[tuple[str, str], ...]) -> FdbEntry:
    entry = FdbEntry(*parse_key(key), **parse_fields(fvs, FIELDS))
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
    installed = Installed(entry, fdb_key(entry.mac, vlan_oid, switch_id), target.bridge_port)
    attrs = (("SAI_FDB_ENTRY_ATTR_TYPE", FDB_TYPES[entry.type]),
             ("SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID", target.bridge_port))
    if current is None or current.key != installed.key:
        return Plan((SaiOp.create(T.FDB_ENTRY, installed.key, *attrs),), installed)
    if current == installed:
        return Plan((), installed)
    return Plan(tuple(SaiOp.set(T.FDB_ENTRY, installed.key, a, v) for a, v in attrs), installed)


def plan_flush(entries: Iterable[Installed]) -> tuple[SaiOp, ...]:
    return tuple(SaiOp.remove(T.FDB_ENTRY, installed.key) for installed in entries)


# ---- the orch ----------------------------------------------------------------------------------

class FdbOrch:
    """Provisioned FDB entries, following VLAN membership and port state."""

    CONSUMES = CONSUMES

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.installed: dict[tuple[str, str], Installed] = {}
        self.held: dict[tuple[str, str], FdbEntry] = {}    # static entries whose port left the VLAN
        self.state = Table(deps.dbs[STATE_DB], STATE_FDB_TABLE_NAME)
        deps.bus.subscribe(VlanMemberChanged, self._on_member)
        deps.bus.subscribe(OperChanged, self._on_oper)

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        try:
            if task.is_del:
                return self._remove(*parse_key(task.key))
            entry = parse(task.key, task.fvs)
        except InvalidEntry as why:
            return Result.ignored(f"deleted {why}") if task.is_del else Result.invalid(str(why))
        self.held.pop(entry.ident, None)
        return self._install(entry)

    def _install(self, entry: FdbEntry) -> Result:
        vlan = self.deps.registry.get(entry.vlan)
        vlan_oid = vlan.oid if vlan is not None and vlan.kind is Kind.VLAN else ""
        target = snapshot(self.deps.registry, entry.port)
        decided = plan(entry, vlan_oid, target, self.installed.get(entry.ident), self.deps.switch.switch_id)
        if not decided.go or decided.state is None:
            return decided.result
        result = self.deps.sai.apply(decided.ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        self.installed[entry.ident] = decided.state
        self.state.set(entry.state_key, {"port": entry.port, "type": entry.type})
        return Result.success()

    def _remove(self, vlan: str, _vid: int, mac: str) -> Result:
        held = self.held.pop((vlan, mac), None)
        current = self.installed.get((vlan, mac))
        if current is None:
            return Result.success() if held else Result.ignored(f"no FDB entry {vlan}:{mac}")
        result = self.deps.sai.apply(plan_flush([current]))
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        self._forget([current], hold_static=False)
        return Result.success()

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

    def _on_oper(self, event: OperChanged) -> None:
        if not event.up:
            self._flush([i for i in self.installed.values()
                         if i.entry.port == event.name and i.entry.type == DYNAMIC], hold_static=True)

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
            self.state.delete(entry.state_key)
            if hold_static and entry.type == STATIC:
                self.held[entry.ident] = entry
            log.info("orch.fdb.flushed key=%s:%s port=%s", entry.vlan, entry.mac, entry.port)


ORCH = FdbOrch
PRIORITY = 30
