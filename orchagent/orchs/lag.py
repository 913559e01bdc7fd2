"""LagOrch: APPL_DB LAG_TABLE / LAG_MEMBER_TABLE -> SAI LAGs and LAG members; LAG oper state and MTU.

What portsorch does (``doLagTask``, ``doLagMemberTask``, ``addLag``, ``removeLag``, ``addLagMember``,
``removeLagMember``, ``setCollectionOnLagMember``, ``setDistributionOnLagMember``, ``setLagTpid``):

* ``LAG_TABLE:<lag>`` {admin_status (upstream tests write ``admin``), oper_status, mtu, tpid,
  learn_mode}: the first SET creates an empty ``SAI_OBJECT_TYPE_LAG`` and publishes COUNTERS_DB
  ``COUNTERS_LAG_NAME_MAP``; ``tpid`` (hex, e.g. 0x9200) becomes ``SAI_LAG_ATTR_TPID`` (decimal) when
  it changes; ``learn_mode`` is recorded and applied to the LAG's bridge port (a SAI set when it
  exists, else the VLAN orch creates the bridge port with it, as ``addBridgePort`` uses m_learn_mode);
  ``oper_status`` (as teamsyncd writes it) and ``mtu`` are recorded and announced
  (``OperChanged``, ``MtuChanged``) for the router-interface and next-hop orchs.
* ``LAG_MEMBER_TABLE:<lag>:<port>`` {status enabled|disabled}: a new member is created with LAG_ID
  and PORT_ID (a disabled one also with EGRESS_DISABLE and INGRESS_DISABLE true); then every update
  sets collection and distribution: enabled -> INGRESS_DISABLE false, EGRESS_DISABLE false;
  disabled -> EGRESS_DISABLE true, INGRESS_DISABLE true (that order, as portsorch). A joining port
  takes the LAG's PVID first (``SAI_PORT_ATTR_PORT_VLAN_ID``, 1 while the LAG is in no untagged VLAN;
  not when the LAG or the port is routed: ``addLagMember`` / ``getPortPvid``), and keeps VLAN tags on its
  host interface while the LAG is bridged.
* A member waits while its LAG or port does not exist, while the port is in another LAG, and while the
  port is itself in a VLAN (a VLAN member cannot join a LAG). A LAG is removed once it has no members,
  no bridge port and nothing refers to it (VLAN membership, router interface: ``registry.in_use``).

Registry: a ``Kind.LAG`` entry per LAG (oid, admin_up, oper_up, mtu); ``lag`` on member ports, and one
reference on each member port.

Deviations: a member whose port is unknown waits (portsorch drops it) because ports are created by
another orch and may not exist yet; a LAG name must start with ``PortChannel`` (portsorch accepts any
key) so that it cannot shadow a port in the shared registry; an unknown ``oper_status`` or
``learn_mode`` makes the row INVALID (portsorch logs and skips the field).
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, replace
from typing import Any

from nos.daemon.task import Result
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import sai_bool
from nos.schema.dbconfig import APPL_DB, COUNTERS_DB
from nos.schema.tables import APP_LAG_MEMBER_TABLE_NAME, APP_LAG_TABLE_NAME, COUNTERS_LAG_NAME_MAP
from orchagent.core.deps import OrchDeps
from orchagent.core.events import MtuChanged, OperChanged
from orchagent.core.registry import Interface, Kind
from orchagent.orchs.l2_common import (
    DEFAULT_PVID,
    HOSTIF_TAG_KEEP,
    HOSTIF_TAG_STRIP,
    LEARN_HW,
    UP,
    Bridgeable,
    FieldTable,
    InvalidEntry,
    NewOid,
    Plan,
    hostif_tag_ops,
    learn_mode_op,
    mtu_field,
    parse_fields,
    pvid_op,
    snapshot,
    split_key,
    to_admin,
    to_learn_mode,
)

log = logging.getLogger(__name__)

CONSUMES = ((APPL_DB, APP_LAG_TABLE_NAME), (APPL_DB, APP_LAG_MEMBER_TABLE_NAME))
PRODUCES = ((COUNTERS_DB, COUNTERS_LAG_NAME_MAP),)

LAG_PREFIX = "PortChannel"
DEFAULT_MTU = 9100
OPER_STATUSES = ("up", "down", "testing", "unknown", "dormant", "notpresent", "lowerlayerdown")  # string_oper_status
MEMBER_STATUSES = {"enabled": True, "disabled": False}


# ---- row types ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class LagEntry:
    """A LAG_TABLE row; None = the field was not in this update."""

    name: str
    admin_up: bool | None = None
    oper_up: bool | None = None
    mtu: int | None = None
    tpid: int | None = None
    learn_mode: str | None = None


@dataclass(frozen=True)
class LagMemberEntry:
    """A LAG_MEMBER_TABLE row (no status = disabled, as portsorch)."""

    lag: str
    port: str
    enabled: bool = False


def _oper(value: str) -> bool:
    if value not in OPER_STATUSES:
        raise InvalidEntry(f"{value!r} is not one of {', '.join(OPER_STATUSES)}")
    return value == UP


def _tpid(value: str) -> int:
    digits = value[2:] if value[:2].lower() == "0x" else ""
    try:
        tpid = int(digits, 16)
    except ValueError:
        raise InvalidEntry(f"{value!r} is not a hexadecimal TPID (0x8100)") from None
    if not 0 <= tpid <= 0xFFFF:
        raise InvalidEntry(f"{value!r} is out of range 0x0..0xffff")
    return tpid


def _status(value: str) -> bool:
    if value not in MEMBER_STATUSES:
        raise InvalidEntry(f"{value!r} is not enabled or disabled")
    return MEMBER_STATUSES[value]


LAG_FIELDS: FieldTable = {
    "admin_status": ("admin_up", to_admin),
    "admin": ("admin_up", to_admin),
    "oper_status": ("oper_up", _oper),
    "mtu": ("mtu", mtu_field),
    "tpid": ("tpid", _tpid),
    "learn_mode": ("learn_mode", to_learn_mode),
}
MEMBER_FIELDS: FieldTable = {"status": ("enabled", _status)}


# ---- state -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LagState:
    """A LAG orchagent made."""

    name: str
    oid: str
    admin_up: bool = False
    oper_up: bool = False
    mtu: int = DEFAULT_MTU
    tpid: int = 0
    learn_mode: str = LEARN_HW


@dataclass(frozen=True)
class LagMember:
    lag: str
    port: str
    oid: str
    enabled: bool


# ---- parse -------------------------------------------------------------------------------------

def check_lag_name(name: str) -> str:
    if not name.startswith(LAG_PREFIX) or len(name) == len(LAG_PREFIX):
        raise InvalidEntry(f"{name!r} is not a {LAG_PREFIX}<N> name")
    return name


def parse_lag(key: str, fvs: tuple[tuple[str, str], ...]) -> LagEntry:
    return LagEntry(check_lag_name(key), **parse_fields(fvs, LAG_FIELDS))


def parse_member_key(key: str) -> tuple[str, str]:
    lag, port = split_key(key, "<lag>:<port>")
    return check_lag_name(lag), port


def parse_member(key: str, fvs: tuple[tuple[str, str], ...]) -> LagMemberEntry:
    return LagMemberEntry(*parse_member_key(key), **parse_fields(fvs, MEMBER_FIELDS))


# ---- plan --------------------------------------------------------------------------------------

def plan_lag(entry: LagEntry, current: LagState | None, new_oid: NewOid, bridge_port: str = "") -> Plan[LagState]:
    """Create the LAG (empty), then set what changed: TPID, and the learn mode of its bridge port."""
    ops: list[SaiOp] = []
    state = current
    if state is None:
        state = LagState(entry.name, new_oid(T.LAG))
        ops.append(SaiOp.create(T.LAG, state.oid))
    if entry.tpid and entry.tpid != state.tpid:
        ops.append(SaiOp.set(T.LAG, state.oid, "SAI_LAG_ATTR_TPID", str(entry.tpid)))
    if entry.learn_mode and entry.learn_mode != state.learn_mode and bridge_port:
        ops.append(learn_mode_op(bridge_port, entry.learn_mode))
    updates = {k: v for k, v in asdict(entry).items() if k != "name" and v is not None}
    if entry.tpid == 0:
        del updates["tpid"]   # portsorch ignores TPID 0
    return Plan(tuple(ops), replace(state, **updates))


def plan_lag_removal(current: LagState, members: int, users: int, bridge_port: str) -> Plan[LagState]:
    if members:
        return Plan.retry(f"{current.name} still has {members} member(s)")
    if users or bridge_port:
        return Plan.retry(f"{current.name} is still used by {users} object(s) (VLAN member, router interface)")
    return Plan((SaiOp.remove(T.LAG, current.oid),), current)


def _member_refusal(entry: LagMemberEntry, port: Bridgeable) -> Plan[LagMember] | None:
    if port.kind is not Kind.PORT:
        return Plan.invalid(f"{port.name} is a {port.kind.value}; a LAG member must be a port")
    if port.lag and port.lag != entry.lag:
        return Plan.retry(f"{port.name} is already a member of {port.lag}")
    if port.vlans or port.bridge_port:
        vlans = ",".join(f"Vlan{vid}" for vid in sorted(port.vlans))
        return Plan.retry(f"{port.name} is a VLAN member ({vlans}); it cannot join {entry.lag}")
    return None


def collection_ops(member_oid: str, enabled: bool) -> list[SaiOp]:
    """Enable collection then distribution, or disable distribution then collection."""
    ingress = SaiOp.set(T.LAG_MEMBER, member_oid, "SAI_LAG_MEMBER_ATTR_INGRESS_DISABLE", sai_bool(not enabled))
    egress = SaiOp.set(T.LAG_MEMBER, member_oid, "SAI_LAG_MEMBER_ATTR_EGRESS_DISABLE", sai_bool(not enabled))
    return [ingress, egress] if enabled else [egress, ingress]


def plan_member(entry: LagMemberEntry, lag: Bridgeable, port: Bridgeable, current: LagMember | None,
                new_oid: NewOid) -> Plan[LagMember]:
    """Add ``port`` to the LAG when it is not a member yet, then set its collection/distribution."""
    if current is not None:
        member = replace(current, enabled=entry.enabled)
        return Plan(tuple(collection_ops(member.oid, entry.enabled)), member)
    refused = _member_refusal(entry, port)
    if refused is not None:
        return refused
    member = LagMember(entry.lag, entry.port, new_oid(T.LAG_MEMBER), entry.enabled)
    attrs = [("SAI_LAG_MEMBER_ATTR_LAG_ID", lag.oid), ("SAI_LAG_MEMBER_ATTR_PORT_ID", port.oid)]
    if not entry.enabled:
        attrs += [("SAI_LAG_MEMBER_ATTR_EGRESS_DISABLE", "true"), ("SAI_LAG_MEMBER_ATTR_INGRESS_DISABLE", "true")]
    ops = [SaiOp.create(T.LAG_MEMBER, member.oid, *attrs)]
    if not lag.rif and not port.rif:   # portsorch getPortPvid (no PVID on a routed LAG), setPortPvid (nor port)
        ops.insert(0, pvid_op(port, lag.pvid or DEFAULT_PVID))
    if lag.bridge_port:
        ops += hostif_tag_ops(port.hostifs, HOSTIF_TAG_KEEP)
    return Plan(tuple(ops + collection_ops(member.oid, entry.enabled)), member)


def plan_member_removal(current: LagMember, lag: Bridgeable, port: Bridgeable) -> Plan[LagMember]:
    ops = [SaiOp.remove(T.LAG_MEMBER, current.oid)]
    if lag.bridge_port:
        ops += hostif_tag_ops(port.hostifs, HOSTIF_TAG_STRIP)
    return Plan(tuple(ops), current)


# ---- the orch ----------------------------------------------------------------------------------

class LagOrch:
    """LAGs and their members; other orchs see them through the registry and the event bus."""

    CONSUMES = CONSUMES

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.lags: dict[str, LagState] = {}
        self.members: dict[str, LagMember] = {}     # port -> its membership
        self.counters = deps.dbs[COUNTERS_DB].client

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        try:
            if table == APP_LAG_TABLE_NAME:
                return self._remove_lag(task.key) if task.is_del else self._set_lag(task)
            return self._remove_member(task.key) if task.is_del else self._set_member(task)
        except InvalidEntry as why:
            return Result.invalid(str(why))

    def member_count(self, lag: str) -> int:
        return sum(1 for m in self.members.values() if m.lag == lag)

    # -- LAG_TABLE -------------------------------------------------------------------------------
    def _set_lag(self, task: KeyOpFieldsValues) -> Result:
        entry = parse_lag(task.key, task.fvs)
        registered = self.deps.registry.get(entry.name)
        if registered is not None and registered.kind is not Kind.LAG:
            return Result.invalid(f"{entry.name} is already a {registered.kind.value}")
        bridge_port = registered.bridge_port if registered else ""
        plan = plan_lag(entry, self.lags.get(entry.name), self.deps.sai.alloc, bridge_port)
        failed = self._apply(plan)
        if failed or plan.state is None:
            return failed or plan.result
        self.lags[entry.name] = state = plan.state
        if registered is None:
            registered = self.deps.registry.add(Interface(entry.name, Kind.LAG, state.oid, mtu=state.mtu))
            self.counters.hset(COUNTERS_LAG_NAME_MAP, entry.name, state.oid)
        registered.admin_up = state.admin_up
        registered.learn_mode = state.learn_mode   # the VLAN orch creates the bridge port with it
        if registered.oper_up != state.oper_up:
            registered.oper_up = state.oper_up
            log.info("orch.lag.oper lag=%s status=%s", entry.name, "up" if state.oper_up else "down")
            self.deps.bus.publish(OperChanged(entry.name, state.oper_up))
        if registered.mtu != state.mtu:
            registered.mtu = state.mtu
            self.deps.bus.publish(MtuChanged(entry.name, state.mtu))
        return Result.success()

    def _remove_lag(self, key: str) -> Result:
        current = self.lags.get(key)
        registered = self.deps.registry.get(key)
        if current is None or registered is None:
            return Result.ignored(f"no LAG {key}")
        plan = plan_lag_removal(current, self.member_count(key), self.deps.registry.in_use(key),
                                registered.bridge_port)
        failed = self._apply(plan)
        if failed or not plan.go:
            return failed or plan.result
        del self.lags[key]
        self.deps.registry.remove(key)
        self.counters.hdel(COUNTERS_LAG_NAME_MAP, key)
        return Result.success()

    # -- LAG_MEMBER_TABLE ------------------------------------------------------------------------
    def _set_member(self, task: KeyOpFieldsValues) -> Result:
        entry = parse_member(task.key, task.fvs)
        lag = snapshot(self.deps.registry, entry.lag) if entry.lag in self.lags else None
        if lag is None:
            return Result.retry(f"LAG {entry.lag} does not exist yet")
        port = snapshot(self.deps.registry, entry.port)
        if port is None:
            return Result.retry(f"port {entry.port} does not exist yet")
        current = self.members.get(entry.port)
        if current is not None and current.lag != entry.lag:
            return Result.retry(f"{entry.port} is already a member of {current.lag}")
        plan = plan_member(entry, lag, port, current, self.deps.sai.alloc)
        failed = self._apply(plan)
        if failed or plan.state is None:
            return failed or plan.result
        self.members[entry.port] = plan.state
        if current is None:
            self._joined(entry.port, entry.lag, 0 if lag.rif or port.rif else lag.pvid or DEFAULT_PVID)
        return Result.success()

    def _joined(self, port: str, lag: str, lag_pvid: int) -> None:
        registered = self.deps.registry.get(port)
        assert registered is not None, port
        registered.lag = lag
        if lag_pvid:
            registered.pvid = lag_pvid
        self.deps.registry.ref(port)

    def _remove_member(self, key: str) -> Result:
        lag_name, port_name = parse_member_key(key)
        current = self.members.get(port_name)
        lag = snapshot(self.deps.registry, lag_name)
        port = snapshot(self.deps.registry, port_name)
        if current is None or current.lag != lag_name or lag is None or port is None:
            return Result.ignored(f"{port_name} is not a member of {lag_name}")
        plan = plan_member_removal(current, lag, port)
        failed = self._apply(plan)
        if failed:
            return failed
        del self.members[port_name]
        registered = self.deps.registry.get(port_name)
        if registered is not None:
            registered.lag = ""
        self.deps.registry.unref(port_name)
        return Result.success()

    def _apply(self, plan: Plan[Any]) -> Result | None:
        if not plan.go or not plan.ops:
            return None
        result = self.deps.sai.apply(plan.ops)
        return None if result.ok else Result.failed(f"{result.status} {result.reason}")


ORCH = LagOrch
PRIORITY = 10
