"""Layer-3 state shared by the VRF, interface, neighbour, route and next-hop-group orchs.

SONiC keeps this in the orchs themselves and reaches across with globals (``gIntfsOrch->
getRouterIntfsId``, ``gNeighOrch->hasNextHop``, ``m_vrfOrch->getVRFid``). Here the owning orch writes
one table and the others read it:

* ``vrfs``: VRF name -> virtual router (VRFOrch); ``refs`` counts the router interfaces and routes
  in it (a VRF is removed only when nothing uses it).
* ``intfs``: interface name -> its router interface and addresses (IntfOrch). Loopbacks are here
  too, with no RIF of their own (``oid`` empty). ``refs`` counts neighbours, next hops and routes
  over the RIF.
* ``next_hops``: (ip, interface) -> the SAI next hop of a resolved neighbour (NeighOrch), whether
  its interface is oper up (next hops over a down interface are withheld from ECMP groups) and
  ``refs`` (routes and groups using it; a referenced neighbour is not removed).
* ``named_groups``: NEXTHOP_GROUP_TABLE index -> the group's id (NhgOrch), used by routes with a
  ``nexthop_group`` field.
* ``route_groups`` / ``named_sai_groups``: how many SAI NEXT_HOP_GROUPs each side holds (both count
  against the ASIC's capacity).
* ``resolve_requests``: next hops for which APPL_DB NEIGH_RESOLVE_TABLE asks for resolution.
* ``version``: bumped by every change that may let a waiting route through (a VRF, RIF, address,
  next hop or named group added or removed, an interface up or down, a group freed), so that
  RouteOrch re-plans the routes it parked only when something changed.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

IpInterface = ipaddress.IPv4Interface | ipaddress.IPv6Interface
NhKey = tuple[str, str]  # (ip, interface)


@dataclass
class Vrf:
    """A VRF's virtual router."""

    name: str
    oid: str
    attrs: dict[str, str] = field(default_factory=dict)
    vni: int = 0
    refs: int = 0


@dataclass
class RouterIntf:
    """A routed interface: its RIF (none for loopbacks), VRF and addresses."""

    alias: str
    oid: str
    vrf: str
    vr: str
    rif_type: str = ""
    device: str = ""            # the registry entry it is built on (the parent of a sub-interface)
    mac: str = ""
    mtu: int = 0
    inherit_mtu: bool = True    # follows the device's MTU (not a sub-interface with its own mtu)
    admin_up: bool = True
    loopback_action: str = ""   # SAI packet action of LOOPBACK_PACKET_ACTION ("" = never set)
    mpls: bool = False          # ADMIN_MPLS_STATE
    proxy_arp: bool = False     # a VLAN interface's proxy ARP (flood control NONE)
    addresses: list[IpInterface] = field(default_factory=list)
    refs: int = 0


@dataclass
class NextHop:
    """A resolved neighbour's SAI next hop."""

    ip: str
    alias: str
    oid: str
    rif: str
    up: bool = True
    refs: int = 0


@dataclass
class NamedGroup:
    """A NEXTHOP_GROUP_TABLE group as routes see it."""

    index: str
    oid: str
    recursive: bool = False
    temp: bool = False
    refs: int = 0


@dataclass
class L3State:
    vrfs: dict[str, Vrf] = field(default_factory=dict)
    intfs: dict[str, RouterIntf] = field(default_factory=dict)
    next_hops: dict[NhKey, NextHop] = field(default_factory=dict)
    named_groups: dict[str, NamedGroup] = field(default_factory=dict)
    route_groups: int = 0
    named_sai_groups: int = 0
    resolve_requests: set[NhKey] = field(default_factory=set)
    version: int = 0

    def changed(self) -> None:
        """Something routes may be waiting for appeared, went or changed state."""
        self.version += 1

    def nhg_count(self) -> int:
        """SAI next hop groups in use (RouteOrch's and NhgOrch's)."""
        return self.route_groups + self.named_sai_groups

    def rif_of(self, alias: str) -> str:
        """The RIF of an interface, or "" (none, or a loopback)."""
        intf = self.intfs.get(alias)
        return intf.oid if intf is not None else ""

    def is_interface_subnet(self, prefix: str, alias: str) -> bool:
        """Whether ``prefix`` is the subnet of one of ``alias``'s addresses (intfsorch isPrefixSubnet)."""
        intf = self.intfs.get(alias)
        return intf is not None and any(str(a.network) == prefix for a in intf.addresses)

    def overlap(self, vr: str, address: IpInterface) -> str:
        """An address of the VR whose subnet holds ``address`` or is held by it ("" when none)."""
        for intf in self.intfs.values():
            if intf.vr != vr:
                continue
            for other in intf.addresses:
                if other.version == address.version and (
                        address.ip in other.network or other.ip in address.network):
                    return f"{intf.alias} {other}"
        return ""


class InvalidEntry(ValueError):
    """Raised by the L3 orchs' ``parse`` functions when an APPL_DB row is malformed."""
