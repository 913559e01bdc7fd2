"""SaiOp: one request an orch wants made of the ASIC (what sairedis sends on ASIC_STATE).

Attribute values are already in their ASIC_DB text form (``nos.sai.values`` builds them), so a
plan's golden test compares exactly what reaches the database.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from nos.sai.types import ObjectType

Attrs = tuple[tuple[str, str], ...]


class OpKind(enum.Enum):
    CREATE = "create"
    SET = "set"
    REMOVE = "remove"
    GET = "get"


@dataclass(frozen=True, slots=True)
class SaiOp:
    """create/set/remove/get of one object; ``object_id`` is an OID or an entry JSON key."""

    kind: OpKind
    object_type: ObjectType
    object_id: str
    attrs: Attrs = ()

    @classmethod
    def create(cls, object_type: ObjectType, object_id: str, *attrs: tuple[str, str]) -> SaiOp:
        return cls(OpKind.CREATE, object_type, object_id, tuple(attrs))

    @classmethod
    def set(cls, object_type: ObjectType, object_id: str, attr: str, value: str) -> SaiOp:
        return cls(OpKind.SET, object_type, object_id, ((attr, value),))

    @classmethod
    def remove(cls, object_type: ObjectType, object_id: str) -> SaiOp:
        return cls(OpKind.REMOVE, object_type, object_id, ())

    @classmethod
    def get(cls, object_type: ObjectType, object_id: str, *attr_names: str) -> SaiOp:
        return cls(OpKind.GET, object_type, object_id, tuple((name, "") for name in attr_names))
