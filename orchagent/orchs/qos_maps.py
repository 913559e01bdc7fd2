"""CONFIG_DB QoS map rows -> SAI QOS_MAP attributes (pure), as qosorch's map handlers build them.

Each map table has one SAI map type, the ``sai_qos_map_params_t`` field its row keys fill and the one
its values fill (``DSCP_TO_TC_MAP`` {"46": "5"} -> key.dscp 46, value.tc 5). The list is serialised as
sairedis does: JSON ``{"count", "list": [{"key": {..}, "value": {..}}]}`` with every parameter present
(zero when unused, colour GREEN). Rows are checked against what the ASIC can do (``Limits``): DSCP
0..63, the 3-bit code points (dot1p, EXP, PFC priority) 0..7, traffic classes, queues, priority groups
and forwarding classes below the switch's counts. qosorch checks DSCP, EXP and forwarding classes
itself (``DSCP_MAX_VAL``, ``EXP_MAX_VAL``, ``getMaxNumFcs``) and leaves the rest to the SAI, which
refuses a class the ASIC lacks; here every check happens before anything is sent, so a bad row names
its field and changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from nos.schema import tables as tbl

PARAMS = ("tc", "dscp", "dot1p", "prio", "pg", "qidx", "mpls_exp", "color", "fc")


class InvalidMap(ValueError):
    """Raised by ``parse_map`` for a row the ASIC cannot take (the message names the field)."""


@dataclass(frozen=True)
class Limits:
    """What the ASIC offers: counts, so the valid values are 0..count-1."""

    traffic_classes: int = 8
    queues: int = 8
    priority_groups: int = 8
    forwarding_classes: int = 64


@dataclass(frozen=True)
class MapKind:
    """One map table: its SAI type, the parameter its keys set and the one its values set."""

    sai_type: str
    key: str
    value: str


MAP_KINDS: dict[str, MapKind] = {
    tbl.CFG_DSCP_TO_TC_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_DSCP_TO_TC", "dscp", "tc"),
    tbl.CFG_DOT1P_TO_TC_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_DOT1P_TO_TC", "dot1p", "tc"),
    tbl.CFG_MPLS_TC_TO_TC_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_MPLS_EXP_TO_TC", "mpls_exp", "tc"),
    tbl.CFG_TC_TO_QUEUE_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_TC_TO_QUEUE", "tc", "qidx"),
    tbl.CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_TC_TO_PRIORITY_GROUP", "tc", "pg"),
    tbl.CFG_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_TABLE_NAME:
        MapKind("SAI_QOS_MAP_TYPE_PFC_PRIORITY_TO_PRIORITY_GROUP", "prio", "pg"),
    tbl.CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_PFC_PRIORITY_TO_QUEUE", "prio", "qidx"),
    tbl.CFG_DSCP_TO_FC_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_DSCP_TO_FORWARDING_CLASS", "dscp", "fc"),
    tbl.CFG_EXP_TO_FC_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_MPLS_EXP_TO_FORWARDING_CLASS", "mpls_exp", "fc"),
    tbl.CFG_TC_TO_DOT1P_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_TC_AND_COLOR_TO_DOT1P", "tc", "dot1p"),
    tbl.CFG_TC_TO_DSCP_MAP_TABLE_NAME: MapKind("SAI_QOS_MAP_TYPE_TC_AND_COLOR_TO_DSCP", "tc", "dscp"),
}

_NOUNS = {"tc": "traffic class", "dscp": "DSCP", "dot1p": "802.1p priority", "prio": "PFC priority",
          "pg": "priority group", "qidx": "queue", "mpls_exp": "MPLS EXP", "fc": "forwarding class"}


def param_count(param: str, limits: Limits) -> int:
    """How many values ``param`` has on this ASIC."""
    counts = {"tc": limits.traffic_classes, "dscp": 64, "dot1p": 8, "prio": 8, "pg": limits.priority_groups,
              "qidx": limits.queues, "mpls_exp": 8, "fc": limits.forwarding_classes}
    return counts[param]


def _number(text: str, param: str, limits: Limits, where: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InvalidMap(f"{where}: {_NOUNS[param]} {text!r} is not a number") from None
    top = param_count(param, limits) - 1
    if not 0 <= value <= top:
        raise InvalidMap(f"{where}: {_NOUNS[param]} {value} is outside 0..{top}")
    return value


def parse_map(table: str, fields: Mapping[str, str], limits: Limits) -> list[tuple[int, int]]:
    """The (key, value) pairs of a map row, sorted by key. Raises InvalidMap."""
    kind = MAP_KINDS[table]
    pairs = {}
    for field, value in fields.items():
        if field == "NULL":
            continue
        key = _number(field, kind.key, limits, f"field {field!r}")
        pairs[key] = _number(value, kind.value, limits, f"field {field!r}")
    if not pairs:
        raise InvalidMap("the map has no entries")
    return sorted(pairs.items())


def _params(**set_: int) -> dict[str, int | str]:
    out: dict[str, int | str] = {p: 0 for p in PARAMS}
    out["color"] = "SAI_PACKET_COLOR_GREEN"
    out.update(set_)
    return out


def map_to_value_list(table: str, pairs: list[tuple[int, int]]) -> str:
    """``SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST`` as sairedis serialises it."""
    kind = MAP_KINDS[table]
    items = [{"key": _params(**{kind.key: k}), "value": _params(**{kind.value: v})} for k, v in pairs]
    return json.dumps({"count": len(items), "list": items}, separators=(",", ":"))


def map_attrs(table: str, pairs: list[tuple[int, int]]) -> tuple[tuple[str, str], tuple[str, str]]:
    """The create attributes: type and value list."""
    return (("SAI_QOS_MAP_ATTR_TYPE", MAP_KINDS[table].sai_type),
            ("SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST", map_to_value_list(table, pairs)))
