"""Row models for routing: VRF, STATIC_ROUTE and NEIGH (static neighbors and resolve requests).

YANG: sonic-vrf.yang, sonic-static-route.yang, sonic-neigh.yang. STATIC_ROUTE fields are comma lists
aligned by position (``nexthop``, ``ifname``, ``distance``, ...), as bgpcfgd's StaticRouteMgr reads them;
``nexthop`` and ``ifname`` are free strings in the YANG and stay so here.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from nos.schema.config import (
    IP_PREFIX,
    MAC,
    VRF_NAME,
    AnyOf,
    Bool,
    Choice,
    Int,
    Ip,
    KeyPart,
    KeyShape,
    Match,
    RowModel,
    TableSchema,
    Text,
    ref,
    single,
)
from nos.schema.tables import (
    CFG_LAG_TABLE_NAME,
    CFG_NEIGH_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
    CFG_STATIC_ROUTE_TABLE_NAME,
    CFG_VLAN_TABLE_NAME,
    CFG_VRF_TABLE_NAME,
)

BOOL_LIST = Match(r"((true|false),)*(true|false)", "a comma-separated list of true/false")
_DISTANCE = r"(25[0-5]|2[0-4][0-9]|[0-1]?[0-9][0-9]?)"
DISTANCE_LIST = Match(rf"({_DISTANCE},)*{_DISTANCE}", "a comma-separated list of distances 0..255")
_VRF_OR_DEFAULT = r"(Vrf[a-zA-Z0-9_-]+|default|mgmt)"
NEXTHOP_VRF_LIST = Match(rf"(({_VRF_OR_DEFAULT},)*{_VRF_OR_DEFAULT})?", "a comma-separated list of VRF names")
ROUTE_VRF = AnyOf(Choice("default", "mgmt"), Match(r"Vrf[a-zA-Z0-9_-]+", "Vrf<name>"))


class VrfRow(RowModel):
    """``VRF|Vrf<name>``."""

    fallback: Annotated[bool | None, Bool()] = None
    vni: Annotated[int | None, Int(0, 16777215)] = None


class StaticRouteRow(RowModel):
    """``STATIC_ROUTE|<prefix>`` or ``STATIC_ROUTE|<vrf>|<prefix>``."""

    nexthop: str | None = None
    ifname: str | None = None
    distance: Annotated[str | None, DISTANCE_LIST] = None
    nexthop_vrf: Annotated[str | None, NEXTHOP_VRF_LIST, Field(alias="nexthop-vrf")] = None
    blackhole: Annotated[str | None, BOOL_LIST] = None
    advertise: Annotated[str | None, BOOL_LIST] = None
    bfd: Annotated[str | None, BOOL_LIST] = None


class NeighRow(RowModel):
    """``NEIGH|<interface>|<ip>``: a static neighbor (with ``neigh``) or a resolve request (without)."""

    neigh: Annotated[str | None, MAC] = None
    family: Annotated[str | None, Choice("IPv4", "IPV4", "IPv6", "IPV6")] = None


ROUTE_PREFIX = KeyPart("prefix", IP_PREFIX)

VRF = single(CFG_VRF_TABLE_NAME, VrfRow, VRF_NAME)
STATIC_ROUTE = TableSchema(
    CFG_STATIC_ROUTE_TABLE_NAME,
    (
        KeyShape((ROUTE_PREFIX,), StaticRouteRow),
        KeyShape((KeyPart("vrf_name", ROUTE_VRF), ROUTE_PREFIX), StaticRouteRow),
    ),
)
NEIGH = TableSchema(
    CFG_NEIGH_TABLE_NAME,
    (
        KeyShape(
            (
                KeyPart(
                    "port",
                    Text(1),
                    ref(CFG_PORT_TABLE_NAME, CFG_LAG_TABLE_NAME, CFG_VLAN_TABLE_NAME, noun="interface"),
                ),
                KeyPart("neighbor", Ip()),
            ),
            NeighRow,
        ),
    ),
)

SCHEMAS = (VRF, STATIC_ROUTE, NEIGH)
