"""The generated lab plan: /31s, neighbours, host VLANs, ECMP routes, and configs that validate."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from pathlib import Path

import pytest

from nos.config.validate import validate_config
from nos.lab.addressing import LabPlan, plan, startup_config
from nos.lab.topology import Topology, load_topology

LABS = Path(__file__).resolve().parents[4] / "configs" / "labs"
LEAVES = ("leaf1", "leaf2", "leaf3", "leaf4")


@pytest.fixture(scope="module")
def leaf_spine() -> tuple[Topology, LabPlan]:
    topo = load_topology(LABS / "leaf-spine.yaml")
    return topo, plan(topo)


def address_of(config: Mapping[str, Mapping[str, object]], port: str) -> ipaddress.IPv4Interface:
    [key] = [k for k in config["INTERFACE"] if k.startswith(f"{port}|")]
    return ipaddress.IPv4Interface(key.split("|")[1])


def test_link_pairs_are_consistent_31s(leaf_spine: tuple[Topology, LabPlan]) -> None:
    topo, lab = leaf_spine
    for link in topo.links:
        a = address_of(lab.configs[link.a.node], link.a.port)
        b = address_of(lab.configs[link.b.node], link.b.port)
        assert a.network == b.network and a.network.prefixlen == 31 and a.ip != b.ip
        assert link.a.port in lab.configs[link.a.node]["INTERFACE"]
        neigh_a = lab.configs[link.a.node]["NEIGH"][f"{link.a.port}|{b.ip}"]
        neigh_b = lab.configs[link.b.node]["NEIGH"][f"{link.b.port}|{a.ip}"]
        assert neigh_a == {"neigh": lab.router_mac[link.b.node], "family": "IPv4"}
        assert neigh_b["neigh"] == lab.router_mac[link.a.node]


def test_router_macs_are_distinct_and_in_metadata(leaf_spine: tuple[Topology, LabPlan]) -> None:
    topo, lab = leaf_spine
    assert len(set(lab.router_mac.values())) == len(topo.nodes)
    for node in topo.nodes:
        meta = lab.configs[node.name]["DEVICE_METADATA"]["localhost"]
        assert meta["hostname"] == node.name and meta["mac"] == lab.router_mac[node.name]
    asns = {n: lab.configs[n]["DEVICE_METADATA"]["localhost"]["bgp_asn"] for n in lab.configs}
    assert asns == {"spine1": "65100", "spine2": "65101", "leaf1": "65200", "leaf2": "65201",
                    "leaf3": "65202", "leaf4": "65203"}


def test_leaves_reach_every_other_leaf_over_both_spines(leaf_spine: tuple[Topology, LabPlan]) -> None:
    _, lab = leaf_spine
    for k, leaf in enumerate(LEAVES):
        routes = lab.configs[leaf]["STATIC_ROUTE"]
        assert f"10.{k + 1}.0.0/24" not in routes
        for j, other in enumerate(LEAVES):
            if other == leaf:
                continue
            row = routes[f"10.{j + 1}.0.0/24"]
            assert row["ifname"] == "Ethernet248,Ethernet252"
            hops = str(row["nexthop"]).split(",")
            assert hops == [str(address_of(lab.configs[s], f"Ethernet{4 * k}").ip) for s in ("spine1", "spine2")]


def test_spines_route_each_leaf_subnet_to_that_leaf(leaf_spine: tuple[Topology, LabPlan]) -> None:
    _, lab = leaf_spine
    for spine in ("spine1", "spine2"):
        uplink = "Ethernet248" if spine == "spine1" else "Ethernet252"
        for k, leaf in enumerate(LEAVES):
            row = lab.configs[spine]["STATIC_ROUTE"][f"10.{k + 1}.0.0/24"]
            assert row == {"nexthop": str(address_of(lab.configs[leaf], uplink).ip), "ifname": f"Ethernet{4 * k}"}


def test_loopbacks_are_routed_everywhere(leaf_spine: tuple[Topology, LabPlan]) -> None:
    topo, lab = leaf_spine
    loopbacks = {n: lab.addressing.loopback[n] for n in lab.configs}
    for node in topo.nodes:
        assert f"Loopback0|{loopbacks[node.name]}/32" in lab.configs[node.name]["LOOPBACK_INTERFACE"]
        routes = lab.configs[node.name]["STATIC_ROUTE"]
        assert {p for p in routes if p.endswith("/32")} == {f"{ip}/32" for n, ip in loopbacks.items() if n != node.name}
    assert lab.configs["leaf1"]["STATIC_ROUTE"][f"{loopbacks['leaf2']}/32"]["ifname"] == "Ethernet248,Ethernet252"


def test_no_ip_is_used_twice(leaf_spine: tuple[Topology, LabPlan]) -> None:
    topo, lab = leaf_spine
    ips = [key.split("|")[1].split("/")[0] for config in lab.configs.values()
           for table in ("INTERFACE", "LOOPBACK_INTERFACE", "VLAN_INTERFACE") for key in config.get(table, {})
           if "|" in key]
    ips += [h.ip for h in topo.hosts]
    assert len(ips) == len(set(ips)) == 8 * 2 + 6 + 4 + 32


def test_host_vlan_on_leaves(leaf_spine: tuple[Topology, LabPlan]) -> None:
    topo, lab = leaf_spine
    config = lab.configs["leaf3"]
    assert config["VLAN"] == {"Vlan1000": {"vlanid": "1000"}}
    assert set(config["VLAN_INTERFACE"]) == {"Vlan1000", "Vlan1000|10.3.0.1/24"}
    assert set(config["VLAN_MEMBER"]) == {f"Vlan1000|Ethernet{4 * i}" for i in range(8)}
    for host in topo.hosts_on("leaf3"):
        assert config["NEIGH"][f"Vlan1000|{host.ip}"] == {"neigh": host.mac, "family": "IPv4"}
        assert config["PORT"][host.port] == {"admin_status": "up", "mtu": "9100"}
    assert "VLAN" not in lab.configs["spine1"]


@pytest.mark.parametrize("lab_file", ["leaf-spine.yaml", "two-leaves.yaml"])
def test_every_startup_config_validates(lab_file: str) -> None:
    topo = load_topology(LABS / lab_file)
    lab = plan(topo)
    for node in topo.nodes:
        config = startup_config(topo, node.name, lab)
        report = validate_config(config)
        assert report.ok, (node.name, report.errors)
        assert report.unknown_tables == []
        assert config["PORT"]["Ethernet0"]["lanes"] == "0,1,2,3"          # kept from the SKU default
        assert config["DEVICE_METADATA"]["localhost"]["hwsku"] == "NOS-SIM-128x400G"


def test_node_startup_config_is_merged_last(tmp_path: Path) -> None:
    (tmp_path / "leaf1.json").write_text(
        '{"DEVICE_METADATA": {"localhost": {"bgp_asn": "64999"}}, "PORT": {"Ethernet0": {"mtu": "4200"}}}')
    (tmp_path / "lab.yaml").write_text((LABS / "two-leaves.yaml").read_text().replace(
        "leaf1: {kind: nos, role: leaf}", "leaf1: {kind: nos, role: leaf, startup-config: leaf1.json}"))
    topo = load_topology(tmp_path / "lab.yaml")
    config = startup_config(topo, "leaf1", plan(topo))
    assert config["DEVICE_METADATA"]["localhost"]["bgp_asn"] == "64999"
    assert config["DEVICE_METADATA"]["localhost"]["hostname"] == "leaf1"
    assert config["PORT"]["Ethernet0"]["mtu"] == "4200" and config["PORT"]["Ethernet0"]["admin_status"] == "up"


def test_roce_nodes_boot_with_the_intent_expanded(leaf_spine: tuple[Topology, LabPlan]) -> None:
    topo, lab = leaf_spine
    assert all(n.roce for n in topo.nodes)  # the ready-made lab turns it on in its defaults
    config = startup_config(topo, "spine1", lab)
    assert config["ROCE"] == {"global": {}}
    qos = config["PORT_QOS_MAP"]["Ethernet0"]
    assert qos["dscp_to_tc_map"] == "ROCE" and qos["pfc_enable"] == "3"


def test_roce_must_be_true_or_false(tmp_path: Path) -> None:
    from nos.lab.topology import TopologyError

    lab = tmp_path / "lab.yaml"
    lab.write_text("name: x\ntopology:\n  defaults: {roce: yes please}\n  nodes:\n    a: {roce: 1}\n")
    with pytest.raises(TopologyError) as err:
        load_topology(lab)
    assert "topology.defaults.roce: 'yes please' is not true or false" in str(err.value)
    assert "topology.nodes.a.roce: 1 is not true or false" in str(err.value)


def test_cable_lengths_come_from_the_topology() -> None:
    topo = load_topology(LABS / "two-leaves.yaml")
    config = startup_config(topo, "leaf1", plan(topo))
    cables = config["CABLE_LENGTH"]["AZURE"]
    assert cables["Ethernet508"] == "40m"    # the peer link's cable: 40m
    assert cables["Ethernet0"] == "5m"       # a host port: the default
    assert cables["Ethernet200"] == "5m"     # an unused port keeps the SKU's


def test_a_switch_whose_config_cannot_boot_is_named(tmp_path: Path) -> None:
    from nos.lab.addressing import startup_configs
    from nos.lab.topology import TopologyError

    lab = tmp_path / "lab.yaml"
    lab.write_text("name: x\ntopology:\n  defaults: {roce: true}\n  nodes:\n    a: {}\n    b: {}\n"
                   "  links:\n    - {endpoints: ['a:Ethernet0', 'b:Ethernet0'], cable: 3m}\n")
    topo = load_topology(lab)
    with pytest.raises(TopologyError) as err:
        startup_configs(topo, plan(topo))
    text = str(err.value)
    assert "topology.nodes.a.roce:" in text and "topology.nodes.b.roce:" in text and "3m" in text
