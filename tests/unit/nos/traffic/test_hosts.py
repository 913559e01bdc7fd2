"""Hosts on a switch's ports: ranges follow the switch's ports, names and addresses, selectors; every
problem names the field and the value."""

from __future__ import annotations

import ipaddress

import pytest

from nos.traffic.errors import ScenarioError
from nos.traffic.hosts import check_against_ports, mac_text, resolve_hosts, workload_hosts
from nos.traffic.scenario import parse_scenario

PORTS_128 = [f"Ethernet{4 * i}" for i in range(128)]


def scenario(hosts: str, workloads: str = "[{kind: permutation, size: 1MB}]"):
    return parse_scenario(f"name: t\nhosts: {hosts}\nworkloads: {workloads}\n")


def problems_of(call) -> list[tuple[str, object, str]]:
    with pytest.raises(ScenarioError) as info:
        call()
    return [(p.field, p.value, p.message) for p in info.value.problems]


def test_a_range_is_every_switch_port_between_its_ends_in_number_order() -> None:
    hosts = resolve_hosts(scenario("[{name: s, ports: Ethernet4-Ethernet256}, {name: r, ports: Ethernet0}]"),
                          PORTS_128[::-1])
    assert len(hosts) == 65
    assert [h.port for h in hosts[:3]] == ["Ethernet4", "Ethernet8", "Ethernet12"]
    assert hosts[63].port == "Ethernet256" and hosts[64].port == "Ethernet0"


def test_a_range_follows_breakouts() -> None:
    ports = ["Ethernet0", "Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4"]
    hosts = resolve_hosts(scenario("[{name: h, ports: Ethernet0-Ethernet3}]"), ports)
    assert [h.port for h in hosts] == ports[:4]


def test_names_from_the_pattern() -> None:
    hosts = resolve_hosts(scenario("[{name: 'gpu{i}', ports: Ethernet0-Ethernet8}, {name: 'h-{port}', ports: "
                                   "Ethernet12}, {name: s, ports: 'Ethernet16,Ethernet20'}, {name: r, ports: "
                                   "Ethernet24}]"), PORTS_128)
    assert [h.name for h in hosts] == ["gpu0", "gpu1", "gpu2", "h-Ethernet12", "s0", "s1", "r"]
    assert [h.group for h in hosts] == [0, 0, 0, 1, 2, 2, 3]


def test_addresses_auto_and_counting_up() -> None:
    hosts = resolve_hosts(scenario("[{name: a, ports: Ethernet0-Ethernet4}, {name: b, ports: Ethernet8-Ethernet12, "
                                   "mac: '0a:00:00:00:00:fe', ip: 192.168.0.1/31, ip_step: 2, vlan: 100}]"), PORTS_128)
    assert [mac_text(h.mac) for h in hosts] == ["02:00:00:00:00:01", "02:00:00:00:00:02", "0a:00:00:00:00:fe",
                                               "0a:00:00:00:00:ff"]
    assert [str(h.ip) for h in hosts] == ["10.0.0.1/8", "10.0.0.2/8", "192.168.0.1/31", "192.168.0.3/31"]
    assert hosts[0].ip.network == ipaddress.ip_network("10.0.0.0/8")
    assert [h.vlan for h in hosts] == [0, 0, 100, 100]


@pytest.mark.parametrize(("hosts", "field", "value", "message"), [
    ("[{name: a, ports: Ethernet1}]", "hosts[0].ports", "Ethernet1", "no such port"),
    ("[{name: a, ports: Ethernet600-Ethernet700}]", "hosts[0].ports", "Ethernet600-Ethernet700", "holds no port"),
    ("[{name: a, ports: Ethernet0-Ethernet8}, {name: b, ports: Ethernet8}]", "hosts[1].ports", "Ethernet8",
     "already carries host 'a2'"),
    ("[{name: a, ports: Ethernet0-Ethernet4}, {name: a1, ports: Ethernet8}]", "hosts[1].name", "a1",
     "host name used twice"),
    ("[{name: a, ports: Ethernet0-Ethernet4, mac: 'ff:ff:ff:ff:ff:ff'}]", "hosts[0].mac", "ff:ff:ff:ff:ff:ff",
     "counts past"),
])
def test_port_and_name_problems(hosts: str, field: str, value: object, message: str) -> None:
    found = problems_of(lambda: resolve_hosts(scenario(hosts), PORTS_128))
    assert any(f == field and v == value and message in m for f, v, m in found), found


def test_selectors_in_order_each_once() -> None:
    parsed = scenario("[{name: 'gpu{i}', ports: Ethernet0-Ethernet12}, {name: s, ports: Ethernet16}]",
                      "[{kind: allreduce, gpus: [gpu3, 'gpu*', s], message: 1MB},"
                      " {kind: incast, senders: all, receiver: s, size: 1MB},"
                      " {kind: background, from: 'gpu[01]', to: s, size: 1kB}]")
    chosen = workload_hosts(parsed, resolve_hosts(parsed, PORTS_128))
    assert chosen[0] == {"gpus": [3, 0, 1, 2, 4]}
    assert chosen[1] == {"senders": [0, 1, 2, 3, 4], "receiver": [4]}
    assert chosen[2] == {"from": [0, 1], "to": [4]}


@pytest.mark.parametrize(("workloads", "field", "value", "message"), [
    ("[{kind: incast, senders: 'x*', receiver: a0, size: 1MB}]", "workloads[0].senders", "x*", "matches no host"),
    ("[{kind: incast, senders: a0, receiver: 'a*', size: 1MB}]", "workloads[0].receiver", "a*",
     "names more than one host"),
    ("[{kind: permutation, hosts: a0, size: 1MB}]", "workloads[0].hosts", "a0", "needs at least 2 hosts"),
    ("[{kind: allreduce, gpus: a1, message: 1MB}]", "workloads[0].gpus", "a1", "needs at least 2 hosts"),
    ("[{kind: background, from: a0, to: nobody, size: 1MB}]", "workloads[0].to", "nobody", "matches no host"),
])
def test_selector_problems(workloads: str, field: str, value: object, message: str) -> None:
    parsed = scenario("[{name: a, ports: Ethernet0-Ethernet4}]", workloads)
    found = problems_of(lambda: check_against_ports(parsed, PORTS_128))
    assert any(f == field and v == value and message in m for f, v, m in found), found
