"""Compiled tables as bytes and back, for a switch's tables to reach a fabric run in another process.

The format is an ``.npz`` archive (``numpy.savez``, loaded with ``allow_pickle=False``): every array
of the tables as a member, and one ``skeleton`` member holding the rest as JSON (each dataclass by
its name, from a fixed list; scalars, strings and tuples as they are). Nothing in it is executed on
load: an unknown class, a missing array or a malformed skeleton is a ``CodecError`` naming it.

The LPM structures are not sent (an IPv4 one is a 64 MiB direct table per virtual router): they are
rebuilt on load from the route arrays, the same way ``syncd_sim.compile`` builds them.
"""

from __future__ import annotations

import io
import json
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np

from fastpath.l2 import L2Tables
from fastpath.l3 import L3Tables
from fastpath.lpm import build_lpm4, build_lpm6
from fastpath.tables import BufferTables, PortTables, QosTables, Tables, WatchdogTables

CLASSES: dict[str, type] = {cls.__name__: cls for cls in (Tables, PortTables, QosTables, BufferTables,
                                                         WatchdogTables, L2Tables, L3Tables)}
LPM_FIELDS = ("v4", "v6")
SKELETON = "skeleton"


class CodecError(ValueError):
    """Bytes that are not encoded tables (the message says what is wrong)."""


def encode(tables: Tables) -> bytes:
    arrays: dict[str, np.ndarray] = {}
    skeleton = _pack(tables, arrays)
    members: dict[str, Any] = {**arrays, SKELETON: np.frombuffer(json.dumps(skeleton).encode(), dtype=np.uint8)}
    out = io.BytesIO()
    np.savez(out, **members)
    return out.getvalue()


def _pack(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    if isinstance(value, np.ndarray):
        key = f"a{len(arrays)}"
        arrays[key] = value
        return {"#": key}
    if is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if CLASSES.get(name) is not type(value):
            raise CodecError(f"cannot encode a {name}")
        packed = {f.name: _pack(getattr(value, f.name), arrays) for f in fields(value)
                  if not (name == "L3Tables" and f.name in LPM_FIELDS)}
        if name == "L3Tables":
            packed["n_vrs"] = len(value.v4)  # type: ignore[attr-defined]
        return {"@": name, "f": packed}
    if isinstance(value, (tuple, list)):
        return {"t": [_pack(v, arrays) for v in value]}
    if isinstance(value, dict):
        return {"d": {str(k): _pack(v, arrays) for k, v in value.items()}}
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise CodecError(f"cannot encode a {type(value).__name__}")


def decode(data: bytes) -> Tables:
    try:
        archive = np.load(io.BytesIO(data), allow_pickle=False)
        arrays = {name: archive[name] for name in archive.files}
        skeleton = json.loads(bytes(arrays.pop(SKELETON)).decode())
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
        raise CodecError(f"not encoded tables: {exc}") from exc
    tables = _unpack(skeleton, arrays)
    if not isinstance(tables, Tables):
        raise CodecError(f"encoded {type(tables).__name__}, not Tables")
    return tables


def _unpack(node: Any, arrays: dict[str, np.ndarray]) -> Any:
    if not isinstance(node, dict):
        return node
    if "#" in node:
        if node["#"] not in arrays:
            raise CodecError(f"array {node['#']} is missing")
        return arrays[node["#"]]
    if "t" in node:
        return tuple(_unpack(v, arrays) for v in node["t"])
    if "d" in node:
        return {k: _unpack(v, arrays) for k, v in node["d"].items()}
    cls = CLASSES.get(str(node.get("@")))
    if cls is None or not isinstance(node.get("f"), dict):
        raise CodecError(f"unknown class {node.get('@')!r}")
    values = {k: _unpack(v, arrays) for k, v in node["f"].items()}
    if cls is L3Tables:
        values.update(_lpms(values, int(values.pop("n_vrs", 1))))
    try:
        return cls(**values)
    except TypeError as exc:
        raise CodecError(f"{cls.__name__}: {exc}") from exc


def _lpms(l3: dict[str, Any], n_vrs: int) -> dict[str, tuple[Any, ...]]:
    """The per-VR LPM structures, from the route arrays (as ``syncd_sim.compile.routes`` builds them)."""
    vr, is_v6, addr, length = l3["route_vr"], l3["route_is_v6"], l3["route_addr"], l3["route_len"]
    index = np.arange(len(vr), dtype=np.int32)
    v4s, v6s = [], []
    for v in range(n_vrs):
        sel4, sel6 = (vr == v) & ~is_v6, (vr == v) & is_v6
        v4s.append(build_lpm4(addr[sel4, 1].astype(np.uint32), length[sel4], index[sel4]))
        v6s.append(build_lpm6(addr[sel6], length[sel6], index[sel6]))
    return {"v4": tuple(v4s), "v6": tuple(v6s)}
