"""Static routes: CONFIG_DB STATIC_ROUTE -> APPL_DB ROUTE_TABLE, standing in for bgpcfgd + FRR + fpmsyncd.

In SONiC, bgpcfgd's StaticRouteMgr turns ``STATIC_ROUTE`` rows into FRR ``ip route`` commands
(sonic-bgpcfgd/bgpcfgd/managers_static_rt.py), zebra selects and resolves them, and fpmsyncd writes the
installed route to APPL_DB (swss:fpmsyncd/routesync.cpp). This module does the three steps at once:

* key ``<prefix>`` or ``<vrf>|<prefix>`` (vrf ``default`` = no VRF); fields are comma lists aligned by
  position: ``nexthop``, ``ifname``, ``distance``, ``nexthop-vrf``, ``blackhole`` (lists of different
  lengths are refused, a nexthop with neither address nor interface is skipped, as bgpcfgd does);
* zebra: the nexthops with the lowest distance win (distance 0 = FRR's default 1); a nexthop given
  without ``ifname`` is resolved to the connected interface (STATE_DB ``INTERFACE_TABLE|<if>|<prefix>``,
  in the nexthop's VRF) whose subnet holds it, longest match; an unresolvable nexthop or a VRF that does
  not exist (STATE_DB VRF_TABLE) keeps the route out (NEED_RETRY), and it is withdrawn again when its
  interface or VRF goes away;
* fpmsyncd: ``ROUTE_TABLE:<prefix>`` or ``ROUTE_TABLE:<vrf>:<prefix>`` (host routes without ``/32`` or
  ``/128``, as fpmsyncd prints them) {``nexthop`` (comma list, ``0.0.0.0``/``::`` for an interface
  route), ``ifname`` (comma list), ``protocol``: ``static``}, or {``protocol``: ``static``,
  ``blackhole``: ``true``} for a blackhole route. Rows for the same VRF and prefix (``10.0.0.0/24`` and
  ``default|10.0.0.0/24``) are one route, as in zebra.

Routes via ``eth0``, ``docker0``, ``usb0``, ``lo`` or ``Loopback*`` are not written (RouteOrch would only
remove them from the ASIC), nor are routes of the ``mgmt`` VRF (fpmsyncd skips them). ``advertise`` and
``bfd`` only matter to BGP/BFD; a ``bfd`` route is installed as if its sessions were up.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result, TaskStatus
from nos.db import ProducerStateTable, SubscriberStateTable
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    APP_ROUTE_TABLE_NAME,
    CFG_STATIC_ROUTE_TABLE_NAME,
    STATE_INTERFACE_TABLE_NAME,
    STATE_VRF_TABLE_NAME,
)

CONSUMES = (
    (CONFIG_DB, CFG_STATIC_ROUTE_TABLE_NAME), (STATE_DB, STATE_INTERFACE_TABLE_NAME), (STATE_DB, STATE_VRF_TABLE_NAME),
)
PRODUCES = ((APPL_DB, APP_ROUTE_TABLE_NAME),)

DEFAULT_VRF = "default"
MGMT_VRF = "mgmt"
VRF_PREFIX = "Vrf"
PROTOCOL = "static"
FRR_DEFAULT_DISTANCE = 1
EXCLUDED_IFNAMES = frozenset({"eth0", "docker0", "usb0", "lo"})  # routeorch.cpp: removed from the ASIC
LOOPBACK_PREFIX = "Loopback"
KEY_SEP = "|"
APPL_SEP = ":"
LIST_FIELDS = ("blackhole", "nexthop", "ifname", "distance", "nexthop-vrf")
DELETED = "deleted"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class NextHop:
    """One static nexthop: a blackhole, or a gateway and/or an interface, in a VRF."""

    ip: Address | None = None
    ifname: str | None = None
    vrf: str | None = None
    distance: int = FRR_DEFAULT_DISTANCE
    blackhole: bool = False


@dataclass(frozen=True)
class StaticRoute:
    """One STATIC_ROUTE row."""

    vrf: str
    prefix: Network
    nexthops: tuple[NextHop, ...]


@dataclass(frozen=True)
class Connected:
    """A connected subnet: an interface address from STATE_DB INTERFACE_TABLE."""

    interface: str
    vrf: str
    network: Network


@dataclass(frozen=True)
class RouteDecision:
    """What zebra + fpmsyncd make of a route: a row to write, or why there is none."""

    fields: dict[str, str] | None = None
    wait: str | None = None      # a dependency is missing: NEED_RETRY
    skip: str | None = None      # deliberately not installed


# ---- parsing (bgpcfgd) ----------------------------------------------------------------------------
def parse_route_key(key: str) -> tuple[str, Network]:
    """``<prefix>`` / ``<vrf>|<prefix>`` -> (vrf, network); raises ValueError on a bad key."""
    vrf, sep, text = key.partition(KEY_SEP)
    if not sep:
        vrf, text = DEFAULT_VRF, key
    if vrf not in (DEFAULT_VRF, MGMT_VRF) and not (vrf.startswith(VRF_PREFIX) and len(vrf) > len(VRF_PREFIX)):
        raise ValueError(f"VRF '{vrf}' is not default, mgmt or Vrf<name>")
    try:
        return vrf, ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(f"'{text}' is not an IP prefix") from None


def split_lists(fields: Mapping[str, str]) -> list[dict[str, str]]:
    """The aligned comma lists as one dict per nexthop; raises ValueError if their lengths differ."""
    lists = {f: fields[f].split(",") for f in LIST_FIELDS if fields.get(f, "").strip()}
    sizes = {len(items) for items in lists.values()}
    if len(sizes) > 1:
        lengths = ", ".join(f"{f}={len(v)}" for f, v in lists.items())
        raise ValueError(f"nexthop lists have different lengths: {lengths}")
    count = sizes.pop() if sizes else 0
    return [{f: items[i].strip() for f, items in lists.items()} for i in range(count)]


def parse_nexthop(item: Mapping[str, str], version: int) -> NextHop | None:
    """One aligned nexthop -> NextHop, None when it names neither address nor interface."""
    distance = parse_distance(item.get("distance", ""))
    if item.get("blackhole", "").lower() == "true":
        return NextHop(distance=distance, blackhole=True)
    text, ifname = item.get("nexthop", ""), item.get("ifname") or None
    if text.startswith("PortChannel") and ifname is None:  # bgpcfgd accepts a PortChannel as nexthop
        text, ifname = "", text
    ip = parse_gateway(text, version)
    if ip is None and ifname is None:
        return None
    return NextHop(ip=ip, ifname=ifname, vrf=item.get("nexthop-vrf") or None, distance=distance)


def parse_distance(text: str) -> int:
    if not text:
        return FRR_DEFAULT_DISTANCE
    if not text.isdecimal() or int(text) > 255:
        raise ValueError(f"distance '{text}' is not in 0..255")
    return int(text) or FRR_DEFAULT_DISTANCE


def parse_gateway(text: str, version: int) -> Address | None:
    """A gateway address of the route's family; None for empty or all-zero (an interface route)."""
    if not text:
        return None
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        raise ValueError(f"nexthop '{text}' is not an IP address") from None
    if ip.version != version:
        raise ValueError(f"nexthop '{text}' is not an IPv{version} address")
    return None if int(ip) == 0 else ip


def parse_route(key: str, fields: Mapping[str, str]) -> StaticRoute:
    """A STATIC_ROUTE row -> StaticRoute (pure); raises ValueError naming what is wrong."""
    vrf, prefix = parse_route_key(key)
    hops = [parse_nexthop(item, prefix.version) for item in split_lists(fields)]
    usable = tuple(hop for hop in hops if hop is not None)
    if not usable:
        raise ValueError("no usable nexthop (need nexthop, ifname or blackhole)")
    return StaticRoute(vrf, prefix, usable)


# ---- zebra + fpmsyncd -----------------------------------------------------------------------------
def appl_route_key(vrf: str, prefix: Network) -> str:
    """fpmsyncd's key: host routes without the length, non-default VRFs as ``<vrf>:<prefix>``."""
    text = str(prefix.network_address) if prefix.prefixlen == prefix.max_prefixlen else str(prefix)
    return text if vrf == DEFAULT_VRF else f"{vrf}{APPL_SEP}{text}"


def parse_connected(rows: Mapping[str, Mapping[str, str]]) -> list[Connected]:
    """STATE_DB INTERFACE_TABLE (``<if>`` {vrf} and ``<if>|<prefix>`` rows) -> connected subnets."""
    out = []
    for key in rows:
        interface, sep, prefix = key.partition(KEY_SEP)
        if not sep:
            continue
        try:
            network = ipaddress.ip_interface(prefix).network
        except ValueError:
            continue
        vrf = rows.get(interface, {}).get("vrf") or DEFAULT_VRF
        out.append(Connected(interface, vrf, network))
    return out


def resolve_ifname(ip: Address, vrf: str, connected: Iterable[Connected]) -> str | None:
    """The interface whose subnet holds ``ip`` in ``vrf`` (longest prefix), None when none does."""
    matches = [c for c in connected if c.vrf == vrf and c.network.version == ip.version and ip in c.network]
    return max(matches, key=lambda c: c.network.prefixlen).interface if matches else None


def hop_ifname(hop: NextHop, route_vrf: str, connected: Iterable[Connected]) -> str | None:
    """The nexthop's interface: as configured, else resolved from its gateway in its VRF."""
    if hop.ifname is not None or hop.ip is None:
        return hop.ifname
    return resolve_ifname(hop.ip, hop.vrf or route_vrf, connected)


def best_nexthops(nexthops: Sequence[NextHop]) -> list[NextHop]:
    """zebra's choice: the nexthops of the lowest distance, duplicates dropped, order kept."""
    best = min(hop.distance for hop in nexthops)
    return list(dict.fromkeys(hop for hop in nexthops if hop.distance == best))


def decide_route(route: StaticRoute, connected: Sequence[Connected]) -> RouteDecision:
    """The APPL_DB ROUTE_TABLE row for a (merged) static route (pure)."""
    if route.vrf == MGMT_VRF:
        return RouteDecision(skip="routes of the mgmt VRF are not programmed")
    chosen = best_nexthops(route.nexthops)
    if any(hop.blackhole for hop in chosen):
        return RouteDecision(fields={"protocol": PROTOCOL, "blackhole": "true"})
    zero = "0.0.0.0" if route.prefix.version == 4 else "::"
    gateways, ifnames = [], []
    for hop in chosen:
        ifname = hop_ifname(hop, route.vrf, connected)
        if ifname is None:
            return RouteDecision(wait=f"nexthop {hop.ip} is not reachable in VRF {hop.vrf or route.vrf}")
        if ifname in EXCLUDED_IFNAMES or ifname.startswith(LOOPBACK_PREFIX):
            return RouteDecision(skip=f"route via {ifname} is not programmed in the ASIC")
        gateways.append(str(hop.ip) if hop.ip else zero)
        ifnames.append(ifname)
    return RouteDecision(fields={"nexthop": ",".join(gateways), "ifname": ",".join(ifnames), "protocol": PROTOCOL})


def merge_routes(routes: Sequence[StaticRoute]) -> StaticRoute:
    """Rows naming the same VRF and prefix are one zebra route with all their nexthops."""
    return StaticRoute(routes[0].vrf, routes[0].prefix, tuple(hop for r in routes for hop in r.nexthops))


def vrfs_needed(route: StaticRoute) -> set[str]:
    """The VRFs that must exist for the route to be installed."""
    names = {route.vrf} | {hop.vrf for hop in route.nexthops if hop.vrf}
    return {n for n in names if n not in (DEFAULT_VRF, MGMT_VRF)}


# ---- the manager ----------------------------------------------------------------------------------
class StaticRouteMgr:
    """Keeps APPL_DB ROUTE_TABLE equal to the installable static routes.

    STATE_DB INTERFACE_TABLE and VRF_TABLE are followed into memory (full rows from the subscriber);
    a change re-decides only the routes it can affect: those waiting for a dependency and those
    written through the changed interface or needing the changed VRF.
    """

    def __init__(self, dbs: Databases) -> None:
        self.appl = ProducerStateTable(dbs[APPL_DB], APP_ROUTE_TABLE_NAME)
        self.routes: dict[str, StaticRoute] = {}       # CONFIG_DB key -> route
        self.written: dict[str, dict[str, str]] = {}   # APPL_DB key -> row written
        self.waiting: set[str] = set()                 # APPL_DB keys held back by a missing dependency
        self.intf_rows: dict[str, dict[str, str]] = {}  # STATE_DB INTERFACE_TABLE
        self.vrfs: set[str] = set()                    # STATE_DB VRF_TABLE keys

    # -- CONFIG_DB STATIC_ROUTE -----------------------------------------------------------------
    def handle(self, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            old = self.routes.pop(task.key, None)
            if old is None:
                return Result.ignored("no such route")
            return self._sync(appl_route_key(old.vrf, old.prefix))
        try:
            route = parse_route(task.key, task.fields)
        except ValueError as exc:
            return Result.invalid(str(exc))
        self.routes[task.key] = route
        return self._sync(appl_route_key(route.vrf, route.prefix))

    # -- STATE_DB dependencies ------------------------------------------------------------------
    def handle_interface(self, task: KeyOpFieldsValues) -> Result:
        """An interface or one of its addresses came, changed or went."""
        if task.is_del:
            self.intf_rows.pop(task.key, None)
        else:
            self.intf_rows[task.key] = task.fields
        interface = task.key.partition(KEY_SEP)[0]
        through = {k for k, row in self.written.items() if interface in row.get("ifname", "").split(",")}
        return self._resync(self.waiting | through)

    def handle_vrf(self, task: KeyOpFieldsValues) -> Result:
        """A VRF was created or deleted."""
        if task.is_del:
            self.vrfs.discard(task.key)
        else:
            self.vrfs.add(task.key)
        needing = {appl_route_key(r.vrf, r.prefix) for r in self.routes.values() if task.key in vrfs_needed(r)}
        return self._resync(self.waiting | needing)

    # -- decide and write -----------------------------------------------------------------------
    def _resync(self, keys: Iterable[str]) -> Result:
        statuses = [self._sync(key).status for key in sorted(keys)]
        return Result.success() if TaskStatus.SUCCESS in statuses else Result.ignored("no route changed")

    def _decide(self, appl_key: str) -> RouteDecision:
        routes = [r for r in self.routes.values() if appl_route_key(r.vrf, r.prefix) == appl_key]
        if not routes:
            return RouteDecision(skip=DELETED)
        route = merge_routes(routes)
        missing = sorted(vrfs_needed(route) - self.vrfs)
        if missing:
            return RouteDecision(wait=f"VRF {', '.join(missing)} does not exist yet")
        return decide_route(route, parse_connected(self.intf_rows))

    def _sync(self, appl_key: str) -> Result:
        decision = self._decide(appl_key)
        if decision.wait is not None:
            self.waiting.add(appl_key)
        else:
            self.waiting.discard(appl_key)
        if decision.fields is None:
            withdrawn = self.written.pop(appl_key, None) is not None
            if withdrawn:
                self.appl.delete(appl_key)
            if decision.wait is not None:
                return Result.retry(decision.wait)
            return Result.success() if withdrawn else Result.ignored(decision.skip or "")
        if self.written.get(appl_key) == decision.fields:
            return Result.ignored("unchanged")
        self.appl.set(appl_key, decision.fields)
        self.written[appl_key] = decision.fields
        return Result.success()

    def register(self, dbs: Databases, runner: Runner) -> None:
        feeds = ((CONFIG_DB, CFG_STATIC_ROUTE_TABLE_NAME, self.handle),
                 (STATE_DB, STATE_INTERFACE_TABLE_NAME, self.handle_interface),
                 (STATE_DB, STATE_VRF_TABLE_NAME, self.handle_vrf))
        for db, table, handler in feeds:
            runner.add_consumer(TableConsumer(db, table, SubscriberStateTable(dbs[db], table), handler))


def register(dbs: Databases, runner: Runner) -> None:
    """Wire the static-route manager into cfgmgrd."""
    StaticRouteMgr(dbs).register(dbs, runner)
