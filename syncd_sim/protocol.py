"""Decoding sairedis requests and encoding answers (pure).

Requests on ASIC_STATE: key ``SAI_OBJECT_TYPE_X:<id>`` with op create/set/remove/get, or
``SAI_OBJECT_TYPE_X:<count>`` with op bulkcreate/bulkset/bulkremove and one field per object
(``<id>`` -> ``attr=value|attr=value``); notify with ``SAI_REDIS_SWITCH_ATTR_NOTIFY_SYNCD``.
"""

from __future__ import annotations

from dataclasses import dataclass

from nos.db.keyops import FieldValues
from nos.sai.keys import split_object_key
from nos.sai.types import ObjectType

BULK_OPS = frozenset({"bulkcreate", "bulkset", "bulkremove"})
NOTIFY_SYNCD_ATTR = "SAI_REDIS_SWITCH_ATTR_NOTIFY_SYNCD"
INIT_VIEW = "SAI_REDIS_NOTIFY_SYNCD_INIT_VIEW"
APPLY_VIEW = "SAI_REDIS_NOTIFY_SYNCD_APPLY_VIEW"


@dataclass(frozen=True)
class Request:
    op: str
    object_type: ObjectType
    object_id: str            # the id, or the object count of a bulk request
    fvs: FieldValues


def decode(key: str, op: str, fvs: FieldValues) -> Request:
    """Raises ValueError for a malformed key."""
    object_type, object_id = split_object_key(key)
    return Request(op, object_type, object_id, fvs)


def split_bulk_attrs(joined: str) -> list[tuple[str, str]]:
    """``a=1|b=2`` -> [(a, 1), (b, 2)] (values may contain '=' but not '|')."""
    if not joined:
        return []
    pairs = []
    for item in joined.split("|"):
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"bulk attribute without '=': {item!r}")
        pairs.append((name, value))
    return pairs
