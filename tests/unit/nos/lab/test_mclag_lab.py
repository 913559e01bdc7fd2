"""MC-LAG in topology files: the ready-made pair loads and becomes SONiC tables (PortChannels, MCLAG_DOMAIN,
MCLAG_INTERFACE, the shared subnet routed to both leaves), and every kind of bad pair is refused, named."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from nos.lab.addressing import PEER_LINK_LAG, iccp_hosts, management_address, management_net, plan, startup_configs
from nos.lab.topology import load_topology
from nos.schema.config import Config
from tests.unit.nos.lab.test_topology import LABS, problems_of


@pytest.fixture(scope="module")
def pair():  # type: ignore[no-untyped-def]
    topo = load_topology(LABS / "mclag.yaml")
    lab = plan(topo)
    return topo, lab, startup_configs(topo, lab)


def test_the_pair_and_its_dual_homed_hosts(pair) -> None:  # type: ignore[no-untyped-def]
    topo, _, _ = pair
    [mclag] = topo.mclag
    assert (mclag.domain, mclag.peers, mclag.peer_ports) == (1, ("leaf1", "leaf2"), ("Ethernet496", "Ethernet504"))
    assert [(h.node, h.peer_node, h.port) for h in topo.hosts] == [("leaf1", "leaf2", f"Ethernet{4 * i}")
                                                                  for i in range(4)]
    assert len(topo.hosts_on("leaf2")) == 4 and len(topo.routed_links()) == 2


def test_each_leaf_gets_the_pair_tables(pair) -> None:  # type: ignore[no-untyped-def]
    _, lab, configs = pair
    for node, peer in (("leaf1", "leaf2"), ("leaf2", "leaf1")):
        cfg: Config = configs[node]
        own, theirs = lab.addressing.loopback[node], lab.addressing.loopback[peer]
        assert cfg["MCLAG_DOMAIN"]["1"] == {"source_ip": str(own), "peer_ip": str(theirs), "peer_link": PEER_LINK_LAG,
                                            "keepalive_interval": "1", "session_timeout": "3"}
        assert set(cfg["MCLAG_INTERFACE"]) == {f"1|PortChannel{j}" for j in range(1, 5)}
        assert {"PortChannel999|Ethernet496", "PortChannel999|Ethernet504", "PortChannel1|Ethernet0"} <= set(
            cfg["PORTCHANNEL_MEMBER"])
        assert cfg["VLAN_MEMBER"]["Vlan1000|PortChannel999"] == {"tagging_mode": "tagged"}
        assert "Vlan1000|Ethernet0" not in cfg["VLAN_MEMBER"]             # the host's port is in its PortChannel
        assert "Vlan1000|10.1.0.1/24" in cfg["VLAN_INTERFACE"]             # one gateway for the pair
        assert not any(k.startswith("Ethernet496") for k in cfg.get("INTERFACE", {}))   # the peer link is L2


def test_the_spine_routes_the_shared_subnet_to_both_leaves(pair) -> None:  # type: ignore[no-untyped-def]
    _, lab, _ = pair
    route = lab.routes["spine1"]["10.1.0.0/24"]
    assert route["ifname"] == "Ethernet0,Ethernet4" and len(route["nexthop"].split(",")) == 2
    assert "10.1.0.0/24" not in lab.routes["leaf1"]


def test_iccp_runs_between_management_addresses(pair) -> None:  # type: ignore[no-untyped-def]
    topo, lab, _ = pair
    hosts = iccp_hosts(topo, lab.addressing)
    assert hosts == {str(lab.addressing.loopback[n]): management_address(topo, n) for n in ("leaf1", "leaf2")}
    assert len(set(hosts.values())) == 2 and all(a.startswith("127.77.") for a in hosts.values())


def test_a_second_lab_of_the_same_name_takes_another_management_net(pair) -> None:  # type: ignore[no-untyped-def]
    topo, _, _ = pair
    first = management_net(topo, "/labs/a/mclag", 8888, lambda address, port: True)
    taken = {management_address(topo, "leaf2", first)}
    second = management_net(topo, "/labs/a/mclag", 8888, lambda address, port: address not in taken)
    assert second != first and 1 <= second <= 254


def raw_pair() -> dict[str, Any]:
    return {"name": "p", "topology": {
        "nodes": {"leaf1": {"role": "leaf"}, "leaf2": {"role": "leaf"}, "leaf3": {"role": "leaf"}},
        "links": [{"endpoints": ["leaf1:Ethernet496", "leaf2:Ethernet496"]},
                  {"endpoints": ["leaf1:Ethernet508", "leaf3:Ethernet508"]}],
        "mclag": [{"peers": ["leaf1", "leaf2"]}],
        "hosts": [{"name": "h{i}", "node": ["leaf1", "leaf2"], "ports": "Ethernet0-Ethernet4"}]}}


@pytest.mark.parametrize("edit, expected", [
    (lambda t: t["mclag"][0].update(peers=["leaf1", "nope"]), "topology.mclag[0].peers[1]: nope: no such switch"),
    (lambda t: t["mclag"][0].update(peers=["leaf1", "leaf3"], peer_link=["Ethernet496"]),
     "topology.mclag[0].peer_link: Ethernet496: no link between leaf1 and leaf3"),
    (lambda t: t["mclag"].append({"domain": 2, "peers": ["leaf1", "leaf3"]}), "leaf1 is in two MC-LAG pairs"),
    (lambda t: t["mclag"][0].update(keepalive=2, session_timeout=5), "5 must be >= 3 x keepalive (2 s)"),
    (lambda t: t["hosts"][0].update(node=["leaf1", "leaf3"]), "leaf1 and leaf3 are not an MC-LAG pair"),
    (lambda t: t["hosts"].append({"name": "x{i}", "node": "leaf2", "ports": "Ethernet20"}),
     "the hosts of MC-LAG pair leaf1/leaf2 are dual-homed, all of them"),
    (lambda t: t["hosts"].append({"name": "y{i}", "node": "leaf2", "ports": "Ethernet0"}),
     "leaf2:Ethernet0: port already used by host h0"),
])
def test_bad_pairs_are_refused_naming_what(edit, expected) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(raw_pair())
    edit(data["topology"])
    found = problems_of(data, Path("."))
    assert any(expected in p for p in found), found


def test_the_raw_pair_is_valid() -> None:
    from nos.lab.topology import parse_topology
    topo = parse_topology(raw_pair(), Path("."))
    assert topo.mclag[0].peer_ports == ("Ethernet496",) and topo.mclag[0].session_timeout == 3
