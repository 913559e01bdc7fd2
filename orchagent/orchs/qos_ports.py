"""PORT_QOS_MAP and QUEUE rows (pure): which object each field refers to, which port or queue
attribute it sets, PFC bitmasks and QUEUE keys, as qosorch reads them.

PORT_QOS_MAP ``<port[,port...]>`` fields name a map (or a scheduler) by its key in the referenced
table; ``pfc_enable`` / ``pfcwd_sw_enable`` list priorities ("3,4" -> 0x18). ``PORT_QOS_MAP|global``
sets the switch-wide DSCP_TO_TC map (``SAI_SWITCH_ATTR_QOS_DSCP_TO_TC_MAP``). Fields that are not
QoS references are left alone (qosorch ignores them too). QUEUE ``<port[,port...]>|<q>`` or
``|<lo>-<hi>``: ``scheduler`` goes on the queue's parent scheduler group, ``wred_profile`` on the queue.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nos.schema import tables as tbl

GLOBAL_KEY = "global"
CPU_PORT = "CPU"

# PORT_QOS_MAP field -> (referenced table, port attribute); qosorch's qos_to_attr_map
PORT_FIELDS: dict[str, tuple[str, str]] = {
    "dscp_to_tc_map": (tbl.CFG_DSCP_TO_TC_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP"),
    "mpls_tc_to_tc_map": (tbl.CFG_MPLS_TC_TO_TC_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_MPLS_EXP_TO_TC_MAP"),
    "dot1p_to_tc_map": (tbl.CFG_DOT1P_TO_TC_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_DOT1P_TO_TC_MAP"),
    "tc_to_queue_map": (tbl.CFG_TC_TO_QUEUE_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP"),
    "tc_to_pg_map": (tbl.CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP"),
    "pfc_to_pg_map": (tbl.CFG_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_TABLE_NAME,
                      "SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"),
    "pfc_to_queue_map": (tbl.CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP"),
    "scheduler": (tbl.CFG_SCHEDULER_TABLE_NAME, "SAI_PORT_ATTR_QOS_SCHEDULER_PROFILE_ID"),
    "dscp_to_fc_map": (tbl.CFG_DSCP_TO_FC_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_DSCP_TO_FORWARDING_CLASS_MAP"),
    "exp_to_fc_map": (tbl.CFG_EXP_TO_FC_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_MPLS_EXP_TO_FORWARDING_CLASS_MAP"),
    "tc_to_dot1p_map": (tbl.CFG_TC_TO_DOT1P_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_TC_AND_COLOR_TO_DOT1P_MAP"),
    "tc_to_dscp_map": (tbl.CFG_TC_TO_DSCP_MAP_TABLE_NAME, "SAI_PORT_ATTR_QOS_TC_AND_COLOR_TO_DSCP_MAP"),
}
GLOBAL_FIELDS: dict[str, tuple[str, str]] = {
    "dscp_to_tc_map": (tbl.CFG_DSCP_TO_TC_MAP_TABLE_NAME, "SAI_SWITCH_ATTR_QOS_DSCP_TO_TC_MAP"),
}
QUEUE_FIELDS: dict[str, str] = {"scheduler": tbl.CFG_SCHEDULER_TABLE_NAME,
                                "wred_profile": tbl.CFG_WRED_PROFILE_TABLE_NAME}
NULL_OID = "oid:0x0"
Ref = tuple[str, str]  # (table, object name)


class InvalidQosRow(ValueError):
    """Raised for a PORT_QOS_MAP or QUEUE row or key that cannot be applied (names the field or key)."""


def parse_priorities(field: str, value: str) -> int:
    """``"3,4"`` -> 0x18; empty -> 0. Raises InvalidQosRow."""
    mask = 0
    for item in (i.strip() for i in value.split(",")):
        if not item:
            continue
        if not item.isdecimal() or int(item) > 7:
            raise InvalidQosRow(f"field {field!r}: priority {item!r} is not 0..7")
        mask |= 1 << int(item)
    return mask


@dataclass(frozen=True)
class PortQos:
    """A parsed PORT_QOS_MAP row: field -> referenced object, and the PFC bitmasks (None: not set)."""

    refs: dict[str, Ref]
    pfc_enable: int | None
    pfcwd_sw_enable: int | None


def parse_port_qos(key: str, fields: Mapping[str, str]) -> PortQos:
    """Raises InvalidQosRow."""
    table = GLOBAL_FIELDS if key == GLOBAL_KEY else PORT_FIELDS
    refs = {f: (table[f][0], v) for f, v in fields.items() if f in table}
    for field, (_, name) in refs.items():
        if not name:
            raise InvalidQosRow(f"field {field!r} is empty")
    pfc = parse_priorities("pfc_enable", fields["pfc_enable"]) if "pfc_enable" in fields else None
    wd = parse_priorities("pfcwd_sw_enable", fields["pfcwd_sw_enable"]) if "pfcwd_sw_enable" in fields else None
    return PortQos(refs, pfc, wd)


def port_attr(key: str, field: str) -> str:
    """The port (or, for ``global``, switch) attribute a PORT_QOS_MAP field sets."""
    return (GLOBAL_FIELDS if key == GLOBAL_KEY else PORT_FIELDS)[field][1]


def pfc_attrs(mask: int, separate: bool) -> list[tuple[str, str]]:
    """PortsOrch::setPortPfc: the bitmask goes to PRIORITY_FLOW_CONTROL, or to _TX in asymmetric mode."""
    attr = "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_TX" if separate else "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"
    return [(attr, str(mask))]


def asym_attrs(mask: int, separate: bool) -> list[tuple[str, str]]:
    """PortsOrch::setPortPfcAsym after the mode: the bitmask again, and RX all priorities when separate."""
    extra = [("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_RX", "255")] if separate else []
    return pfc_attrs(mask, separate) + extra


@dataclass(frozen=True)
class QueueKey:
    """``QUEUE|<ports>|<range>``."""

    ports: tuple[str, ...]
    low: int
    high: int


def parse_queue_key(key: str) -> QueueKey:
    """Raises InvalidQosRow."""
    parts = key.split("|")
    if len(parts) != 2:
        raise InvalidQosRow(f"key {key!r} is not <port[,port]>|<queue or range>")
    ports = tuple(p for p in parts[0].split(",") if p)
    low_text, _, high_text = parts[1].partition("-")
    high_text = high_text or low_text
    if not (ports and low_text.isdecimal() and high_text.isdecimal()) or int(low_text) > int(high_text):
        raise InvalidQosRow(f"key {key!r}: {parts[1]!r} is not a queue index or range lo-hi")
    return QueueKey(ports, int(low_text), int(high_text))


def parse_queue_refs(fields: Mapping[str, str]) -> dict[str, Ref]:
    """QUEUE field -> referenced object. Raises InvalidQosRow."""
    refs = {f: (QUEUE_FIELDS[f], v) for f, v in fields.items() if f in QUEUE_FIELDS}
    for field, (_, name) in refs.items():
        if not name:
            raise InvalidQosRow(f"field {field!r} is empty")
    return refs
