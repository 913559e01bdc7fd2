"""IsoGrpOrch: APPL_DB ISOLATION_GROUP_TABLE -> SAI isolation groups (isolationgrouporch.cpp).

mclagsyncd writes ``ISOLATION_GROUP_TABLE:MCLAG_ISO_GRP`` {DESCRIPTION, TYPE bridge-port, PORTS: the
peer link, MEMBERS: the MCLAG PortChannels}: what arrives over the peer link is not sent out of those
members (the peer delivers it to its own copy of each dual-homed LAG).

* Field names are matched upper-cased; ``TYPE`` is ``port`` or ``bridge-port``; ``PORTS`` and ``MEMBERS``
  are comma-separated interface names.
* The first SET creates ``SAI_OBJECT_TYPE_ISOLATION_GROUP`` {``SAI_ISOLATION_GROUP_ATTR_TYPE``}; a later
  SET with another TYPE is refused (isolationgrouporch: a type change is an error).
* Every member gets ``SAI_OBJECT_TYPE_ISOLATION_GROUP_MEMBER`` {GROUP_ID, ISOLATION_OBJECT: its bridge
  port (bridge-port groups) or its port (port groups)}; every bind port is set
  ``SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP`` (or ``SAI_PORT_ATTR_ISOLATION_GROUP``) to the group. An
  interface that has no bridge port yet (or is not a port, for a port group) is pending, and is added
  when its bridge port is created (``BridgePortChanged``); a member leaving its last VLAN loses its
  member object and its bind first (``VlanMemberChanged``, before the bridge port goes) and is
  pending again. A later SET adds and removes members and binds by difference.
* DEL clears the binds, removes the members, then the group.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from nos.daemon.task import Result
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from nos.sai.types import NULL_OID
from nos.sai.types import ObjectType as T
from nos.schema.dbconfig import APPL_DB
from nos.schema.tables import APP_ISOLATION_GROUP_TABLE_NAME
from orchagent.core.deps import OrchDeps
from orchagent.core.registry import Kind
from orchagent.orchs.l2_common import BridgePortChanged, InvalidEntry, VlanMemberChanged

log = logging.getLogger(__name__)

CONSUMES = ((APPL_DB, APP_ISOLATION_GROUP_TABLE_NAME),)
TYPES = {"port": "SAI_ISOLATION_GROUP_TYPE_PORT", "bridge-port": "SAI_ISOLATION_GROUP_TYPE_BRIDGE_PORT"}


@dataclass(frozen=True)
class GroupEntry:
    name: str
    type: str                          # "port" | "bridge-port"
    description: str = ""
    ports: tuple[str, ...] = ()        # bind points
    members: tuple[str, ...] = ()


def _names(value: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))


def parse(key: str, fvs: tuple[tuple[str, str], ...]) -> GroupEntry:
    fields = {name.upper(): value for name, value in fvs}
    type_ = fields.get("TYPE", "")
    if type_ not in TYPES:
        raise InvalidEntry(f"field 'TYPE': {type_!r} is not port or bridge-port")
    return GroupEntry(key, type_, fields.get("DESCRIPTION", ""), _names(fields.get("PORTS", "")),
                      _names(fields.get("MEMBERS", "")))


@dataclass
class Group:
    entry: GroupEntry
    oid: str
    members: dict[str, str] = field(default_factory=dict)   # interface -> member oid
    bound: dict[str, str] = field(default_factory=dict)     # interface -> the object bound (bridge port / port)


class IsoGrpOrch:
    CONSUMES = CONSUMES

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.groups: dict[str, Group] = {}
        deps.bus.subscribe(BridgePortChanged, self._on_bridge_port)
        deps.bus.subscribe(VlanMemberChanged, self._on_member)

    # -- the table -------------------------------------------------------------------------------
    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            return self._remove(task.key)
        try:
            entry = parse(task.key, task.fvs)
        except InvalidEntry as why:
            return Result.invalid(str(why))
        group = self.groups.get(entry.name)
        if group is not None and group.entry.type != entry.type:
            return Result.invalid(f"field 'TYPE': {entry.name} is a {group.entry.type} group, not {entry.type}")
        if group is None:
            oid = self.deps.sai.alloc(T.ISOLATION_GROUP)
            result = self.deps.sai.apply((SaiOp.create(T.ISOLATION_GROUP, oid,
                                                       ("SAI_ISOLATION_GROUP_ATTR_TYPE", TYPES[entry.type])),))
            if not result.ok:
                return Result.failed(f"{result.status} {result.reason}")
            group = self.groups[entry.name] = Group(entry, oid)
        group.entry = entry
        for name in [n for n in group.members if n not in entry.members]:
            self._drop_member(group, name)
        for name in [n for n in group.bound if n not in entry.ports]:
            self._unbind(group, name)
        self._attach(group)
        return Result.success()

    def _remove(self, name: str) -> Result:
        group = self.groups.get(name)
        if group is None:
            return Result.ignored(f"no isolation group {name}")
        for port in list(group.bound):
            self._unbind(group, port)
        for member in list(group.members):
            self._drop_member(group, member)
        result = self.deps.sai.apply((SaiOp.remove(T.ISOLATION_GROUP, group.oid),))
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        del self.groups[name]
        return Result.success()

    # -- members and binds -----------------------------------------------------------------------
    def _object(self, group: Group, name: str) -> str:
        """What the group refers to for ``name``: its bridge port, or its port oid ("" = not yet)."""
        iface = self.deps.registry.get(name)
        if iface is None:
            return ""
        if group.entry.type == "bridge-port":
            return iface.bridge_port
        return iface.oid if iface.kind is Kind.PORT else ""

    def _attach(self, group: Group) -> None:
        """Add every member and bind that can be added now (the rest stay pending)."""
        for name in group.entry.members:
            obj = self._object(group, name)
            if name in group.members or not obj:
                continue
            oid = self.deps.sai.alloc(T.ISOLATION_GROUP_MEMBER)
            result = self.deps.sai.apply((SaiOp.create(
                T.ISOLATION_GROUP_MEMBER, oid, ("SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_GROUP_ID", group.oid),
                ("SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_OBJECT", obj)),))
            if result.ok:
                group.members[name] = oid
            else:
                log.error("orch.isolation.member_failed group=%s member=%s reason=%s", group.entry.name, name,
                          result.reason)
        for name in group.entry.ports:
            obj = self._object(group, name)
            if name in group.bound or not obj:
                continue
            if self._set_bind(group, obj, group.oid):
                group.bound[name] = obj

    def _set_bind(self, group: Group, obj: str, value: str) -> bool:
        kind, attr = ((T.BRIDGE_PORT, "SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP") if group.entry.type == "bridge-port"
                      else (T.PORT, "SAI_PORT_ATTR_ISOLATION_GROUP"))
        result = self.deps.sai.apply((SaiOp.set(kind, obj, attr, value),))
        if not result.ok:
            log.error("orch.isolation.bind_failed group=%s object=%s reason=%s", group.entry.name, obj, result.reason)
        return result.ok

    def _drop_member(self, group: Group, name: str) -> None:
        oid = group.members.pop(name, "")
        if oid:
            result = self.deps.sai.apply((SaiOp.remove(T.ISOLATION_GROUP_MEMBER, oid),))
            if not result.ok:
                log.error("orch.isolation.member_remove_failed group=%s member=%s reason=%s", group.entry.name, name,
                          result.reason)

    def _unbind(self, group: Group, name: str) -> None:
        obj = group.bound.pop(name, "")
        if obj:
            self._set_bind(group, obj, NULL_OID)

    # -- events ----------------------------------------------------------------------------------
    def _on_bridge_port(self, event: BridgePortChanged) -> None:
        if event.added:
            for group in self.groups.values():
                self._attach(group)

    def _on_member(self, event: VlanMemberChanged) -> None:
        """Before ``event.member`` leaves its last VLAN (its bridge port goes): let go of the bridge port."""
        iface = self.deps.registry.get(event.member)
        if event.added or iface is None or set(iface.vlans) - {event.vid}:
            return
        for group in self.groups.values():
            if group.entry.type == "bridge-port":
                self._unbind(group, event.member)
                self._drop_member(group, event.member)


ORCH = IsoGrpOrch
PRIORITY = 35
