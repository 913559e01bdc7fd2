"""Values in and out of ``TypedValue`` (pure).

Answers are JSON (``json_val``) or JSON_IETF (``json_ietf_val``), whichever the request asked for: a
leaf is sent bare (``"9100"``), a row or table as an object, as sonic-gnmi does (reference
ecosystem.md 1.2). Incoming values may be JSON or JSON_IETF bytes, including pygnmi's raw strings
(``up`` rather than ``"up"``: bytes that are not JSON are taken as the string they spell), or the
scalar TypedValue fields. BYTES, PROTO and ASCII encodings are not served (UNIMPLEMENTED). A JSON
value nested deeper than ``nos.config.limits.MAX_DEPTH`` (64) is refused before it is parsed
(``ValueTooDeep``); its size is bounded by gRPC's own limit on a received message (4 MiB, grpc's
default ``grpc.max_receive_message_length``: a larger SetRequest is answered RESOURCE_EXHAUSTED by
grpc before it reaches the server's code).
"""

from __future__ import annotations

from typing import Any

from pygnmi.spec.v080 import gnmi_pb2

from nos.api.gnmi.errors import InvalidArgument, Unimplemented
from nos.api.json_bytes import json_bytes
from nos.config.limits import MAX_DEPTH, TooDeep, loads

JSON = gnmi_pb2.Encoding.Value("JSON")
JSON_IETF = gnmi_pb2.Encoding.Value("JSON_IETF")
SERVED = (JSON, JSON_IETF)


def check_encoding(encoding: int) -> int:
    """The encoding if it is served; UNIMPLEMENTED naming it otherwise."""
    if encoding in SERVED:
        return encoding
    try:
        name = gnmi_pb2.Encoding.Name(encoding)
    except ValueError:
        name = str(encoding)
    raise Unimplemented(f"encoding {name} is not supported: use JSON or JSON_IETF")


def encode(value: object, encoding: int) -> Any:
    """``value`` as a TypedValue in the served encoding (compact JSON)."""
    data = json_bytes(value)
    if encoding == JSON:
        return gnmi_pb2.TypedValue(json_val=data)
    return gnmi_pb2.TypedValue(json_ietf_val=data)


_SCALAR_FIELDS = ("string_val", "int_val", "uint_val", "bool_val", "double_val", "float_val", "ascii_val")


class ValueTooDeep(InvalidArgument):
    """Raised for a value nested deeper than ``nos.config.limits.MAX_DEPTH`` (JSON, or leaf-lists of
    leaf-lists); the Set answers INVALID_ARGUMENT itself, the request unread (see ``write``)."""


def decode(value: Any, where: str, depth: int = 1) -> object:
    """A TypedValue (or the deprecated ``Value``) as plain data; ``where`` names the path for errors."""
    kind = value.WhichOneof("value")
    if kind in ("json_val", "json_ietf_val"):
        return _json_or_string(getattr(value, kind), where)
    if kind in _SCALAR_FIELDS:
        return getattr(value, kind)
    if kind == "leaflist_val":
        if depth > MAX_DEPTH:
            raise ValueTooDeep(f"{where}: the value's leaf-lists nest deeper than {MAX_DEPTH} levels (the limit)")
        return [decode(item, where, depth + 1) for item in value.leaflist_val.element]
    if kind is None:
        raise InvalidArgument(f"{where}: the update has no value")
    raise Unimplemented(f"{where}: {kind} values are not supported: send JSON or JSON_IETF")


def _json_or_string(data: bytes, where: str) -> object:
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise InvalidArgument(f"{where}: the value is not UTF-8 text") from None
    try:
        return loads(text)
    except TooDeep as error:
        raise ValueTooDeep(f"{where}: {error}") from None
    except ValueError:
        return text  # pygnmi sends strings raw: 'up' rather than '"up"'


__all__ = ["JSON", "JSON_IETF", "SERVED", "check_encoding", "decode", "encode"]
