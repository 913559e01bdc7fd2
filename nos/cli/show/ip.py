"""``nos show ip|ipv6 interfaces`` and ``nos show ip|ipv6 route``.

SONiC passes ``show ip route`` to FRR (vtysh). This switch has no zebra, so the routes come from
what zebra would have handed to fpmsyncd: APPL_DB ROUTE_TABLE (``<prefix>`` or ``<VrfName>:<prefix>``;
``nexthop``, ``ifname``, ``protocol``, ``blackhole``, ``weight``, ``nexthop_group``), including rows
still pending in the producer queue. They are printed in FRR's words (zebra_vty.c): the codes header,
then ``S>* 10.1.0.0/24 [1/0] via 10.0.0.1, Ethernet0`` lines with ECMP continuation lines. ``*`` (FIB
route) is printed only when ASIC_DB holds the route entry; until then the route is ``q`` (queued).
Not available here, so not printed: route uptime, and the metric (always 0); the distance is FRR's
default for the protocol. The first half of this module is pure (plain data in, text out); the click
commands at the end do the reading.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest

import click

from nos.cli.common import fail, json_option, print_json, run_dir_option
from nos.cli.show import render
from nos.cli.show.interfaces import load_snapshot, read_snapshot
from nos.db.connector import Databases
from nos.schema import tables as tbl
from nos.schema.dbconfig import APPL_DB, ASIC_DB, CONFIG_DB

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_VRF = "default"
# Where ProducerStateTable keeps fields not yet popped by orchagent (swss-common's ``_<TABLE>:<key>``).
PENDING_ROUTE_TABLE = f"_{tbl.APP_ROUTE_TABLE_NAME}"
ROUTE_ENTRY_TABLE = f"{tbl.ASIC_STATE_TABLE}:SAI_OBJECT_TYPE_ROUTE_ENTRY"
VIRTUAL_ROUTER_TABLE = f"{tbl.ASIC_STATE_TABLE}:SAI_OBJECT_TYPE_VIRTUAL_ROUTER"
ROUTE_TABLES: tuple[render.TableId, ...] = (
    (APPL_DB, tbl.APP_ROUTE_TABLE_NAME), (APPL_DB, PENDING_ROUTE_TABLE), (APPL_DB, tbl.APP_NEXTHOP_GROUP_TABLE_NAME),
    (ASIC_DB, ROUTE_ENTRY_TABLE), (ASIC_DB, VIRTUAL_ROUTER_TABLE), (CONFIG_DB, tbl.CFG_VRF_TABLE_NAME),
)

_CODES_TAIL = (
    "       T - Table, v - VNC, V - VNC-Direct, A - Babel, F - PBR,",
    "       f - OpenFabric, t - Table-Direct,",
    "       > - selected route, * - FIB route, q - queued, r - rejected, b - backup",
    "       t - trapped, o - offload failure",
)
ROUTE_HEADER = {
    4: ("Codes: K - kernel route, C - connected, L - local, S - static,",
        "       R - RIP, O - OSPF, I - IS-IS, B - BGP, E - EIGRP, N - NHRP,", *_CODES_TAIL),
    6: ("Codes: K - kernel route, C - connected, L - local, S - static,",
        "       R - RIPng, O - OSPFv3, I - IS-IS, B - BGP, N - NHRP,", *_CODES_TAIL),
}
# FRR's route type letter and default administrative distance, by FRR's protocol name.
FRR_TYPES = {
    "kernel": ("K", 0), "connected": ("C", 0), "local": ("L", 0), "static": ("S", 1), "bgp": ("B", 20),
    "ospf": ("O", 110), "rip": ("R", 120), "ripng": ("R", 120), "isis": ("I", 115), "eigrp": ("E", 90),
    "nhrp": ("N", 10), "babel": ("A", 100), "openfabric": ("f", 115), "sharp": ("D", 150), "pbr": ("F", 200),
}
# rtnetlink protocol numbers (as fpmsyncd writes them when iproute2 has no name) -> FRR's name.
RTPROT_NAMES = {
    "2": "kernel", "3": "kernel", "boot": "kernel", "4": "static", "186": "bgp", "187": "isis", "188": "ospf",
    "189": "rip", "190": "ripng", "191": "nhrp", "192": "eigrp", "194": "sharp", "195": "pbr", "196": "static",
    "197": "openfabric",
}


@dataclass(frozen=True)
class Nexthop:
    """One path of a route; an empty, ``0.0.0.0`` or ``::`` address means directly connected."""

    ip: str
    ifname: str
    weight: str = ""

    @property
    def direct(self) -> bool:
        return self.ip in ("", "0.0.0.0", "::")


@dataclass(frozen=True)
class Route:
    vrf: str
    network: Network
    protocol: str
    nexthops: tuple[Nexthop, ...]
    blackhole: bool
    installed: bool


def _split(value: render.Value | None) -> list[str]:
    text = value if isinstance(value, str) else ",".join(value or [])
    return text.split(",") if text else []


def split_route_key(key: str) -> tuple[str, str]:
    """``Vrf1:10.0.0.0/24`` -> (``Vrf1``, prefix); VRF device names start with ``Vrf`` (fpmsyncd)."""
    if key.startswith("Vrf") and ":" in key:
        vrf, _, prefix = key.partition(":")
        return vrf, prefix
    return DEFAULT_VRF, key


def route_nexthops(row: render.Row, groups: render.Rows) -> tuple[Nexthop, ...]:
    """The row's comma lists (or its NEXTHOP_GROUP_TABLE group's), paired in order."""
    group = row.get("nexthop_group")
    source = groups.get(group, {}) if isinstance(group, str) and group else row
    columns = (_split(source.get("nexthop")), _split(source.get("ifname")), _split(source.get("weight")))
    count = max(len(columns[0]), len(columns[1]))
    return tuple(Nexthop(ip, ifname, weight) for ip, ifname, weight in zip_longest(*columns, fillvalue=""))[:count]


def route_protocol(raw: str | None, direct: bool) -> str:
    """FRR's name for the route's protocol; a kernel route to a connected subnet is FRR's ``connected``."""
    name = RTPROT_NAMES.get(raw or "", raw or "")
    if name not in FRR_TYPES:
        name = "kernel"
    return "connected" if name == "kernel" and direct else name


def installed_routes(snap: render.Snapshot) -> set[tuple[bool, Network]]:
    """(in the default VRF, prefix) of every ASIC_DB route entry; its key is JSON with ``dest`` and ``vr``,
    and a ``vr`` that is no created VIRTUAL_ROUTER object is the switch's default one."""
    created = set(snap.rows(ASIC_DB, VIRTUAL_ROUTER_TABLE))
    found: set[tuple[bool, Network]] = set()
    for key in snap.rows(ASIC_DB, ROUTE_ENTRY_TABLE):
        try:
            entry = json.loads(key)
            found.add((entry.get("vr") not in created, ipaddress.ip_network(entry["dest"], strict=False)))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return found


def _route_rows(snap: render.Snapshot) -> dict[str, render.Row]:
    """ROUTE_TABLE with the fields still pending in the producer queue merged on top."""
    rows: dict[str, render.Row] = dict(snap.rows(APPL_DB, tbl.APP_ROUTE_TABLE_NAME))
    for key, pending in snap.rows(APPL_DB, PENDING_ROUTE_TABLE).items():
        rows[key] = {**rows.get(key, {}), **pending}
    return rows


def parse_route_query(text: str | None, version: int) -> Network | ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``10.1.0.0/24`` (exact prefix) or ``10.1.0.7`` (longest match); ValueError when not of the family."""
    if not text:
        return None
    query = ipaddress.ip_network(text, strict=False) if "/" in text else ipaddress.ip_address(text)
    if query.version != version:
        raise ValueError(f"{text} is not an IPv{version} {'prefix' if '/' in text else 'address'}")
    return query


def _match(found: list[Route], query: Network | ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> list[Route]:
    if query is None:
        return found
    if isinstance(query, ipaddress.IPv4Network | ipaddress.IPv6Network):
        return [r for r in found if r.network == query]
    covering = [r for r in found if query in r.network]
    longest = max((r.network.prefixlen for r in covering), default=-1)
    return [r for r in covering if r.network.prefixlen == longest]


def routes(snap: render.Snapshot, version: int = 4, vrf: str | None = None, query: str | None = None) -> list[Route]:
    """The routes of one family and VRF (default VRF unless named), in FRR's order (address, length)."""
    wanted_vrf = vrf or DEFAULT_VRF
    installed = installed_routes(snap)
    groups = snap.rows(APPL_DB, tbl.APP_NEXTHOP_GROUP_TABLE_NAME)
    found = []
    for key, row in _route_rows(snap).items():
        route_vrf, prefix = split_route_key(key)
        try:
            network = ipaddress.ip_network(prefix, strict=False)
        except ValueError:
            continue
        if network.version != version or route_vrf != wanted_vrf:
            continue
        nexthops = route_nexthops(row, groups)
        blackhole = row.get("blackhole") == "true"
        raw_protocol = row.get("protocol")
        protocol = route_protocol(raw_protocol if isinstance(raw_protocol, str) else None,
                                  not blackhole and all(nh.direct for nh in nexthops))
        found.append(Route(route_vrf, network, protocol, nexthops, blackhole,
                           (route_vrf == DEFAULT_VRF, network) in installed))
    selected = _match(found, parse_route_query(query, version))
    return sorted(selected, key=lambda r: (int(r.network.network_address), r.network.prefixlen))


def route_record(route: Route) -> render.Record:
    return {"prefix": str(route.network), "vrf": route.vrf, "protocol": route.protocol,
            "nexthops": [{"ip": nh.ip, "ifname": nh.ifname} for nh in route.nexthops],
            "installed": route.installed, "blackhole": route.blackhole}


def _nexthop_text(nexthop: Nexthop) -> str:
    if nexthop.direct:
        text = f" is directly connected, {nexthop.ifname or 'unknown'}"
    else:
        text = f" via {nexthop.ip}" + (f", {nexthop.ifname}" if nexthop.ifname else "")
    return text + (f", weight {nexthop.weight}" if nexthop.weight not in ("", "0") else "")


def route_lines(route: Route) -> list[str]:
    """FRR's lines for one route: type, selected, FIB status, prefix, [distance/metric], paths."""
    code, distance = FRR_TYPES[route.protocol]
    status = "*" if route.installed else "q"
    head = f"{code}>{status} {route.network}" + ("" if code in ("C", "L") else f" [{distance}/0]")
    if route.blackhole:
        return [head + " unreachable (blackhole)"]
    texts = [_nexthop_text(nh) for nh in route.nexthops or (Nexthop("", ""),)]
    return [head + texts[0]] + ["  " + status + " " * (len(head) - 3) + text for text in texts[1:]]


def routes_text(found: Sequence[Route], version: int, vrf: str | None = None) -> str:
    """FRR's ``show ip route``: nothing at all when there is no route, else the codes header first."""
    if not found:
        return ""
    lines = [*ROUTE_HEADER[version], ""]
    if vrf and vrf != DEFAULT_VRF:
        lines.append(f"VRF {vrf}:")
    for route in found:
        lines += route_lines(route)
    return "\n".join(lines)


# ---- commands ----------------------------------------------------------------------------------


def gather_ip_interfaces(dbs: Databases) -> render.Snapshot:
    return read_snapshot(dbs, render.IP_INTERFACE_TABLES)


def gather_routes(dbs: Databases) -> render.Snapshot:
    return read_snapshot(dbs, ROUTE_TABLES)


def _interfaces_command(version: int) -> click.Command:
    @click.command("interfaces", help=f"Show interfaces with IPv{version} addresses.")
    @json_option
    @run_dir_option
    def command(as_json: bool, run_dir: str | None) -> None:
        records = render.ip_interfaces(load_snapshot(run_dir, render.IP_INTERFACE_TABLES), version)
        if as_json:
            print_json(records)
        else:
            click.echo(render.ip_interfaces_table(records, version))

    return command


def _route_command(version: int) -> click.Command:
    @click.command("route", help=f"Show the IPv{version} routing table (default VRF unless --vrf).")
    @click.argument("prefix", required=False)
    @click.option("--vrf", "vrf", default=None, help="VRF name (VrfX, or 'default').")
    @json_option
    @run_dir_option
    def command(prefix: str | None, vrf: str | None, as_json: bool, run_dir: str | None) -> None:
        snap = load_snapshot(run_dir, ROUTE_TABLES)
        try:
            found = routes(snap, version, vrf, prefix)
        except ValueError as exc:
            fail(f"bad prefix: {exc}")
        if as_json:
            print_json([route_record(route) for route in found])
        elif vrf not in (None, DEFAULT_VRF) and vrf not in snap.rows(CONFIG_DB, tbl.CFG_VRF_TABLE_NAME) and not found:
            click.echo(f"vrf {vrf} not defined")
        elif found:
            click.echo(routes_text(found, version, vrf))

    return command


@click.group()
def ip() -> None:
    """Show IP (IPv4) information."""


@click.group()
def ipv6() -> None:
    """Show IPv6 information."""


ip.add_command(_interfaces_command(4))
ip.add_command(_route_command(4))
ipv6.add_command(_interfaces_command(6))
ipv6.add_command(_route_command(6))
