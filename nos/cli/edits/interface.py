"""``config interface startup|shutdown|speed|mtu|ip add|ip remove`` as edits of the config document.

SONiC's commands (sonic-utilities ``config/main.py`` and ``scripts/portconfig``) and what they write:

* ``startup|shutdown <names>``: ``admin_status`` up/down on every PORT, PORTCHANNEL, VLAN_SUB_INTERFACE
  and LOOPBACK_INTERFACE row the names cover (a comma list, ranges like ``Ethernet0-8``).
* ``speed <port> <Mb/s>`` / ``mtu <port> <bytes>``: ``PORT|<port>`` ``speed`` / ``mtu`` (portconfig
  refuses a PortChannel, a speed outside STATE_DB's ``supported_speeds``, an MTU on a LAG member).
* ``ip add <if> <ip/len> [gw]``: the interface row ``<TABLE>|<if>`` (created empty; a sub-interface
  gets ``admin_status`` up) and the address row ``<TABLE>|<if>|<ip/len>``; ``eth0`` goes to
  MGMT_INTERFACE with ``gwaddr``.
* ``ip remove <if> <ip/len>``: the address row; the interface row too once it holds no address, no
  VRF binding and no IPv6 link-local mode (sub-interfaces keep theirs).

Deviations, stated: a name list or range that covers no interface, an address not on the interface
and an ``ip add`` to a VLAN member are refused (SONiC does nothing and exits 0); the static-route
check looks at CONFIG_DB STATIC_ROUTE (SONiC asks FRR).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from nos.cli.edits.common import (
    INVALID_INTERFACE,
    SEP,
    SUB_INTERFACE_SEPARATOR,
    Refused,
    interface_table,
    is_valid_interface,
    lag_of,
    parse_interface_list,
    rows,
    table,
    vlans_of,
)
from nos.db.configdb import Config, Row
from nos.schema import tables as tbl

MGMT_INTERFACE = "MGMT_INTERFACE"
MGMT_PORT = "eth0"
ADMIN_TABLES = (tbl.CFG_PORT_TABLE_NAME, tbl.CFG_LAG_TABLE_NAME, tbl.CFG_VLAN_SUB_INTF_TABLE_NAME,
                tbl.CFG_LOOPBACK_INTERFACE_TABLE_NAME)
Address = ipaddress.IPv4Interface | ipaddress.IPv6Interface


def set_admin_status(config: Config, names: str, status: str) -> Config:
    """``config interface startup|shutdown``: ``admin_status`` on every interface row the names cover."""
    wanted = set(parse_interface_list(names))
    if len(wanted) == 1 and not is_valid_interface(config, next(iter(wanted))):
        raise Refused(INVALID_INTERFACE)
    matched = 0
    for name in ADMIN_TABLES:
        for key, row in rows(config, name).items():
            if key in wanted:
                row["admin_status"] = status
                matched += 1
    if not matched:
        raise Refused(f"'{names}' names no interface of this switch")
    return config


def _port_row(config: Config, name: str) -> Row:
    """The PORT row, as portconfig finds it (``Invalid port`` for a PortChannel or an unknown name)."""
    row = rows(config, tbl.CFG_PORT_TABLE_NAME).get(name)
    if row is None:
        raise Refused(f"Invalid port {name}")
    return row


def set_speed(config: Config, name: str, speed: int, supported: Sequence[int] = ()) -> Config:
    """``config interface speed``; ``supported`` is STATE_DB's ``supported_speeds`` (empty: unknown)."""
    row = _port_row(config, name)
    if supported and speed not in supported:
        raise Refused(f"Invalid speed specified: {speed}\nValid speeds:{','.join(map(str, supported))}")
    row["speed"] = str(speed)
    return config


def set_mtu(config: Config, name: str, mtu: int) -> Config:
    """``config interface mtu`` (the range 68..9216 is the click argument's)."""
    lag = lag_of(config, name)
    if lag is not None:
        raise Refused(f"{name} is in portchannel {lag}! (a member takes the PortChannel's MTU)")
    _port_row(config, name)["mtu"] = str(mtu)
    return config


def parse_address(text: str) -> Address:
    try:
        return ipaddress.ip_interface(text)
    except ValueError as exc:
        raise Refused(f"IP address is not valid: {exc}") from None


def _l3_table(config: Config, name: str) -> str:
    """The interface's L3 table; Refused when the name fits none or the interface does not exist."""
    found = interface_table(name)
    if not found:
        raise Refused("'interface_name' is not valid. Valid names [Ethernet/PortChannel/Vlan/Loopback]")
    owner = {tbl.CFG_INTF_TABLE_NAME: tbl.CFG_PORT_TABLE_NAME, tbl.CFG_LAG_INTF_TABLE_NAME: tbl.CFG_LAG_TABLE_NAME,
             tbl.CFG_VLAN_INTF_TABLE_NAME: tbl.CFG_VLAN_TABLE_NAME}.get(found)
    if owner == tbl.CFG_VLAN_TABLE_NAME and name not in rows(config, owner):
        raise Refused(f"{name} does not exist. Vlan must be created before adding an IP address")
    if owner is not None and name not in rows(config, owner):
        raise Refused(f"{name} does not exist")
    return found


def _check_routed(config: Config, name: str) -> None:
    """An address goes on a routed interface only: not a VLAN or PortChannel member, not in L2 mode."""
    vlans = vlans_of(config, name)
    if vlans:
        raise Refused(f"Interface {name} is a member of vlan {', '.join(vlans)}\nAborting!")
    if lag_of(config, name) is not None:
        raise Refused(f"{name} is configured as a member of portchannel.")
    owner = rows(config, tbl.CFG_PORT_TABLE_NAME).get(name) or rows(config, tbl.CFG_LAG_TABLE_NAME).get(name) or {}
    mode = owner.get("mode")
    if mode in ("trunk", "access"):
        raise Refused(f"Interface {name} is in {mode} mode and needs to be in routed mode!")


def add_address(config: Config, name: str, prefix: str, gateway: str | None = None) -> Config:
    """``config interface ip add``."""
    _check_routed(config, name)
    address = parse_address(prefix)
    if name == MGMT_PORT:
        return _add_mgmt_address(config, address, gateway)
    l3 = _l3_table(config, name)
    l3_rows = table(config, l3)
    if name not in l3_rows:
        l3_rows[name] = {"admin_status": "up"} if l3 == tbl.CFG_VLAN_SUB_INTF_TABLE_NAME else {}
    l3_rows[f"{name}{SEP}{address}"] = {}
    return config


def _add_mgmt_address(config: Config, address: Address, gateway: str | None) -> Config:
    """eth0 holds one address per family: one of the same family is replaced."""
    mgmt = table(config, MGMT_INTERFACE)
    for key in [k for k in mgmt if k.startswith(MGMT_PORT + SEP)]:
        if ipaddress.ip_interface(key.partition(SEP)[2]).version == address.version:
            del mgmt[key]
    mgmt[f"{MGMT_PORT}{SEP}{address}"] = {"gwaddr": gateway} if gateway else {}
    return config


def addresses_of(config: Config, l3: str, name: str) -> dict[str, Address]:
    """The address rows of an interface: key -> address (keys that are no address are skipped)."""
    found: dict[str, Address] = {}
    for key in rows(config, l3):
        owner, sep, prefix = key.partition(SEP)
        if sep and owner == name:
            try:
                found[key] = ipaddress.ip_interface(prefix)
            except ValueError:
                continue
    return found


def _static_routes_via(config: Config, name: str) -> list[str]:
    """STATIC_ROUTE prefixes whose ``ifname`` list names the interface."""
    return [key for key, row in rows(config, tbl.CFG_STATIC_ROUTE_TABLE_NAME).items()
            if name in str(row.get("ifname", "")).split(",")]


def remove_address(config: Config, name: str, prefix: str) -> Config:
    """``config interface ip remove``."""
    address = parse_address(prefix)
    if name == MGMT_PORT:
        if rows(config, MGMT_INTERFACE).pop(f"{MGMT_PORT}{SEP}{address}", None) is None:
            raise Refused(f"{address} is not configured on {name}")
        return config
    l3 = interface_table(name)
    if not l3:
        raise Refused("'interface_name' is not valid. Valid names [Ethernet/PortChannel/Vlan/Loopback]")
    present = addresses_of(config, l3, name)
    keys = [key for key, value in present.items() if value == address]
    if not keys:
        raise Refused(f"{address} is not configured on {name}")
    if len(present) == len(keys):
        routes = _static_routes_via(config, name)
        if routes:
            family = "ipv6" if address.version == 6 else "ip"
            raise Refused(f"Cannot remove the last IP entry of interface {name}. A static {family} route is still "
                          f"bound to the RIF ({', '.join(routes)}).")
    l3_rows = rows(config, l3)
    for key in keys:
        del l3_rows[key]
    _drop_bare_interface(l3_rows, l3, name)
    return config


def _drop_bare_interface(l3_rows: dict[str, Row], l3: str, name: str) -> None:
    """The interface row goes with its last address unless it binds a VRF or IPv6 link-local mode."""
    if l3 == tbl.CFG_VLAN_SUB_INTF_TABLE_NAME or any(k.startswith(name + SEP) for k in l3_rows):
        return
    row = l3_rows.get(name)
    if row is not None and "vrf_name" not in row and row.get("ipv6_use_link_local_only") != "enable":
        del l3_rows[name]


__all__ = ["Address", "MGMT_INTERFACE", "MGMT_PORT", "SUB_INTERFACE_SEPARATOR", "add_address", "addresses_of",
           "parse_address", "remove_address", "set_admin_status", "set_mtu", "set_speed"]
