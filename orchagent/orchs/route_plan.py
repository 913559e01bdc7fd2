"""Pure route planning for RouteOrch and NhgOrch: parsing ROUTE_TABLE rows, deciding what a route
points at, and the SAI attributes of routes, next hop groups and their members.

The rules are routeorch.cpp's (doTask / addRoute / addNextHopGroup / removeRoute):

* key ``[<Vrf...>:]<prefix>`` (a host address without a length is a /32 or /128);
* ``nexthop`` / ``ifname`` / ``weight`` are comma lists aligned by position (missing next hop
  addresses are 0.0.0.0 / ::, i.e. the interface itself); ``blackhole`` true drops; ``nexthop_group``
  names a NEXTHOP_GROUP_TABLE group and excludes the other two; no ``ifname`` is an invalid route;
* a route over ``eth0``, ``docker0``, ``lo`` or a ``Loopback*`` interface is removed from the ASIC;
* one interface next hop -> the RIF, except over ``unknown``, ``tun0`` or a ``Vrf*`` device, for a
  non-global prefix (link-local, multicast, loopback) or a full-length prefix that is the interface's
  own subnet (the ip2me route): those are skipped;
* one next hop -> that next hop (the neighbour must be resolved and its interface up, else wait);
* several -> a NEXT_HOP_GROUP shared by every route with the same set (sorted as SONiC's
  ``std::set<NextHopKey>``); when a next hop is unresolved or no group can be added (ASIC capacity)
  the route is programmed through one usable next hop meanwhile (SONiC's temporary route) and retried.
"""

from __future__ import annotations

import enum
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from nos.daemon.task import Result
from orchagent.core.l3 import InvalidEntry, NamedGroup, NextHop, NhKey

VRF_PREFIX = "Vrf"
LOOPBACK_PREFIX = "Loopback"
EXCLUDED_IFNAMES = frozenset({"eth0", "docker0", "lo"})
SKIPPED_IFNAMES = frozenset({"unknown", "tun0"})
ZERO_IPS = frozenset({"0.0.0.0", "::"})
DEFAULT_PREFIXES = frozenset({"0.0.0.0/0", "::/0"})
NULL_OID = "oid:0x0"
RA = "SAI_ROUTE_ENTRY_ATTR_"
DROP_ATTRS = ((RA + "PACKET_ACTION", "SAI_PACKET_ACTION_DROP"),)
FORWARD = (RA + "PACKET_ACTION", "SAI_PACKET_ACTION_FORWARD")
UNORDERED = "SAI_NEXT_HOP_GROUP_TYPE_DYNAMIC_UNORDERED_ECMP"
ORDERED = "SAI_NEXT_HOP_GROUP_TYPE_DYNAMIC_ORDERED_ECMP"
MA = "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_"
Attrs = tuple[tuple[str, str], ...]


class Hop(NamedTuple):
    """One next hop of a route or group: ``ip`` (0.0.0.0 / :: = the interface itself) over ``alias``
    (a tuple: routes hash next-hop sets on every lookup)."""

    ip: str
    alias: str
    weight: int = 0

    @property
    def key(self) -> NhKey:
        return (self.ip, self.alias)

    @property
    def is_intf(self) -> bool:
        return self.ip in ZERO_IPS


Hops = tuple[Hop, ...]


class Via(enum.Enum):
    DROP = "drop"
    RIF = "rif"
    NEXT_HOP = "next_hop"
    GROUP = "group"
    NAMED = "named"
    EXCLUDED = "excluded"   # over a management / loopback interface: not in the ASIC


@dataclass(frozen=True, slots=True)
class Target:
    """What a route points at."""

    via: Via
    hops: Hops = ()
    index: str = ""


DROP = Target(Via.DROP)
EXCLUDED = Target(Via.EXCLUDED)


# -- parsing --------------------------------------------------------------------------------------
_OCTET = r"(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_ZEROS = ("0", "0", "0", "0")
_V4_PREFIX = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}(?:/(3[0-2]|[12]?\d))?")


def _v4_network(text: str) -> str | None:
    """Fast path for ``a.b.c.d[/n]``: the canonical network, or None (then ``ipaddress`` decides)."""
    match = _V4_PREFIX.fullmatch(text)
    if match is None:
        return None
    a, b, c, d, length = match.groups()
    if length is None:
        return f"{text}/32"
    bits = int(length)
    if not bits % 8 and (a, b, c, d)[bits // 8:] == _ZEROS[bits // 8:]:
        return text  # already the network (the common /8, /16, /24, /32 case)
    value = (int(a) << 24) | (int(b) << 16) | (int(c) << 8) | int(d)
    network = value & ((0xFFFFFFFF << (32 - bits)) & 0xFFFFFFFF)
    if network == value:
        return text
    return f"{network >> 24}.{(network >> 16) & 255}.{(network >> 8) & 255}.{network & 255}/{bits}"


def canonical_prefix(text: str) -> tuple[str, bool]:
    """(canonical network, is IPv4); raises InvalidEntry."""
    fast = _v4_network(text)
    if fast is not None:
        return fast, True
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise InvalidEntry(f"{text!r} is not an IP prefix") from None
    return str(network), network.version == 4


def parse_key(key: str) -> tuple[str, str, bool]:
    """``[<Vrf>:]<prefix>`` -> (vrf or "", canonical prefix, is IPv4)."""
    vrf = ""
    if key.startswith(VRF_PREFIX):
        vrf, _, key = key.partition(":")
    prefix, v4 = canonical_prefix(key)
    return vrf, prefix, v4


def _split(text: str) -> list[str]:
    return text.split(",") if text else []


def parse_target(fields: Mapping[str, str], v4: bool) -> Target:
    """What a ROUTE_TABLE row's fields ask for (before resolution); raises InvalidEntry."""
    for unsupported in ("vni_label", "mpls_nh", "segment", "seg_src", "vpn_sid"):
        if fields.get(unsupported):
            raise InvalidEntry(f"{unsupported} routes are not supported")
    ips, aliases = _split(fields.get("nexthop", "")), _split(fields.get("ifname", ""))
    index = fields.get("nexthop_group", "")
    if index:
        if ips or aliases:
            raise InvalidEntry("a route cannot have both nexthop_group and nexthop/ifname")
        return Target(Via.NAMED, index=index)
    blackhole = fields.get("blackhole") == "true"
    if not aliases and not blackhole:
        raise InvalidEntry("the route has no ifname")
    if any(a in EXCLUDED_IFNAMES or a.startswith(LOOPBACK_PREFIX) for a in aliases):
        return EXCLUDED
    if blackhole:
        return DROP
    return hops_target(ips, aliases, _split(fields.get("weight", "")), v4)


def hop_order(hop: Hop) -> tuple[int, int, str]:
    address = ipaddress.ip_address(hop.ip)
    return (address.version, int(address), hop.alias)


def hops_target(ips: list[str], aliases: list[str], weights: list[str], v4: bool) -> Target:
    """The next hops (sorted and de-duplicated as a ``NextHopGroupKey``) as a target."""
    zero = "0.0.0.0" if v4 else "::"
    ips = (ips + [""] * len(aliases))[:len(aliases)]
    if weights and len(weights) != len(aliases):
        weights = []
    found: dict[NhKey, Hop] = {}
    for i, (ip, alias) in enumerate(zip(ips, aliases, strict=True)):
        try:
            text = str(ipaddress.ip_address(ip)) if ip else zero
            weight = int(weights[i]) if weights else 0
        except ValueError:
            raise InvalidEntry(f"bad next hop {ip!r} / weight") from None
        found.setdefault((text, alias), Hop(text, alias, weight))
    hops = tuple(sorted(found.values(), key=hop_order))
    if len(hops) == 1:
        return Target(Via.RIF if hops[0].is_intf else Via.NEXT_HOP, hops)
    return Target(Via.GROUP, hops)


# -- deciding -------------------------------------------------------------------------------------
class RouteView(Protocol):
    """What route decisions read from the other orchs' state."""

    def next_hop(self, key: NhKey) -> NextHop | None: ...
    def rif(self, alias: str) -> str: ...
    def group(self, hops: Hops) -> str: ...
    def named(self, index: str) -> NamedGroup | None: ...
    def is_interface_subnet(self, prefix: str, alias: str) -> bool: ...
    def can_add_group(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Decision:
    """Where the route should point (``oid``; "" for DROP or a group still to create), or why not."""

    target: Target
    oid: str = ""
    new_group: bool = False
    temp: bool = False          # a stand-in next hop: programmed, but the task stays pending
    result: Result | None = None
    resolve: tuple[NhKey, ...] = ()


def _skip_reason(prefix: str, hop: Hop, view: RouteView) -> str:
    if hop.alias in SKIPPED_IFNAMES or hop.alias.startswith(VRF_PREFIX):
        return f"interface route via {hop.alias}"
    address = ipaddress.ip_network(prefix).network_address
    if address.is_link_local or address.is_multicast or address.is_loopback:
        return "not a global prefix"
    if prefix.endswith(("/32", "/128")) and view.is_interface_subnet(prefix, hop.alias):
        return "the interface's own address (ip2me route)"
    return ""


def decide(target: Target, prefix: str, view: RouteView) -> Decision:
    """Resolve a target against the current next hops, RIFs and groups (routeorch addRoute)."""
    if target.via is Via.DROP:
        return Decision(target)
    if target.via is Via.NAMED:
        group = view.named(target.index)
        if group is None:
            return Decision(target, result=Result.retry(f"next hop group {target.index} does not exist"))
        return Decision(target, group.oid, temp=group.temp)
    hop = target.hops[0]
    if target.via is Via.RIF:
        reason = _skip_reason(prefix, hop, view)
        if reason:
            return Decision(target, result=Result.ignored(reason))
        rif = view.rif(hop.alias)
        return Decision(target, rif) if rif else Decision(target, result=Result.retry(f"no RIF on {hop.alias}"))
    if target.via is Via.NEXT_HOP:
        nh = view.next_hop(hop.key)
        if nh is None:
            return Decision(target, result=Result.retry(f"next hop {hop.ip}@{hop.alias} is unresolved"),
                            resolve=(hop.key,))
        if not nh.up:
            return Decision(target, result=Result.retry(f"interface {hop.alias} is down"))
        return Decision(target, nh.oid)
    return _decide_group(target, view)


def _decide_group(target: Target, view: RouteView) -> Decision:
    existing = view.group(target.hops)
    if existing:
        return Decision(target, existing)
    if any(h.is_intf for h in target.hops):
        return Decision(target, result=Result.retry("interface next hops cannot join an ECMP group"))
    nhs = [(h, view.next_hop(h.key)) for h in target.hops]
    missing = tuple(h.key for h, nh in nhs if nh is None)
    usable = [h for h, nh in nhs if nh is not None and nh.up]
    if not missing and usable and view.can_add_group():
        return Decision(target, new_group=True)
    why = (f"next hops {', '.join(ip for ip, _ in missing)} are unresolved" if missing else
           "every next hop's interface is down" if not usable else "the ASIC has no free next hop group")
    if not usable:
        return Decision(target, result=Result.retry(why), resolve=missing)
    stand_in = usable[0]
    nh = view.next_hop(stand_in.key)
    assert nh is not None
    return Decision(Target(Via.NEXT_HOP, (stand_in,)), nh.oid, temp=True, result=Result.retry(why), resolve=missing)


# -- SAI attributes -------------------------------------------------------------------------------
def entry_id(prefix: str, vr: str, switch: str) -> str:
    """The ROUTE_ENTRY id, byte-identical to ``nos.sai.keys.route_key`` for a canonical prefix."""
    return f'{{"dest":"{prefix}","switch_id":"{switch}","vr":"{vr}"}}'


def create_attrs(target: Target, oid: str) -> Attrs:
    """A new route: DROP, or NEXT_HOP_ID (packet action FORWARD is the SAI default)."""
    return DROP_ATTRS if target.via is Via.DROP else ((RA + "NEXT_HOP_ID", oid),)


def set_attrs(old: Target, new: Target, oid: str, default_route: bool) -> list[tuple[str, str]]:
    """SETs that move an existing route (routeorch addRoute's update branch, in its order)."""
    attrs: list[tuple[str, str]] = []
    blackhole = new.via is Via.DROP
    if not blackhole and (old.via is Via.DROP or default_route):
        attrs.append(FORWARD)
    attrs.append((RA + "NEXT_HOP_ID", oid or NULL_OID))
    if blackhole:
        attrs.append(DROP_ATTRS[0])
    return attrs


def default_drop_attrs() -> list[tuple[str, str]]:
    """A deleted default route is not removed: it drops again (routeorch removeRoute)."""
    return [DROP_ATTRS[0], (RA + "NEXT_HOP_ID", NULL_OID)]


def group_attrs(ordered: bool) -> Attrs:
    return (("SAI_NEXT_HOP_GROUP_ATTR_TYPE", ORDERED if ordered else UNORDERED),)


def member_attrs(group: str, next_hop: str, weight: int = 0, sequence: int = 0) -> Attrs:
    """A group member: WEIGHT only when weights were given, SEQUENCE_ID only for ordered groups."""
    attrs = [(MA + "NEXT_HOP_GROUP_ID", group), (MA + "NEXT_HOP_ID", next_hop)]
    if weight:
        attrs.append((MA + "WEIGHT", str(weight)))
    if sequence:
        attrs.append((MA + "SEQUENCE_ID", str(sequence)))
    return tuple(attrs)
