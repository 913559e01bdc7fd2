"""SAI attribute values in their ASIC_DB text form: building them (orchagent) and checking them
(syncd_sim).

Forms (sairedis SaiSerialize): booleans ``true``/``false``; integers in decimal; enums by name;
object ids ``oid:0x..``; lists ``<count>:<a>,<b>`` (empty ``0:null``); MACs upper-case with colons;
IP addresses as text; QoS maps as JSON ``{"count":n,"list":[{"key":{..},"value":{..}}]}``.
"""

from __future__ import annotations

import enum
import ipaddress
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from nos.sai.types import NULL_OID, ObjectType, oid_type

_MAC = re.compile(r"[0-9A-F]{2}(:[0-9A-F]{2}){5}")


# ---- building ---------------------------------------------------------------------------------

def sai_bool(value: bool) -> str:
    return "true" if value else "false"


def sai_list(items: Iterable[object]) -> str:
    values = [str(item) for item in items]
    return f"{len(values)}:{','.join(values)}" if values else "0:null"


def sai_mac(mac: str) -> str:
    return mac.upper().replace("-", ":")


# ---- parsing ----------------------------------------------------------------------------------

def parse_list(text: str) -> list[str]:
    """``3:a,b,c`` -> [a, b, c]; raises ValueError when the count does not match."""
    count, sep, rest = text.partition(":")
    if not sep or not count.isdecimal():
        raise ValueError(f"not a SAI list: {text!r}")
    n = int(count)
    if n == 0:
        if rest not in ("", "null"):
            raise ValueError(f"list count 0 but items given: {text!r}")
        return []
    items = rest.split(",")
    if len(items) != n:
        raise ValueError(f"list count {n} but {len(items)} items: {text!r}")
    return items


def parse_bool(text: str) -> bool:
    if text not in ("true", "false"):
        raise ValueError(f"not a boolean: {text!r}")
    return text == "true"


# ---- value types ------------------------------------------------------------------------------

class VT(enum.Enum):
    """Attribute value types."""

    BOOL = "bool"
    UINT = "uint"
    INT = "int"
    ENUM = "enum"
    ENUM_LIST = "enum_list"
    OID = "oid"
    OID_LIST = "oid_list"
    UINT_LIST = "uint_list"
    INT_LIST = "int_list"
    MAC = "mac"
    IP = "ip"
    CHARDATA = "chardata"
    QOS_MAP = "qos_map"
    POINTER = "pointer"


class Flag(enum.Flag):
    MANDATORY = enum.auto()   # mandatory on create
    CREATE_ONLY = enum.auto()
    READ_ONLY = enum.auto()


@dataclass(frozen=True)
class AttrMeta:
    """One attribute: its type and what a SAI implementation checks about it."""

    name: str
    vt: VT
    flags: Flag = Flag(0)
    object_types: frozenset[ObjectType] = frozenset()
    enum_values: frozenset[str] = frozenset()
    allow_null: bool = False
    lo: int | None = None
    hi: int | None = None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def mandatory(self) -> bool:
        return Flag.MANDATORY in self.flags

    @property
    def create_only(self) -> bool:
        return Flag.CREATE_ONLY in self.flags

    @property
    def read_only(self) -> bool:
        return Flag.READ_ONLY in self.flags

    def problem(self, text: str) -> str | None:
        """Why ``text`` is not a valid value of this attribute, or None."""
        try:
            _CHECKERS[self.vt](self, text)
        except ValueError as exc:
            return f"{self.name}={text!r}: {exc}"
        return None

    def references(self, text: str) -> list[str]:
        """Object ids this value points at (not the null object)."""
        if self.vt is VT.OID:
            return [] if text == NULL_OID else [text]
        if self.vt is VT.OID_LIST:
            return [oid for oid in parse_list(text) if oid != NULL_OID]
        return []


def _check_int(meta: AttrMeta, text: str, signed: bool) -> None:
    if not re.fullmatch(r"-?\d+" if signed else r"\d+", text):
        raise ValueError("not a number" if signed else "not an unsigned number")
    value = int(text)
    if (meta.lo is not None and value < meta.lo) or (meta.hi is not None and value > meta.hi):
        raise ValueError(f"out of range {meta.lo}..{meta.hi}")


def _check_oid(meta: AttrMeta, text: str) -> None:
    if text == NULL_OID:
        if not meta.allow_null:
            raise ValueError("the null object is not allowed here")
        return
    kind = oid_type(text)
    if kind is None or (meta.object_types and kind not in meta.object_types):
        allowed = ", ".join(sorted(t.name for t in meta.object_types))
        raise ValueError(f"must be an object id of type {allowed}")


def _check_enum(meta: AttrMeta, text: str) -> None:
    if text not in meta.enum_values:
        raise ValueError(f"not one of {', '.join(sorted(meta.enum_values))}")



def _check_mac(meta: AttrMeta, text: str) -> None:
    if not _MAC.fullmatch(text):
        raise ValueError("not an upper-case MAC address")


def _check_ip(meta: AttrMeta, text: str) -> None:
    ipaddress.ip_address(text)


def _check_qos_map(meta: AttrMeta, text: str) -> None:
    try:
        data = json.loads(text)
    except RecursionError:  # nested deeper than the parser goes: not a map either
        raise ValueError("not a QoS map list {count, list}: nested too deep") from None
    if not isinstance(data, dict) or not isinstance(data.get("list"), list) or data.get("count") != len(data["list"]):
        raise ValueError("not a QoS map list {count, list}")


Checker = Callable[[AttrMeta, str], object]


def _check_list_of(check: Checker) -> Checker:
    def run(meta: AttrMeta, text: str) -> None:
        for item in parse_list(text):
            check(meta, item)
    return run


_CHECKERS: dict[VT, Checker] = {
    VT.BOOL: lambda meta, text: parse_bool(text),
    VT.UINT: lambda meta, text: _check_int(meta, text, False),
    VT.INT: lambda meta, text: _check_int(meta, text, True),
    VT.ENUM: _check_enum,
    VT.ENUM_LIST: _check_list_of(_check_enum),
    VT.OID: _check_oid,
    VT.OID_LIST: _check_list_of(_check_oid),
    VT.UINT_LIST: _check_list_of(lambda meta, item: _check_int(meta, item, False)),
    VT.INT_LIST: _check_list_of(lambda meta, item: _check_int(meta, item, True)),
    VT.MAC: _check_mac,
    VT.IP: _check_ip,
    VT.CHARDATA: lambda meta, text: None,
    VT.QOS_MAP: _check_qos_map,
    VT.POINTER: lambda meta, text: None,
}


def enum_of(prefix: str, names: str | Sequence[str]) -> frozenset[str]:
    """``enum_of("SAI_PORT_FEC_MODE_", "NONE RS FC")`` -> the full enum names."""
    items = names.split() if isinstance(names, str) else names
    return frozenset(prefix + name for name in items)
