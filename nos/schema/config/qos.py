"""Row models for QoS: the eleven classification/remarking maps, PORT_QOS_MAP, QUEUE, SCHEDULER and
WRED_PROFILE.

YANG: sonic-dscp-tc-map.yang, sonic-dot1p-tc-map.yang, sonic-tc-queue-map.yang,
sonic-tc-priority-group-map.yang, sonic-pfc-priority-queue-map.yang,
sonic-pfc-priority-priority-group-map.yang, sonic-mpls-tc-map.yang, sonic-dscp-fc-map.yang,
sonic-exp-fc-map.yang, sonic-tc-dot1p-map.yang, sonic-tc-dscp-map.yang, sonic-port-qos-map.yang,
sonic-queue.yang, sonic-scheduler.yang, sonic-wred-profile.yang. Map rows have data as field names
(``"46": "5"``): traffic classes are 0..15 (sonic-types ``tc_type``), DSCP 0..63, the 3-bit code points
0..7. SCHEDULER ``weight`` is 1..100 as in the YANG (SAI's range too). QUEUE/PORT_QOS_MAP keys may list
several ports, and QUEUE also takes the ``CPU`` port.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, ClassVar

from nos.schema.config import (
    ASIC_NAME,
    OBJECT_NAME,
    U32,
    U64,
    Bool,
    Choice,
    ConfigError,
    Csv,
    IndexRange,
    Int,
    KeyPart,
    KeyShape,
    Leaf,
    Lookup,
    MapRow,
    Row,
    RowCheck,
    RowModel,
    TableSchema,
    Text,
    UInt,
    ref,
    single,
)
from nos.schema.tables import (
    CFG_DOT1P_TO_TC_MAP_TABLE_NAME,
    CFG_DSCP_TO_FC_MAP_TABLE_NAME,
    CFG_DSCP_TO_TC_MAP_TABLE_NAME,
    CFG_EXP_TO_FC_MAP_TABLE_NAME,
    CFG_MPLS_TC_TO_TC_MAP_TABLE_NAME,
    CFG_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_TABLE_NAME,
    CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME,
    CFG_PORT_QOS_MAP_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
    CFG_QUEUE_TABLE_NAME,
    CFG_SCHEDULER_TABLE_NAME,
    CFG_TC_TO_DOT1P_MAP_TABLE_NAME,
    CFG_TC_TO_DSCP_MAP_TABLE_NAME,
    CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME,
    CFG_TC_TO_QUEUE_MAP_TABLE_NAME,
    CFG_WRED_PROFILE_TABLE_NAME,
)

TC = Int(0, 15)
DSCP = Int(0, 63, canonical=True)
BITS3 = Int(0, 7, canonical=True)  # dot1p, EXP/MPLS TC, PFC priority, PG, forwarding class
QUEUE_9 = Int(0, 9, canonical=True)  # TC_TO_QUEUE_MAP qindex pattern [0-9]
PRIORITY_LIST = Csv(Int(0, 7), empty=True, what="a comma-separated list of priorities 0..7 (may be empty)")
PORT_REF = ref(CFG_PORT_TABLE_NAME, noun="port")
SCHEDULER_REF = ref(CFG_SCHEDULER_TABLE_NAME, noun="scheduler")


class DscpToTcMapRow(MapRow):
    """``DSCP_TO_TC_MAP|<name>``: DSCP -> traffic class."""

    MAP_KEY: ClassVar[Leaf] = DSCP
    MAP_VALUE: ClassVar[Leaf] = TC


class Dot1pToTcMapRow(MapRow):
    """``DOT1P_TO_TC_MAP|<name>``: 802.1p priority -> traffic class."""

    MAP_KEY: ClassVar[Leaf] = BITS3
    MAP_VALUE: ClassVar[Leaf] = TC


class TcToQueueMapRow(MapRow):
    """``TC_TO_QUEUE_MAP|<name>``: traffic class -> queue."""

    MAP_KEY: ClassVar[Leaf] = TC
    MAP_VALUE: ClassVar[Leaf] = QUEUE_9


class TcToPriorityGroupMapRow(MapRow):
    """``TC_TO_PRIORITY_GROUP_MAP|<name>``: traffic class -> priority group."""

    MAP_KEY: ClassVar[Leaf] = TC
    MAP_VALUE: ClassVar[Leaf] = BITS3


class PfcPriorityToQueueMapRow(MapRow):
    """``MAP_PFC_PRIORITY_TO_QUEUE|<name>``: PFC priority -> queue."""

    MAP_KEY: ClassVar[Leaf] = BITS3
    MAP_VALUE: ClassVar[Leaf] = BITS3


class PfcPriorityToPriorityGroupMapRow(MapRow):
    """``PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|<name>``: PFC priority -> priority group."""

    MAP_KEY: ClassVar[Leaf] = BITS3
    MAP_VALUE: ClassVar[Leaf] = BITS3


class MplsTcToTcMapRow(MapRow):
    """``MPLS_TC_TO_TC_MAP|<name>``: MPLS TC (EXP) -> traffic class."""

    MAP_KEY: ClassVar[Leaf] = BITS3
    MAP_VALUE: ClassVar[Leaf] = TC


class DscpToFcMapRow(MapRow):
    """``DSCP_TO_FC_MAP|<name>``: DSCP -> forwarding class."""

    MAP_KEY: ClassVar[Leaf] = DSCP
    MAP_VALUE: ClassVar[Leaf] = BITS3


class ExpToFcMapRow(MapRow):
    """``EXP_TO_FC_MAP|<name>``: MPLS EXP -> forwarding class."""

    MAP_KEY: ClassVar[Leaf] = BITS3
    MAP_VALUE: ClassVar[Leaf] = BITS3


class TcToDot1pMapRow(MapRow):
    """``TC_TO_DOT1P_MAP|<name>``: traffic class -> 802.1p priority (egress remarking)."""

    MAP_KEY: ClassVar[Leaf] = TC
    MAP_VALUE: ClassVar[Leaf] = BITS3


class TcToDscpMapRow(MapRow):
    """``TC_TO_DSCP_MAP|<name>``: traffic class -> DSCP (egress remarking)."""

    MAP_KEY: ClassVar[Leaf] = TC
    MAP_VALUE: ClassVar[Leaf] = DSCP


class PortQosMapRow(RowModel):
    """``PORT_QOS_MAP|<port[,port...]>`` or ``PORT_QOS_MAP|global``: which maps and scheduler a port uses."""

    dscp_to_tc_map: Annotated[
        str | None, Text(1), ref(CFG_DSCP_TO_TC_MAP_TABLE_NAME, noun="DSCP_TO_TC_MAP")
    ] = None
    dot1p_to_tc_map: Annotated[
        str | None, Text(1), ref(CFG_DOT1P_TO_TC_MAP_TABLE_NAME, noun="DOT1P_TO_TC_MAP")
    ] = None
    tc_to_queue_map: Annotated[
        str | None, Text(1), ref(CFG_TC_TO_QUEUE_MAP_TABLE_NAME, noun="TC_TO_QUEUE_MAP")
    ] = None
    tc_to_pg_map: Annotated[
        str | None, Text(1), ref(CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME, noun="TC_TO_PRIORITY_GROUP_MAP")
    ] = None
    pfc_to_queue_map: Annotated[
        str | None, Text(1), ref(CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME, noun="MAP_PFC_PRIORITY_TO_QUEUE")
    ] = None
    pfc_to_pg_map: Annotated[
        str | None,
        Text(1),
        ref(CFG_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_TABLE_NAME, noun="PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"),
    ] = None
    mpls_tc_to_tc_map: Annotated[
        str | None, Text(1), ref(CFG_MPLS_TC_TO_TC_MAP_TABLE_NAME, noun="MPLS_TC_TO_TC_MAP")
    ] = None
    dscp_to_fc_map: Annotated[
        str | None, Text(1), ref(CFG_DSCP_TO_FC_MAP_TABLE_NAME, noun="DSCP_TO_FC_MAP")
    ] = None
    exp_to_fc_map: Annotated[str | None, Text(1), ref(CFG_EXP_TO_FC_MAP_TABLE_NAME, noun="EXP_TO_FC_MAP")] = (
        None
    )
    tc_to_dot1p_map: Annotated[
        str | None, Text(1), ref(CFG_TC_TO_DOT1P_MAP_TABLE_NAME, noun="TC_TO_DOT1P_MAP")
    ] = None
    tc_to_dscp_map: Annotated[
        str | None, Text(1), ref(CFG_TC_TO_DSCP_MAP_TABLE_NAME, noun="TC_TO_DSCP_MAP")
    ] = None
    scheduler: Annotated[str | None, Text(1), SCHEDULER_REF] = None
    pfc_enable: Annotated[list[int] | None, PRIORITY_LIST] = None
    pfcwd_sw_enable: Annotated[list[int] | None, PRIORITY_LIST] = None


class QueueRow(RowModel):
    """``QUEUE|<port[,port...]|CPU>|<queue or range>``: the queue's scheduler and WRED profile."""

    scheduler: Annotated[str | None, Text(1), SCHEDULER_REF] = None
    wred_profile: Annotated[str | None, Text(1), ref(CFG_WRED_PROFILE_TABLE_NAME, noun="WRED profile")] = None


class SchedulerRow(RowModel):
    """``SCHEDULER|<name>``."""

    type: Annotated[str | None, Choice("DWRR", "WRR", "STRICT")] = None
    weight: Annotated[int | None, Int(1, 100)] = None
    priority: Annotated[int | None, Int(0, 9)] = None
    meter_type: Annotated[str | None, Choice("packets", "bytes")] = None
    cir: Annotated[int | None, UInt(U64)] = None
    pir: Annotated[int | None, UInt(U64)] = None
    cbs: Annotated[int | None, UInt(U32)] = None
    pbs: Annotated[int | None, UInt(U32)] = None


_COLORS = ("green", "yellow", "red")
ECN_MODES = ("ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red",
             "ecn_yellow_red", "ecn_all")  # fmt: skip


class WredProfileRow(RowModel):
    """``WRED_PROFILE|<name>``: per-color WRED drop thresholds (bytes) and probabilities, ECN mode, and
    the optional separate ECN marking thresholds."""

    wred_green_enable: Annotated[bool | None, Bool()] = None
    wred_yellow_enable: Annotated[bool | None, Bool()] = None
    wred_red_enable: Annotated[bool | None, Bool()] = None
    green_min_threshold: Annotated[int | None, UInt(U64)] = None
    green_max_threshold: Annotated[int | None, UInt(U64)] = None
    yellow_min_threshold: Annotated[int | None, UInt(U64)] = None
    yellow_max_threshold: Annotated[int | None, UInt(U64)] = None
    red_min_threshold: Annotated[int | None, UInt(U64)] = None
    red_max_threshold: Annotated[int | None, UInt(U64)] = None
    green_drop_probability: Annotated[int | None, Int(0, 100)] = None
    yellow_drop_probability: Annotated[int | None, Int(0, 100)] = None
    red_drop_probability: Annotated[int | None, Int(0, 100)] = None
    ecn: Annotated[str | None, Choice(*ECN_MODES)] = None
    ecn_green_min_threshold: Annotated[int | None, UInt(U64)] = None
    ecn_green_max_threshold: Annotated[int | None, UInt(U64)] = None
    ecn_green_mark_probability: Annotated[int | None, Int(0, 100)] = None
    ecn_yellow_min_threshold: Annotated[int | None, UInt(U64)] = None
    ecn_yellow_max_threshold: Annotated[int | None, UInt(U64)] = None
    ecn_yellow_mark_probability: Annotated[int | None, Int(0, 100)] = None
    ecn_red_min_threshold: Annotated[int | None, UInt(U64)] = None
    ecn_red_max_threshold: Annotated[int | None, UInt(U64)] = None
    ecn_red_mark_probability: Annotated[int | None, Int(0, 100)] = None


def number(row: Row, field: str) -> int | None:
    """A field's integer value, or None when absent or not an integer (the type check reports that)."""
    value = row.get(field)
    if isinstance(value, str) and value.lstrip("-").isdecimal():
        return int(value)
    return None


def not_below(table: str, high: str, low: str) -> RowCheck:
    """A row check: field ``high`` must be >= field ``low`` when both are set (YANG ``must``)."""

    def check(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
        top, bottom = number(row, high), number(row, low)
        if top is not None and bottom is not None and top < bottom:
            yield ConfigError(table, key, high, str(row[high]), f"must be >= {low} ({bottom})")

    return check


def needs_positive(table: str, field: str, other: str) -> RowCheck:
    """A row check: ``field`` may be set only when ``other`` is set and > 0 (SCHEDULER cbs/pbs)."""

    def check(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
        if field in row and not (number(row, other) or 0) > 0:
            yield ConfigError(table, key, field, str(row[field]), f"needs '{other}' set and > 0")

    return check


def check_ecn_thresholds(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
    """ECN marking thresholds of a color need that color's ECN marking enabled in ``ecn``."""
    mode = row.get("ecn", "ecn_none")
    for color in _COLORS:
        enabled = mode == "ecn_all" or (isinstance(mode, str) and color in mode.split("_")[1:])
        for suffix in ("min_threshold", "max_threshold", "mark_probability"):
            name = f"ecn_{color}_{suffix}"
            if name in row and not enabled:
                yield ConfigError(
                    CFG_WRED_PROFILE_TABLE_NAME, key, name, str(row[name]), f"needs {color} marking in 'ecn'"
                )


MAP_TABLES = (
    (CFG_DSCP_TO_TC_MAP_TABLE_NAME, DscpToTcMapRow),
    (CFG_DOT1P_TO_TC_MAP_TABLE_NAME, Dot1pToTcMapRow),
    (CFG_TC_TO_QUEUE_MAP_TABLE_NAME, TcToQueueMapRow),
    (CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME, TcToPriorityGroupMapRow),
    (CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME, PfcPriorityToQueueMapRow),
    (CFG_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_TABLE_NAME, PfcPriorityToPriorityGroupMapRow),
    (CFG_MPLS_TC_TO_TC_MAP_TABLE_NAME, MplsTcToTcMapRow),
    (CFG_DSCP_TO_FC_MAP_TABLE_NAME, DscpToFcMapRow),
    (CFG_EXP_TO_FC_MAP_TABLE_NAME, ExpToFcMapRow),
    (CFG_TC_TO_DOT1P_MAP_TABLE_NAME, TcToDot1pMapRow),
    (CFG_TC_TO_DSCP_MAP_TABLE_NAME, TcToDscpMapRow),
)
QOS_MAPS = tuple(single(table, model, OBJECT_NAME) for table, model in MAP_TABLES)

PORT_QOS_MAP = TableSchema(
    CFG_PORT_QOS_MAP_TABLE_NAME,
    (
        KeyShape(
            (KeyPart("ifname", Csv(Text(1), what="port names"), PORT_REF, frozenset({"global"})),),
            PortQosMapRow,
        ),
    ),
)
_QINDEX = IndexRange(0, None, "queue")
QUEUE = TableSchema(
    CFG_QUEUE_TABLE_NAME,
    (
        KeyShape(
            (
                KeyPart("ifname", Csv(Text(1), what="port names"), PORT_REF, frozenset({"CPU"})),
                KeyPart("qindex", _QINDEX),
            ),
            QueueRow,
        ),
        KeyShape(
            (
                KeyPart("hostname", Text(1, 63)),
                KeyPart("asic_name", ASIC_NAME),
                KeyPart("ifname", Text(1)),
                KeyPart("qindex", _QINDEX),
            ),
            QueueRow,
        ),
    ),
)
SCHEDULER = TableSchema(
    CFG_SCHEDULER_TABLE_NAME,
    (
        KeyShape(
            (KeyPart("name", Text(1)),),
            SchedulerRow,
            (
                not_below(CFG_SCHEDULER_TABLE_NAME, "pir", "cir"),
                not_below(CFG_SCHEDULER_TABLE_NAME, "pbs", "cbs"),
                needs_positive(CFG_SCHEDULER_TABLE_NAME, "cbs", "cir"),
                needs_positive(CFG_SCHEDULER_TABLE_NAME, "pbs", "pir"),
            ),
        ),
    ),
)
_WRED_ORDER = tuple(
    not_below(CFG_WRED_PROFILE_TABLE_NAME, f"{prefix}{color}_max_threshold", f"{prefix}{color}_min_threshold")
    for prefix in ("", "ecn_")
    for color in _COLORS
)
WRED_PROFILE = TableSchema(
    CFG_WRED_PROFILE_TABLE_NAME,
    (KeyShape((KeyPart("name", OBJECT_NAME),), WredProfileRow, (*_WRED_ORDER, check_ecn_thresholds)),),
)

SCHEMAS = (*QOS_MAPS, PORT_QOS_MAP, QUEUE, SCHEDULER, WRED_PROFILE)
