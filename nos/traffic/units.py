"""Quantities as scenarios write them: sizes ("1MB", "64KiB"), times ("100us"), rates ("100G"),
lengths ("5m"); each parser returns SI base units (bytes, seconds, bits per second, metres) or raises
``ValueError`` with a message that says what was expected.

Units: sizes ``B``, ``kB``/``KB``/``MB``/``GB``/``TB`` (decimal: 1 MB = 1,000,000 B, as link rates
are decimal) and ``KiB``/``MiB``/``GiB`` (binary); times ``ns``, ``us`` (or ``µs``), ``ms``, ``s``;
rates ``bps``, ``K``/``M``/``G``/``T`` with an optional ``b/s``/``bps`` suffix; lengths ``m``.
A bare number is the base unit (bytes, seconds, bits per second, metres).
"""

from __future__ import annotations

import math
import re

_NUMBER = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-zµμ/]*)\s*$")

SIZE_UNITS = {"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
              "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3, "tib": 1024 ** 4}
TIME_UNITS = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ns": 1e-9}
RATE_UNITS = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
LENGTH_UNITS = {"": 1.0, "m": 1.0, "km": 1e3}


def _split(text: str | int | float, what: str) -> tuple[float, str]:
    if isinstance(text, bool):
        raise ValueError(f"expected a {what}, not a boolean")
    if isinstance(text, int | float):
        if not math.isfinite(text):
            raise ValueError(f"expected a finite {what}")
        return float(text), ""
    found = _NUMBER.match(str(text))
    if found is None:
        raise ValueError(f"{text!r} is not a {what}")
    return float(found.group(1)), found.group(2)


def _unit(table: dict[str, float], unit: str, text: object, what: str, examples: str) -> float:
    factor = table.get(unit.lower())
    if factor is None:
        raise ValueError(f"{text!r}: unknown {what} unit {unit!r} (use e.g. {examples})")
    return factor


def _tidy(value: float) -> float:
    """Drop the binary noise of a decimal scale (100 x 1e-6 is 9.999999999999999e-05)."""
    return float(f"{value:.15g}")


def parse_size(text: str | int | float) -> int:
    """Bytes (an integer >= 0): ``"1MB"`` -> 1000000, ``"64KiB"`` -> 65536."""
    value, unit = _split(text, "size")
    result = value * _unit(SIZE_UNITS, unit, text, "size", "4096, 64KiB, 1MB, 2GiB")
    if result != int(result):
        raise ValueError(f"{text!r} is not a whole number of bytes")
    return int(result)


def parse_time(text: str | int | float) -> float:
    """Seconds: ``"100us"`` -> 1e-4, ``"20ms"`` -> 0.02."""
    value, unit = _split(text, "time")
    return _tidy(value * _unit(TIME_UNITS, unit, text, "time", "500ns, 100us, 20ms, 1s"))


def parse_rate(text: str | int | float) -> float:
    """Bits per second: ``"100G"`` -> 1e11, ``"25Gbps"``, ``"400Gb/s"``."""
    value, unit = _split(text, "rate")
    base = unit.lower()
    for suffix in ("bps", "b/s"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return _tidy(value * _unit(RATE_UNITS, base, text, "rate", "100G, 25Gbps, 400Gb/s"))


def parse_length(text: str | int | float) -> float:
    """Metres: ``"5m"`` -> 5.0 (SONiC's CABLE_LENGTH values are written this way)."""
    value, unit = _split(text, "length")
    return value * _unit(LENGTH_UNITS, unit, text, "length", "5m, 40m, 300m")


def format_size(n_bytes: float) -> str:
    """``1500000`` -> ``"1.5 MB"`` (decimal units, for summaries)."""
    for factor, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if abs(n_bytes) >= factor:
            return f"{n_bytes / factor:.3g} {unit}"
    return f"{n_bytes:.0f} B"


def format_time(seconds: float) -> str:
    """``1.25e-3`` -> ``"1.25 ms"``; NaN -> ``"-"``."""
    if math.isnan(seconds):
        return "-"
    if seconds == 0:
        return "0"
    for factor, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if abs(seconds) >= factor:
            return f"{seconds / factor:.4g} {unit}"
    return f"{seconds / 1e-9:.4g} ns"


def format_rate(bps: float) -> str:
    """``3.9e11`` -> ``"390 Gb/s"``."""
    if math.isnan(bps):
        return "-"
    for factor, unit in ((1e12, "Tb/s"), (1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if abs(bps) >= factor:
            return f"{bps / factor:.4g} {unit}"
    return f"{bps:.0f} b/s"
