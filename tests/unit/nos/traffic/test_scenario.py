"""Scenario files: the examples parse, defaults are NVIDIA's RoCE ones, and every kind of bad input is
refused with the field and the value named."""

from __future__ import annotations

from pathlib import Path

import pytest

from nos.paths import configs_dir
from nos.traffic.errors import ScenarioError
from nos.traffic.scenario import AllReduce, Background, Incast, parse_scenario, workload_names

SCENARIOS = sorted((configs_dir() / "scenarios").glob("*.yaml"))

MINIMAL = """
name: t
hosts:
  - {name: a, ports: Ethernet0}
  - {name: b, ports: Ethernet4}
workloads:
  - {kind: incast, senders: a, receiver: b, size: 1MB}
"""


def problems(text: str) -> list[tuple[str, object, str]]:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, "t.yaml")
    assert str(info.value).startswith("t.yaml: ")
    return [(p.field, p.value, p.message) for p in info.value.problems]


def test_the_example_scenarios_parse() -> None:
    names = {path.stem for path in SCENARIOS}
    assert {"incast-64to1", "allreduce-8gpu", "permutation-128", "pause-storm", "dwrr-mix"} <= names
    for path in SCENARIOS:
        scenario = parse_scenario(path.read_text(), str(path))
        assert scenario.name == path.stem
        assert scenario.description


def test_defaults_are_nvidia_roce() -> None:
    scenario = parse_scenario(MINIMAL)
    host, workload = scenario.hosts[0], scenario.workloads[0]
    assert (host.mtu, host.dcqcn, host.ecn, host.ignores_pause, host.speed, host.cable) == (4096, True, True,
                                                                                             False, None, None)
    assert isinstance(workload, Incast) and workload.dscp == 26 and workload.start == 0.0
    assert (scenario.forwarding, scenario.seed, scenario.sample_interval) == ("attachment", 0, 10e-6)


def test_units_lists_and_kinds() -> None:
    text = """
name: t
duration: 2ms
hosts:
  - {name: "gpu{i}", ports: "Ethernet0-Ethernet12, Ethernet20", speed: 100G, cable: 40m,
     pause_storm: {start: 1ms, end: 1.5ms}}
workloads:
  - {kind: allreduce, gpus: "gpu*", message: 16MiB, compute: 50us, iterations: 3}
  - {kind: background, from: [gpu0, gpu1], to: gpu2, rate: 25G, dscp: 8}
  - {kind: permutation, size: 64KiB}
  - {kind: all_to_all, hosts: all, size: 1kB, name: a2a}
  - {kind: permutation, size: 1kB}
"""
    scenario = parse_scenario(text)
    group = scenario.hosts[0]
    assert group.ports == ["Ethernet0-Ethernet12", "Ethernet20"]
    assert (group.speed, group.cable) == (100e9, 40.0)
    assert group.pause_storm is not None and (group.pause_storm.start, group.pause_storm.priority) == (1e-3, 3)
    ring, background = scenario.workloads[0], scenario.workloads[1]
    assert isinstance(ring, AllReduce) and (ring.message, ring.compute, ring.iterations) == (16 * 2 ** 20, 50e-6, 3)
    assert isinstance(background, Background) and background.from_ == ["gpu0", "gpu1"] and background.rate == 25e9
    assert workload_names(scenario) == ["allreduce", "background", "permutation-2", "a2a", "permutation-4"]


BASE_HOSTS = "hosts: [{name: a, ports: Ethernet0}, {name: b, ports: Ethernet4}]\n"


@pytest.mark.parametrize(("text", "field", "value", "message"), [
    ("name: t\n" + BASE_HOSTS + "workloads: [{kind: incast, senders: a, receiver: b, size: 1XB}]",
     "workloads[0].size", None, "unknown size unit 'XB'"),
    ("name: t\n" + BASE_HOSTS + "workloads: [{kind: incast, senders: a, receiver: b}]",
     "workloads[0].size", None, "Field required"),
    ("name: t\n" + BASE_HOSTS + "workloads: [{kind: multicast, size: 1MB}]",
     "workloads[0].kind", "multicast", "not a workload kind"),
    ("name: t\n" + BASE_HOSTS + "workloads: [{size: 1MB}]", "workloads[0].kind", None, "missing"),
    ("name: t\n" + BASE_HOSTS + "workloads: [{kind: incast, senders: a, receiver: b, size: 1MB, dscp: 64}]",
     "workloads[0].dscp", 64, "less than or equal to 63"),
    ("name: t\n" + BASE_HOSTS + "workloads: [{kind: incast, senders: a, receiver: b, size: 1MB, sizee: 1}]",
     "workloads[0].sizee", 1, "Extra inputs"),
    ("name: t\nhosts: [{name: a, ports: Ethernet8-Ethernet0}]\nworkloads: [{kind: permutation, size: 1MB}]",
     "hosts[0].ports[0]", None, "lower number to the higher"),
    ("name: t\nhosts: [{name: a, ports: Eth-0}]\nworkloads: [{kind: permutation, size: 1MB}]",
     "hosts[0].ports[0]", None, "is not a port name"),
    ("name: t\nhosts: [{name: a, ports: Ethernet0-PortChannel4}]\nworkloads: [{kind: permutation, size: 1MB}]",
     "hosts[0].ports[0]", None, "same prefix"),
    ("name: t\nhosts: [{name: a, ports: Ethernet0, mac: 'zz:00:00:00:00:00'}]\n"
     "workloads: [{kind: permutation, size: 1MB}]", "hosts[0].mac", None, "not a MAC address"),
    ("name: t\nhosts: [{name: a, ports: Ethernet0, ip: 10.0.0.300}]\nworkloads: [{kind: permutation, size: 1MB}]",
     "hosts[0].ip", None, "does not appear to be an IPv4 or IPv6"),
    ("name: t\nhosts: [{name: 'a b', ports: Ethernet0}]\nworkloads: [{kind: permutation, size: 1MB}]",
     "hosts[0].name", None, "is not a host name"),
    ("name: t\nhosts: [{name: a, ports: Ethernet0, pause_storm: {start: 2ms, end: 1ms}}]\n"
     "workloads: [{kind: permutation, size: 1MB}]", "hosts[0].pause_storm", None, "must be after start"),
    ("name: t\n" + BASE_HOSTS + "workloads: [{kind: background, from: a, to: b}]",
     "workloads[0]", None, "exactly one of 'rate' and 'size'"),
    ("name: t\n" + BASE_HOSTS + "workloads: [{kind: allreduce, gpus: all, message: 1MB, iterations: 0}]",
     "workloads[0].iterations", 0, "greater than or equal to 1"),
    ("name: t\nduration: 20s\n" + BASE_HOSTS + "workloads: [{kind: permutation, size: 1MB}]",
     "duration", 20.0, "at most 10s"),
    ("name: t\nduration: 1s\nsample_interval: 1us\n" + BASE_HOSTS + "workloads: [{kind: permutation, size: 1MB}]",
     "sample_interval", 1e-6, "at most 100000"),
    ("name: t\nhosts: [{name: a, ports: Ethernet0}, {name: a, ports: Ethernet4}]\n"
     "workloads: [{kind: permutation, size: 1MB}]", "hosts[1].name", "a", "used by two host groups"),
    ("name: t\n" + BASE_HOSTS + "workloads: [{kind: permutation, size: 1MB, name: x}, "
     "{kind: all_to_all, size: 1MB, name: x}]", "workloads[1].name", "x", "used by two workloads"),
    ("name: t\nforwarding: magic\n" + BASE_HOSTS + "workloads: [{kind: permutation, size: 1MB}]",
     "forwarding", "magic", "'attachment' or 'programmed'"),
    ("name: t\n" + BASE_HOSTS + "workloads: []", "workloads", None, "at least 1 item"),
    ("hosts: []\nworkloads: [{kind: permutation, size: 1MB}]", "name", None, "Field required"),
])
def test_bad_input_names_the_field_and_value(text: str, field: str, value: object, message: str) -> None:
    found = problems(text)
    assert any(f == field and v == value and message in m for f, v, m in found), found


def test_every_problem_is_reported_at_once() -> None:
    text = "name: t\n" + BASE_HOSTS + ("workloads: [{kind: incast, senders: a, receiver: b, size: 0},"
                                       " {kind: incast, senders: a, receiver: b, size: 1MB, start: -1us}]")
    assert [f for f, _, _ in problems(text)] == ["workloads[0].size", "workloads[1].start"]


@pytest.mark.parametrize(("text", "message"), [("[1, 2", "not valid YAML at line 1"), ("- a\n- b", "a YAML mapping"),
                                               ("", "a YAML mapping")])
def test_not_a_scenario_file(text: str, message: str) -> None:
    found = problems(text)
    assert found[0][0] == "(file)" and message in found[0][2]


def test_error_text_reads_field_message_value(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"^f\.yaml: hosts\[0\]\.speeed: Extra inputs are not permitted "
                                            r"\(got '1G'\)$"):
        parse_scenario("name: t\nhosts: [{name: a, ports: Ethernet0, speeed: 1G}]\n"
                       "workloads: [{kind: permutation, size: 1MB}]", "f.yaml")
