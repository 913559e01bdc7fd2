"""Parsing SAI attribute values into numbers for the compiler: MAC addresses, IP addresses and
prefixes (to 64-bit words), integers with defaults, booleans."""

from __future__ import annotations

import socket
from collections.abc import Mapping

NO_OID = ("", "oid:0x0")


def mac_int(text: str) -> int:
    """``"52:54:00:25:06:E9"`` -> 0x52540025006E9 (48 bits); empty -> 0."""
    return int(text.replace(":", "").replace("-", ""), 16) if text else 0


def mac_text(value: int) -> str:
    raw = f"{value & 0xFFFFFFFFFFFF:012X}"
    return ":".join(raw[i:i + 2] for i in range(0, 12, 2))


def ip_words(text: str) -> tuple[bool, int, int]:
    """An address -> (is_v6, hi, lo); IPv4 in ``lo`` with ``hi`` 0."""
    if ":" in text:
        raw = socket.inet_pton(socket.AF_INET6, text)
        return True, int.from_bytes(raw[:8], "big"), int.from_bytes(raw[8:], "big")
    return False, 0, int.from_bytes(socket.inet_pton(socket.AF_INET, text), "big")


def prefix_words(text: str) -> tuple[bool, int, int, int]:
    """``"10.0.0.0/24"`` -> (is_v6, hi, lo, length), the address masked to its length."""
    addr, _, plen_text = text.partition("/")
    v6, hi, lo = ip_words(addr)
    plen = int(plen_text) if plen_text else (128 if v6 else 32)
    if v6:
        full = (hi << 64 | lo) & (((1 << plen) - 1) << (128 - plen))
        return True, full >> 64, full & 0xFFFFFFFFFFFFFFFF, plen
    return False, 0, lo & (((1 << plen) - 1) << (32 - plen)), plen


def ip_text(is_v6: bool, hi: int, lo: int) -> str:
    if is_v6:
        return socket.inet_ntop(socket.AF_INET6, (hi << 64 | lo).to_bytes(16, "big"))
    return socket.inet_ntoa((lo & 0xFFFFFFFF).to_bytes(4, "big"))


def as_int(attrs: Mapping[str, str], name: str, default: int = 0) -> int:
    text = attrs.get(name)
    try:
        return int(text) if text not in (None, "") else default
    except ValueError:
        return default


def as_bool(attrs: Mapping[str, str], name: str, default: bool = False) -> bool:
    text = attrs.get(name)
    return default if text is None else text == "true"


def ref(attrs: Mapping[str, str], name: str) -> str:
    """An object-id attribute, "" when unset or the null oid."""
    value = attrs.get(name, "")
    return "" if value in NO_OID else value
