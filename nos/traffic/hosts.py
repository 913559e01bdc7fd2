"""A scenario's hosts resolved against a switch's ports (pure): port lists and ranges to port names,
host names and addresses, and workload selectors to host indices.

Used by the CLI and REST (checked against CONFIG_DB's ports before a run is sent) and by syncd_sim's
workload expansion (against the compiled port table), so both sides agree on what a scenario means.

* A range ``Ethernet4-Ethernet256`` is every port of the switch with that prefix whose number lies
  between the ends, in number order (so it follows breakouts); a single name must exist. A port carries
  at most one host.
* Host names: the group's ``name`` with ``{i}`` (index in the group) and ``{port}`` filled in; a group of
  several ports whose name has no placeholder gets the index appended (``sender`` -> ``sender0``...).
* Addresses: MAC and IP count up from the group's ``mac`` / ``ip`` (``ip_step`` apart; an IP may carry
  its prefix length, default /32 or /128: the host's subnet, which decides whether it sends to a
  destination's MAC or to the switch's router MAC); when omitted, host n (0-based, scenario order) gets
  MAC ``02:00:00:00:00:00`` + n + 1 and IP ``10.0.0.0`` + n + 1 in ``10.0.0.0/8`` (one subnet).
* Selectors: each item an exact host name, a glob (``sender*``, ``gpu[0-3]``) or ``all``; hosts in
  the order given, each once.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from nos.traffic.errors import ScenarioError, ScenarioProblem
from nos.traffic.scenario import AllReduce, AllToAll, Background, HostGroup, Incast, Permutation, Scenario

AUTO_MAC_BASE = 0x02_00_00_00_00_00
AUTO_IP_BASE = ipaddress.IPv4Address("10.0.0.0")
AUTO_PREFIX_LEN = 8
_PORT = re.compile(r"^([A-Za-z][A-Za-z_]*?)(\d+)$")

IpInterface = ipaddress.IPv4Interface | ipaddress.IPv6Interface


@dataclass(frozen=True)
class Host:
    """One NIC: its name, its host group (index in ``scenario.hosts``), switch port and addresses."""

    name: str
    group: int
    port: str
    mac: int
    ip: IpInterface     # address and subnet
    vlan: int = 0       # 802.1Q VID the NIC tags with (0: untagged)


def mac_text(mac: int) -> str:
    return ":".join(f"{(mac >> shift) & 0xFF:02x}" for shift in range(40, -8, -8))


def resolve_ports(items: Sequence[str], port_names: Sequence[str],
                  where: str) -> tuple[list[str], list[ScenarioProblem]]:
    """The port names ``items`` denote on a switch with ``port_names`` (and the problems found)."""
    numbered: dict[str, list[tuple[int, str]]] = {}
    for name in port_names:
        found = _PORT.match(name)
        if found:
            numbered.setdefault(found.group(1), []).append((int(found.group(2)), name))
    existing = set(port_names)
    out: list[str] = []
    problems: list[ScenarioProblem] = []
    for item in items:
        first, sep, last = item.partition("-")
        if not sep:
            if first not in existing:
                problems.append(ScenarioProblem(where, "no such port on the switch", item))
            out.append(first)
            continue
        low, high = _PORT.match(first), _PORT.match(last)
        assert low is not None and high is not None  # checked when parsed
        span = [name for number, name in sorted(numbered.get(low.group(1), []))
                if int(low.group(2)) <= number <= int(high.group(2))]
        if not span:
            problems.append(ScenarioProblem(where, "the range holds no port of the switch", item))
        out += span
    return out, problems


def host_names(group: HostGroup, ports: Sequence[str]) -> list[str]:
    pattern = group.name
    if len(ports) > 1 and "{i}" not in pattern and "{port}" not in pattern:
        pattern += "{i}"
    return [pattern.replace("{i}", str(i)).replace("{port}", port) for i, port in enumerate(ports)]


def _addresses(group: HostGroup, first: int, count: int) -> tuple[list[int], list[IpInterface]]:
    mac0 = int(group.mac.replace(":", ""), 16) if group.mac else AUTO_MAC_BASE + first + 1
    given = ipaddress.ip_interface(group.ip or f"{AUTO_IP_BASE + first + 1}/{AUTO_PREFIX_LEN}")
    step = group.ip_step if group.ip else 1
    ips = [ipaddress.ip_interface(f"{given.ip + i * step}/{given.network.prefixlen}") for i in range(count)]
    return [mac0 + i for i in range(count)], ips


def resolve_hosts(scenario: Scenario, port_names: Sequence[str]) -> tuple[Host, ...]:
    """Every host of the scenario on a switch with ``port_names``; ``ScenarioError`` naming each bad
    port, a port given twice, or a host name used twice."""
    hosts: list[Host] = []
    problems: list[ScenarioProblem] = []
    owner: dict[str, str] = {}
    for index, group in enumerate(scenario.hosts):
        where = f"hosts[{index}].ports"
        ports, found = resolve_ports(group.ports, port_names, where)
        problems += found
        for port in ports:
            if port in owner:
                problems.append(ScenarioProblem(where, f"port already carries host {owner[port]!r}", port))
        names = host_names(group, ports)
        try:
            macs, ips = _addresses(group, len(hosts), len(ports))
        except ipaddress.AddressValueError as exc:  # counting past the address space
            problems.append(ScenarioProblem(f"hosts[{index}].ip", str(exc), group.ip))
            continue
        for name, port, mac, ip in zip(names, ports, macs, ips, strict=True):
            if mac > 0xFFFF_FFFF_FFFF:
                problems.append(ScenarioProblem(f"hosts[{index}].mac", "counts past ff:ff:ff:ff:ff:ff", group.mac))
                break
            if any(h.name == name for h in hosts):
                problems.append(ScenarioProblem(f"hosts[{index}].name", "host name used twice", name))
            owner.setdefault(port, name)
            hosts.append(Host(name, index, port, mac, ip, group.vlan))
    if problems:
        raise ScenarioError(scenario.name, problems)
    return tuple(hosts)


def select(hosts: Sequence[Host], selector: Sequence[str], where: str) -> tuple[list[int], list[ScenarioProblem]]:
    """Indices of the hosts ``selector`` names, in its order, each once."""
    chosen: list[int] = []
    problems: list[ScenarioProblem] = []
    for item in selector:
        matched = [i for i, host in enumerate(hosts) if item == "all" or fnmatchcase(host.name, item)]
        if not matched:
            problems.append(ScenarioProblem(where, "matches no host", item))
        chosen += [i for i in matched if i not in chosen]
    return chosen, problems


# Which selectors each workload kind has, and the least number of hosts each must name.
SELECTORS: dict[type, tuple[tuple[str, str, int], ...]] = {
    Incast: (("senders", "senders", 1), ("receiver", "receiver", 1)),
    Permutation: (("hosts", "hosts", 2),),
    AllToAll: (("hosts", "hosts", 2),),
    AllReduce: (("gpus", "gpus", 2),),
    Background: (("from_", "from", 1), ("to", "to", 1)),
}


def workload_hosts(scenario: Scenario, hosts: Sequence[Host]) -> list[dict[str, list[int]]]:
    """For each workload, its selectors' host indices by field name (``from`` for Background's
    ``from_``); ``ScenarioError`` naming each selector that matches nothing or too few hosts."""
    out: list[dict[str, list[int]]] = []
    problems: list[ScenarioProblem] = []
    for index, workload in enumerate(scenario.workloads):
        chosen: dict[str, list[int]] = {}
        for attr, name, least in SELECTORS[type(workload)]:
            selector: list[str] = getattr(workload, attr)
            where = f"workloads[{index}].{name}"
            chosen[name], found = select(hosts, selector, where)
            problems += found
            if not found and len(chosen[name]) < least:
                problems.append(ScenarioProblem(where, f"needs at least {least} hosts", ",".join(selector)))
        if isinstance(workload, Incast) and len(chosen["receiver"]) > 1:
            problems.append(ScenarioProblem(f"workloads[{index}].receiver", "names more than one host",
                                            ",".join(workload.receiver)))
        out.append(chosen)
    if problems:
        raise ScenarioError(scenario.name, problems)
    return out


def check_against_ports(scenario: Scenario, port_names: Sequence[str]) -> tuple[Host, ...]:
    """Resolve everything that depends on the switch's ports; ``ScenarioError`` if anything is wrong."""
    hosts = resolve_hosts(scenario, port_names)
    workload_hosts(scenario, hosts)
    return hosts


__all__ = ["Host", "check_against_ports", "mac_text", "resolve_hosts", "resolve_ports", "select",
           "workload_hosts"]
