"""``config portchannel add|del`` and ``config portchannel member add|del`` as edits of the document.

As sonic-utilities ``config/main.py`` writes them: ``PORTCHANNEL|PortChannel<N>`` {``admin_status`` up,
``mtu`` 9100, ``lacp_key`` auto, ``fast_rate``, ``min_links``, ``fallback`` true when asked} and
``PORTCHANNEL_MEMBER|<pc>|<port>`` (no fields), with its refusals (name not ``PortChannel<0-9999>``,
already there, VLAN members or members left on delete; a member that has addresses or sub-interfaces,
is a VLAN member, is in another PortChannel, or differs in speed, MTU or TPID).
A PortChannel that still has addresses cannot be deleted either (SONiC leaves that to YANG).
"""

from __future__ import annotations

import re

from nos.cli.edits.common import (
    INVALID_INTERFACE,
    PORT_PREFIX,
    SEP,
    SUB_INTERFACE_SEPARATOR,
    Refused,
    is_valid_interface,
    lag_of,
    rows,
    table,
    two_part_keys,
    vlans_of,
)
from nos.cli.edits.vlan import MIRROR_SESSION
from nos.db.configdb import Config, Row
from nos.schema import tables as tbl

IFACE_NAME_MAX_LEN = 15
DEFAULT_TPID = "0x8100"
_NAME = re.compile(r"PortChannel([0-9]{1,4})")
_SHORT_PARENTS = ((re.compile(r"Eth([0-9]+)"), PORT_PREFIX), (re.compile(r"Po([0-9]+)"), "PortChannel"))


def check_name(name: str) -> None:
    """``PortChannel<0-9999>``, at most 15 characters (IFNAMSIZ)."""
    if not _NAME.fullmatch(name) or len(name) > IFACE_NAME_MAX_LEN:
        raise Refused(f"{name} is invalid!, name should have prefix 'PortChannel' and suffix '<0-9999>' "
                      f"and its length should not exceed {IFACE_NAME_MAX_LEN} characters")


def _existing(config: Config, name: str) -> None:
    check_name(name)
    if name not in rows(config, tbl.CFG_LAG_TABLE_NAME):
        raise Refused(f"{name} is not present.")


def add(config: Config, name: str, min_links: int = 1, fallback: bool = False, fast_rate: bool = False) -> Config:
    """``config portchannel add``."""
    check_name(name)
    lags = table(config, tbl.CFG_LAG_TABLE_NAME)
    if name in lags:
        raise Refused(f"{name} already exists!")
    row: Row = {"admin_status": "up", "mtu": "9100", "lacp_key": "auto", "fast_rate": "true" if fast_rate else "false",
           "min_links": str(min_links)}
    if fallback:
        row["fallback"] = "true"
    lags[name] = row
    return config


def delete(config: Config, name: str) -> Config:
    """``config portchannel del``."""
    _existing(config, name)
    vlans = vlans_of(config, name)
    if vlans:
        raise Refused(f"{name} has vlan {vlans[0]} configured, remove vlan membership to proceed")
    if any(lag == name for lag, _ in two_part_keys(config, tbl.CFG_LAG_MEMBER_TABLE_NAME)):
        raise Refused(f"Portchannel {name} contains members. Remove members before deleting Portchannel!")
    if any(key.partition(SEP)[0] == name for key in rows(config, tbl.CFG_LAG_INTF_TABLE_NAME)):
        raise Refused(f"{name} has IP addresses configured, remove them to proceed")
    del rows(config, tbl.CFG_LAG_TABLE_NAME)[name]
    return config


def _parent(sub_interface: str) -> str:
    parent = sub_interface.partition(SUB_INTERFACE_SEPARATOR)[0]
    for short, long in _SHORT_PARENTS:
        found = short.fullmatch(parent)
        if found:
            return long + found.group(1)
    return parent


def _check_port_free(config: Config, port: str) -> None:
    """Not routed, no sub-interfaces, not a VLAN member, not in a PortChannel."""
    if port in rows(config, tbl.CFG_INTF_TABLE_NAME):
        raise Refused(f"{port} has ip address configured")
    if any(_parent(key) == port for key in rows(config, tbl.CFG_VLAN_SUB_INTF_TABLE_NAME) if SEP not in key):
        raise Refused(f"{port} has subinterfaces configured")
    vlans = vlans_of(config, port)
    if vlans:
        raise Refused(f"{port} Interface configured as VLAN_MEMBER under vlan : {vlans[0]}")
    other = lag_of(config, port)
    if other is not None:
        raise Refused(f"{port} Interface is already member of {other}")


def _check_port_matches(config: Config, lag: str, port: str) -> None:
    """Same speed as the other members, same MTU as the PortChannel, default TPID."""
    ports = rows(config, tbl.CFG_PORT_TABLE_NAME)
    row = ports[port]
    for member in (m for pc, m in two_part_keys(config, tbl.CFG_LAG_MEMBER_TABLE_NAME) if pc == lag):
        if ports.get(member, {}).get("speed") != row.get("speed"):
            raise Refused(f"Port speed of {port} is different than the other members of the portchannel {lag}")
    lag_mtu = rows(config, tbl.CFG_LAG_TABLE_NAME)[lag].get("mtu")
    if lag_mtu is not None and row.get("mtu") is not None and row.get("mtu") != lag_mtu:
        raise Refused(f"Port MTU of {port} is different than the {lag} MTU size")
    tpid = row.get("tpid")
    if tpid is not None and tpid != DEFAULT_TPID:
        raise Refused(f"Port TPID of {port}: {tpid} is not at default {DEFAULT_TPID}")


def add_member(config: Config, lag: str, port: str) -> Config:
    """``config portchannel member add``."""
    if any(row.get("dst_port") == port for row in rows(config, MIRROR_SESSION).values()):
        raise Refused(f"{port} is configured as mirror destination port")
    if not port.startswith(PORT_PREFIX) or port not in rows(config, tbl.CFG_PORT_TABLE_NAME):
        raise Refused(INVALID_INTERFACE)
    _existing(config, lag)
    _check_port_free(config, port)
    _check_port_matches(config, lag, port)
    table(config, tbl.CFG_LAG_MEMBER_TABLE_NAME)[f"{lag}{SEP}{port}"] = {}
    return config


def delete_member(config: Config, lag: str, port: str) -> Config:
    """``config portchannel member del``."""
    check_name(lag)
    if not is_valid_interface(config, port):
        raise Refused(INVALID_INTERFACE)
    _existing(config, lag)
    if rows(config, tbl.CFG_LAG_MEMBER_TABLE_NAME).pop(f"{lag}{SEP}{port}", None) is None:
        raise Refused(f"{port} is not a member of portchannel {lag}")
    return config


__all__ = ["add", "add_member", "check_name", "delete", "delete_member"]
