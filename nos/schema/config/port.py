"""Row model for PORT (physical ports), and the check that no lane belongs to two ports.

YANG: sonic-port.yang. ``adv_speeds``/``adv_interface_types``/``dhcp_servers`` are YANG leaf-lists; real
files write the first two as comma-joined strings and the last as ``@`` lists, and both are accepted.
``lanes`` is a plain string in the YANG; here it must be a comma-separated list of lane numbers, which is
what portsorch parses.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Annotated

from nos.schema.config import (
    ADMIN_STATUS,
    ENABLED_DISABLED,
    ON_OFF,
    SWITCHPORT_MODE,
    TPID,
    U16,
    U32,
    AnyOf,
    Bool,
    Choice,
    ConfigError,
    Csv,
    Int,
    Ip,
    ListOf,
    Lookup,
    Match,
    RowModel,
    Text,
    UInt,
    ref,
    single,
)
from nos.schema.tables import CFG_MACSEC_PROFILE_TABLE_NAME, CFG_PORT_TABLE_NAME

SPEED = Int(1, 1600000)  # Mb/s
LANES = Csv(UInt(U32), what="a comma-separated list of lane numbers")
INTERFACE_TYPE = Choice(
    "CR", "CR2", "CR4", "CR8", "SR", "SR2", "SR4", "SR8", "LR", "LR4", "LR8", "KR", "KR4", "KR8", "CAUI",
    "GMII", "SFI", "XLAUI", "KR2", "CAUI4", "XAUI", "XFI", "XGMII", "none",
)  # fmt: skip
ALL = Choice("all")


class PortRow(RowModel):
    """``PORT|<name>``."""

    lanes: Annotated[list[int], LANES]
    speed: Annotated[int, SPEED]
    alias: Annotated[str | None, Text(1, 128)] = None
    index: Annotated[int | None, UInt(U16)] = None
    mtu: Annotated[int | None, Int(68, 9216)] = None
    admin_status: Annotated[str | None, ADMIN_STATUS] = None
    fec: Annotated[str | None, Choice("rs", "fc", "none", "auto")] = None
    autoneg: Annotated[str | None, ON_OFF] = None
    link_training: Annotated[str | None, ON_OFF] = None
    adv_speeds: Annotated[list[int | str] | None, ListOf(AnyOf(SPEED, ALL))] = None
    interface_type: Annotated[str | None, INTERFACE_TYPE] = None
    adv_interface_types: Annotated[list[str] | None, ListOf(AnyOf(INTERFACE_TYPE, ALL))] = None
    pfc_asym: Annotated[str | None, ON_OFF] = None
    tpid: Annotated[str | None, TPID] = None
    role: Annotated[str | None, Choice("Ext", "Int", "Inb", "Rec", "Dpc")] = None
    subport: Annotated[int | None, UInt(8)] = None
    mode: Annotated[str | None, SWITCHPORT_MODE] = None
    description: Annotated[str | None, Text(0, 255)] = None
    dom_polling: Annotated[str | None, ENABLED_DISABLED] = None
    asic_port_name: str | None = None
    core_id: Annotated[str | None, Text(1, 16)] = None
    core_port_id: Annotated[str | None, Text(1, 16)] = None
    num_voq: Annotated[str | None, Text(1, 16)] = None
    dhcp_rate_limit: Annotated[int | None, UInt(U32)] = None
    mux_cable: Annotated[bool | None, Bool()] = None
    macsec: Annotated[str | None, Text(), ref(CFG_MACSEC_PROFILE_TABLE_NAME, noun="MACsec profile")] = None
    tx_power: Annotated[str | None, Match(r"-?[0-9]+(\.[0-9])?", "a decimal with one fraction digit")] = None
    laser_freq: Annotated[int | None, Int(-(2**31), 2**31 - 1)] = None
    dhcp_servers: Annotated[list[str] | None, ListOf(Ip(4))] = None
    dhcpv6_servers: Annotated[list[str] | None, ListOf(Ip(6))] = None
    fast_linkup: Annotated[bool | None, Bool()] = None


def lanes_of(value: object) -> tuple[int, ...]:
    """The lane numbers of a PORT ``lanes`` value, or () when it is not a valid lane list."""
    if not isinstance(value, str):
        return ()
    return _lanes(value)


@lru_cache(maxsize=8192)
def _lanes(value: str) -> tuple[int, ...]:  # the same lane strings are checked on every write
    if not LANES.accepts(value):
        return ()
    return tuple(int(lane) for lane in value.split(","))


def check_unique_lanes(lookup: Lookup) -> Iterable[ConfigError]:
    """No lane may belong to two PORT rows (portsorch identifies ports by their lane sets).

    A warning, not an error: SONiC's ``config load`` writes such a file (sonic-utilities' own mock
    CONFIG_DB has one) and the ASIC then refuses the later port, which is logged and reported.
    """
    owner: dict[int, str] = {}
    for name in sorted(lookup.rows(CFG_PORT_TABLE_NAME)):
        value = lookup.rows(CFG_PORT_TABLE_NAME)[name].get("lanes", "")
        for lane in lanes_of(value):
            first = owner.setdefault(lane, name)
            if first != name:
                reason = f"lane {lane} is also used by port '{first}'"
                yield ConfigError(CFG_PORT_TABLE_NAME, name, "lanes", str(value), reason, warning=True)
                break


PORT = single(CFG_PORT_TABLE_NAME, PortRow, Text(1, 128), checks=(check_unique_lanes,))

SCHEMAS = (PORT,)
