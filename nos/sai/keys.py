"""ASIC_STATE keys: ``<SAI_OBJECT_TYPE_X>:<oid>`` or, for entry objects, ``<SAI_OBJECT_TYPE_X>:<json>``.

Entry JSON is compact with sorted keys, as sairedis serialises it: route
``{"dest":"10.0.0.0/24","switch_id":"oid:0x21000000000000","vr":"oid:0x3000000000022"}``, neighbor
``{"ip":..,"rif":..,"switch_id":..}``, FDB ``{"bvid":..,"mac":"52:54:00:25:06:E9","switch_id":..}``.
"""

from __future__ import annotations

import ipaddress
import json

from nos.sai.types import ObjectType

ASIC_STATE_PREFIX = "ASIC_STATE:"


def entry_json(fields: dict[str, str]) -> str:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"))


def canonical_prefix(prefix: str) -> str:
    """``10.0.0.1/24`` -> ``10.0.0.0/24``; IPv6 compressed; a bare address gets its full length."""
    return str(ipaddress.ip_network(prefix, strict=False))


def route_key(dest: str, vr: str, switch: str) -> str:
    return entry_json({"dest": canonical_prefix(dest), "switch_id": switch, "vr": vr})


def neighbor_key(ip: str, rif: str, switch: str) -> str:
    return entry_json({"ip": str(ipaddress.ip_address(ip)), "rif": rif, "switch_id": switch})


def fdb_key(mac: str, bvid: str, switch: str) -> str:
    return entry_json({"bvid": bvid, "mac": mac.upper().replace("-", ":"), "switch_id": switch})


def object_key(object_type: ObjectType, object_id: str) -> str:
    """The request key: ``SAI_OBJECT_TYPE_PORT:oid:0x1000000000002`` (or with a JSON id)."""
    return f"{object_type.sai_name}:{object_id}"


def split_object_key(key: str) -> tuple[ObjectType, str]:
    """``SAI_OBJECT_TYPE_X:<id>`` -> (type, id); raises ValueError when malformed."""
    name, sep, object_id = key.partition(":")
    if not sep or not object_id:
        raise ValueError(f"not an object key: {key!r}")
    return ObjectType.from_sai_name(name), object_id


def asic_state_key(object_type: ObjectType, object_id: str) -> str:
    return ASIC_STATE_PREFIX + object_key(object_type, object_id)
