"""A traffic scenario for a whole lab: the workloads of ``nos.traffic.scenario``, over the lab's hosts.

A lab scenario is a scenario file without ``hosts:``: its hosts are the topology's (``leaf1-h1`` ...,
on whichever switch), and workloads select them by name or glob as on one switch (``senders:
leaf[2-4]-h*``, ``hosts: all``). ``host_options`` (``speed``, ``cable``, ``mtu``, ``dcqcn``, ``ecn``,
``ignores_pause``) apply to every host. Each host becomes a host group of one, with the topology's
port, MAC, address and speed, so every check and default of a single-switch scenario holds; every
problem is a ``ScenarioError`` naming the field.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from nos.lab.model import Host as LabHost
from nos.lab.model import Topology
from nos.traffic.errors import ScenarioError, ScenarioProblem
from nos.traffic.hosts import Host
from nos.traffic.scenario import Scenario, parse_scenario

HOST_OPTIONS = frozenset({"speed", "cable", "mtu", "dcqcn", "ecn", "ignores_pause"})


@dataclass(frozen=True)
class LabScenario:
    """A parsed lab scenario: the scenario (one host group per lab host), its hosts in topology order,
    and the switch each host is on."""

    scenario: Scenario
    hosts: tuple[Host, ...]
    node_of: tuple[str, ...]


def _load(text: str, source: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(source, [ScenarioProblem("(file)", f"not valid YAML: {exc}", None)]) from None
    if not isinstance(data, dict):
        raise ScenarioError(source, [ScenarioProblem("(file)", "a scenario is a YAML mapping (name:, workloads:)",
                                                     None)])
    return data


def parse_lab_scenario(text: str, topo: Topology, source: str = "scenario") -> LabScenario:
    """The scenario in ``text`` over the hosts of lab ``topo``."""
    return parse_over_hosts(text, topo.hosts, topo.name, source)


def parse_over_hosts(text: str, lab_hosts: Sequence[LabHost], where: str, source: str = "scenario") -> LabScenario:
    """The scenario in ``text`` over ``lab_hosts`` (a lab's, or a fabric's built without daemons)."""
    data = _load(text, source)
    if "hosts" in data:
        raise ScenarioError(source, [ScenarioProblem("hosts", f"a lab scenario's hosts are {where}'s "
                                                     "(leave hosts: out; host_options: applies to all)", None)])
    options = data.pop("host_options", {}) or {}
    if not isinstance(options, dict) or set(options) - HOST_OPTIONS:
        bad = sorted(set(options) - HOST_OPTIONS) if isinstance(options, dict) else options
        known = ", ".join(sorted(HOST_OPTIONS))
        raise ScenarioError(source, [ScenarioProblem("host_options", f"known options: {known}", bad)])
    if not lab_hosts:
        raise ScenarioError(source, [ScenarioProblem("hosts", f"{where} has no hosts", None)])
    data["hosts"] = [{"speed": h.speed_bps, "cable": f"{h.cable_m}m", **options, "name": h.name, "ports": h.port,
                      "mac": h.mac, "ip": f"{h.ip}/{h.prefix_len}"} for h in lab_hosts]
    scenario = parse_scenario(yaml.safe_dump(data, sort_keys=False), source)
    hosts = tuple(Host(h.name, i, h.port, int(h.mac.replace(":", ""), 16),
                       ipaddress.ip_interface(f"{h.ip}/{h.prefix_len}")) for i, h in enumerate(lab_hosts))
    return LabScenario(scenario, hosts, tuple(h.node for h in lab_hosts))
