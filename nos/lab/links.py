"""Links real to both ends: what each switch is told about the far end of its cabled ports.

A cable has light at a port's end when the far end's port is admin up, the far switch is running
(its database answers) and the link is not cut (``nos lab link down``). The lab writes that as
``carrier`` into each end's STATE_DB ``NOS_LINK_TABLE|<port>`` (with ``peer``), and the switch's
syncd_sim makes the port oper up exactly when it is admin up and its carrier is up, sending
``port_state_change`` as for any link change. A port facing a host always has carrier (the
simulated NICs never go down). Pure: ``carriers`` is the rule, ``link_id``/``find_link`` name links.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nos.lab.model import Endpoint, Link, Topology
from nos.schema.tables import CARRIER_DOWN, CARRIER_UP, NOS_LINK_CARRIER, NOS_LINK_PEER, NOS_LINK_TABLE

LINK_TABLE = NOS_LINK_TABLE
UP, DOWN = CARRIER_UP, CARRIER_DOWN


@dataclass(frozen=True)
class PortLink:
    """What one switch port is told: its peer (``node:port`` or ``host:<name>``) and its carrier."""

    peer: str
    carrier: str

    def fields(self) -> dict[str, str]:
        return {NOS_LINK_PEER: self.peer, NOS_LINK_CARRIER: self.carrier}


def link_id(link: Link) -> str:
    """A link's name, the same whichever end is written first: ``leaf1:Ethernet248--spine1:Ethernet0``."""
    a, b = sorted((str(link.a), str(link.b)))
    return f"{a}--{b}"


def find_link(topo: Topology, a: str, b: str) -> Link:
    """The link between endpoints ``a`` and ``b`` (``node:port`` each, either order); ValueError naming
    what is wrong otherwise."""
    ends = {Endpoint.parse(a), Endpoint.parse(b)}
    for end in ends:
        if end.node not in {n.name for n in topo.switches()}:
            raise ValueError(f"{end}: no switch {end.node!r} in lab {topo.name!r}")
    for link in topo.links:
        if {link.a, link.b} == ends:
            return link
    raise ValueError(f"no link {a} -- {b} in lab {topo.name!r}")


def carriers(topo: Topology, admin_up: Mapping[Endpoint, bool], cuts: frozenset[str]) -> dict[Endpoint, PortLink]:
    """Every cabled switch port's row: carrier up when the far end is admin up (``admin_up``; a port
    missing from it, e.g. on a switch that does not answer, counts as down) and the link is not in
    ``cuts``; ports facing hosts always up."""
    out: dict[Endpoint, PortLink] = {}
    for link in topo.links:
        cut = link_id(link) in cuts
        for here, far in ((link.a, link.b), (link.b, link.a)):
            lit = not cut and admin_up.get(far, False)
            out[here] = PortLink(str(far), UP if lit else DOWN)
    for host in topo.hosts:
        out[Endpoint(host.node, host.port)] = PortLink(f"host:{host.name}", UP)
    return out


def cabled_ports(topo: Topology, node: str) -> list[str]:
    """The ports of switch ``node`` that have a link to another switch."""
    ports = [link.a.port for link in topo.links if link.a.node == node]
    return ports + [link.b.port for link in topo.links if link.b.node == node]
