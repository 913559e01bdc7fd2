"""Row models for VXLAN/EVPN: VXLAN_TUNNEL, VXLAN_TUNNEL_MAP, VXLAN_EVPN_NVO and SUPPRESS_VLAN_NEIGH.

YANG: sonic-vxlan.yang (at most 2 tunnels and 1 NVO; ``src_ip``/``dst_ip`` any IP address; map ``vni``
1..16777215 and ``vlan`` ``Vlan<id>``). The YANG leaves the map's VLAN as a bare pattern (a libyang
workaround); here it must also name a VLAN row, since vxlanmgrd needs the VLAN to build the map.
SUPPRESS_VLAN_NEIGH has no YANG model; its one field is ``suppress`` (on|off), as written by
``config neigh-suppress`` and read by vlanmgrd.
"""

from __future__ import annotations

from typing import Annotated

from nos.schema.config import (
    VLAN_NAME_LOOSE,
    Choice,
    Int,
    Ip,
    KeyPart,
    KeyShape,
    RowModel,
    TableSchema,
    Text,
    max_rows,
    ref,
    single,
)
from nos.schema.tables import (
    CFG_SUPPRESS_VLAN_NEIGH_TABLE_NAME,
    CFG_VLAN_TABLE_NAME,
    CFG_VXLAN_EVPN_NVO_TABLE_NAME,
    CFG_VXLAN_TUNNEL_MAP_TABLE_NAME,
    CFG_VXLAN_TUNNEL_TABLE_NAME,
)

VNI = Int(1, 16777215)
TUNNEL_REF = ref(CFG_VXLAN_TUNNEL_TABLE_NAME, noun="VXLAN tunnel")
VLAN_REF = ref(CFG_VLAN_TABLE_NAME, noun="VLAN")


class VxlanTunnelRow(RowModel):
    """``VXLAN_TUNNEL|<vtep>``."""

    src_ip: Annotated[str | None, Ip()] = None
    dst_ip: Annotated[str | None, Ip()] = None
    ttl_mode: Annotated[str | None, Choice("uniform", "pipe")] = None


class VxlanTunnelMapRow(RowModel):
    """``VXLAN_TUNNEL_MAP|<vtep>|<map name>``: one VLAN <-> VNI mapping."""

    vlan: Annotated[str, VLAN_NAME_LOOSE, VLAN_REF]
    vni: Annotated[int, VNI]


class VxlanEvpnNvoRow(RowModel):
    """``VXLAN_EVPN_NVO|<nvo>``: the VTEP used for EVPN-discovered tunnels."""

    source_vtep: Annotated[str, Text(1), TUNNEL_REF]


class SuppressVlanNeighRow(RowModel):
    """``SUPPRESS_VLAN_NEIGH|Vlan<id>``: ARP/ND suppression on a VLAN."""

    suppress: Annotated[str | None, Choice("on", "off")] = None


VXLAN_TUNNEL = single(
    CFG_VXLAN_TUNNEL_TABLE_NAME, VxlanTunnelRow, checks=(max_rows(CFG_VXLAN_TUNNEL_TABLE_NAME, 2),)
)
VXLAN_TUNNEL_MAP = TableSchema(
    CFG_VXLAN_TUNNEL_MAP_TABLE_NAME,
    (KeyShape((KeyPart("name", Text(1), TUNNEL_REF), KeyPart("mapname", Text(1))), VxlanTunnelMapRow),),
)
VXLAN_EVPN_NVO = single(
    CFG_VXLAN_EVPN_NVO_TABLE_NAME, VxlanEvpnNvoRow, checks=(max_rows(CFG_VXLAN_EVPN_NVO_TABLE_NAME, 1),)
)
SUPPRESS_VLAN_NEIGH = single(CFG_SUPPRESS_VLAN_NEIGH_TABLE_NAME, SuppressVlanNeighRow, key_ref=VLAN_REF)

SCHEMAS = (VXLAN_TUNNEL, VXLAN_TUNNEL_MAP, VXLAN_EVPN_NVO, SUPPRESS_VLAN_NEIGH)
