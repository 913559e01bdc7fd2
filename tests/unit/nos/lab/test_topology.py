"""Topology files: the ready-made labs load, and every kind of problem is refused and named."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from nos.lab.memory import SWITCH_BYTES
from nos.lab.topology import (
    Endpoint,
    LabTooBig,
    Link,
    Topology,
    TopologyError,
    check_fits,
    estimate_memory_bytes,
    load_topology,
    parse_topology,
)

ROOT = Path(__file__).resolve().parents[4]
LABS = ROOT / "configs" / "labs"


def small() -> dict[str, Any]:
    """Two leaves, one spine, two hosts on leaf1 and a host node on leaf2."""
    return {
        "name": "t",
        "topology": {
            "nodes": {"spine1": {}, "leaf1": {"role": "leaf"}, "leaf2": {}, "srv": {"kind": "linux"}},
            "links": [
                {"endpoints": ["leaf1:Ethernet248", "spine1:Ethernet0"]},
                {"endpoints": ["leaf2:Ethernet248", "spine1:Ethernet4"], "cable": "40m"},
                {"endpoints": ["srv:eth1", "leaf2:Ethernet0"]},
            ],
            "hosts": [{"name": "h{i}", "node": "leaf1", "ports": "Ethernet0-Ethernet4"}],
        },
    }


def problems_of(data: dict[str, Any], tmp_path: Path = Path(".")) -> list[str]:
    with pytest.raises(TopologyError) as caught:
        parse_topology(data, tmp_path)
    for problem in caught.value.problems:
        assert problem in str(caught.value)
    return caught.value.problems


def one_problem(data: dict[str, Any], *parts: str) -> str:
    problems = problems_of(data)
    assert len(problems) == 1, problems
    for part in parts:
        assert part in problems[0], problems
    return problems[0]


def test_leaf_spine_loads() -> None:
    topo = load_topology(LABS / "leaf-spine.yaml")
    assert [n.name for n in topo.switches()] == ["spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4"]
    assert len(topo.links) == 8 and len(topo.hosts) == 32
    assert topo.peer("leaf3", "Ethernet252") == Endpoint("spine2", "Ethernet8")
    assert topo.peer("spine2", "Ethernet8") == Endpoint("leaf3", "Ethernet252")
    assert topo.peer("leaf3", "Ethernet0") is None
    hosts = topo.hosts_on("leaf2")
    assert [h.port for h in hosts] == [f"Ethernet{4 * i}" for i in range(8)]
    assert [h.name for h in hosts] == [f"leaf2-h{i}" for i in range(8)]
    assert {h.speed_bps for h in topo.hosts} == {400e9}
    assert [h.ip for h in hosts][:2] == ["10.2.0.2", "10.2.0.3"] and hosts[0].gateway == "10.2.0.1"


def test_two_leaves_loads_both_host_styles() -> None:
    topo = load_topology(LABS / "two-leaves.yaml")
    assert [n.name for n in topo.nodes] == ["leaf1", "leaf2"]
    assert topo.links == (Link(Endpoint("leaf1", "Ethernet508"), Endpoint("leaf2", "Ethernet508"), 40.0),)
    srv1 = next(h for h in topo.hosts if h.name == "srv1")
    assert (srv1.node, srv1.port, srv1.mac, srv1.ip, srv1.prefix_len) == (
        "leaf2", "Ethernet0", "02:00:00:00:10:01", "10.2.0.10", 24)
    srv2 = next(h for h in topo.hosts if h.name == "srv2")
    assert (srv2.port, srv2.ip, srv2.gateway) == ("Ethernet4", "10.2.0.2", "10.2.0.1")
    assert [h.name for h in topo.hosts_on("leaf1")] == ["h0", "h1", "h2", "h3"]


def test_small_topology_resolves() -> None:
    topo = parse_topology(small(), Path("."))
    assert isinstance(topo, Topology)
    assert topo.links[1].cable_m == 40.0
    assert [(h.name, h.node, h.port, h.ip) for h in topo.hosts] == [
        ("srv", "leaf2", "Ethernet0", "10.2.0.2"), ("h0", "leaf1", "Ethernet0", "10.1.0.2"),
        ("h1", "leaf1", "Ethernet4", "10.1.0.3")]
    assert len({h.mac for h in topo.hosts}) == 3


def test_unknown_keys_are_named() -> None:
    data = small()
    data["mgmt"] = {}
    data["topology"]["nodes"]["leaf1"]["colour"] = "red"
    data["topology"]["links"][0]["mtu"] = 9000
    problems = problems_of(data)
    assert len(problems) == 3, problems
    assert problems[0].startswith("<top>: unknown key 'mgmt'")
    assert problems[1].startswith("topology.nodes.leaf1: unknown key 'colour'")
    assert problems[2].startswith("topology.links[0]: unknown key 'mtu'")


def test_unknown_node_in_an_endpoint() -> None:
    data = small()
    data["topology"]["links"][1]["endpoints"][1] = "spine9:Ethernet4"
    assert one_problem(data) == "topology.links[1].endpoints[1]: spine9: no such node"


def test_port_not_on_the_sku() -> None:
    data = small()
    data["topology"]["links"][0]["endpoints"][1] = "spine1:Ethernet2"
    one_problem(data, "topology.links[0].endpoints[1]", "spine1:Ethernet2", "no port", "NOS-SIM-128x400G")


def test_port_used_by_two_links() -> None:
    data = small()
    data["topology"]["links"][1]["endpoints"][1] = "spine1:Ethernet0"
    one_problem(data, "topology.links[1].endpoints[1]",
                "spine1:Ethernet0: port already used by the link topology.links[0]")


def test_port_used_by_a_link_and_a_host() -> None:
    data = small()
    data["topology"]["hosts"][0]["ports"] = "Ethernet244-Ethernet248"
    one_problem(data, "topology.hosts[0].ports", "leaf1:Ethernet248: port already used by the link")


def test_speed_mismatch_on_a_link() -> None:
    data = small()
    data["topology"]["nodes"]["spine1"]["sku"] = "Force10-S6000"
    problems = problems_of(data)
    assert problems == [
        "topology.links[0]: speed mismatch: leaf1:Ethernet248 is 400 Gb/s, spine1:Ethernet0 is 100 Gb/s",
        "topology.links[1]: speed mismatch: leaf2:Ethernet248 is 400 Gb/s, spine1:Ethernet4 is 100 Gb/s"]


def test_host_speed_mismatch() -> None:
    data = small()
    data["topology"]["hosts"][0]["speed"] = "100G"
    problems = problems_of(data)
    assert len(problems) == 2 and all("speed 100 Gb/s does not match" in p for p in problems), problems
    assert "leaf1:Ethernet4 (400 Gb/s)" in problems[1]


def test_link_to_itself() -> None:
    data = small()
    data["topology"]["links"].append({"endpoints": ["leaf1:Ethernet100", "leaf1:Ethernet104"]})
    assert one_problem(data) == "topology.links[3]: a link from leaf1 to itself"


def test_duplicate_node_names_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("name: d\ntopology:\n  nodes:\n    leaf1: {}\n    leaf1: {role: spine}\n")
    with pytest.raises(TopologyError) as caught:
        load_topology(path)
    assert caught.value.problems == ["line 5: 'leaf1' given twice"]


def test_host_name_used_twice() -> None:
    data = small()
    data["topology"]["hosts"].append({"name": "srv", "node": "leaf1", "ports": "Ethernet8"})
    data["topology"]["hosts"].append({"name": ["h1"], "node": "leaf1", "ports": "Ethernet12"})
    problems = problems_of(data)
    assert problems == ["topology.hosts[1].ports: host name 'srv' already used by node srv",
                        "topology.hosts[2].ports: host name 'h1' already used by host h1"]


def test_duplicate_mac_and_ip() -> None:
    data = small()
    data["topology"]["nodes"]["srv"].update({"mac": "02:00:00:00:00:99", "ip": "10.2.0.7/24"})
    data["topology"]["hosts"].append({"name": "x", "node": "leaf2", "ports": "Ethernet8",
                                      "mac": "02:00:00:00:00:99", "ip": "10.2.0.7"})
    problems = problems_of(data)
    assert problems == ["topology.hosts[1].ports: host x: MAC 02:00:00:00:00:99 already used by host srv",
                        "topology.hosts[1].ports: host x: IP 10.2.0.7 already used by host srv"]


def test_host_mac_equal_to_a_router_mac() -> None:
    data = small()
    data["topology"]["hosts"][0]["mac"] = "02:5a:00:00:01:00"
    one_problem(data, "host h0: MAC 02:5a:00:00:01:00 already used by switch spine1's router MAC")


def test_host_on_a_non_switch_node() -> None:
    data = small()
    data["topology"]["hosts"].append({"name": "x", "node": "srv", "ports": "Ethernet0"})
    assert one_problem(data) == "topology.hosts[1].node: srv is a linux node, not a switch"


def test_host_node_links() -> None:
    data = small()
    data["topology"]["nodes"]["lonely"] = {"kind": "host"}
    data["topology"]["nodes"]["srv2"] = {"kind": "linux"}
    data["topology"]["links"].append({"endpoints": ["srv:eth2", "leaf2:Ethernet4"]})
    data["topology"]["links"].append({"endpoints": ["srv2:eth1", "srv:eth3"]})
    assert problems_of(data) == [
        "topology.links[3]: host srv has a second link (one NIC per host)",
        "topology.links[4]: a link between two hosts (srv2, srv)",
        "topology.nodes.lonely: a host node needs a link to a switch port",
        "topology.nodes.srv2: a host node needs a link to a switch port",
    ]


def test_bad_values_are_named(tmp_path: Path) -> None:
    data = small()
    topo = data["topology"]
    topo["nodes"]["leaf2"].update({"kind": "ceos"})
    topo["nodes"]["spine1"].update({"sku": "NoSuchSku", "startup-config": "missing.json"})
    topo["links"][0]["cable"] = "5 parsecs"
    topo["links"][1]["endpoints"] = ["leaf2"]
    topo["hosts"][0].update({"mac": "zz", "ip": "10.1.0.300", "ports": "Ethernet4-Ethernet0"})
    problems = problems_of(data, tmp_path)
    expected = ["topology.nodes.spine1.sku:", "topology.nodes.spine1.startup-config: no such file",
                "topology.nodes.leaf2.kind: unknown kind 'ceos'", "topology.links[0].cable:",
                "topology.links[1].endpoints: a link has two endpoints, got 1", "topology.hosts[0].ports:",
                "topology.hosts[0].mac:", "topology.hosts[0].ip:"]
    for start in expected:
        assert any(p.startswith(start) for p in problems), (start, problems)


def test_several_problems_are_all_listed() -> None:
    data = small()
    topo = data["topology"]
    topo["links"][0]["endpoints"] = ["leaf1:Ethernet248", "leaf9:Ethernet0"]      # unknown node
    topo["links"][1]["endpoints"] = ["leaf2:Ethernet248", "spine1:Ethernet3"]     # no such port
    topo["links"].append({"endpoints": ["leaf2:Ethernet248", "spine1:Ethernet8"]})  # port used twice
    topo["hosts"][0]["node"] = "srv"                                               # host on a host
    problems = problems_of(data)
    assert problems == [
        "topology.links[0].endpoints[1]: leaf9: no such node",
        "topology.links[1].endpoints[1]: spine1:Ethernet3: no port 'Ethernet3' on NOS-SIM-128x400G",
        "topology.links[3].endpoints[0]: leaf2:Ethernet248: port already used by the link topology.links[1]",
        "topology.hosts[0].node: srv is a linux node, not a switch",
    ]
    assert "4 problem(s)" in str(TopologyError(problems))


def test_explicit_group_addresses_count_up() -> None:
    data = small()
    data["topology"]["hosts"][0].update({"mac": "02:00:00:00:aa:fe", "ip": "10.1.0.10/24"})
    hosts = parse_topology(data, Path(".")).hosts_on("leaf1")
    assert [(h.mac, h.ip) for h in hosts] == [("02:00:00:00:aa:fe", "10.1.0.10"), ("02:00:00:00:aa:ff", "10.1.0.11")]


def test_not_yaml(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: [unclosed\n")
    with pytest.raises(TopologyError, match="not YAML"):
        load_topology(path)


def test_startup_config_path_is_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "leaf1.json").write_text("{}")
    data = copy.deepcopy(small())
    data["topology"]["nodes"]["leaf1"]["startup-config"] = "./leaf1.json"
    assert parse_topology(data, tmp_path).node("leaf1").startup_config == tmp_path / "leaf1.json"


def many_switches(count: int) -> Topology:
    nodes: dict[str, Any] = {f"s{i}": {} for i in range(count)}
    return parse_topology({"name": "big", "topology": {"nodes": nodes}}, Path("."))


def test_memory_check_refuses_a_big_lab() -> None:
    topo = many_switches(200)
    assert estimate_memory_bytes(topo) > 200 * SWITCH_BYTES
    with pytest.raises(LabTooBig, match="200 switches need about"):
        check_fits(topo, available_bytes=16 * 1024 ** 3)
    check_fits(many_switches(2), available_bytes=16 * 1024 ** 3)
