"""APPL_DB buffer rows -> SAI attributes (pure), as swss orchagent/bufferorch.cpp maps them.

* ``BUFFER_POOL_TABLE:<name>``: ``type`` ingress|egress|both -> ``SAI_BUFFER_POOL_ATTR_TYPE``, ``mode``
  static|dynamic -> ``..._THRESHOLD_MODE`` (both create-only), ``size`` -> ``..._SIZE``, ``xoff`` ->
  ``..._XOFF_SIZE``; ``percentage`` is the dynamic buffer manager's input and is not programmed.
* ``BUFFER_PROFILE_TABLE:<name>``: ``pool`` -> ``POOL_ID``, ``size`` -> ``RESERVED_BUFFER_SIZE``,
  ``dynamic_th`` -> ``THRESHOLD_MODE_DYNAMIC`` + ``SHARED_DYNAMIC_TH``, ``static_th`` ->
  ``THRESHOLD_MODE_STATIC`` + ``SHARED_STATIC_TH``, ``xon``/``xoff``/``xon_offset`` -> ``XON_TH``/``XOFF_TH``/
  ``XON_OFFSET_TH``, ``packet_discard_action`` drop|trim -> ``PACKET_ADMISSION_FAIL_ACTION``;
  ``headroom_type`` is the buffer manager's.
* Keys of BUFFER_PG_TABLE / BUFFER_QUEUE_TABLE: ``<port>[,<port>...]:<index>[-<index>]``.
* References are plain names; the legacy forms ``[BUFFER_POOL_TABLE:name]`` / ``[BUFFER_POOL|name]`` are
  accepted too (older configs).

Every error names the field and the value (``BadBufferField``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

Attrs = tuple[tuple[str, str], ...]
U64_MAX = 2**64 - 1

POOL_TYPES = {"ingress": "SAI_BUFFER_POOL_TYPE_INGRESS", "egress": "SAI_BUFFER_POOL_TYPE_EGRESS",
              "both": "SAI_BUFFER_POOL_TYPE_BOTH"}
POOL_MODES = {"static": "SAI_BUFFER_POOL_THRESHOLD_MODE_STATIC", "dynamic": "SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC"}
DISCARD_ACTIONS = {"drop": "SAI_BUFFER_PROFILE_PACKET_ADMISSION_FAIL_ACTION_DROP",
                   "trim": "SAI_BUFFER_PROFILE_PACKET_ADMISSION_FAIL_ACTION_DROP_AND_TRIM"}
PROFILE_MODE = "SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE"
POOL_ID = "SAI_BUFFER_PROFILE_ATTR_POOL_ID"
POOL_TYPE = "SAI_BUFFER_POOL_ATTR_TYPE"
POOL_MODE = "SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE"
POOL_SIZE = "SAI_BUFFER_POOL_ATTR_SIZE"
POOL_NOT_PROGRAMMED = frozenset({"percentage", "NULL"})
PROFILE_NOT_PROGRAMMED = frozenset({"headroom_type", "NULL"})
_LEGACY_REF = re.compile(r"\[(?:[A-Z_]+)[:|](.+)\]")
_RANGE = re.compile(r"(\d+)(?:-(\d+))?")


class BadBufferField(ValueError):
    """Raised when an APPL_DB buffer row has a field value bufferorch refuses (names field and value)."""


def _bytes(field: str, value: str) -> str:
    if not value.isdecimal() or int(value) > U64_MAX:
        raise BadBufferField(f"field {field}: {value!r} is not a byte count")
    return str(int(value))


def _choice(field: str, value: str, choices: Mapping[str, str]) -> str:
    if value not in choices:
        raise BadBufferField(f"field {field}: {value!r} is not one of {', '.join(choices)}")
    return choices[value]


def _dynamic_th(field: str, value: str) -> Attrs:
    try:
        number = int(value)
    except ValueError:
        raise BadBufferField(f"field {field}: {value!r} is not an integer") from None
    if not -8 <= number <= 7:  # sonic-buffer-profile.yang: log2 of the alpha, -8..7
        raise BadBufferField(f"field {field}: {number} is outside -8..7")
    return ((PROFILE_MODE, "SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC"),
            ("SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH", str(number)))


def _static_th(field: str, value: str) -> Attrs:
    return ((PROFILE_MODE, "SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC"),
            ("SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH", _bytes(field, value)))


def _one(attr: str) -> Callable[[str, str], Attrs]:
    return lambda field, value: ((attr, _bytes(field, value)),)


POOL_FIELDS: dict[str, Callable[[str, str], Attrs]] = {
    "type": lambda f, v: ((POOL_TYPE, _choice(f, v, POOL_TYPES)),),
    "mode": lambda f, v: ((POOL_MODE, _choice(f, v, POOL_MODES)),),
    "size": _one(POOL_SIZE),
    "xoff": _one("SAI_BUFFER_POOL_ATTR_XOFF_SIZE"),
}
PROFILE_FIELDS: dict[str, Callable[[str, str], Attrs]] = {
    "size": _one("SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE"),
    "dynamic_th": _dynamic_th,
    "static_th": _static_th,
    "xon": _one("SAI_BUFFER_PROFILE_ATTR_XON_TH"),
    "xoff": _one("SAI_BUFFER_PROFILE_ATTR_XOFF_TH"),
    "xon_offset": _one("SAI_BUFFER_PROFILE_ATTR_XON_OFFSET_TH"),
    "packet_discard_action": lambda f, v: (
        ("SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION", _choice(f, v, DISCARD_ACTIONS)),),
}


@dataclass(frozen=True)
class PoolEntry:
    """A parsed BUFFER_POOL_TABLE row."""

    name: str
    attrs: Attrs


@dataclass(frozen=True)
class ProfileEntry:
    """A parsed BUFFER_PROFILE_TABLE row: its pool's name and the other attributes."""

    name: str
    pool: str
    attrs: Attrs


@dataclass(frozen=True)
class BindingKey:
    """A BUFFER_PG_TABLE / BUFFER_QUEUE_TABLE key: ports and the PG or queue indexes."""

    ports: tuple[str, ...]
    indexes: tuple[int, ...]


def ref_name(value: str) -> str:
    """The object a reference names: ``name``, ``[BUFFER_PROFILE_TABLE:name]`` or ``[BUFFER_PROFILE|name]``."""
    found = _LEGACY_REF.fullmatch(value.strip())
    return found.group(1) if found else value.strip()


def _attrs(fields: Mapping[str, str], table: Mapping[str, Callable[[str, str], Attrs]],
           skip: frozenset[str]) -> Attrs:
    out: dict[str, str] = {}
    for field, value in fields.items():
        if field in skip:
            continue
        convert = table.get(field)
        if convert is None:
            raise BadBufferField(f"unknown field {field!r}")
        out.update(convert(field, value))
    return tuple(out.items())


def parse_pool(name: str, fields: Mapping[str, str]) -> PoolEntry:
    """Raises BadBufferField; ``type`` is mandatory (SAI's key attribute)."""
    if "type" not in fields:
        raise BadBufferField("field type: missing (ingress, egress or both)")
    return PoolEntry(name, _attrs(fields, POOL_FIELDS, POOL_NOT_PROGRAMMED))


def parse_profile(name: str, fields: Mapping[str, str]) -> ProfileEntry:
    """Raises BadBufferField; ``pool`` is mandatory, ``dynamic_th`` and ``static_th`` exclude each other."""
    pool = ref_name(fields.get("pool", ""))
    if not pool:
        raise BadBufferField("field pool: missing")
    if "dynamic_th" in fields and "static_th" in fields:
        raise BadBufferField("fields dynamic_th and static_th: only one threshold may be set")
    rest = {f: v for f, v in fields.items() if f != "pool"}
    return ProfileEntry(name, pool, _attrs(rest, PROFILE_FIELDS, PROFILE_NOT_PROGRAMMED))


def parse_binding_key(key: str, limit: int = 64) -> BindingKey:
    """``Ethernet0,Ethernet4:3-4`` -> ports and indexes; raises BadBufferField."""
    ports_text, sep, index_text = key.rpartition(":")
    found = _RANGE.fullmatch(index_text)
    if not sep or not ports_text or found is None:
        raise BadBufferField(f"key {key!r} is not <port>[,<port>...]:<index>[-<index>]")
    lo = int(found.group(1))
    hi = int(found.group(2)) if found.group(2) is not None else lo
    if hi < lo or hi >= limit:
        raise BadBufferField(f"key {key!r}: bad index range {index_text}")
    ports = tuple(p for p in ports_text.split(",") if p)
    return BindingKey(ports, tuple(range(lo, hi + 1)))


def parse_profile_list(value: str) -> list[str]:
    """``profile_list`` "a,b" -> profile names."""
    return [ref_name(item) for item in value.split(",") if item.strip()]
