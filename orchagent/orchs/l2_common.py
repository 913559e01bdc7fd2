"""What the L2 orchs (vlan, lag, fdb) share: field-table parsing, value converters, the ``Plan`` a pure
planner returns, the read-only snapshot of an interface a planner works on, and the L2 events.

Parsing is declarative: a feature module lists ``APPL field -> (entry attribute, converter)`` and
``parse_fields`` turns a row into constructor arguments; a converter raises ``InvalidEntry`` for a
bad value. Fields a table does not list are ignored, as SONiC's orchs ignore them.

Events (published on ``OrchDeps.bus``; SONiC's ``SUBJECT_TYPE_VLAN_MEMBER_CHANGE`` and
``SUBJECT_TYPE_BRIDGE_PORT_CHANGE``): ``VlanMemberChanged`` is published *after* a member joined a
VLAN and *before* a member leaves it (so that FDB entries on its bridge port are flushed first, as
portsorch calls ``flushFDBEntries`` before removing the bridge port); ``BridgePortChanged`` after a
bridge port was created or removed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from nos.daemon.task import Result, TaskStatus
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.core.registry import Interface, Kind, Registry

S = TypeVar("S")
Converter = Callable[[str], Any]
FieldTable = Mapping[str, tuple[str, Converter]]
NewOid = Callable[[T], str]

UP, DOWN = "up", "down"
DEFAULT_PVID = 1                      # portsorch DEFAULT_PORT_VLAN_ID
HOSTIF_TAG_KEEP = "SAI_HOSTIF_VLAN_TAG_KEEP"
HOSTIF_TAG_STRIP = "SAI_HOSTIF_VLAN_TAG_STRIP"
LEARN_HW = "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_HW"
LEARN_MODES = {   # portsorch learn_mode_map: PORT_TABLE / LAG_TABLE learn_mode -> SAI bridge port mode
    "drop": "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DROP",
    "disable": "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_DISABLE",
    "hardware": LEARN_HW,
    "cpu_trap": "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_CPU_TRAP",
    "cpu_log": "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_CPU_LOG",
    "notification": "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_FDB_NOTIFICATION",
}
_MAC = re.compile(r"[0-9A-Fa-f]{2}([-:])[0-9A-Fa-f]{2}(\1[0-9A-Fa-f]{2}){4}")
_DECIMAL = re.compile(r"[0-9]+")


class InvalidEntry(ValueError):
    """Raised by a parser or converter when an APPL_DB row cannot be used (the task is INVALID)."""


# ---- converters ------------------------------------------------------------------------------

def to_int(value: str, lo: int, hi: int) -> int:
    """A decimal integer in ``lo..hi``; raises InvalidEntry."""
    if not _DECIMAL.fullmatch(value) or not lo <= int(value) <= hi:
        raise InvalidEntry(f"{value!r} is not an integer in {lo}..{hi}")
    return int(value)


def to_admin(value: str) -> bool:
    """``up``/``down`` -> bool; raises InvalidEntry."""
    if value not in (UP, DOWN):
        raise InvalidEntry(f"{value!r} is not up or down")
    return value == UP


def to_mac(value: str) -> str:
    """A MAC with ``:`` or ``-`` separators -> the SAI form (upper case, colons); raises InvalidEntry."""
    if not _MAC.fullmatch(value):
        raise InvalidEntry(f"{value!r} is not a MAC address")
    return value.upper().replace("-", ":")


def to_learn_mode(value: str) -> str:
    """A ``learn_mode`` word -> the SAI bridge port learning mode; raises InvalidEntry."""
    if value not in LEARN_MODES:
        raise InvalidEntry(f"{value!r} is not one of {', '.join(LEARN_MODES)}")
    return LEARN_MODES[value]


def mtu_field(value: str) -> int:
    """An interface MTU (sonic-vlan / sonic-portchannel YANG: 1..9216)."""
    return to_int(value, 1, 9216)


def parse_fields(fvs: Iterable[tuple[str, str]], table: FieldTable) -> dict[str, Any]:
    """Constructor arguments from the fields ``table`` knows; raises InvalidEntry naming the field."""
    values: dict[str, Any] = {}
    for name, value in fvs:
        known = table.get(name)
        if known is None:
            continue
        attribute, convert = known
        try:
            values[attribute] = convert(value)
        except InvalidEntry as why:
            raise InvalidEntry(f"field {name!r}: {why}") from None
    return values


def split_key(key: str, what: str) -> tuple[str, str]:
    """``<a>:<b>`` split at the first ``:`` (``b`` may contain more); raises InvalidEntry."""
    first, sep, rest = key.partition(":")
    if not sep or not first or not rest:
        raise InvalidEntry(f"key {key!r} is not {what}")
    return first, rest


# ---- plans -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Plan(Generic[S]):
    """What a pure planner decided: SAI operations, the state to record once they succeed, and the
    task's status (SUCCESS unless a dependency is missing or the data is refused)."""

    ops: tuple[SaiOp, ...] = ()
    state: S | None = None
    result: Result = field(default_factory=Result.success)

    @property
    def go(self) -> bool:
        """True when the ops should be applied (the planner did not refuse)."""
        return self.result.status is TaskStatus.SUCCESS

    @classmethod
    def retry(cls, reason: str) -> Plan[S]:
        return cls(result=Result.retry(reason))

    @classmethod
    def invalid(cls, reason: str) -> Plan[S]:
        return cls(result=Result.invalid(reason))

    @classmethod
    def nothing(cls, reason: str = "") -> Plan[S]:
        return cls(result=Result.ignored(reason))


# ---- the view of an interface ----------------------------------------------------------------

@dataclass(frozen=True)
class Bridgeable:
    """A port or LAG as the L2 planners see it (a snapshot of its registry entry)."""

    name: str
    kind: Kind
    oid: str
    bridge_port: str = ""
    hostifs: tuple[str, ...] = ()          # the port's host interface, or those of the LAG's members
    vlans: frozenset[int] = frozenset()    # VLAN ids it is a member of
    pvid: int = 0
    lag: str = ""                          # for a port: the LAG it is in
    rif: str = ""
    learn_mode: str = LEARN_HW             # the mode its bridge port is created with


def snapshot(registry: Registry, name: str) -> Bridgeable | None:
    """The planners' view of interface ``name`` (None when the registry does not know it)."""
    entry = registry.get(name)
    if entry is None:
        return None
    return Bridgeable(entry.name, entry.kind, entry.oid, entry.bridge_port, _hostifs(registry, entry),
                      frozenset(entry.vlans), entry.pvid, entry.lag, entry.rif, entry.learn_mode or LEARN_HW)


def lag_members(registry: Registry, lag: str) -> list[Interface]:
    return [i for i in registry.of_kind(Kind.PORT) if i.lag == lag]


def _hostifs(registry: Registry, entry: Interface) -> tuple[str, ...]:
    if entry.kind is Kind.LAG:
        return tuple(sorted(m.hostif for m in lag_members(registry, entry.name) if m.hostif))
    return (entry.hostif,) if entry.hostif else ()


def hostif_tag_ops(hostifs: Iterable[str], tag: str) -> list[SaiOp]:
    """portsorch ``setHostIntfsStripTag``: the VLAN tag mode of host interfaces."""
    return [SaiOp.set(T.HOSTIF, hostif, "SAI_HOSTIF_ATTR_VLAN_TAG", tag) for hostif in hostifs]


def learn_mode_op(bridge_port: str, mode: str) -> SaiOp:
    """portsorch ``setBridgePortLearnMode``."""
    return SaiOp.set(T.BRIDGE_PORT, bridge_port, "SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE", mode)


def pvid_op(target: Bridgeable, vid: int) -> SaiOp:
    """portsorch ``setPortPvid``: PORT_VLAN_ID of a port, or of a LAG."""
    if target.kind is Kind.LAG:
        return SaiOp.set(T.LAG, target.oid, "SAI_LAG_ATTR_PORT_VLAN_ID", str(vid))
    return SaiOp.set(T.PORT, target.oid, "SAI_PORT_ATTR_PORT_VLAN_ID", str(vid))


# ---- events ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class VlanMemberChanged:
    """A port or LAG joined (after) or is about to leave (before) a VLAN."""

    vlan: str
    vid: int
    member: str
    bridge_port: str
    added: bool


@dataclass(frozen=True)
class BridgePortChanged:
    """A port's or LAG's bridge port was created (oid set) or removed."""

    name: str
    oid: str
    added: bool
