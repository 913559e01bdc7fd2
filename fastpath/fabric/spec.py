"""A fabric described as plain data: switches (each its own compiled ``Tables``), the cables between
their ports, and the hosts on the others; ``validate`` checks that it fits together and ``wire``
compiles it into per-port arrays in the merged index space (``fastpath.fabric.merge``).

The same description serves a lab of real switches (each switch's ``Tables`` as its syncd_sim
compiled them) and a fabric built from plain data (``fastpath.fabric.topo``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fastpath.fabric.errors import FabricError
from fastpath.tables import F64, I32, I64, Tables

DEFAULT_CABLE_M = 5.0


@dataclass(frozen=True)
class Link:
    """A cable between two switch ports, ``(switch, port name)`` at each end."""

    a: tuple[str, str]
    b: tuple[str, str]
    cable_m: float = DEFAULT_CABLE_M


@dataclass(frozen=True)
class Host:
    """A host NIC cabled to ``port`` of ``switch``; ``mac`` 48-bit integer, ``ip`` IPv4 as an integer,
    ``vlan`` the 802.1Q tag it sends with (0: untagged). ``also``: more ports its NIC bond is cabled to
    (a LAG partner dual-homed to an MC-LAG pair): each (switch, port) a link of the same speed; a flow
    leaves by one of them, chosen by hashing its addresses and UDP source port, as a bond does."""

    name: str
    switch: str
    port: str
    mac: int
    ip: int
    speed_bps: float = 400e9
    cable_m: float = DEFAULT_CABLE_M
    honours_pause: bool = True
    vlan: int = 0
    also: tuple[tuple[str, str], ...] = ()

    def attachments(self) -> tuple[tuple[str, str], ...]:
        return ((self.switch, self.port), *self.also)


@dataclass(frozen=True)
class Fabric:
    switches: tuple[tuple[str, Tables], ...]
    links: tuple[Link, ...]
    hosts: tuple[Host, ...]

    def names(self) -> list[str]:
        return [name for name, _ in self.switches]


@dataclass(frozen=True)
class Wiring:
    """The fabric in the merged index space: switch ``s`` has ports ``offset[s]:offset[s + 1]``."""

    offset: I64          # [n_switches + 1]
    switch_of: I32       # [P] switch of each port
    peer: I32            # [P] port at the other end of a cable (-1: none)
    cable_m: F64         # [P] cable length of the link or the host on the port
    host_at: I32         # [P] host on the port (-1: none)
    host_port: I32       # [n_hosts] global port of each host (its first attachment)
    nic_port: I32        # [n_nics] global port of each NIC link: one per host (host order), then the
    #                      ``also`` attachments of the bonded hosts, host by host
    nic_at: I32          # [P] NIC link on the port (-1: none)
    host_nic_ptr: I64    # [n_hosts + 1] CSR: host h's NIC links are host_nic_idx[ptr[h]:ptr[h + 1]]
    host_nic_idx: I32

    @property
    def nic_host(self) -> I32:
        """[n_nics] the host of each NIC link."""
        return self.host_at[self.nic_port]


def _port_index(fabric: Fabric) -> dict[tuple[str, str], int]:
    index: dict[tuple[str, str], int] = {}
    base = 0
    for name, tables in fabric.switches:
        for i, port in enumerate(tables.ports.names):
            index[(name, port)] = base + i
        base += tables.ports.n
    return index


def _check_end(end: tuple[str, str], what: str, switches: set[str], ports: dict[tuple[str, str], int],
               used: dict[tuple[str, str], str], problems: list[str]) -> None:
    if end[0] not in switches:
        problems.append(f"{what}: unknown switch {end[0]!r}")
    elif end not in ports:
        problems.append(f"{what}: switch {end[0]!r} has no port {end[1]!r}")
    elif end in used:
        problems.append(f"{what}: port {end[0]}:{end[1]} is already wired ({used[end]})")
    else:
        used[end] = what


def _dupes(names: Sequence[str]) -> list[str]:
    return sorted(n for n, count in Counter(names).items() if count > 1)


def validate(fabric: Fabric) -> list[str]:
    """Every problem of ``fabric`` (empty when it fits together)."""
    problems = [f"switch {n!r} is listed twice" for n in _dupes(fabric.names())]
    problems += [f"host {n!r} is listed twice" for n in _dupes([h.name for h in fabric.hosts])]
    switches = set(fabric.names())
    ports = _port_index(fabric)
    used: dict[tuple[str, str], str] = {}
    for link in fabric.links:
        what = f"link {link.a[0]}:{link.a[1]} - {link.b[0]}:{link.b[1]}"
        if link.a == link.b:
            problems.append(f"{what}: both ends are the same port")
            continue
        if not link.cable_m >= 0:
            problems.append(f"{what}: cable length {link.cable_m} is not a length")
        _check_end(link.a, what, switches, ports, used, problems)
        _check_end(link.b, what, switches, ports, used, problems)
    for host in fabric.hosts:
        for end in host.attachments():
            _check_end(end, f"host {host.name!r}", switches, ports, used, problems)
        if not host.speed_bps > 0:
            problems.append(f"host {host.name!r}: speed {host.speed_bps} is not a speed")
    return problems


def wire(fabric: Fabric) -> Wiring:
    """The fabric's arrays; ``FabricError`` listing every problem when it does not fit together."""
    problems = validate(fabric)
    if problems:
        raise FabricError(problems)
    ports = _port_index(fabric)
    sizes = [t.ports.n for _, t in fabric.switches]
    offset = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offset[-1])
    peer = np.full(n, -1, dtype=np.int32)
    cable = np.zeros(n)
    for link in fabric.links:
        a, b = ports[link.a], ports[link.b]
        peer[a], peer[b] = b, a
        cable[a] = cable[b] = link.cable_m
    hosts = fabric.hosts
    host_port = np.asarray([ports[(h.switch, h.port)] for h in hosts], dtype=np.int32)
    extra = [(i, ports[end]) for i, h in enumerate(hosts) for end in h.also]
    nic_port = np.concatenate([host_port, np.asarray([p for _, p in extra], dtype=np.int32)]).astype(np.int32)
    nic_host = np.concatenate([np.arange(len(hosts)), [i for i, _ in extra]]).astype(np.int32)
    host_at = np.full(n, -1, dtype=np.int32)
    host_at[nic_port] = nic_host
    nic_at = np.full(n, -1, dtype=np.int32)
    nic_at[nic_port] = np.arange(len(nic_port), dtype=np.int32)
    cable[nic_port] = [hosts[int(h)].cable_m for h in nic_host]
    order = np.argsort(nic_host, kind="stable")
    ptr = np.zeros(len(hosts) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(nic_host, minlength=len(hosts)))
    return Wiring(offset=offset, switch_of=np.repeat(np.arange(len(sizes), dtype=np.int32), sizes), peer=peer,
                  cable_m=cable, host_at=host_at, host_port=host_port, nic_port=nic_port, nic_at=nic_at,
                  host_nic_ptr=ptr, host_nic_idx=order.astype(np.int32))
