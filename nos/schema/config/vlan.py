"""Row models for VLAN and VLAN_MEMBER, and the YANG constraints on membership.

YANG: sonic-vlan.yang (revision 2024-03-07: VLAN ids 2..4094, Vlan1 being the default VLAN; the
``vlanid`` must match the name). A member is a port or a portchannel; it may not be a portchannel member
or a routed (INTERFACE) port, and it may be untagged in one VLAN only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

from nos.schema.config import (
    ADMIN_STATUS,
    KEY_SEPARATOR,
    MAC,
    VLAN_NAME,
    Choice,
    ConfigError,
    Int,
    Ip,
    KeyPart,
    KeyShape,
    ListOf,
    Lookup,
    Row,
    RowModel,
    TableSchema,
    Text,
    ref,
)
from nos.schema.tables import (
    CFG_INTF_TABLE_NAME,
    CFG_LAG_MEMBER_TABLE_NAME,
    CFG_LAG_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
    CFG_VLAN_MEMBER_TABLE_NAME,
    CFG_VLAN_TABLE_NAME,
)

VLAN_ID = Int(2, 4094)
VLAN_REF = ref(CFG_VLAN_TABLE_NAME, noun="VLAN")
MEMBER_REF = ref(CFG_PORT_TABLE_NAME, CFG_LAG_TABLE_NAME, noun="port")
TAGGING_MODE = Choice("untagged", "tagged", "priority_tagged")


class VlanRow(RowModel):
    """``VLAN|Vlan<id>``."""

    vlanid: Annotated[int | None, VLAN_ID] = None
    alias: str | None = None
    description: Annotated[str | None, Text(1, 255)] = None
    mtu: Annotated[int | None, Int(1, 9216)] = None
    admin_status: Annotated[str | None, ADMIN_STATUS] = None
    mac: Annotated[str | None, MAC] = None
    dhcp_servers: Annotated[list[str] | None, ListOf(Ip())] = None
    dhcpv6_servers: Annotated[list[str] | None, ListOf(Ip(6))] = None
    members: Annotated[list[str] | None, ListOf(Text(1)), MEMBER_REF] = None


class VlanMemberRow(RowModel):
    """``VLAN_MEMBER|Vlan<id>|<port or portchannel>``."""

    tagging_mode: Annotated[str, TAGGING_MODE]


def check_vlanid_matches_name(
    lookup: Lookup, key: str, parts: tuple[str, ...], row: Row
) -> Iterable[ConfigError]:
    """``vlanid``, when given, must be the number in the VLAN's name."""
    vlanid = row.get("vlanid")
    if isinstance(vlanid, str) and VLAN_ID.accepts(vlanid) and f"Vlan{int(vlanid)}" != key:
        reason = f"must match the VLAN name '{key}'"
        yield ConfigError(CFG_VLAN_TABLE_NAME, key, "vlanid", vlanid, reason)


def check_members(lookup: Lookup) -> Iterable[ConfigError]:
    """YANG ``must`` on VLAN_MEMBER.port: not a portchannel member, not routed, untagged once."""
    lag_members = {key.partition(KEY_SEPARATOR)[2] for key in lookup.rows(CFG_LAG_MEMBER_TABLE_NAME)}
    routed = lookup.keys(CFG_INTF_TABLE_NAME)
    untagged_in: dict[str, str] = {}
    for key, row in sorted(lookup.rows(CFG_VLAN_MEMBER_TABLE_NAME).items()):
        vlan, sep, port = key.partition(KEY_SEPARATOR)
        if not sep:
            continue
        if port in lag_members:
            yield _member_error(key, f"port '{port}' is a portchannel member and cannot be a VLAN member")
        if port in routed:
            yield _member_error(key, f"port '{port}' is a router interface (in INTERFACE)")
        if row.get("tagging_mode") == "untagged":
            first = untagged_in.setdefault(port, vlan)
            if first != vlan:
                yield _member_error(
                    key, f"port '{port}' is already untagged in '{first}'; untagged in one VLAN only"
                )


def _member_error(key: str, reason: str) -> ConfigError:
    return ConfigError(CFG_VLAN_MEMBER_TABLE_NAME, key, None, None, reason)


VLAN = TableSchema(
    CFG_VLAN_TABLE_NAME,
    (KeyShape((KeyPart("name", VLAN_NAME),), VlanRow, (check_vlanid_matches_name,)),),
)
VLAN_MEMBER = TableSchema(
    CFG_VLAN_MEMBER_TABLE_NAME,
    (KeyShape((KeyPart("name", Text(1), VLAN_REF), KeyPart("port", Text(1), MEMBER_REF)), VlanMemberRow),),
    (check_members,),
)

SCHEMAS = (VLAN, VLAN_MEMBER)
