"""APPL_DB PORT_TABLE fields -> SAI port attributes (pure, declarative), as portsorch/porthlpr map them.

Each converter returns the (attribute, value) pairs for one field, or raises ``FieldIgnored`` when
SONiC ignores the value (an empty or ``none`` media type, an unknown unreliable_los value).
FEC: ``rs``/``fc``/``none`` set the mode; ``auto`` is mode NONE when a port is created. The FEC-override
attribute is not programmed: like SONiC's virtual switch, this ASIC does not offer it, so ``auto`` on an
existing port is refused (``port_state.fec_auto_refused``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping

from nos.sai.values import sai_bool, sai_list

Attrs = list[tuple[str, str]]

MTU_OVERHEAD = 22  # Ethernet header 14 + FCS 4 + VLAN tag 4
SERDES_FIELDS = {
    "preemphasis": "SAI_PORT_SERDES_ATTR_PREEMPHASIS", "idriver": "SAI_PORT_SERDES_ATTR_IDRIVER",
    "ipredriver": "SAI_PORT_SERDES_ATTR_IPREDRIVER", "pre1": "SAI_PORT_SERDES_ATTR_TX_FIR_PRE1",
    "pre2": "SAI_PORT_SERDES_ATTR_TX_FIR_PRE2", "pre3": "SAI_PORT_SERDES_ATTR_TX_FIR_PRE3",
    "main": "SAI_PORT_SERDES_ATTR_TX_FIR_MAIN", "post1": "SAI_PORT_SERDES_ATTR_TX_FIR_POST1",
    "post2": "SAI_PORT_SERDES_ATTR_TX_FIR_POST2", "post3": "SAI_PORT_SERDES_ATTR_TX_FIR_POST3",
    # portsorch getPortSerdesAttr: the vendor-specific tuning values (PortsOrchTest.PortAdvancedConfig)
    "attn": "SAI_PORT_SERDES_ATTR_TX_FIR_ATTN", "ob_m2lp": "SAI_PORT_SERDES_ATTR_TX_PAM4_RATIO",
    "ob_alev_out": "SAI_PORT_SERDES_ATTR_TX_OUT_COMMON_MODE", "obplev": "SAI_PORT_SERDES_ATTR_TX_PMOS_COMMON_MODE",
    "obnlev": "SAI_PORT_SERDES_ATTR_TX_NMOS_COMMON_MODE", "regn_bfm1p": "SAI_PORT_SERDES_ATTR_TX_PMOS_VLTG_REG",
    "regn_bfm1n": "SAI_PORT_SERDES_ATTR_TX_NMOS_VLTG_REG",
}
PT_TEMPLATES = {"template1": "8_15", "template2": "12_19", "template3": "16_23", "template4": "20_27"}


class FieldIgnored(ValueError):
    """Raised by a converter when SONiC ignores the field's value (logged, not an error)."""


class BadField(ValueError):
    """Raised by a converter for a value that makes the whole entry invalid."""


def _on_off(value: str) -> bool:
    if value not in ("on", "off"):
        raise BadField(f"must be on or off, not {value!r}")
    return value == "on"


def _int(value: str, lo: int, hi: int) -> int:
    try:
        number = int(value)
    except ValueError:
        raise BadField(f"not a number: {value!r}") from None
    if not lo <= number <= hi:
        raise BadField(f"{number} is outside {lo}..{hi}")
    return number


def _speed(v: str) -> Attrs:
    return [("SAI_PORT_ATTR_SPEED", str(_int(v, 1, 1_600_000)))]


def _admin(v: str) -> Attrs:
    if v not in ("up", "down"):
        raise BadField(f"admin_status must be up or down, not {v!r}")
    return [("SAI_PORT_ATTR_ADMIN_STATE", sai_bool(v == "up"))]


def _mtu(v: str) -> Attrs:
    return [("SAI_PORT_ATTR_MTU", str(_int(v, 68, 9216) + MTU_OVERHEAD))]


def _fec(v: str) -> Attrs:
    modes = {"rs": "RS", "fc": "FC", "none": "NONE", "auto": "NONE"}
    if v not in modes:
        raise BadField(f"fec must be rs, fc, none or auto, not {v!r}")
    return [("SAI_PORT_ATTR_FEC_MODE", f"SAI_PORT_FEC_MODE_{modes[v]}")]


def _autoneg(v: str) -> Attrs:
    return [("SAI_PORT_ATTR_AUTO_NEG_MODE", sai_bool(_on_off(v)))]


def _tpid(v: str) -> Attrs:
    try:
        tpid = int(v, 16)
    except ValueError:
        raise BadField(f"tpid must be hexadecimal, not {v!r}") from None
    return [("SAI_PORT_ATTR_TPID", str(tpid))]


def _media_type(v: str) -> Attrs:
    if v in ("", "none"):
        raise FieldIgnored("media_type not set")
    if v not in ("fiber", "copper", "backplane"):
        raise FieldIgnored(f"media_type {v!r} is not fiber, copper or backplane")
    return [("SAI_PORT_ATTR_MEDIA_TYPE", f"SAI_PORT_MEDIA_TYPE_{v.upper()}")]


def _unreliable_los(v: str) -> Attrs:
    if v not in ("on", "off"):
        raise FieldIgnored(f"unreliable_los {v!r} is not on or off")
    return [("SAI_PORT_ATTR_UNRELIABLE_LOS", sai_bool(v == "on"))]


def _pfc_asym(v: str) -> Attrs:
    return [("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_MODE",
             "SAI_PORT_PRIORITY_FLOW_CONTROL_MODE_" + ("SEPARATE" if _on_off(v) else "COMBINED"))]


def _adv_speeds(v: str) -> Attrs:
    speeds = [] if v in ("", "all") else [_int(s, 1, 1_600_000) for s in v.split(",")]
    return [("SAI_PORT_ATTR_ADVERTISED_SPEED", sai_list(speeds))]


def _interface_type(v: str) -> Attrs:
    return [("SAI_PORT_ATTR_INTERFACE_TYPE", f"SAI_PORT_INTERFACE_TYPE_{v.upper()}")]


def _adv_interface_types(v: str) -> Attrs:
    types = [] if v in ("", "all") else [f"SAI_PORT_INTERFACE_TYPE_{t.upper()}" for t in v.split(",")]
    return [("SAI_PORT_ATTR_ADVERTISED_INTERFACE_TYPE", sai_list(types))]


def _link_training(v: str) -> Attrs:
    return [("SAI_PORT_ATTR_LINK_TRAINING_ENABLE", sai_bool(_on_off(v)))]


def _pt_intf(v: str) -> Attrs:
    return [("SAI_PORT_ATTR_PATH_TRACING_INTF", str(_int(v, 0, 4095)))]


def _pt_template(v: str) -> Attrs:
    if v not in PT_TEMPLATES:
        raise BadField(f"pt_timestamp_template must be one of {', '.join(PT_TEMPLATES)}")
    return [("SAI_PORT_ATTR_PATH_TRACING_TIMESTAMP_TYPE", f"SAI_PORT_PATH_TRACING_TIMESTAMP_TYPE_{PT_TEMPLATES[v]}")]


FIELDS: dict[str, Callable[[str], Attrs]] = {
    "speed": _speed, "admin_status": _admin, "mtu": _mtu, "fec": _fec, "autoneg": _autoneg, "tpid": _tpid,
    "media_type": _media_type, "unreliable_los": _unreliable_los, "pfc_asym": _pfc_asym, "adv_speeds": _adv_speeds,
    "interface_type": _interface_type, "adv_interface_types": _adv_interface_types, "link_training": _link_training,
    "pt_interface_id": _pt_intf, "pt_timestamp_template": _pt_template,
}


def port_attrs(fields: Mapping[str, str]) -> tuple[Attrs, list[str]]:
    """SAI attributes for PORT_TABLE fields, and notes about ignored fields. Raises BadField."""
    attrs: Attrs = []
    notes: list[str] = []
    for name, value in fields.items():
        convert = FIELDS.get(name)
        if convert is None:
            continue
        try:
            attrs += convert(value)
        except FieldIgnored as why:
            notes.append(f"{name}: {why}")
        except BadField as why:
            raise BadField(f"field {name!r}: {why}") from None
    return attrs, notes


def serdes_attrs(fields: Mapping[str, str]) -> Attrs:
    """PORT_SERDES attributes: hex values in APPL_DB, decimal lists in SAI."""
    attrs: Attrs = []
    for name, attr in SERDES_FIELDS.items():
        if name in fields:
            try:
                values = [int(item, 16) for item in fields[name].split(",")]
            except ValueError:
                raise BadField(f"field {name!r}: values must be hexadecimal, not {fields[name]!r}") from None
            attrs.append((attr, sai_list(values)))
    return attrs


def parse_lanes(value: str) -> list[int]:
    try:
        lanes = [int(lane) for lane in value.split(",")]
    except ValueError:
        raise BadField(f"lanes must be a comma list of numbers, not {value!r}") from None
    if not lanes:
        raise BadField("lanes is empty")
    return lanes


def changed(old: Iterable[tuple[str, str]], new: Iterable[tuple[str, str]]) -> Attrs:
    """Attributes of ``new`` whose values differ from ``old``."""
    before = dict(old)
    return [(attr, value) for attr, value in new if before.get(attr) != value]


PORT_STATE_CHANGE = "port_state_change"  # the ASIC_DB NOTIFICATIONS op
OPER_UP = "SAI_PORT_OPER_STATUS_UP"


def parse_port_states(data: str) -> list[tuple[str, bool]]:
    """A ``port_state_change``'s data (sairedis ``sai_serialize_port_oper_status_ntf``: a JSON list of
    ``{"port_id": oid, "port_state": status}``) as (oid, up) pairs; raises ValueError naming what is wrong."""
    try:
        items = json.loads(data)
    except (ValueError, RecursionError):
        raise ValueError("not JSON") from None
    if not isinstance(items, list):
        raise ValueError("not a JSON list")
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("port_id"), str) \
                or not isinstance(item.get("port_state"), str):
            raise ValueError(f"item {str(item)[:100]!r} is not {{port_id, port_state}} strings")
        out.append((item["port_id"], item["port_state"] == OPER_UP))
    return out
