"""What the RoCE expansion and the lossless check need to know about the switch's SKU: the rows of its
``pg_profile_lookup.ini`` (headroom by speed and cable length) and its default cable length.

:func:`facts_for` reads them for the SKU that ``DEVICE_METADATA|localhost`` names (file IO, cached);
everything else here is pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from nos.platform.sku import PgLookupRow, SkuDataError, UnknownSku, load_sku
from nos.schema import tables as t
from nos.schema.config import Config

DEFAULT_CABLE = "5m"  # buffers_config.j2's default when a SKU names none


@dataclass(frozen=True)
class RoceFacts:
    """The SKU facts: ``pg_profile_lookup.ini`` rows, the default cable length, the SKU's name."""

    hwsku: str = ""
    lookup: tuple[PgLookupRow, ...] = ()
    default_cable: str = DEFAULT_CABLE

    def headroom(self, speed: int, cable: str) -> PgLookupRow | None:
        """The lookup row for a speed (Mb/s) and a cable length, or None."""
        return next((r for r in self.lookup if r.speed == speed and r.cable == cable), None)

    def cables(self, speed: int) -> list[str]:
        """The cable lengths the lookup offers at a speed, shortest first."""
        return sorted((r.cable for r in self.lookup if r.speed == speed), key=cable_metres)


def cable_metres(cable: str) -> int:
    """``"40m"`` -> 40 (a malformed length sorts last)."""
    digits = cable.removesuffix("m")
    return int(digits) if digits.isdecimal() else 1 << 30


def hwsku_of(config: Config) -> str:
    value = config.get(t.CFG_DEVICE_METADATA_TABLE_NAME, {}).get("localhost", {}).get("hwsku", "")
    return value if isinstance(value, str) else ""


@cache
def _load(hwsku: str) -> RoceFacts:
    try:
        sku = load_sku(hwsku)
        lookup = tuple(sku.pg_profile_lookup())
    except (UnknownSku, SkuDataError, OSError):
        return RoceFacts(hwsku)
    cable = sku.buffers.get("default_cable_length", DEFAULT_CABLE)
    return RoceFacts(hwsku, lookup, cable if isinstance(cable, str) else DEFAULT_CABLE)


def facts_for(config: Config) -> RoceFacts:
    """The facts of the SKU the configuration names (no lookup rows when it names no known SKU)."""
    return _load(hwsku_of(config))


__all__ = ["RoceFacts", "cable_metres", "facts_for", "hwsku_of"]
