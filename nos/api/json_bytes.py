"""Compact JSON as bytes, for every answer of the REST and gNMI servers.

orjson writes it ~10x faster than the standard library (all 128 ports' counters: ~1 ms instead of
~6-10 ms), as compact UTF-8. Non-string keys become strings, as ``json`` makes them. What orjson
refuses (an integer outside 64 bits, a type it does not know) goes to the standard library, which
answers as before: a counter written as a 30-digit number is still a number.
"""

from __future__ import annotations

import json

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS
_FALLBACK = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def json_bytes(content: object) -> bytes:
    """``content`` as compact JSON (raises TypeError for what neither encoder can write)."""
    try:
        return orjson.dumps(content, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return _FALLBACK.encode(content).encode()


__all__ = ["json_bytes"]
