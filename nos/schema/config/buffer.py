"""Row models for the buffer tables: pools, profiles, PG and queue bindings, per-port profile lists, cable
lengths and the dynamic-model parameters.

YANG: sonic-buffer-pool.yang, sonic-buffer-profile.yang, sonic-buffer-pg.yang, sonic-buffer-queue.yang,
sonic-buffer-port-ingress/egress-profile-list.yang, sonic-cable-length.yang,
sonic-default-lossless-buffer-parameter.yang, sonic-lossless-traffic-pattern.yang. Two departures, both
needed by real files: BUFFER_PG/BUFFER_QUEUE keys may list several ports (``Ethernet0,Ethernet4|3-4``),
as bufferorch accepts; and a profile's ``size`` may be left out when ``headroom_type`` is ``dynamic``
(the dynamic buffer manager computes it; sonic-utilities writes such profiles).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, ClassVar

from nos.schema.config import (
    ASIC_NAME,
    OBJECT_NAME,
    U16,
    U64,
    Choice,
    ConfigError,
    Csv,
    IndexRange,
    Int,
    KeyPart,
    KeyShape,
    Leaf,
    ListOf,
    Lookup,
    MapRow,
    Match,
    Ref,
    Row,
    RowModel,
    TableSchema,
    Text,
    UInt,
    ref,
    single,
)
from nos.schema.tables import (
    CFG_BUFFER_PG_TABLE_NAME,
    CFG_BUFFER_POOL_TABLE_NAME,
    CFG_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME,
    CFG_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME,
    CFG_BUFFER_PROFILE_TABLE_NAME,
    CFG_BUFFER_QUEUE_TABLE_NAME,
    CFG_DEFAULT_LOSSLESS_BUFFER_PARAMETER,
    CFG_DEVICE_METADATA_TABLE_NAME,
    CFG_LOSSLESS_TRAFFIC_PATTERN_TABLE_NAME,
    CFG_PORT_CABLE_LEN_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
)

BYTES = UInt(U64)
DYNAMIC_TH = Int(-8, 7)
PORT_REF = ref(CFG_PORT_TABLE_NAME, noun="port")
PROFILE_REF = ref(CFG_BUFFER_PROFILE_TABLE_NAME, noun="buffer profile")
PG_PROFILE_REF = ref(CFG_BUFFER_PROFILE_TABLE_NAME, noun="buffer profile", allow=("NULL",))
PORTS = Csv(Text(1), what="a port name or comma-separated port names")
PORTS_PART = KeyPart("port", PORTS, PORT_REF)
PG_INDEX = IndexRange(0, 7, "priority group")
QUEUE_INDEX = IndexRange(0, 15, "queue")
CABLE_LENGTH_VALUE = Match(r"[0-9]+m|None", "a length in metres like '5m', or 'None'")


class BufferPoolRow(RowModel):
    """``BUFFER_POOL|<name>`` (``ingress_lossless_pool``, ``egress_lossy_pool``, ...)."""

    type: Annotated[str, Choice("ingress", "egress", "both")]
    mode: Annotated[str, Choice("static", "dynamic")]
    size: Annotated[int | None, BYTES] = None
    xoff: Annotated[int | None, BYTES] = None
    percentage: Annotated[int | None, Int(0, 100)] = None


class BufferProfileRow(RowModel):
    """``BUFFER_PROFILE|<name>``."""

    pool: Annotated[str, Text(1), ref(CFG_BUFFER_POOL_TABLE_NAME, noun="buffer pool")]
    size: Annotated[int | None, BYTES] = None
    dynamic_th: Annotated[int | None, DYNAMIC_TH] = None
    static_th: Annotated[int | None, BYTES] = None
    xon: Annotated[int | None, BYTES] = None
    xoff: Annotated[int | None, BYTES] = None
    xon_offset: Annotated[int | None, BYTES] = None
    headroom_type: Annotated[str | None, Choice("static", "dynamic")] = None
    packet_discard_action: Annotated[str | None, Choice("drop", "trim")] = None


class BufferPgRow(RowModel):
    """``BUFFER_PG|<port[,port...]>|<pg or pg range>``; ``profile`` "NULL" asks the dynamic model to
    compute the lossless profile."""

    profile: Annotated[str | None, Text(1), PG_PROFILE_REF] = None


class BufferQueueRow(RowModel):
    """``BUFFER_QUEUE|<port[,port...]>|<queue or range>``."""

    profile: Annotated[str | None, Text(1), PROFILE_REF] = None


class BufferProfileListRow(RowModel):
    """``BUFFER_PORT_INGRESS_PROFILE_LIST|<port>`` / ``BUFFER_PORT_EGRESS_PROFILE_LIST|<port>``."""

    profile_list: Annotated[list[str] | None, ListOf(Text(1)), PROFILE_REF] = None


class CableLengthRow(MapRow):
    """``CABLE_LENGTH|<name>``: port name -> cable length (``"Ethernet0": "5m"``)."""

    MAP_KEY: ClassVar[Leaf] = Text(1)
    MAP_VALUE: ClassVar[Leaf] = CABLE_LENGTH_VALUE
    MAP_KEY_REF: ClassVar[Ref | None] = PORT_REF


class DefaultLosslessBufferParameterRow(RowModel):
    """``DEFAULT_LOSSLESS_BUFFER_PARAMETER|<name>`` (dynamic model)."""

    default_dynamic_th: Annotated[int, DYNAMIC_TH]
    over_subscribe_ratio: Annotated[int | None, UInt(U16)] = None


class LosslessTrafficPatternRow(RowModel):
    """``LOSSLESS_TRAFFIC_PATTERN|<name>`` (dynamic model headroom inputs)."""

    mtu: Annotated[int, Int(1, 9216)]
    small_packet_percentage: Annotated[int, Int(0, 100)]


def check_pool(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
    """``percentage`` excludes ``size`` and belongs to the dynamic buffer model only."""
    percentage = row.get("percentage")
    if percentage is None:
        return
    if "size" in row:
        yield _pool_error(key, percentage, "cannot be set together with 'size'")
    metadata = lookup.rows(CFG_DEVICE_METADATA_TABLE_NAME).get("localhost", {})
    if metadata.get("buffer_model") != "dynamic":
        yield _pool_error(key, percentage, "needs DEVICE_METADATA|localhost buffer_model 'dynamic'")


def _pool_error(key: str, value: object, reason: str) -> ConfigError:
    return ConfigError(CFG_BUFFER_POOL_TABLE_NAME, key, "percentage", str(value), reason)


def check_profile_size(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
    """``size`` is mandatory unless the headroom is computed (``headroom_type`` dynamic)."""
    if "size" not in row and row.get("headroom_type") != "dynamic":
        reason = "missing mandatory field 'size' (only a headroom_type 'dynamic' profile may omit it)"
        yield ConfigError(CFG_BUFFER_PROFILE_TABLE_NAME, key, None, None, reason)


def _voq_shape(model: type[RowModel], index: Leaf) -> KeyShape:
    """VOQ chassis keys: ``<hostname>|<asic>|<port>|<index>`` (the port may be on a remote ASIC)."""
    parts = (
        KeyPart("hostname", Text(1, 63)),
        KeyPart("asic_name", ASIC_NAME),
        KeyPart("port", Text(1)),
        KeyPart("qindex", index),
    )
    return KeyShape(parts, model)


BUFFER_POOL = TableSchema(
    CFG_BUFFER_POOL_TABLE_NAME, (KeyShape((KeyPart("name", Text(1)),), BufferPoolRow, (check_pool,)),)
)
BUFFER_PROFILE = TableSchema(
    CFG_BUFFER_PROFILE_TABLE_NAME,
    (KeyShape((KeyPart("name", Text(1)),), BufferProfileRow, (check_profile_size,)),),
)
BUFFER_PG = TableSchema(
    CFG_BUFFER_PG_TABLE_NAME, (KeyShape((PORTS_PART, KeyPart("pg_num", PG_INDEX)), BufferPgRow),)
)
BUFFER_QUEUE = TableSchema(
    CFG_BUFFER_QUEUE_TABLE_NAME,
    (
        KeyShape((PORTS_PART, KeyPart("qindex", QUEUE_INDEX)), BufferQueueRow),
        _voq_shape(BufferQueueRow, QUEUE_INDEX),
    ),
)
BUFFER_PORT_INGRESS_PROFILE_LIST = single(
    CFG_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME, BufferProfileListRow, Text(1), key_ref=PORT_REF
)
BUFFER_PORT_EGRESS_PROFILE_LIST = single(
    CFG_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME, BufferProfileListRow, Text(1), key_ref=PORT_REF
)
CABLE_LENGTH = single(CFG_PORT_CABLE_LEN_TABLE_NAME, CableLengthRow, OBJECT_NAME)
DEFAULT_LOSSLESS_BUFFER_PARAMETER = single(
    CFG_DEFAULT_LOSSLESS_BUFFER_PARAMETER, DefaultLosslessBufferParameterRow, OBJECT_NAME
)
LOSSLESS_TRAFFIC_PATTERN = single(
    CFG_LOSSLESS_TRAFFIC_PATTERN_TABLE_NAME, LosslessTrafficPatternRow, OBJECT_NAME
)

SCHEMAS = (
    BUFFER_POOL,
    BUFFER_PROFILE,
    BUFFER_PG,
    BUFFER_QUEUE,
    BUFFER_PORT_INGRESS_PROFILE_LIST,
    BUFFER_PORT_EGRESS_PROFILE_LIST,
    CABLE_LENGTH,
    DEFAULT_LOSSLESS_BUFFER_PARAMETER,
    LOSSLESS_TRAFFIC_PATTERN,
)
