"""The value type that flows between tables and consumers: (key, op, field-values)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

SET_COMMAND = "SET"
DEL_COMMAND = "DEL"

FieldValues = tuple[tuple[str, str], ...]


def as_fvs(fields: Mapping[str, str] | Iterable[tuple[str, str]]) -> FieldValues:
    """Field-value pairs in a stable tuple form (order preserved, as swss-common's vector)."""
    items = fields.items() if isinstance(fields, Mapping) else fields
    return tuple((str(f), str(v)) for f, v in items)


class KeyOpFieldsValues(NamedTuple):
    """One change of one row: swss-common's ``KeyOpFieldsValuesTuple`` (a NamedTuple: cheap to build
    on the pop path, immutable, and compares by value)."""

    key: str
    op: str
    fvs: FieldValues = ()

    @property
    def fields(self) -> dict[str, str]:
        return dict(self.fvs)

    @property
    def is_set(self) -> bool:
        return self.op == SET_COMMAND

    @property
    def is_del(self) -> bool:
        return self.op == DEL_COMMAND

    @classmethod
    def set(cls, key: str, fields: Mapping[str, str] | Iterable[tuple[str, str]]) -> KeyOpFieldsValues:
        return cls(key, SET_COMMAND, as_fvs(fields))

    @classmethod
    def delete(cls, key: str) -> KeyOpFieldsValues:
        return cls(key, DEL_COMMAND, ())
