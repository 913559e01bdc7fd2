"""The rows a topology file becomes: endpoints, links, switch nodes, hosts and the topology itself.

``Topology.nodes`` holds the switches only: a containerlab ``kind: linux`` node and its link become a
``Host`` row (as do the compact ``hosts:`` entries), and ``Topology.links`` holds switch-to-switch links
only. ``peer`` therefore answers for switch links; ``hosts_on`` gives the hosts on a switch (a
dual-homed host is on both switches of its MC-LAG pair, on the same port name: ``Host.peer_node``).
``Topology.mclag`` holds the MC-LAG pairs: their peer-link ports are switch links that carry the pair's
VLAN (a PortChannel), not routed /31s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SWITCH_KINDS = frozenset({"nos"})
HOST_KINDS = frozenset({"linux", "host"})
DEFAULT_KIND = "nos"
DEFAULT_SKU = "NOS-SIM-128x400G"
DEFAULT_CABLE_M = 5.0
ROUTER_MAC_BASE = 0x02_5A_00_00_00_00   # locally administered; node i gets base + (i + 1) << 8
HOST_MAC_BASE = 0x02_00_00_00_00_00     # auto host n (file order) gets base + n + 1, as nos.traffic.hosts


def mac_text(mac: int) -> str:
    """``0x025a00000100`` -> ``"02:5a:00:00:01:00"``."""
    return ":".join(f"{(mac >> shift) & 0xFF:02x}" for shift in range(40, -8, -8))


def router_mac(index: int) -> str:
    """The router MAC of the switch at ``index`` in ``Topology.nodes`` (distinct per node)."""
    return mac_text(ROUTER_MAC_BASE + ((index + 1) << 8))


@dataclass(frozen=True)
class Endpoint:
    """One end of a link: a node and one of its ports."""

    node: str
    port: str

    def __str__(self) -> str:
        return f"{self.node}:{self.port}"

    @classmethod
    def parse(cls, text: str) -> Endpoint:
        """``"leaf1:Ethernet0"`` -> ``Endpoint("leaf1", "Ethernet0")``; ValueError naming the text."""
        node, sep, port = text.partition(":")
        if not sep or not node or not port or ":" in port:
            raise ValueError(f"{text!r} is not node:port (e.g. leaf1:Ethernet0)")
        return cls(node.strip(), port.strip())


@dataclass(frozen=True)
class Link:
    """A cable between two switch ports."""

    a: Endpoint
    b: Endpoint
    cable_m: float = DEFAULT_CABLE_M


@dataclass(frozen=True)
class Node:
    """A switch of the lab. ``role`` is as written (empty: inferred by ``nos.lab.addressing``);
    ``roce``: the RoCE intent (``ROCE|global``, as ``nos config roce enable``) is on in its config."""

    name: str
    kind: str = DEFAULT_KIND
    sku: str = DEFAULT_SKU
    role: str = ""
    startup_config: Path | None = None
    roce: bool = False


@dataclass(frozen=True)
class Host:
    """A RoCE NIC on a switch port, with its resolved addresses (``gateway`` is the leaf's SVI)."""

    name: str
    node: str
    port: str
    speed_bps: float
    mac: str
    ip: str
    prefix_len: int
    gateway: str
    cable_m: float = DEFAULT_CABLE_M
    peer_node: str = ""          # dual-homed: the other switch of the MC-LAG pair, same port name

    def attachments(self) -> tuple[Endpoint, ...]:
        """The switch ports the host is cabled to (two for a dual-homed host)."""
        ends = (Endpoint(self.node, self.port),)
        return ends + ((Endpoint(self.peer_node, self.port),) if self.peer_node else ())


@dataclass(frozen=True)
class McLag:
    """An MC-LAG pair: its domain, the two switches, the ports of their peer link (the same names on
    both), and the session timers (keepalive and session timeout, seconds)."""

    domain: int
    peers: tuple[str, str]
    peer_ports: tuple[str, ...]
    keepalive: int = 1
    session_timeout: int = 3

    def other(self, node: str) -> str:
        return self.peers[1] if node == self.peers[0] else self.peers[0]


@dataclass(frozen=True)
class Topology:
    """A whole lab: its switches, the links between them and the hosts on their ports."""

    name: str
    nodes: tuple[Node, ...]
    links: tuple[Link, ...]
    hosts: tuple[Host, ...]
    mclag: tuple[McLag, ...] = ()

    def node(self, name: str) -> Node:
        """The switch called ``name``; KeyError naming it if there is none."""
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(f"no node {name!r} in lab {self.name!r}")

    def switches(self) -> tuple[Node, ...]:
        """The nodes that run a switch (all of ``nodes``: hosts are ``Host`` rows)."""
        return tuple(n for n in self.nodes if n.kind in SWITCH_KINDS)

    def index(self, name: str) -> int:
        """The position of switch ``name`` in ``nodes`` (what its MAC and addresses derive from)."""
        return self.nodes.index(self.node(name))

    def peer(self, node: str, port: str) -> Endpoint | None:
        """The switch port cabled to ``node:port``, or None (nothing, or a host: see ``hosts_on``)."""
        here = Endpoint(node, port)
        for link in self.links:
            if link.a == here:
                return link.b
            if link.b == here:
                return link.a
        return None

    def hosts_on(self, node: str) -> tuple[Host, ...]:
        """The hosts attached to switch ``node`` (dual-homed ones included), in file order."""
        return tuple(h for h in self.hosts if node in (h.node, h.peer_node))

    def pair_of(self, node: str) -> McLag | None:
        """The MC-LAG pair ``node`` belongs to, if any."""
        return next((m for m in self.mclag if node in m.peers), None)

    def is_peer_link(self, link: Link) -> bool:
        """A link of an MC-LAG pair's peer link (between the two peers, on one of its ports)."""
        pair = self.pair_of(link.a.node)
        return (pair is not None and {link.a.node, link.b.node} == set(pair.peers)
                and link.a.port in pair.peer_ports)

    def routed_links(self) -> tuple[Link, ...]:
        """The switch links that are routed /31s (all but peer links)."""
        return tuple(link for link in self.links if not self.is_peer_link(link))

    def links_of(self, node: str) -> tuple[Link, ...]:
        """The links with an end on switch ``node``."""
        return tuple(link for link in self.links if node in (link.a.node, link.b.node))
