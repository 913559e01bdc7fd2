"""SAI object types (numbers as in SAI's saitypes.h) and object ids (OIDs) in sairedis's layout.

OID bits: 63..56 switch index, 55..48 object type, 47..40 global context, 38..0 object index
(sairedis VirtualObjectIdManager). The switch object is type SWITCH with index = switch index,
so switch 0 is ``oid:0x21000000000000``. Text form: ``oid:0x<hex>``; the null object ``oid:0x0``.
"""

from __future__ import annotations

import enum

OID_PREFIX = "oid:0x"
NULL_OID = "oid:0x0"
_INDEX_MASK = (1 << 39) - 1


class ObjectType(enum.IntEnum):
    """SAI object types used by this switch (values from saitypes.h)."""

    PORT = 1
    LAG = 2
    VIRTUAL_ROUTER = 3
    NEXT_HOP = 4
    NEXT_HOP_GROUP = 5
    ROUTER_INTERFACE = 6
    ACL_TABLE = 7
    ACL_ENTRY = 8
    ACL_COUNTER = 9
    ACL_RANGE = 10
    ACL_TABLE_GROUP = 11
    ACL_TABLE_GROUP_MEMBER = 12
    HOSTIF = 13
    MIRROR_SESSION = 14
    SAMPLEPACKET = 15
    STP = 16
    HOSTIF_TRAP_GROUP = 17
    POLICER = 18
    WRED = 19
    QOS_MAP = 20
    QUEUE = 21
    SCHEDULER = 22
    SCHEDULER_GROUP = 23
    BUFFER_POOL = 24
    BUFFER_PROFILE = 25
    INGRESS_PRIORITY_GROUP = 26
    LAG_MEMBER = 27
    HASH = 28
    FDB_ENTRY = 32
    SWITCH = 33
    HOSTIF_TRAP = 34
    HOSTIF_TABLE_ENTRY = 35
    NEIGHBOR_ENTRY = 36
    ROUTE_ENTRY = 37
    VLAN = 38
    VLAN_MEMBER = 39
    TUNNEL_MAP = 41
    TUNNEL = 42
    TUNNEL_TERM_TABLE_ENTRY = 43
    NEXT_HOP_GROUP_MEMBER = 45
    L2MC_GROUP = 49
    L2MC_GROUP_MEMBER = 50
    BRIDGE = 57
    BRIDGE_PORT = 58
    TUNNEL_MAP_ENTRY = 59
    ISOLATION_GROUP = 70
    ISOLATION_GROUP_MEMBER = 71
    COUNTER = 84
    DEBUG_COUNTER = 85
    PORT_SERDES = 87

    @property
    def sai_name(self) -> str:
        """``SAI_OBJECT_TYPE_<NAME>``, the form used in ASIC_STATE keys (precomputed: it is on every
        request's hot path, and enum ``.name`` is slow)."""
        return _SAI_NAMES[self]

    @classmethod
    def from_sai_name(cls, text: str) -> ObjectType:
        """Parse ``SAI_OBJECT_TYPE_X``; raises ValueError for an unknown type."""
        if not text.startswith("SAI_OBJECT_TYPE_"):
            raise ValueError(f"not a SAI object type: {text!r}")
        try:
            return cls[text[len("SAI_OBJECT_TYPE_"):]]
        except KeyError:
            raise ValueError(f"unknown SAI object type: {text!r}") from None


_SAI_NAMES = {kind: f"SAI_OBJECT_TYPE_{kind.name}" for kind in ObjectType}

# Objects identified by a JSON key instead of an OID.
ENTRY_TYPES = frozenset({ObjectType.ROUTE_ENTRY, ObjectType.NEIGHBOR_ENTRY, ObjectType.FDB_ENTRY})


def make_oid(object_type: ObjectType, index: int, switch_index: int = 0) -> str:
    value = (switch_index << 56) | (int(object_type) << 48) | (index & _INDEX_MASK)
    return f"{OID_PREFIX}{value:x}"


def switch_oid(switch_index: int = 0) -> str:
    return make_oid(ObjectType.SWITCH, switch_index, switch_index)


def oid_value(oid: str) -> int:
    """The integer of ``oid:0x...``; raises ValueError when it is not an OID."""
    if not oid.startswith(OID_PREFIX):
        raise ValueError(f"not an object id: {oid!r}")
    return int(oid[len(OID_PREFIX):], 16)


def oid_type(oid: str) -> ObjectType | None:
    """The object type encoded in an OID (None for the null OID or an unknown type)."""
    value = oid_value(oid)
    if value == 0:
        return None
    try:
        return ObjectType((value >> 48) & 0xFF)
    except ValueError:
        return None


def oid_index(oid: str) -> int:
    return oid_value(oid) & _INDEX_MASK
