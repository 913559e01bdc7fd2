"""Pure helpers of the buffer managers: lossless PG ranges, profile names, the traditional model's
pg_profile_lookup.ini decision (swss cfgmgr/buffermgr.cpp ``doSpeedUpdateTask``), key separators.

Traditional model, for one port with a cable length, a speed and PORT_QOS_MAP ``pfc_enable``:
* cable ``0m``: nothing is generated (the PGs keep what they had);
* no ``pg_profile_lookup.ini`` row for (speed, cable): invalid, nothing generated;
* else profile ``pg_lossless_<speed>_<cable>_profile`` {pool ingress_lossless_pool, xon, xon_offset (when
  the row has one), xoff, size, ``<ingress_lossless_pool mode>_th`` = threshold}, written only when CONFIG_DB
  has no profile of that name, and ``BUFFER_PG|<port>|<range>`` {profile} for every contiguous range of the
  lossless priorities ("3,4" -> ``3-4``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from nos.platform.sku import PgLookupRow

INGRESS_LOSSLESS_POOL = "ingress_lossless_pool"
ZERO_CABLE = "0m"
DEFAULT_MTU = "9100"


def pg_ranges(pfc_enable: str) -> list[str]:
    """``"3,4"`` -> ``["3-4"]``, ``"1,3,4"`` -> ``["1", "3-4"]`` (invalid items ignored, as buffermgrd)."""
    ids = sorted({int(item) for item in pfc_enable.split(",") if item.strip().isdecimal() and int(item) < 32})
    ranges: list[str] = []
    start = prev = -2
    for number in [*ids, -1]:
        if number == prev + 1:
            prev = number
            continue
        if start >= 0:
            ranges.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = number
    return ranges


def traditional_profile_name(speed: str, cable: str) -> str:
    return f"pg_lossless_{speed}_{cable}_profile"


def dynamic_profile_name(speed: str, cable: str, mtu: str, threshold: str | None = None) -> str:
    """``pg_lossless_<speed>_<cable>[_mtu<mtu>][_th<threshold>]_profile`` (buffermgrdyn getDynamicProfileName):
    the mtu suffix when it is not 9100, the threshold suffix when it is not the default (``None``)."""
    name = f"pg_lossless_{speed}_{cable}"
    if mtu != DEFAULT_MTU:
        name += f"_mtu{mtu}"
    if threshold is not None:
        name += f"_th{threshold}"
    return name + "_profile"


def lookup_table(rows: Iterable[PgLookupRow]) -> dict[tuple[str, str], PgLookupRow]:
    return {(str(row.speed), row.cable): row for row in rows}


def lookup_profile(row: PgLookupRow, pool_mode: str) -> dict[str, str]:
    """CONFIG_DB BUFFER_PROFILE fields for a lookup row, in buffermgrd's order."""
    fields = {"pool": INGRESS_LOSSLESS_POOL, "xon": row.xon}
    if row.xon_offset:
        fields["xon_offset"] = row.xon_offset
    fields.update({"xoff": row.xoff, "size": row.size, f"{pool_mode}_th": row.threshold})
    return fields


@dataclass(frozen=True)
class LosslessPlan:
    """What the traditional manager writes for one port; ``skip`` / ``invalid`` say why it writes nothing."""

    profile: str = ""
    profile_fields: dict[str, str] = field(default_factory=dict)  # empty: reuse the existing profile
    pgs: tuple[str, ...] = ()  # PG ranges bound to ``profile``
    skip: str = ""
    invalid: str = ""


def plan_traditional(port: str, speed: str, cable: str, pfc_enable: str,
                     lookup: Mapping[tuple[str, str], PgLookupRow], pool_mode: str,
                     profile_exists: bool) -> LosslessPlan:
    """The traditional model's decision for one port (see the module docstring)."""
    if cable == ZERO_CABLE:
        return LosslessPlan(skip=f"cable length of {port} is {cable}: no lossless profile")
    row = lookup.get((speed, cable))
    if row is None:
        return LosslessPlan(invalid=f"no lossless PG profile for {port}: pg_profile_lookup.ini has no row "
                                    f"for speed {speed} and cable length {cable}")
    name = traditional_profile_name(speed, cable)
    fields = {} if profile_exists else lookup_profile(row, pool_mode)
    return LosslessPlan(name, fields, tuple(pg_ranges(pfc_enable)))


def config_to_appl_key(key: str) -> str:
    """CONFIG_DB ``Ethernet0|3-4`` -> APPL_DB ``Ethernet0:3-4``."""
    return key.replace("|", ":")
