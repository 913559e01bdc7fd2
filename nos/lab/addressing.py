"""What a lab adds to each switch's CONFIG_DB: addresses, neighbours and routes (pure but for reading
SKU default configs and the nodes' own startup-config files).

Everything is written as SONiC CONFIG_DB tables, so a user sees (and may override, in the node's
``startup-config`` file, merged last) exactly what the lab configured:

* **Roles**: a node's ``role`` if given; else a switch with hosts is a ``leaf`` and any other switch a
  ``spine``. ``DEVICE_METADATA|localhost``: ``hostname`` = node name, ``mac`` = ``02:5a:00:00:<i+1>:00``
  style (``nos.lab.model.router_mac``, i = the node's index in the file), ``bgp_asn`` 65100 + j for the
  j-th spine and 65200 + j for the j-th leaf (0-based, file order; for the later BGP issue), ``type``
  SpineRouter / LeafRouter.
* **Ports**: every used port (links and hosts) ``PORT`` admin_status up, mtu 9100 (speed and lanes stay
  the SKU's).
* **Links** (routed, IPv4): link k (file order, switch links only) takes ``10.0.0.0/16`` + 2k as a /31:
  its first endpoint ``10.0.<2k // 256>.<2k % 256>/31``, its second the next address. Both ends get
  ``INTERFACE|<port>`` and ``INTERFACE|<port>|<ip>/31``, and ``NEIGH|<port>|<peer ip>`` {neigh: the
  peer's router MAC, family: IPv4}, so next hops resolve without ARP (the simulated kernel has no peer
  to ask).
* **Loopbacks**: switch i gets ``LOOPBACK_INTERFACE|Loopback0|10.255.0.0 + i + 1/32``.
* **Host subnets** (the VLAN path, not routed host ports): a leaf puts all its host ports untagged in
  ``VLAN|Vlan1000`` with ``VLAN_INTERFACE|Vlan1000|<gateway>/<len>`` (subnets and host addresses were
  resolved with the topology: leaf k gets ``10.<k+1>.0.0/24`` unless its hosts say otherwise), and
  ``NEIGH|Vlan1000|<host ip>`` {neigh: host MAC} per host.
* **Cables**: ``CABLE_LENGTH|AZURE`` gets each linked and host port's cable length from the topology
  (default 5 m), so buffer headroom and cable delay are the lab's.
* **Routes**: :func:`static_routes` (replaceable by a BGP speaker later): every switch gets a
  ``STATIC_ROUTE|<prefix>`` {nexthop, ifname: aligned comma lists} for every host subnet and loopback
  not its own, over all shortest paths (breadth-first search over the switch graph, hop count; ECMP =
  every link to a neighbour one hop nearer). A switch with no path to a prefix gets no route to it.

* **MC-LAG pairs** (``topology.mclag``): the peer link's ports are not routed: on both switches they are
  members of ``PORTCHANNEL|PortChannel999``, a tagged member of the host VLAN; the pair shares one host
  subnet and gateway (the same ``VLAN_INTERFACE`` address on both: the standby takes the active's MAC
  for it, iccpd's ``INTF_TABLE mac_addr``); dual-homed host j (1-based, file order) is ``PORTCHANNEL|
  PortChannel<j>`` with its port as member on each switch, an untagged VLAN member and
  ``MCLAG_INTERFACE|<domain>|PortChannel<j>``; ``MCLAG_DOMAIN|<domain>`` {source_ip: the switch's
  loopback, peer_ip: the peer's, peer_link PortChannel999, keepalive_interval, session_timeout}. Routes to
  the pair's subnet go to both switches (ECMP over the nearest of them).

``startup_config`` merges, field by field within each row: the SKU's default config_db.json (what
``nos up`` boots), then the plan's tables, then the node's own startup-config file.
"""

from __future__ import annotations

import ipaddress
import zlib
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from nos.config.errors import ConfigFileError
from nos.config.files import read_config_file
from nos.config.validate import validate_config
from nos.intent.roce import plan as roce_plan
from nos.intent.roce.model import IntentError
from nos.lab.errors import TopologyError
from nos.lab.model import Endpoint, Host, McLag, Topology, router_mac
from nos.platform.sku import load_sku
from nos.schema import tables as t
from nos.schema.config import Config, Row, Value
from nos.schema.config.roce import ROCE_KEY
from nos.schema.tables import CFG_ROCE_TABLE_NAME

LINK_POOL = ipaddress.IPv4Network("10.0.0.0/16")
LOOPBACK_POOL = ipaddress.IPv4Network("10.255.0.0/16")
LOOPBACK = "Loopback0"
HOST_VLAN = "Vlan1000"
PEER_LINK_LAG = "PortChannel999"
HOST_VLAN_ID = "1000"
PORT_MTU = "9100"
SPINE_ASN = 65100
LEAF_ASN = 65200
LEAF, SPINE = "leaf", "spine"
DEVICE_TYPES = {LEAF: "LeafRouter", SPINE: "SpineRouter"}
SEP = "|"

Tables = dict[str, dict[str, Row]]


@dataclass(frozen=True)
class Addressing:
    """The lab's addresses, before they become tables: what routes are computed from."""

    roles: dict[str, str]
    router_mac: dict[str, str]
    loopback: dict[str, ipaddress.IPv4Address]
    port_ip: dict[Endpoint, ipaddress.IPv4Interface]      # both ends of every switch link
    host_subnet: dict[str, ipaddress.IPv4Network]          # leaf -> its hosts' subnet
    gateway: dict[str, ipaddress.IPv4Interface]            # leaf -> its VLAN interface address


@dataclass(frozen=True)
class LabPlan:
    """Per node, the CONFIG_DB tables the lab adds (``configs``), and the addressing behind them."""

    configs: dict[str, Tables]
    router_mac: dict[str, str]
    addressing: Addressing
    routes: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)


def role_of(topo: Topology, node: str) -> str:
    """The node's role: as written, else leaf if it carries hosts, else spine."""
    given = topo.node(node).role
    if given:
        return given
    return LEAF if topo.hosts_on(node) else SPINE


def link_addresses(k: int) -> tuple[ipaddress.IPv4Interface, ipaddress.IPv4Interface]:
    """The /31 of switch link k: (first endpoint's address, second endpoint's)."""
    base = LINK_POOL.network_address + 2 * k
    if base + 1 not in LINK_POOL:
        raise ValueError(f"link {k}: more links than {LINK_POOL} holds /31s")
    return ipaddress.IPv4Interface(f"{base}/31"), ipaddress.IPv4Interface(f"{base + 1}/31")


def assign_addresses(topo: Topology) -> Addressing:
    """Roles, MACs, loopbacks, link /31s and host subnets of every switch (scheme: module docstring)."""
    names = [n.name for n in topo.switches()]
    port_ip: dict[Endpoint, ipaddress.IPv4Interface] = {}
    for k, link in enumerate(topo.routed_links()):
        port_ip[link.a], port_ip[link.b] = link_addresses(k)
    subnet: dict[str, ipaddress.IPv4Network] = {}
    gateway: dict[str, ipaddress.IPv4Interface] = {}
    for name in names:
        hosts = topo.hosts_on(name)
        if hosts:
            gateway[name] = ipaddress.IPv4Interface(f"{hosts[0].gateway}/{hosts[0].prefix_len}")
            subnet[name] = gateway[name].network
    return Addressing(
        roles={name: role_of(topo, name) for name in names},
        router_mac={name: router_mac(topo.index(name)) for name in names},
        loopback={name: LOOPBACK_POOL.network_address + i + 1 for i, name in enumerate(names)},
        port_ip=port_ip, host_subnet=subnet, gateway=gateway,
    )


def _adjacency(topo: Topology) -> dict[str, list[tuple[Endpoint, Endpoint]]]:
    """Switch -> its links as (local end, remote end), in file order."""
    adj: dict[str, list[tuple[Endpoint, Endpoint]]] = {n.name: [] for n in topo.switches()}
    for link in topo.routed_links():
        adj[link.a.node].append((link.a, link.b))
        adj[link.b.node].append((link.b, link.a))
    return adj


def _hops_to(targets: frozenset[str], adj: Mapping[str, list[tuple[Endpoint, Endpoint]]]) -> dict[str, int]:
    """Hop count from every switch that can reach the nearest of ``targets`` (breadth-first from them)."""
    dist = dict.fromkeys(targets, 0)
    queue = deque(sorted(targets))
    while queue:
        here = queue.popleft()
        for _, remote in adj[here]:
            if remote.node not in dist:
                dist[remote.node] = dist[here] + 1
                queue.append(remote.node)
    return dist


def static_routes(topo: Topology, addressing: Addressing) -> dict[str, dict[str, dict[str, str]]]:
    """Node -> STATIC_ROUTE rows (prefix -> {nexthop, ifname}) to every remote host subnet and loopback,
    ECMP over all shortest paths. The one place routes come from: a BGP speaker can replace it."""
    adj = _adjacency(topo)
    owners: dict[str, set[str]] = {f"{ip}/32": {node} for node, ip in addressing.loopback.items()}
    for leaf, net in addressing.host_subnet.items():
        owners.setdefault(str(net), set()).add(leaf)       # an MC-LAG pair shares its subnet
    groups: dict[frozenset[str], list[str]] = {}
    for prefix, nodes in owners.items():
        groups.setdefault(frozenset(nodes), []).append(prefix)
    routes: dict[str, dict[str, dict[str, str]]] = {name: {} for name in adj}
    for target, prefixes in groups.items():
        dist = _hops_to(target, adj)
        for node, hops in dist.items():
            if node in target:
                continue
            via = [(local, remote) for local, remote in adj[node] if dist.get(remote.node) == hops - 1]
            row = {"nexthop": ",".join(str(addressing.port_ip[remote].ip) for _, remote in via),
                   "ifname": ",".join(local.port for local, _ in via)}
            for prefix in prefixes:
                routes[node][prefix] = dict(row)
    return routes


CABLE_KEY = "AZURE"  # SONiC's CABLE_LENGTH row


def _add(tables: Tables, table: str, key: str, row: Mapping[str, Value] | None = None) -> None:
    tables.setdefault(table, {})[key] = dict(row or {})


def _node_tables(topo: Topology, node: str, addr: Addressing, routes: Mapping[str, dict[str, str]]) -> Tables:
    role = addr.roles[node]
    same_role = [n for n, r in addr.roles.items() if r == role]
    asn = (LEAF_ASN if role == LEAF else SPINE_ASN) + same_role.index(node)
    tables: Tables = {}
    _add(tables, t.CFG_DEVICE_METADATA_TABLE_NAME, "localhost", {
        "hostname": node, "mac": addr.router_mac[node], "bgp_asn": str(asn), "type": DEVICE_TYPES[role]})
    for local, remote in _adjacency(topo)[node]:
        _add(tables, t.CFG_PORT_TABLE_NAME, local.port, {"admin_status": "up", "mtu": PORT_MTU})
        _add(tables, t.CFG_INTF_TABLE_NAME, local.port)
        _add(tables, t.CFG_INTF_TABLE_NAME, f"{local.port}{SEP}{addr.port_ip[local]}")
        _add(tables, t.CFG_NEIGH_TABLE_NAME, f"{local.port}{SEP}{addr.port_ip[remote].ip}",
             {"neigh": addr.router_mac[remote.node], "family": "IPv4"})
    _add(tables, t.CFG_LOOPBACK_INTERFACE_TABLE_NAME, LOOPBACK)
    _add(tables, t.CFG_LOOPBACK_INTERFACE_TABLE_NAME, f"{LOOPBACK}{SEP}{addr.loopback[node]}/32")
    hosts = topo.hosts_on(node)
    if hosts:
        _host_tables(tables, hosts, addr.gateway[node], topo.pair_of(node))
    pair = topo.pair_of(node)
    if pair is not None:
        _mclag_tables(tables, pair, node, addr)
    cables = {(link.a if link.a.node == node else link.b).port: link.cable_m for link in topo.links_of(node)}
    cables.update({host.port: host.cable_m for host in hosts})
    if cables:  # what the buffer headroom and the traffic model's cable delay are computed from
        _add(tables, t.CFG_PORT_CABLE_LEN_TABLE_NAME, CABLE_KEY, {port: f"{m:g}m" for port, m in cables.items()})
    for prefix, row in routes.items():
        _add(tables, t.CFG_STATIC_ROUTE_TABLE_NAME, prefix, row)
    return tables


def host_lag(j: int) -> str:
    """The PortChannel of the j-th (0-based) dual-homed host of an MC-LAG pair."""
    return f"PortChannel{j + 1}"


def _lag(tables: Tables, name: str, members: tuple[str, ...]) -> None:
    _add(tables, t.CFG_LAG_TABLE_NAME, name, {"admin_status": "up", "mtu": PORT_MTU, "min_links": "1",
                                               "lacp_key": "auto"})
    for port in members:
        _add(tables, t.CFG_LAG_MEMBER_TABLE_NAME, f"{name}{SEP}{port}")


def _host_tables(tables: Tables, hosts: tuple[Host, ...], gateway: ipaddress.IPv4Interface,
                 pair: McLag | None) -> None:
    _add(tables, t.CFG_VLAN_TABLE_NAME, HOST_VLAN, {"vlanid": HOST_VLAN_ID})
    _add(tables, t.CFG_VLAN_INTF_TABLE_NAME, HOST_VLAN)
    _add(tables, t.CFG_VLAN_INTF_TABLE_NAME, f"{HOST_VLAN}{SEP}{gateway}")
    dual = [h for h in hosts if h.peer_node]
    for host in hosts:
        _add(tables, t.CFG_PORT_TABLE_NAME, host.port, {"admin_status": "up", "mtu": PORT_MTU})
        member = host.port
        if host.peer_node and pair is not None:
            member = host_lag(dual.index(host))
            _lag(tables, member, (host.port,))
            _add(tables, t.CFG_MCLAG_INTF_TABLE_NAME, f"{pair.domain}{SEP}{member}", {"if_type": "PortChannel"})
        _add(tables, t.CFG_VLAN_MEMBER_TABLE_NAME, f"{HOST_VLAN}{SEP}{member}", {"tagging_mode": "untagged"})
        _add(tables, t.CFG_NEIGH_TABLE_NAME, f"{HOST_VLAN}{SEP}{host.ip}", {"neigh": host.mac, "family": "IPv4"})


def _mclag_tables(tables: Tables, pair: McLag, node: str, addr: Addressing) -> None:
    for port in pair.peer_ports:
        _add(tables, t.CFG_PORT_TABLE_NAME, port, {"admin_status": "up", "mtu": PORT_MTU})
    _lag(tables, PEER_LINK_LAG, pair.peer_ports)
    if HOST_VLAN in tables.get(t.CFG_VLAN_TABLE_NAME, {}):
        _add(tables, t.CFG_VLAN_MEMBER_TABLE_NAME, f"{HOST_VLAN}{SEP}{PEER_LINK_LAG}", {"tagging_mode": "tagged"})
    _add(tables, t.CFG_MCLAG_TABLE_NAME, str(pair.domain), {
        "source_ip": str(addr.loopback[node]), "peer_ip": str(addr.loopback[pair.other(node)]),
        "peer_link": PEER_LINK_LAG, "keepalive_interval": str(pair.keepalive),
        "session_timeout": str(pair.session_timeout)})


def plan(topo: Topology) -> LabPlan:
    """The tables every switch of the lab gets (rules: module docstring)."""
    addr = assign_addresses(topo)
    routes = static_routes(topo, addr)
    configs = {n.name: _node_tables(topo, n.name, addr, routes[n.name]) for n in topo.switches()}
    return LabPlan(configs, dict(addr.router_mac), addr, routes)


MGMT_NET = "127.77"   # a lab switch's management address: 127.77.<lab>.<switch index + 1> on the loopback


def management_address(topo: Topology, node: str, lab_net: int = 1) -> str:
    """Where the switch's iccpd listens and is reached: the lab's management network is the host's
    loopback, a /24 per running lab (``lab_net``, 1..254: see ``management_net``), one address per switch."""
    return f"{MGMT_NET}.{lab_net}.{topo.index(node) + 1}"


def management_net(topo: Topology, seed: str, port: int, free: Callable[[str, int], bool]) -> int:
    """The lab's /24 of management addresses: the first, from a hash of ``seed`` (the lab's directory)
    on, where every MC-LAG switch's address is free on ``port`` (``free(address, port)``), so that two
    labs of one name (two lab roots) do not take each other's addresses."""
    start = zlib.crc32(seed.encode()) % 254
    for k in range(254):
        net = (start + k) % 254 + 1
        if all(free(management_address(topo, n, net), port) for pair in topo.mclag for n in pair.peers):
            return net
    return start + 1


def iccp_hosts(topo: Topology, addr: Addressing, lab_net: int = 1) -> dict[str, str]:
    """MCLAG_DOMAIN address (the switch's loopback) -> management address, for every MC-LAG switch:
    what iccpd reads from ``NOS_ICCP_HOSTS``."""
    return {str(addr.loopback[n]): management_address(topo, n, lab_net) for pair in topo.mclag for n in pair.peers}


def merge_config(base: Config, *overlays: Mapping[str, Mapping[str, Row]]) -> Config:
    """``base`` with each overlay merged in order: table by table, row by row, field by field."""
    out: Config = {table: {key: dict(row) for key, row in rows.items()} for table, rows in base.items()}
    for overlay in overlays:
        for table, rows in overlay.items():
            target = out.setdefault(table, {})
            for key, row in rows.items():
                target.setdefault(key, {}).update(row)
    return out


def startup_configs(topo: Topology, lab_plan: LabPlan) -> dict[str, Config]:
    """Every switch's startup config, each validated as ``nos up`` would; TopologyError naming every
    switch whose config cannot boot (its startup-config file, a RoCE intent its cables or SKU cannot
    give) and why."""
    configs: dict[str, Config] = {}
    problems: list[str] = []
    for node in topo.switches():
        where = f"topology.nodes.{node.name}"
        try:
            config = startup_config(topo, node.name, lab_plan)
        except IntentError as exc:
            problems += [f"{where}.roce: {e}" for e in exc.errors]
            continue
        except ConfigFileError as exc:
            problems.append(f"{where}.startup-config: {exc}")
            continue
        problems += [f"{where}: {e}" for e in validate_config(config).errors]
        configs[node.name] = config
    if problems:
        raise TopologyError(problems, topo.name)
    return configs


def startup_config(topo: Topology, node_name: str, plan: LabPlan) -> Config:
    """The config_db.json ``node_name`` boots with: SKU default + the plan + its own startup-config, and,
    for a node with ``roce``, the RoCE intent expanded into its buffer, QoS and PFC tables (the plan
    ``nos config roce enable`` writes; a ``ROCE`` row in its own startup-config takes precedence)."""
    node = topo.node(node_name)
    base: Config = load_sku(node.sku).default_config()
    own = read_config_file(node.startup_config) if node.startup_config is not None else {}
    merged = merge_config(base, plan.configs[node_name], own)
    if node.roce or CFG_ROCE_TABLE_NAME in own:
        merged = roce_plan({**merged, CFG_ROCE_TABLE_NAME: merged.get(CFG_ROCE_TABLE_NAME) or {ROCE_KEY: {}}})
    return merged
