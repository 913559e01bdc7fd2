"""Lab scenarios with plain data: the lab's hosts, selected by the workloads as on one switch."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastpath.workloads import expand_workload
from nos.lab.scenario import parse_lab_scenario
from nos.lab.topology import Topology, load_topology
from nos.traffic.errors import ScenarioError
from nos.traffic.hosts import workload_hosts

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def topo() -> Topology:
    return load_topology(ROOT / "configs" / "labs" / "leaf-spine.yaml")


def test_the_shipped_all_to_all_runs_among_the_32_hosts(topo: Topology) -> None:
    lab = parse_lab_scenario((ROOT / "configs" / "labs" / "scenarios" / "all-to-all.yaml").read_text(), topo)
    assert len(lab.hosts) == 32 and lab.node_of[0] == "leaf1" and lab.node_of[-1] == "leaf4"
    first = topo.hosts[0]
    assert lab.hosts[0].name == first.name and lab.hosts[0].port == first.port
    assert f"{lab.hosts[0].ip.ip}" == first.ip
    chosen = workload_hosts(lab.scenario, lab.hosts)
    block = expand_workload(lab.scenario, 0, lab.scenario.workloads[0], chosen[0])
    assert block.n == 32 * 31 * 8  # 8 queue pairs per peer
    crossing = sum(lab.node_of[s] != lab.node_of[d] for s, d in zip(block.src, block.dst, strict=True))
    assert crossing == 32 * 24 * 8


def test_selectors_pick_hosts_on_other_switches(topo: Topology) -> None:
    lab = parse_lab_scenario((ROOT / "configs" / "labs" / "scenarios" / "incast.yaml").read_text(), topo)
    chosen = workload_hosts(lab.scenario, lab.hosts)[0]
    senders = {lab.node_of[i] for i in chosen["senders"]}
    assert senders == {"leaf2", "leaf3", "leaf4"} and len(chosen["senders"]) == 24
    assert [lab.hosts[i].name for i in chosen["receiver"]] == ["leaf1-h1"]


def test_host_options_apply_to_every_host(topo: Topology) -> None:
    text = "name: x\nhost_options: {dcqcn: false, mtu: 1024}\nworkloads: [{kind: all_to_all, hosts: all, size: 1KB}]\n"
    lab = parse_lab_scenario(text, topo)
    assert all(g.mtu == 1024 and not g.dcqcn for g in lab.scenario.hosts)


@pytest.mark.parametrize(("text", "field"), [
    ("name: x\nhosts: [{name: a, ports: Ethernet0}]\nworkloads: [{kind: all_to_all, hosts: all, size: 1KB}]\n",
     "hosts"),
    ("name: x\nhost_options: {colour: red}\nworkloads: [{kind: all_to_all, hosts: all, size: 1KB}]\n",
     "host_options"),
    ("name: x\nworkloads: [{kind: incast, senders: nobody*, receiver: leaf1-h1, size: 1KB}]\n", "workloads"),
    ("- not a mapping\n", "(file)"),
])
def test_what_is_wrong_is_named(topo: Topology, text: str, field: str) -> None:
    with pytest.raises(ScenarioError) as err:
        lab = parse_lab_scenario(text, topo)
        workload_hosts(lab.scenario, lab.hosts)
    assert any(p.field.startswith(field) for p in err.value.problems), err.value
