"""VlanOrch: APPL_DB VLAN_TABLE / VLAN_MEMBER_TABLE -> SAI VLANs, bridge ports and VLAN members.

What portsorch does (``doVlanTask``, ``doVlanMemberTask``, ``addVlan``, ``addBridgePort``,
``addVlanMember``, ``removeVlanMember``, ``removeBridgePort``, ``removeVlan``):

* ``VLAN_TABLE:Vlan<id>`` {admin_status, mtu, mac, host_ifname} creates ``SAI_OBJECT_TYPE_VLAN``
  {``SAI_VLAN_ATTR_VLAN_ID``}; ``mtu`` is remembered and followed by the VLAN's router interface
  (``MtuChanged``); a non-empty ``host_ifname`` creates a netdev host interface on the VLAN
  {TYPE NETDEV, OBJ_ID the VLAN, NAME (at most 15 characters), QUEUE 7}, once (a later name is ignored,
  as portsorch refuses a second host interface), removed with the VLAN.
  ``Vlan1`` is the switch's default VLAN: it is adopted, never created or removed.
* ``VLAN_MEMBER_TABLE:Vlan<id>:<port|lag>`` {tagging_mode (default untagged)}: the port or LAG gets a
  bridge port on the default 1Q bridge when it joins its first VLAN (TYPE PORT, PORT_ID, ADMIN_STATE
  true, FDB_LEARNING_MODE HW) and its host interfaces keep VLAN tags; then a VLAN member {VLAN_ID,
  BRIDGE_PORT_ID, VLAN_TAGGING_MODE}; untagged also sets the PVID (``SAI_PORT_ATTR_PORT_VLAN_ID`` or
  ``SAI_LAG_ATTR_PORT_VLAN_ID``). Leaving restores PVID 1 (when it was untagged); leaving the last
  VLAN sets the bridge port admin down, strips tags on the host interfaces and removes the bridge port.
* The bridge port is created with the port's or LAG's learn mode (``learn_mode`` of APPL_DB
  PORT_TABLE / LAG_TABLE, default hardware). A port's ``learn_mode`` is read from the PORT_TABLE rows
  as orchagent's consumer leaves them (a subscription next to PortOrch's consumer): it is recorded, and
  set on the bridge port when there is one (portsorch ``doPortTask`` / ``setBridgePortLearnMode``).
* A member waits (NEED_RETRY) until its VLAN and its port/LAG exist, while the port is in a LAG, and
  while the interface is routed (portsorch: "Cannot create bridge port, interface is a router port").
  A VLAN is removed only once it has no members and nothing refers to it (a router interface:
  ``registry.in_use``).

Registry: a ``Kind.VLAN`` entry per VLAN (oid, mtu, admin_up); on each member ``bridge_port``,
``vlans`` (vid -> tagging mode) and ``pvid``, and one reference per membership, so that the port or
LAG is not deleted under it.

Deviations: a tagging-mode change of an existing member is applied (a SAI set of the member's
``VLAN_TAGGING_MODE`` and the PVID) where portsorch ignores a duplicate member; the VLAN ``mac`` is
recorded but not pushed to the router interface (no event carries it yet).
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass, replace
from typing import Any

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import SubscriberStateTable
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import sai_bool
from nos.schema.dbconfig import APPL_DB
from nos.schema.tables import APP_PORT_TABLE_NAME, APP_VLAN_MEMBER_TABLE_NAME, APP_VLAN_TABLE_NAME
from orchagent.core.deps import OrchDeps
from orchagent.core.events import MtuChanged
from orchagent.core.registry import Interface, Kind
from orchagent.orchs.l2_common import (
    DEFAULT_PVID,
    HOSTIF_TAG_KEEP,
    HOSTIF_TAG_STRIP,
    LEARN_HW,
    Bridgeable,
    BridgePortChanged,
    FieldTable,
    InvalidEntry,
    NewOid,
    Plan,
    VlanMemberChanged,
    hostif_tag_ops,
    learn_mode_op,
    mtu_field,
    parse_fields,
    pvid_op,
    snapshot,
    split_key,
    to_admin,
    to_learn_mode,
    to_mac,
)

log = logging.getLogger(__name__)

CONSUMES = ((APPL_DB, APP_VLAN_TABLE_NAME), (APPL_DB, APP_VLAN_MEMBER_TABLE_NAME))
READS = ((APPL_DB, APP_PORT_TABLE_NAME),)   # its learn_mode, subscribed in ``register`` beside PortOrch's consumer
PRODUCES: tuple[tuple[str, str], ...] = ()   # ASIC_DB only (through sairedis)

DEFAULT_VID = 1
DEFAULT_MTU = 9100
UNTAGGED = "untagged"
TAGGING_MODES = {
    "untagged": "SAI_VLAN_TAGGING_MODE_UNTAGGED",
    "tagged": "SAI_VLAN_TAGGING_MODE_TAGGED",
    "priority_tagged": "SAI_VLAN_TAGGING_MODE_PRIORITY_TAGGED",
}
HOSTIF_NAME_SIZE = 16                  # saihostif.h SAI_HOSTIF_NAME_SIZE (includes the NUL)
DEFAULT_HOSTIF_TX_QUEUE = 7            # portsorch.cpp DEFAULT_HOSTIF_TX_QUEUE
RECORDED = ("admin_up", "mtu", "mac")    # VLAN_TABLE fields kept in the VLAN's state
_VLAN_NAME = re.compile(r"Vlan([1-9][0-9]{0,3})")


# ---- row types ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class VlanEntry:
    """A VLAN_TABLE row; None = the field was not in this update."""

    name: str
    vid: int
    admin_up: bool | None = None
    mtu: int | None = None
    mac: str | None = None
    host_ifname: str | None = None


@dataclass(frozen=True)
class MemberEntry:
    """A VLAN_MEMBER_TABLE row."""

    vlan: str
    vid: int
    member: str
    mode: str = UNTAGGED


def _tagging_mode(value: str) -> str:
    if value not in TAGGING_MODES:
        raise InvalidEntry(f"{value!r} is not one of {', '.join(TAGGING_MODES)}")
    return value


VLAN_FIELDS: FieldTable = {
    "admin_status": ("admin_up", to_admin),
    "mtu": ("mtu", mtu_field),
    "mac": ("mac", to_mac),
    "host_ifname": ("host_ifname", str),
}
MEMBER_FIELDS: FieldTable = {"tagging_mode": ("mode", _tagging_mode)}


# ---- state -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class VlanState:
    """A VLAN orchagent made (or adopted)."""

    name: str
    vid: int
    oid: str
    admin_up: bool = True
    mtu: int = DEFAULT_MTU
    mac: str = ""
    hostif: str = ""
    builtin: bool = False


@dataclass(frozen=True)
class VlanMember:
    """One membership: the SAI VLAN member of ``member`` (a port or LAG) in ``vlan``."""

    vlan: str
    vid: int
    member: str
    oid: str
    mode: str
    bridge_port: str


@dataclass(frozen=True)
class MemberChange:
    """What a member plan changes on the port/LAG: its membership, bridge port ('' = none) and PVID."""

    member: VlanMember
    bridge_port: str
    pvid: int | None = None


# ---- parse -------------------------------------------------------------------------------------

def parse_vlan_name(name: str) -> int:
    """``Vlan<1..4094>`` -> the VLAN id; raises InvalidEntry."""
    match = _VLAN_NAME.fullmatch(name)
    if match is None or int(match.group(1)) > 4094:
        raise InvalidEntry(f"{name!r} is not Vlan<1..4094>")
    return int(match.group(1))


def parse_vlan(key: str, fvs: tuple[tuple[str, str], ...]) -> VlanEntry:
    return VlanEntry(key, parse_vlan_name(key), **parse_fields(fvs, VLAN_FIELDS))


def parse_member_key(key: str) -> tuple[str, int, str]:
    vlan, member = split_key(key, "Vlan<id>:<port>")
    return vlan, parse_vlan_name(vlan), member


def parse_member(key: str, fvs: tuple[tuple[str, str], ...]) -> MemberEntry:
    vlan, vid, member = parse_member_key(key)
    return MemberEntry(vlan, vid, member, **parse_fields(fvs, MEMBER_FIELDS))


# ---- plan --------------------------------------------------------------------------------------

def plan_vlan(entry: VlanEntry, current: VlanState | None, new_oid: NewOid, default_vlan: str) -> Plan[VlanState]:
    """Create the VLAN (or adopt the default one) and its host interface; record the fields."""
    ops: list[SaiOp] = []
    state = current
    if state is None:
        if entry.vid == DEFAULT_VID:
            state = VlanState(entry.name, entry.vid, default_vlan, builtin=True)
        else:
            state = VlanState(entry.name, entry.vid, new_oid(T.VLAN))
            ops.append(SaiOp.create(T.VLAN, state.oid, ("SAI_VLAN_ATTR_VLAN_ID", str(entry.vid))))
    updates = {k: v for k, v in asdict(entry).items() if k in RECORDED and v is not None}
    state = replace(state, **updates)
    if entry.host_ifname and not state.hostif:
        state = replace(state, hostif=new_oid(T.HOSTIF))
        ops.append(SaiOp.create(T.HOSTIF, state.hostif, *vlan_hostif_attrs(state.oid, entry.host_ifname)))
    return Plan(tuple(ops), state)


def vlan_hostif_attrs(vlan_oid: str, name: str) -> tuple[tuple[str, str], ...]:
    """portsorch ``createVlanHostIntf``: a netdev on the VLAN, its name cut to what SAI holds
    (SAI_HOSTIF_NAME_SIZE 16 with the NUL), sending on the default host-interface TX queue."""
    return (("SAI_HOSTIF_ATTR_TYPE", "SAI_HOSTIF_TYPE_NETDEV"), ("SAI_HOSTIF_ATTR_OBJ_ID", vlan_oid),
            ("SAI_HOSTIF_ATTR_NAME", name[:HOSTIF_NAME_SIZE - 1]),
            ("SAI_HOSTIF_ATTR_QUEUE", str(DEFAULT_HOSTIF_TX_QUEUE)))


def plan_vlan_removal(current: VlanState, members: int, users: int) -> Plan[VlanState]:
    """Remove an empty, unreferenced VLAN (and its host interface)."""
    if members:
        return Plan.retry(f"{current.name} still has {members} member(s)")
    if users:
        return Plan.retry(f"{current.name} is still used by {users} object(s) (router interface)")
    ops = [SaiOp.remove(T.HOSTIF, current.hostif)] if current.hostif else []
    if not current.builtin:
        ops.append(SaiOp.remove(T.VLAN, current.oid))
    return Plan(tuple(ops), current)


def _member_refusal(target: Bridgeable) -> Plan[MemberChange] | None:
    if target.kind not in (Kind.PORT, Kind.LAG):
        return Plan.invalid(f"{target.name} is a {target.kind.value}, not a port or LAG")
    if target.lag:
        return Plan.retry(f"{target.name} is a member of {target.lag}")
    if target.rif:
        return Plan.retry(f"{target.name} is a router interface")
    return None


def plan_member(entry: MemberEntry, vlan: VlanState, target: Bridgeable, current: VlanMember | None,
                new_oid: NewOid) -> Plan[MemberChange]:
    """Join ``target`` to the VLAN (bridge port first when it has none), or change its tagging mode."""
    if current is not None:
        return _retag(entry, target, current)
    refused = _member_refusal(target)
    if refused is not None:
        return refused
    ops: list[SaiOp] = []
    bridge_port = target.bridge_port
    if not bridge_port:
        bridge_port = new_oid(T.BRIDGE_PORT)
        ops.append(SaiOp.create(
            T.BRIDGE_PORT, bridge_port, ("SAI_BRIDGE_PORT_ATTR_TYPE", "SAI_BRIDGE_PORT_TYPE_PORT"),
            ("SAI_BRIDGE_PORT_ATTR_PORT_ID", target.oid), ("SAI_BRIDGE_PORT_ATTR_ADMIN_STATE", sai_bool(True)),
            ("SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE", target.learn_mode)))
        ops += hostif_tag_ops(target.hostifs, HOSTIF_TAG_KEEP)
    member = VlanMember(entry.vlan, entry.vid, entry.member, new_oid(T.VLAN_MEMBER), entry.mode, bridge_port)
    ops.append(SaiOp.create(T.VLAN_MEMBER, member.oid, ("SAI_VLAN_MEMBER_ATTR_VLAN_ID", vlan.oid),
                            ("SAI_VLAN_MEMBER_ATTR_BRIDGE_PORT_ID", bridge_port),
                            ("SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE", TAGGING_MODES[entry.mode])))
    pvid = entry.vid if entry.mode == UNTAGGED else None
    if pvid is not None:
        ops.append(pvid_op(target, pvid))
    return Plan(tuple(ops), MemberChange(member, bridge_port, pvid))


def _retag(entry: MemberEntry, target: Bridgeable, current: VlanMember) -> Plan[MemberChange]:
    if entry.mode == current.mode:
        return Plan.nothing(f"{entry.member} is already in {entry.vlan} ({entry.mode})")
    ops = [SaiOp.set(T.VLAN_MEMBER, current.oid, "SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE", TAGGING_MODES[entry.mode])]
    pvid = None
    if entry.mode == UNTAGGED:
        pvid = entry.vid
    elif current.mode == UNTAGGED:
        pvid = DEFAULT_PVID
    if pvid is not None:
        ops.append(pvid_op(target, pvid))
    return Plan(tuple(ops), MemberChange(replace(current, mode=entry.mode), current.bridge_port, pvid))


def plan_member_removal(target: Bridgeable, current: VlanMember) -> Plan[MemberChange]:
    """Leave the VLAN; the last VLAN also takes the bridge port (admin down, tags stripped, removed)."""
    ops = [SaiOp.remove(T.VLAN_MEMBER, current.oid)]
    pvid = DEFAULT_PVID if current.mode == UNTAGGED else None
    if pvid is not None:
        ops.append(pvid_op(target, pvid))
    bridge_port = current.bridge_port
    if target.vlans <= {current.vid}:
        ops.append(SaiOp.set(T.BRIDGE_PORT, bridge_port, "SAI_BRIDGE_PORT_ATTR_ADMIN_STATE", sai_bool(False)))
        ops += hostif_tag_ops(target.hostifs, HOSTIF_TAG_STRIP)
        ops.append(SaiOp.remove(T.BRIDGE_PORT, bridge_port))
        bridge_port = ""
    return Plan(tuple(ops), MemberChange(current, bridge_port, pvid))


def plan_port_learn_mode(bridge_port: str, current: str, wanted: str) -> tuple[SaiOp, ...]:
    """A port's new learn mode: a set on its bridge port when it has one and the mode changes."""
    return (learn_mode_op(bridge_port, wanted),) if bridge_port and wanted != current else ()


# ---- the orch ----------------------------------------------------------------------------------

class VlanOrch:
    """VLANs and their members; other orchs see them through the registry."""

    CONSUMES = CONSUMES

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.vlans: dict[str, VlanState] = {}
        self.members: dict[tuple[str, str], VlanMember] = {}

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        try:
            if table == APP_VLAN_TABLE_NAME:
                return self._remove_vlan(task.key) if task.is_del else self._set_vlan(task)
            return self._remove_member(task.key) if task.is_del else self._set_member(task)
        except InvalidEntry as why:
            return Result.invalid(str(why))

    def member_count(self, vlan: str) -> int:
        return sum(1 for name, _ in self.members if name == vlan)

    def register(self, runner: Runner) -> None:
        """PORT_TABLE rows as orchagent's consumer leaves them: the ports' ``learn_mode``."""
        source = SubscriberStateTable(self.deps.dbs[APPL_DB], APP_PORT_TABLE_NAME)
        runner.add_consumer(TableConsumer(APPL_DB, APP_PORT_TABLE_NAME, source, self.handle_port_row))

    def handle_port_row(self, task: KeyOpFieldsValues) -> Result:
        if task.is_del or "learn_mode" not in task.fields:
            return Result.ignored()
        try:
            wanted = to_learn_mode(task.fields["learn_mode"])
        except InvalidEntry as why:
            return Result.invalid(f"field 'learn_mode': {why}")
        entry = self.deps.registry.get(task.key)
        if entry is None:
            return Result.retry(f"port {task.key} does not exist yet")
        if entry.kind is not Kind.PORT:
            return Result.ignored(f"{task.key} is a {entry.kind.value}")
        ops = plan_port_learn_mode(entry.bridge_port, entry.learn_mode or LEARN_HW, wanted)
        if ops:
            result = self.deps.sai.apply(ops)
            if not result.ok:
                return Result.failed(f"{result.status} {result.reason}")
        entry.learn_mode = wanted
        return Result.success()

    # -- VLAN_TABLE ------------------------------------------------------------------------------
    def _set_vlan(self, task: KeyOpFieldsValues) -> Result:
        entry = parse_vlan(task.key, task.fvs)
        current = self.vlans.get(entry.name)
        plan = plan_vlan(entry, current, self.deps.sai.alloc, self.deps.switch.default_vlan)
        failed = self._apply(plan)
        if failed or plan.state is None:
            return failed or plan.result
        self.vlans[entry.name] = plan.state
        registered = self.deps.registry.get(entry.name)
        if registered is None:
            registered = self.deps.registry.add(Interface(entry.name, Kind.VLAN, plan.state.oid))
            registered.mtu = plan.state.mtu
        registered.admin_up = plan.state.admin_up
        if registered.mtu != plan.state.mtu:
            registered.mtu = plan.state.mtu
            self.deps.bus.publish(MtuChanged(entry.name, plan.state.mtu))
        return Result.success()

    def _remove_vlan(self, key: str) -> Result:
        current = self.vlans.get(key)
        if current is None:
            return Result.ignored(f"no VLAN {key}")
        plan = plan_vlan_removal(current, self.member_count(key), self.deps.registry.in_use(key))
        failed = self._apply(plan)
        if failed or not plan.go:
            return failed or plan.result
        del self.vlans[key]
        self.deps.registry.remove(key)
        return Result.success()

    # -- VLAN_MEMBER_TABLE -----------------------------------------------------------------------
    def _set_member(self, task: KeyOpFieldsValues) -> Result:
        entry = parse_member(task.key, task.fvs)
        vlan = self.vlans.get(entry.vlan)
        if vlan is None:
            return Result.retry(f"VLAN {entry.vlan} does not exist yet")
        target = snapshot(self.deps.registry, entry.member)
        if target is None:
            return Result.retry(f"{entry.member} does not exist yet")
        current = self.members.get((entry.vlan, entry.member))
        plan = plan_member(entry, vlan, target, current, self.deps.sai.alloc)
        failed = self._apply(plan)
        if failed or plan.state is None:
            return failed or plan.result
        self._commit(plan.state, joined=current is None)
        return Result.success()

    def _remove_member(self, key: str) -> Result:
        vlan, _, member = parse_member_key(key)
        current = self.members.get((vlan, member))
        target = snapshot(self.deps.registry, member)
        if current is None or target is None:
            return Result.ignored(f"{member} is not a member of {vlan}")
        self.deps.bus.publish(VlanMemberChanged(vlan, current.vid, member, current.bridge_port, added=False))
        plan = plan_member_removal(target, current)
        failed = self._apply(plan)
        if failed or plan.state is None:
            return failed or plan.result
        self._commit(plan.state, joined=False, left=True)
        return Result.success()

    def _commit(self, change: MemberChange, joined: bool, left: bool = False) -> None:
        member = change.member
        entry = self.deps.registry.get(member.member)
        assert entry is not None, member.member
        created = not entry.bridge_port and change.bridge_port
        removed = entry.bridge_port and not change.bridge_port
        entry.bridge_port = change.bridge_port
        entry.pvid = change.pvid if change.pvid is not None else entry.pvid
        if left:
            entry.vlans.pop(member.vid, None)
            del self.members[(member.vlan, member.member)]
            self.deps.registry.unref(member.member)
        else:
            entry.vlans[member.vid] = member.mode
            self.members[(member.vlan, member.member)] = member
            if joined:
                self.deps.registry.ref(member.member)
        if created or removed:
            self.deps.bus.publish(BridgePortChanged(member.member, member.bridge_port, added=bool(created)))
        if joined:
            self.deps.bus.publish(VlanMemberChanged(member.vlan, member.vid, member.member, member.bridge_port, True))

    def _apply(self, plan: Plan[Any]) -> Result | None:
        """Apply a plan's ops; the failure, or None when they succeeded (or there was nothing to do)."""
        if not plan.go or not plan.ops:
            return None
        result = self.deps.sai.apply(plan.ops)
        return None if result.ok else Result.failed(f"{result.status} {result.reason}")


ORCH = VlanOrch
PRIORITY = 20
