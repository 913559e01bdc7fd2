"""Checking a topology's specs against SKUs and each other, and resolving hosts (pure but for reading
SKU files, once per SKU).

Checked: every endpoint's node exists and is not the link's other end; every port exists on its node's
SKU (default breakout) and carries one link or one host; the two ports of a link have the same speed, a
host's speed (when given) is its port's; host nodes (``kind: linux``) have exactly one link, to a switch;
compact hosts sit on switches; node and host names, MACs and IPs are distinct; host subnets do not
overlap each other or the lab's pools.

Host addresses (IPv4 only): the hosts of a leaf share one subnet, the leaves' host subnet. It is the
subnet of the leaf's explicit host IPs when there are any, else ``10.<k+1>.0.0/24`` for the k-th switch
(0-based, file order) that carries hosts; the gateway (the leaf's VLAN interface) is the explicit
``gateway`` or the subnet's first address; hosts without an IP take the next free addresses from the
second one on (``.2``, ``.3``...), in file order. Hosts without a MAC get ``02:00:00:00:00:00`` + n + 1
(n: the host's index in file order), skipping MACs given explicitly.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from functools import cache
from types import MappingProxyType

from nos.lab.model import (
    DEFAULT_CABLE_M,
    HOST_MAC_BASE,
    Endpoint,
    Host,
    Link,
    McLag,
    Node,
    Topology,
    mac_text,
    router_mac,
)
from nos.lab.parse import HostGroupSpec, HostSpec, LinkSpec, McLagSpec, NodeSpec, Problems, Specs
from nos.platform.sku import UnknownSku, load_sku
from nos.traffic.hosts import resolve_ports
from nos.traffic.units import format_rate

HOST_SUBNET_LEN = 24
LINK_POOL = ipaddress.IPv4Network("10.0.0.0/16")       # p2p /31s (nos.lab.addressing)
LOOPBACK_POOL = ipaddress.IPv4Network("10.255.0.0/16")  # loopback /32s (nos.lab.addressing)
MAX_AUTO_LEAVES = 254                                   # 10.1.0.0/24 .. 10.254.0.0/24


@cache
def sku_ports(sku: str) -> Mapping[str, float]:
    """Port name -> speed (b/s) of the SKU's default breakout; UnknownSku if there is no such SKU."""
    rows = load_sku(sku).default_ports()
    return MappingProxyType({name: float(row["speed"]) * 1e6 for name, row in rows.items()})


class Resolver:
    """One pass over the specs: what each node is, which ports are taken, the hosts found so far."""

    def __init__(self, specs: Specs, problems: Problems) -> None:
        self.specs = specs
        self.problems = problems
        self.nodes: dict[str, NodeSpec] = {}
        self.ports: dict[str, Mapping[str, float]] = {}
        self.owner: dict[Endpoint, str] = {}
        self.hosts: list[HostSpec] = []
        self.links: list[Link] = []

    def run(self) -> Topology:
        self._nodes()
        host_links: dict[str, int] = {}
        for link in self.specs.links:
            self._link(link, host_links)
        for node in self.nodes.values():
            if not node.is_switch and host_links.get(node.name, 0) == 0:
                self.problems.add(node.where, "a host node needs a link to a switch port")
        for group in self.specs.groups:
            self._group(group)
        switches = tuple(Node(n.name, n.kind, n.sku, n.role, n.startup_config, n.roce)
                         for n in self.nodes.values() if n.is_switch)
        pairs = tuple(p for spec in self.specs.mclag if (p := self._pair(spec)) is not None)
        self._check_pairs(pairs)
        hosts = resolve_addresses(switches, self.hosts, self.problems)
        self._distinct_names()
        return Topology(self.specs.name, switches, tuple(self.links), hosts, pairs)

    def _pair(self, spec: McLagSpec) -> McLag | None:
        """An MC-LAG pair: two switches, its peer link the links between them (all, or those named)."""
        for i, name in enumerate(spec.peers):
            node = self.nodes.get(name)
            if node is None or not node.is_switch:
                self.problems.add(f"{spec.where}.peers[{i}]", f"{name}: no such switch")
                return None
        a, b = spec.peers
        between = [link for link in self.links if {link.a.node, link.b.node} == {a, b}]
        ports = [link.a.port if link.a.node == a else link.b.port for link in between]
        if any(link.a.port != link.b.port for link in between):
            self.problems.add(spec.where, f"the links between {a} and {b} must use the same port on both "
                                          "(the peer link is one PortChannel of the same members on each)")
        chosen = ports if spec.peer_link is None else spec.peer_link
        for port in chosen:
            if port not in ports:
                self.problems.add(f"{spec.where}.peer_link", f"{port}: no link between {a} and {b} on that port")
        if not chosen:
            self.problems.add(spec.where, f"{a} and {b} need a link between them for the peer link")
            return None
        return McLag(spec.domain, (a, b), tuple(chosen), spec.keepalive, spec.session_timeout)

    def _check_pairs(self, pairs: tuple[McLag, ...]) -> None:
        seen: dict[str, int] = {}
        for pair in pairs:
            for name in pair.peers:
                if name in seen:
                    self.problems.add("topology.mclag", f"{name} is in two MC-LAG pairs (domains {seen[name]} and "
                                                        f"{pair.domain})")
                seen[name] = pair.domain
        by_nodes = {frozenset(p.peers) for p in pairs}
        for host in self.hosts:
            if host.peer and frozenset((host.node, host.peer)) not in by_nodes:
                self.problems.add(host.where, f"host {host.name}: {host.node} and {host.peer} are not an MC-LAG "
                                              "pair (topology.mclag)")
        for pair in pairs:
            dual = any(h.peer and h.node in pair.peers for h in self.hosts)
            single = [h for h in self.hosts if h.node in pair.peers and not h.peer]
            if dual and single:
                self.problems.add(single[0].where, f"host {single[0].name}: the hosts of MC-LAG pair "
                                                   f"{'/'.join(pair.peers)} are dual-homed, all of them "
                                                   "(the pair shares one subnet)")

    def _nodes(self) -> None:
        for node in self.specs.nodes:
            self.nodes[node.name] = node
            if not node.is_switch:
                continue
            try:
                self.ports[node.name] = sku_ports(node.sku)
            except UnknownSku as exc:
                self.problems.add(f"{node.where}.sku", str(exc))

    def _port(self, end: Endpoint, where: str, user: str) -> float | None:
        """The port's speed if it exists on its switch and is free (else a problem and None)."""
        ports = self.ports.get(end.node)
        if ports is None:
            return None  # unknown SKU: reported already
        if end.port not in ports:
            self.problems.add(where, f"{end}: no port {end.port!r} on {self.nodes[end.node].sku}")
            return None
        if end in self.owner:
            self.problems.add(where, f"{end}: port already used by {self.owner[end]}")
            return None
        self.owner[end] = user
        return ports[end.port]

    def _link(self, link: LinkSpec, host_links: dict[str, int]) -> None:
        known: list[tuple[int, Endpoint, NodeSpec]] = []
        for side, end in enumerate(link.ends):
            if end is None:
                continue
            if end.node not in self.nodes:
                self.problems.add(f"{link.where}.endpoints[{side}]", f"{end.node}: no such node")
                continue
            known.append((side, end, self.nodes[end.node]))
        if len(known) != 2:
            return
        (_, a, node_a), (side_b, b, node_b) = known
        if a.node == b.node:
            self.problems.add(link.where, f"a link from {a.node} to itself")
        elif not node_a.is_switch and not node_b.is_switch:
            self.problems.add(link.where, f"a link between two hosts ({a.node}, {b.node})")
        elif node_a.is_switch and node_b.is_switch:
            self._switch_link(link, a, b)
        else:
            host, switch, side = (node_a, b, side_b) if not node_a.is_switch else (node_b, a, 0)
            host_links[host.name] = host_links.get(host.name, 0) + 1
            if host_links[host.name] > 1:
                self.problems.add(link.where, f"host {host.name} has a second link (one NIC per host)")
                return
            self._add_host(HostSpec(host.name, switch.node, switch.port, f"{link.where}.endpoints[{side}]",
                                    host.host.get("speed"), host.host.get("mac"), host.host.get("ip"),
                                    host.host.get("gateway"), link.cable_m))

    def _switch_link(self, link: LinkSpec, a: Endpoint, b: Endpoint) -> None:
        where = f"{link.where}.endpoints"
        speed_a = self._port(a, f"{where}[0]", f"the link {link.where}")
        speed_b = self._port(b, f"{where}[1]", f"the link {link.where}")
        if speed_a is not None and speed_b is not None and speed_a != speed_b:
            self.problems.add(link.where, f"speed mismatch: {a} is {format_rate(speed_a)}, "
                                          f"{b} is {format_rate(speed_b)}")
        self.links.append(Link(a, b, link.cable_m))

    def _add_host(self, host: HostSpec) -> None:
        speed = self._port(Endpoint(host.node, host.port), host.where, f"host {host.name}")
        if speed is not None and host.speed_bps is not None and host.speed_bps != speed:
            self.problems.add(host.where, f"host {host.name} speed {format_rate(host.speed_bps)} does not match "
                                          f"{host.node}:{host.port} ({format_rate(speed)})")
        self.hosts.append(host)

    def _group(self, group: HostGroupSpec) -> None:
        node = self.nodes.get(group.node)
        if node is None:
            self.problems.add(f"{group.where}.node", f"{group.node}: no such node")
            return
        if not node.is_switch:
            self.problems.add(f"{group.where}.node", f"{group.node} is a {node.kind} node, not a switch")
            return
        if group.peer:
            other = self.nodes.get(group.peer)
            if other is None or not other.is_switch:
                self.problems.add(f"{group.where}.node", f"{group.peer}: no such switch")
                return
        if group.node not in self.ports or (group.peer and group.peer not in self.ports):
            return
        ports, found = resolve_ports(group.ports, list(self.ports[group.node]), f"{group.where}.ports")
        for problem in found:
            self.problems.add(problem.field, f"{problem.value}: {problem.message} {group.node}")
        names = _expand_names(group, ports, self.problems)
        values = group.values
        for i, (name, port) in enumerate(zip(names, ports, strict=False)):
            mac, ip = _counted(values["mac"], values["ip"], i)
            if mac is None and values["mac"] is not None or ip is None and values["ip"] is not None:
                self.problems.add(f"{group.where}.ports", f"host {name}: its MAC or IP counts past the address space")
            host = HostSpec(name, group.node, port, f"{group.where}.ports", values["speed"], mac, ip,
                            values["gateway"], values["cable"] or DEFAULT_CABLE_M, group.peer)
            self._add_host(host)
            if group.peer:
                self._port(Endpoint(group.peer, port), host.where, f"host {name}")

    def _distinct_names(self) -> None:
        seen = {name: f"node {name}" for name in self.nodes}
        for host in self.hosts:
            if host.name in self.nodes and not self.nodes[host.name].is_switch and host.where.startswith(
                    "topology.links"):
                continue  # the Host row of a host node
            if host.name in seen:
                self.problems.add(host.where, f"host name {host.name!r} already used by {seen[host.name]}")
            seen.setdefault(host.name, f"host {host.name}")


def _counted(mac: str | None, ip: ipaddress.IPv4Interface | None,
             i: int) -> tuple[str | None, ipaddress.IPv4Interface | None]:
    """The i-th host of a group: the group's MAC and IP counted up by i (as ``nos.traffic.hosts``)."""
    mac_i = None
    if mac is not None and int(mac.replace(":", ""), 16) + i <= 0xFFFF_FFFF_FFFF:
        mac_i = mac_text(int(mac.replace(":", ""), 16) + i)
    ip_i = None
    if ip is not None and int(ip.ip) + i < 2 ** 32:
        ip_i = ipaddress.IPv4Interface(f"{ip.ip + i}/{ip.network.prefixlen}")
    return mac_i, ip_i


def _expand_names(group: HostGroupSpec, ports: list[str], problems: Problems) -> list[str]:
    if isinstance(group.names, list):
        if len(group.names) != len(ports):
            problems.add(f"{group.where}.name", f"{len(group.names)} names for {len(ports)} ports")
        return group.names
    pattern = group.names
    if len(ports) > 1 and "{i}" not in pattern and "{port}" not in pattern:
        pattern += "{i}"
    return [pattern.replace("{node}", group.node).replace("{i}", str(i)).replace("{port}", port)
            for i, port in enumerate(ports)]


def _leaf_subnets(switches: tuple[Node, ...], hosts: list[HostSpec],
                  problems: Problems) -> dict[str, tuple[ipaddress.IPv4Network, ipaddress.IPv4Address]]:
    """Leaf -> (host subnet, gateway)."""
    out: dict[str, tuple[ipaddress.IPv4Network, ipaddress.IPv4Address]] = {}
    leaves = [n.name for n in switches if any(h.node == n.name for h in hosts)]
    for k, leaf in enumerate(leaves):
        mine = [h for h in hosts if h.node == leaf]
        nets = {h.ip.network for h in mine if h.ip is not None}
        gateways = {h.gateway for h in mine if h.gateway is not None}
        if len(nets) > 1 or len(gateways) > 1:
            problems.add(mine[0].where, f"hosts on {leaf} must share one subnet and gateway "
                                        f"(got {', '.join(sorted(map(str, nets | gateways)))})")
        if nets:
            net = min(nets)
        elif k < MAX_AUTO_LEAVES:
            net = ipaddress.IPv4Network(f"10.{k + 1}.0.0/{HOST_SUBNET_LEN}")
        else:
            problems.add(mine[0].where, f"more than {MAX_AUTO_LEAVES} leaves with auto host addresses")
            continue
        out[leaf] = (net, min(gateways) if gateways else net.network_address + 1)
    return out


def _check_subnets(subnets: Mapping[str, tuple[ipaddress.IPv4Network, ipaddress.IPv4Address]],
                   problems: Problems) -> None:
    items = sorted(subnets.items())
    for i, (leaf, (net, _)) in enumerate(items):
        for pool, what in ((LINK_POOL, "the link pool"), (LOOPBACK_POOL, "the loopback pool")):
            if net.overlaps(pool):
                problems.add(f"topology.nodes.{leaf}", f"host subnet {net} overlaps {what} {pool}")
        for other, (net2, _) in items[i + 1:]:
            if net.overlaps(net2):
                problems.add(f"topology.nodes.{leaf}", f"host subnet {net} overlaps {other}'s {net2}")


def _free_ips(net: ipaddress.IPv4Network, taken: set[ipaddress.IPv4Address]) -> Iterator[ipaddress.IPv4Address]:
    for ip in net.hosts():
        if ip not in taken:
            yield ip


def resolve_addresses(switches: tuple[Node, ...], hosts: list[HostSpec], problems: Problems) -> tuple[Host, ...]:
    """The hosts with MAC, IP, subnet and gateway filled in (rules: module docstring)."""
    subnets = _leaf_subnets(switches, hosts, problems)
    _check_subnets(subnets, problems)
    taken = {h.ip.ip for h in hosts if h.ip is not None} | {gw for _, gw in subnets.values()}
    free = {leaf: _free_ips(net, taken) for leaf, (net, _) in subnets.items()}
    explicit_macs = {h.mac for h in hosts if h.mac is not None}
    auto_mac = HOST_MAC_BASE
    out: list[tuple[HostSpec, Host]] = []
    for host in hosts:
        if host.node not in subnets:
            continue
        net, gateway = subnets[host.node]
        ip = host.ip.ip if host.ip is not None else next(free[host.node], None)
        if ip is None:
            problems.add(host.where, f"host {host.name}: no free address left in {net}")
            continue
        mac = host.mac
        while mac is None or (host.mac is None and mac in explicit_macs):
            auto_mac += 1
            mac = mac_text(auto_mac)
        out.append((host, Host(host.name, host.node, host.port, host.speed_bps or _port_speed(host, switches),
                               mac, str(ip), net.prefixlen, str(gateway), host.cable_m, host.peer)))
    _distinct_addresses(out, switches, subnets, problems)
    return tuple(h for _, h in out)


def _port_speed(host: HostSpec, switches: tuple[Node, ...]) -> float:
    node = next(n for n in switches if n.name == host.node)
    return sku_ports(node.sku).get(host.port, 0.0)


def _distinct_addresses(hosts: list[tuple[HostSpec, Host]], switches: tuple[Node, ...],
                        subnets: Mapping[str, tuple[ipaddress.IPv4Network, ipaddress.IPv4Address]],
                        problems: Problems) -> None:
    macs = {router_mac(i): f"switch {n.name}'s router MAC" for i, n in enumerate(switches)}
    ips = {str(gw): f"{leaf}'s gateway" for leaf, (_, gw) in subnets.items()}
    for spec, host in hosts:
        if host.mac in macs:
            problems.add(spec.where, f"host {host.name}: MAC {host.mac} already used by {macs[host.mac]}")
        if host.ip in ips:
            problems.add(spec.where, f"host {host.name}: IP {host.ip} already used by {ips[host.ip]}")
        macs.setdefault(host.mac, f"host {host.name}")
        ips.setdefault(host.ip, f"host {host.name}")
