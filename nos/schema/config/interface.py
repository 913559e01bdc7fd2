"""Row models for the L3 interface tables: INTERFACE, PORTCHANNEL_INTERFACE, VLAN_INTERFACE,
LOOPBACK_INTERFACE and VLAN_SUB_INTERFACE.

Each table has two key shapes: ``<name>`` (the interface row, with its attributes) and
``<name>|<ip/prefix>`` (one row per address). YANG: sonic-interface.yang, sonic-portchannel.yang,
sonic-vlan.yang, sonic-loopback-interface.yang, sonic-vlan-sub-interface.yang. Where the YANG requires the
interface row before its addresses (INTERFACE, VLAN_INTERFACE, LOOPBACK_INTERFACE, VLAN_SUB_INTERFACE), so
does this module; an address's ``family`` must agree with the address.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated

from nos.schema.config import (
    ADMIN_STATUS,
    ENABLE_DISABLE,
    ENABLED_DISABLED,
    IP_PREFIX,
    LOOPBACK_ACTION,
    MAC,
    PORTCHANNEL_NAME,
    Bool,
    Choice,
    ConfigError,
    Int,
    KeyPart,
    KeyShape,
    Leaf,
    Lookup,
    Match,
    Ref,
    Row,
    RowCheck,
    RowModel,
    TableSchema,
    Text,
    ref,
)
from nos.schema.tables import (
    CFG_INTF_TABLE_NAME,
    CFG_LAG_INTF_TABLE_NAME,
    CFG_LAG_TABLE_NAME,
    CFG_LOOPBACK_INTERFACE_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
    CFG_VLAN_INTF_TABLE_NAME,
    CFG_VLAN_SUB_INTF_TABLE_NAME,
    CFG_VLAN_TABLE_NAME,
    CFG_VNET_TABLE_NAME,
    CFG_VRF_TABLE_NAME,
)

VRF_REF = ref(CFG_VRF_TABLE_NAME, noun="VRF")
VNET_REF = ref(CFG_VNET_TABLE_NAME, noun="VNET")
NAT_ZONE = Int(0, 3)
MPLS = ENABLE_DISABLE
SCOPE = Choice("global", "local")
FAMILY = Choice("IPv4", "IPv6")
SUB_INTERFACE_NAME = Match(
    r"\w+\.([1-9][0-9]{0,2}|[1-3][0-9]{3}|40[0-8][0-9]|409[0-4])", "<parent>.<vlan id 1..4094>"
)
_SHORT_PARENTS = ((re.compile(r"Eth([0-9]+)"), "Ethernet"), (re.compile(r"Po([0-9]+)"), "PortChannel"))


class InterfaceRow(RowModel):
    """``INTERFACE|<port>``."""

    vrf_name: Annotated[str | None, Text(1), VRF_REF] = None
    vnet_name: Annotated[str | None, Text(1), VNET_REF] = None
    nat_zone: Annotated[int | None, NAT_ZONE] = None
    mpls: Annotated[str | None, MPLS] = None
    ipv6_use_link_local_only: Annotated[str | None, ENABLE_DISABLE] = None
    loopback_action: Annotated[str | None, LOOPBACK_ACTION] = None
    mac_addr: Annotated[str | None, MAC] = None


class PortChannelInterfaceRow(RowModel):
    """``PORTCHANNEL_INTERFACE|PortChannel<N>``."""

    vrf_name: Annotated[str | None, Text(1), VRF_REF] = None
    nat_zone: Annotated[int | None, NAT_ZONE] = None
    mpls: Annotated[str | None, MPLS] = None
    ipv6_use_link_local_only: Annotated[str | None, ENABLE_DISABLE] = None
    loopback_action: Annotated[str | None, LOOPBACK_ACTION] = None
    mac_addr: Annotated[str | None, MAC] = None


class VlanInterfaceRow(RowModel):
    """``VLAN_INTERFACE|Vlan<id>``."""

    vrf_name: Annotated[str | None, Text(1), VRF_REF] = None
    nat_zone: Annotated[int | None, NAT_ZONE] = None
    mpls: Annotated[str | None, MPLS] = None
    grat_arp: Annotated[str | None, ENABLED_DISABLED] = None
    proxy_arp: Annotated[str | None, ENABLED_DISABLED] = None
    ipv6_use_link_local_only: Annotated[str | None, ENABLE_DISABLE] = None
    mac_addr: Annotated[str | None, MAC] = None
    loopback_action: Annotated[str | None, LOOPBACK_ACTION] = None
    static_anycast_gateway: Annotated[bool | None, Bool()] = None


class LoopbackInterfaceRow(RowModel):
    """``LOOPBACK_INTERFACE|Loopback<N>``."""

    vrf_name: Annotated[str | None, Text(1), VRF_REF] = None
    nat_zone: Annotated[int | None, NAT_ZONE] = None
    admin_status: Annotated[str | None, ADMIN_STATUS] = None


class VlanSubInterfaceRow(RowModel):
    """``VLAN_SUB_INTERFACE|<parent>.<vlan>``; the parent is ``EthernetN``/``PortChannelN`` or the short
    ``EthN``/``PoN``."""

    admin_status: Annotated[str | None, ADMIN_STATUS] = None
    vrf_name: Annotated[str | None, Text(1), VRF_REF] = None
    vnet_name: Annotated[str | None, Text(1), VNET_REF] = None
    ipv6_use_link_local_only: Annotated[str | None, ENABLE_DISABLE] = None
    loopback_action: Annotated[str | None, LOOPBACK_ACTION] = None
    vlan: Annotated[int | None, Int(1, 4094)] = None
    send_redirects: Annotated[bool | None, Bool()] = None


class InterfaceIpRow(RowModel):
    """``<TABLE>|<name>|<ip/prefix>``: one address on an interface."""

    scope: Annotated[str | None, SCOPE] = None
    family: Annotated[str | None, FAMILY] = None


class VlanInterfaceIpRow(InterfaceIpRow):
    """``VLAN_INTERFACE|Vlan<id>|<ip/prefix>``."""

    secondary: Annotated[bool | None, Bool()] = None


def check_family(table: str) -> RowCheck:
    """An address row's ``family`` must say IPv4 for a dotted address and IPv6 for a colon one."""

    def check(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
        family = row.get("family")
        if family in ("IPv4", "IPv6"):
            wanted = "IPv6" if ":" in parts[1] else "IPv4"
            if family != wanted:
                yield ConfigError(
                    table, key, "family", str(family), f"must be {wanted} for address '{parts[1]}'"
                )

    return check


def check_interface_row(table: str) -> RowCheck:
    """YANG ``must``: the interface row ``<TABLE>|<name>`` must exist before its addresses."""

    def check(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
        if parts[0] not in lookup.keys(table):
            yield ConfigError(table, key, None, None, f"address needs the interface row '{table}|{parts[0]}'")

    return check


def sub_interface_parent(name: str, lookup: Lookup) -> str | None:
    """The PORT or PORTCHANNEL a sub-interface hangs on (``Eth4.10`` -> ``Ethernet4``), if it exists."""
    parent = name.partition(".")[0]
    if lookup.exists((CFG_PORT_TABLE_NAME, CFG_LAG_TABLE_NAME), parent):
        return parent
    for short, long in _SHORT_PARENTS:
        found = short.fullmatch(parent)
        if found and lookup.exists((CFG_PORT_TABLE_NAME, CFG_LAG_TABLE_NAME), long + found.group(1)):
            return long + found.group(1)
    return None


def check_sub_interface(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
    """At most 15 characters (IFNAMSIZ); the parent must exist; a short name (``Eth4.10``) must also say
    its ``vlan``."""
    parent = sub_interface_parent(key, lookup)
    if len(key) > 15:
        yield ConfigError(CFG_VLAN_SUB_INTF_TABLE_NAME, key, None, None, "name is longer than 15 characters")
    if parent is None:
        reason = f"parent interface '{key.partition('.')[0]}' is not in PORT or PORTCHANNEL"
        yield ConfigError(CFG_VLAN_SUB_INTF_TABLE_NAME, key, None, None, reason)
    elif parent != key.partition(".")[0] and "vlan" not in row:
        reason = "a short-name sub-interface needs the 'vlan' field"
        yield ConfigError(CFG_VLAN_SUB_INTF_TABLE_NAME, key, None, None, reason)


def l3_table(
    table: str,
    name: Leaf,
    name_ref: Ref | None,
    rows: tuple[type[RowModel], type[RowModel]],
    *,
    needs_row: bool,
    row_checks: tuple[RowCheck, ...] = (),
) -> TableSchema:
    """An interface table with its two key shapes: ``<name>`` and ``<name>|<ip/prefix>``."""
    name_part = KeyPart("name", name, name_ref)
    address_checks: list[RowCheck] = [check_family(table)]
    if needs_row:
        address_checks.append(check_interface_row(table))
    return TableSchema(
        table,
        (
            KeyShape((name_part,), rows[0], row_checks),
            KeyShape((name_part, KeyPart("ip_prefix", IP_PREFIX)), rows[1], tuple(address_checks)),
        ),
    )


INTERFACE = l3_table(
    CFG_INTF_TABLE_NAME,
    Text(1),
    ref(CFG_PORT_TABLE_NAME, noun="port"),
    (InterfaceRow, InterfaceIpRow),
    needs_row=True,
)
PORTCHANNEL_INTERFACE = l3_table(
    CFG_LAG_INTF_TABLE_NAME,
    PORTCHANNEL_NAME,
    ref(CFG_LAG_TABLE_NAME, noun="portchannel"),
    (PortChannelInterfaceRow, InterfaceIpRow),
    needs_row=False,
)
VLAN_INTERFACE = l3_table(
    CFG_VLAN_INTF_TABLE_NAME,
    Text(1),
    ref(CFG_VLAN_TABLE_NAME, noun="VLAN"),
    (VlanInterfaceRow, VlanInterfaceIpRow),
    needs_row=True,
)
LOOPBACK_INTERFACE = l3_table(
    CFG_LOOPBACK_INTERFACE_TABLE_NAME,
    Text(1, 15),
    None,
    (LoopbackInterfaceRow, InterfaceIpRow),
    needs_row=True,
)
VLAN_SUB_INTERFACE = l3_table(
    CFG_VLAN_SUB_INTF_TABLE_NAME,
    SUB_INTERFACE_NAME,
    None,
    (VlanSubInterfaceRow, InterfaceIpRow),
    needs_row=True,
    row_checks=(check_sub_interface,),
)

SCHEMAS = (INTERFACE, PORTCHANNEL_INTERFACE, VLAN_INTERFACE, LOOPBACK_INTERFACE, VLAN_SUB_INTERFACE)
