"""Attribute metadata per object type (the part of SAI's metadata this switch uses), and lookups.

A SAI implementation checks requests against this: known object types and attributes, mandatory
and create-only attributes, read-only attributes, value types, and object references.
Areas live in ``meta_port``, ``meta_l2``, ``meta_l3``, ``meta_qos``; this module joins them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from nos.sai.types import ObjectType
from nos.sai.values import VT, AttrMeta, Flag, enum_of

MANDATORY = Flag.MANDATORY
CREATE_ONLY = Flag.CREATE_ONLY
READ_ONLY = Flag.READ_ONLY
NONE = Flag(0)
KEY = Flag.MANDATORY | Flag.CREATE_ONLY

PACKET_ACTIONS = enum_of("SAI_PACKET_ACTION_", "DROP FORWARD COPY COPY_CANCEL TRAP LOG DENY TRANSIT DONOTDROP")


def a(name: str, vt: VT, flags: Flag = NONE, *, types: Iterable[ObjectType] = (), values: frozenset[str] = frozenset(),
      null: bool = False, lo: int | None = None, hi: int | None = None) -> AttrMeta:
    """Declare one attribute (short form for the tables)."""
    return AttrMeta(name, vt, flags, frozenset(types), values, null, lo, hi)


def u(name: str, bits: int, flags: Flag = NONE, lo: int = 0, hi: int | None = None) -> AttrMeta:
    return a(name, VT.UINT, flags, lo=lo, hi=hi if hi is not None else (1 << bits) - 1)


def b(name: str, flags: Flag = NONE) -> AttrMeta:
    return a(name, VT.BOOL, flags)


def oid(name: str, *types: ObjectType, flags: Flag = NONE, null: bool = True) -> AttrMeta:
    return a(name, VT.OID, flags, types=types, null=null)


def e(name: str, prefix: str, names: str, flags: Flag = NONE) -> AttrMeta:
    return a(name, VT.ENUM, flags, values=enum_of(prefix, names))


@dataclass(frozen=True)
class ObjectMeta:
    """An object type: its attributes, and for entry objects the fields of its JSON key."""

    object_type: ObjectType
    attrs: dict[str, AttrMeta]
    key_fields: tuple[str, ...] = ()
    key_refs: tuple[str, ...] = ()  # key fields that hold object ids

    @property
    def is_entry(self) -> bool:
        return bool(self.key_fields)

    def mandatory(self) -> list[str]:
        return [name for name, meta in self.attrs.items() if meta.mandatory]


def obj(object_type: ObjectType, *attrs: AttrMeta, key: tuple[str, ...] = (),
        key_refs: tuple[str, ...] = ()) -> ObjectMeta:
    return ObjectMeta(object_type, {m.name: m for m in attrs}, key, key_refs)


def _registry() -> dict[ObjectType, ObjectMeta]:
    from nos.sai import meta_l2, meta_l3, meta_port, meta_qos

    found: dict[ObjectType, ObjectMeta] = {}
    for module in (meta_port, meta_l2, meta_l3, meta_qos):
        for meta in module.OBJECTS:
            found[meta.object_type] = meta
    return found


_OBJECTS: dict[ObjectType, ObjectMeta] | None = None


def object_meta(object_type: ObjectType) -> ObjectMeta | None:
    """The metadata of an object type, or None when this switch does not implement it."""
    global _OBJECTS  # a lazily built, immutable lookup table (not state)
    if _OBJECTS is None:
        _OBJECTS = _registry()
    return _OBJECTS.get(object_type)
