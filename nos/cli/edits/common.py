"""What every edit module shares: the refusal, and reading and naming within a config document.

The interface-name rules are sonic-utilities' (``utilities_common/intf_filter.py``,
``sonic_py_common/interface.py``): ``Ethernet0-8`` is the inclusive range of names, a comma list
joins names and ranges, and an interface's L3 table follows from its name.
"""

from __future__ import annotations

from collections.abc import Iterator

from nos.db.configdb import Config, Row
from nos.schema import tables as tbl

SEP = "|"
PORT_PREFIX, LAG_PREFIX, BACKPLANE_PREFIX = "Ethernet", "PortChannel", "Ethernet-BP"
SUB_INTERFACE_SEPARATOR = "."
INVALID_INTERFACE = "Interface name is invalid. Please enter a valid interface name!!"


class Refused(ValueError):
    """Raised by an edit when SONiC's command refuses its arguments before writing (the message says
    why, in SONiC's words where it has them); nothing is applied."""


def rows(config: Config, table: str) -> dict[str, Row]:
    """The table's rows (an empty dict, not stored, when the table is absent)."""
    return config.get(table, {})


def table(config: Config, name: str) -> dict[str, Row]:
    """The table's rows, created in the document when absent (empty tables are dropped on commit)."""
    return config.setdefault(name, {})


def key_parts(key: str) -> list[str]:
    return key.split(SEP)


def two_part_keys(config: Config, name: str) -> Iterator[tuple[str, str]]:
    """``(first, second)`` of every ``first|second`` key of the table."""
    for key in rows(config, name):
        first, found, second = key.partition(SEP)
        if found:
            yield first, second


def lag_of(config: Config, port: str) -> str | None:
    """The PortChannel the port is a member of, if any."""
    return next((lag for lag, member in two_part_keys(config, tbl.CFG_LAG_MEMBER_TABLE_NAME) if member == port), None)


def vlans_of(config: Config, member: str) -> list[str]:
    """The VLANs the port or PortChannel is a member of."""
    return [vlan for vlan, port in two_part_keys(config, tbl.CFG_VLAN_MEMBER_TABLE_NAME) if port == member]


def is_valid_interface(config: Config, name: str) -> bool:
    """sonic-utilities' ``interface_name_is_valid``: a port, a PortChannel, a sub-interface or a loopback."""
    return any(name in rows(config, t) for t in (tbl.CFG_PORT_TABLE_NAME, tbl.CFG_LAG_TABLE_NAME,
                                                  tbl.CFG_VLAN_SUB_INTF_TABLE_NAME,
                                                  tbl.CFG_LOOPBACK_INTERFACE_TABLE_NAME))


def _expand_range(text: str, prefix: str) -> list[str]:
    suffix = text[len(prefix):]
    if not suffix[:1].isdigit() or "-" not in suffix:
        return [text]
    start, _, end = suffix.partition("-")
    if not start.isdigit() or not end.isdigit():
        raise Refused(f"Invalid interface range '{text}'. Expected a range like '{prefix}0-3'.")
    if int(start) > int(end):
        raise Refused(f"Invalid interface range '{text}'. The start of the range must not be greater than the end.")
    return [f"{prefix}{n}" for n in range(int(start), int(end) + 1)]


def parse_interface_list(text: str) -> list[str]:
    """``Ethernet0,Ethernet8-12`` -> the names it covers, in order; Refused for a malformed range."""
    names: list[str] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part.startswith(BACKPLANE_PREFIX):
            names += _expand_range(part, BACKPLANE_PREFIX)
        elif "-" not in part:
            names.append(part)
        elif part.startswith(PORT_PREFIX):
            names += [] if part[len(PORT_PREFIX):].startswith(("-Rec", "-IB")) else _expand_range(part, PORT_PREFIX)
        elif part.startswith(LAG_PREFIX):
            names += _expand_range(part, LAG_PREFIX)
        else:
            raise Refused(f"Invalid interface range '{part}'. A range must start with '{PORT_PREFIX}' or "
                          f"'{LAG_PREFIX}'.")
    return names


def interface_table(name: str) -> str:
    """The L3 table of an interface by its name (``get_interface_table_name``); '' when none fits."""
    sub = SUB_INTERFACE_SEPARATOR in name
    if name.startswith(PORT_PREFIX):
        return tbl.CFG_VLAN_SUB_INTF_TABLE_NAME if sub else tbl.CFG_INTF_TABLE_NAME
    if name.startswith(LAG_PREFIX):
        return tbl.CFG_VLAN_SUB_INTF_TABLE_NAME if sub else tbl.CFG_LAG_INTF_TABLE_NAME
    if name.startswith("Vlan"):
        return tbl.CFG_VLAN_INTF_TABLE_NAME
    if name.startswith("Loopback"):
        return tbl.CFG_LOOPBACK_INTERFACE_TABLE_NAME
    if name.startswith(("Eth", "Po")) and sub:
        return tbl.CFG_VLAN_SUB_INTF_TABLE_NAME
    return ""
