"""Workload expansion: flow counts and pairs per kind, AllReduce dependencies, port resolution,
classification through the ports' maps, NIC rows, the run configuration, and programmed forwarding."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fastpath.allreduce import allreduce_index
from fastpath.build import build_tables
from fastpath.workloads import derangement, expand
from nos.traffic.errors import ScenarioError
from nos.traffic.scenario import parse_scenario
from syncd_sim.compile import compile_store
from tests.unit.syncd_sim.compile.switchkit import SWITCH_MAC, SwitchKit

TABLES = build_tables(n_ports=16)   # Ethernet0 .. Ethernet60, 400G, SONiC's AZURE maps


def run(text: str, tables=TABLES, cables=None):
    return expand(parse_scenario(text), tables, cables or {})


def deps_of(flows, i: int) -> list[int]:
    return sorted(flows.dep_idx[flows.dep_ptr[i]:flows.dep_ptr[i + 1]].tolist())


def test_incast_one_flow_per_sender_at_once() -> None:
    nics, flows, cfg, names = run("""
name: t
duration: 3ms
hosts: [{name: r, ports: Ethernet0}, {name: 's{i}', ports: Ethernet4-Ethernet16}]
workloads: [{kind: incast, senders: all, receiver: r, size: 1MB, start: 10us}]
""")
    assert names == ["incast"] and flows.n == 4            # the receiver is not its own sender
    assert flows.src.tolist() == [1, 2, 3, 4] and set(flows.dst.tolist()) == {0}
    assert flows.in_port.tolist() == [1, 2, 3, 4] and flows.out_port.tolist() == [0, 0, 0, 0]
    assert flows.size.tolist() == [1_000_000] * 4 and flows.start_s.tolist() == [10e-6] * 4
    assert flows.dep_ptr.tolist() == [0] * 5 and flows.group.tolist() == [0] * 4
    assert flows.dcqcn.all() and flows.ecn_capable.all() and flows.mtu.tolist() == [4096] * 4
    assert nics.port.tolist() == [0, 1, 2, 3, 4]
    assert (cfg.max_time_s, cfg.sample_s, cfg.seed) == (3e-3, 10e-6, 0)


def test_classification_uses_the_ingress_dscp_and_pg_maps_and_the_egress_queue_map() -> None:
    tc_to_queue = np.tile(np.arange(8), (16, 1))
    tc_to_queue[0, 3] = 5                                   # only the receiver's port sends TC3 to queue 5
    tables = build_tables(n_ports=16, tc_to_queue=tc_to_queue)
    _, flows, _, _ = run("""
name: t
hosts: [{name: r, ports: Ethernet0}, {name: a, ports: Ethernet4}]
workloads:
  - {kind: incast, senders: a, receiver: r, size: 1MB}
  - {kind: incast, senders: a, receiver: r, size: 1MB, dscp: 3}
  - {kind: incast, senders: r, receiver: a, size: 1MB, dscp: 3}
""", tables)
    assert flows.tc.tolist() == [1, 3, 3]                  # AZURE: DSCP 26 -> TC1 (lossy), DSCP 3 -> TC3
    assert flows.queue.tolist() == [1, 5, 3]
    assert flows.pg.tolist() == [0, 3, 3]


def test_a_flow_to_or_from_a_down_port_is_unroutable() -> None:
    oper = np.ones(16, dtype=bool)
    oper[2] = False
    _, flows, _, _ = run("""
name: t
hosts: [{name: 'h{i}', ports: Ethernet0-Ethernet8}]
workloads: [{kind: all_to_all, size: 1kB}]
""", build_tables(n_ports=16, oper_up=oper))
    pairs = dict(zip(zip(flows.src.tolist(), flows.dst.tolist(), strict=True), flows.out_port.tolist(), strict=True))
    assert pairs == {(0, 1): 1, (0, 2): -1, (1, 0): 0, (1, 2): -1, (2, 0): -1, (2, 1): -1}


def test_permutation_is_a_seeded_derangement() -> None:
    text = """
name: t
seed: {seed}
hosts: [{{name: 'h{{i}}', ports: Ethernet0-Ethernet60}}]
workloads: [{{kind: permutation, size: 64KiB}}]
"""
    _, flows, _, _ = run(text.format(seed=1))
    assert sorted(flows.src.tolist()) == list(range(16)) and sorted(flows.dst.tolist()) == list(range(16))
    assert not np.any(flows.src == flows.dst)
    assert flows.out_port.tolist() == flows.dst.tolist()   # host i sits on port i here
    again = run(text.format(seed=1))[1]
    other = run(text.format(seed=2))[1]
    assert flows.dst.tolist() == again.dst.tolist() and flows.dst.tolist() != other.dst.tolist()


def test_derangements_are_uniform_enough() -> None:
    rng = np.random.default_rng(0)
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(2000):
        key = tuple(derangement(3, rng).tolist())
        counts[key] = counts.get(key, 0) + 1
    # n = 3 has exactly 2 derangements; 2000 draws split 1000 +- 3 sigma (sigma = 22.4)
    assert set(counts) == {(1, 2, 0), (2, 0, 1)} and all(abs(c - 1000) < 70 for c in counts.values())


def test_all_to_all_is_every_ordered_pair() -> None:
    _, flows, _, _ = run("""
name: t
hosts: [{name: 'h{i}', ports: Ethernet0-Ethernet12}]
workloads: [{kind: all_to_all, size: 1kB}]
""")
    assert flows.n == 12
    assert set(zip(flows.src.tolist(), flows.dst.tolist(), strict=True)) == {
        (s, d) for s in range(4) for d in range(4) if s != d}


def test_allreduce_ring_steps_and_dependencies() -> None:
    _, flows, _, names = run("""
name: t
hosts: [{name: x, ports: Ethernet40}, {name: 'gpu{i}', ports: Ethernet0-Ethernet12}]
workloads:
  - {kind: incast, senders: x, receiver: gpu0, size: 1kB}
  - {kind: allreduce, gpus: 'gpu*', message: 1000001, compute: 50us, step_compute: 2us, iterations: 2, start: 1ms}
""")
    n, steps = 4, 6
    assert names == ["incast", "allreduce"] and flows.n == 1 + 2 * steps * n
    base = 1                                               # the ring's flows follow the incast's
    ring = slice(base, None)
    assert flows.size[ring].tolist() == [math.ceil(1000001 / 4)] * 48
    gpus = [1, 2, 3, 4]                                    # NIC indices of gpu0..gpu3
    for it in range(2):
        for step in range(steps):
            for k in range(n):
                i = base + int(allreduce_index(n, it, step, k))
                assert (flows.src[i], flows.dst[i]) == (gpus[k], gpus[(k + 1) % n])
                if it == 0 and step == 0:
                    assert deps_of(flows, i) == [] and flows.start_s[i] == pytest.approx(1e-3 + 50e-6)
                    continue
                prev_it, prev_step = (it - 1, steps - 1) if step == 0 else (it, step - 1)
                expected = sorted(base + int(allreduce_index(n, prev_it, prev_step, g)) for g in ((k - 1) % n, k))
                assert deps_of(flows, i) == expected
                assert flows.gap_s[i] == (50e-6 if step == 0 else 2e-6)
    assert flows.group.tolist() == [0] + [1] * 48


def test_background_pairs_cycle_and_rate_becomes_chunks() -> None:
    _, flows, _, _ = run("""
name: t
duration: 1ms
hosts: [{name: 'a{i}', ports: Ethernet0-Ethernet8}, {name: b, ports: Ethernet12}]
workloads:
  - {kind: background, from: 'a*', to: [b, a0], size: 1MB}
  - {kind: background, from: a1, to: b, rate: 100G, interval: 10us, start: 200us}
""")
    first = flows.group == 0
    assert list(zip(flows.src[first].tolist(), flows.dst[first].tolist(), strict=True)) == [(0, 3), (1, 0), (2, 3)]
    second = flows.group == 1
    assert second.sum() == 80                              # (1 ms - 200 us) / 10 us
    assert set(flows.size[second].tolist()) == {125_000}   # 100 Gb/s x 10 us / 8
    assert flows.start_s[second][:3] == pytest.approx([200e-6, 210e-6, 220e-6])
    assert not flows.dcqcn.any()                           # background never runs DCQCN


def test_nics_take_the_ports_speed_and_cable_unless_given() -> None:
    speeds = np.full(16, 400e9)
    speeds[3] = 100e9
    nics, flows, _, _ = run("""
name: t
hosts:
  - {name: a, ports: Ethernet0}
  - {name: b, ports: Ethernet4, speed: 200G, cable: 40m, ignores_pause: true, dcqcn: false, mtu: 1024, ecn: false}
  - {name: c, ports: Ethernet8, pause_storm: {start: 1ms, end: 2ms, priority: 4}}
  - {name: d, ports: Ethernet12, speed: 400G}
workloads: [{kind: all_to_all, size: 1kB}]
""", build_tables(n_ports=16, speed_bps=speeds), {"Ethernet0": 3.0})
    assert nics.speed_bps.tolist() == [400e9, 200e9, 400e9, 100e9]   # a NIC is no faster than its port
    assert nics.cable_m.tolist() == [3.0, 40.0, 5.0, 5.0]            # CABLE_LENGTH, given, default 5 m
    assert nics.honours_pause.tolist() == [True, False, True, True]
    assert nics.storm_start_s[2] == 1e-3 and nics.storm_end_s[2] == 2e-3 and nics.storm_priority[2] == 4
    assert np.isnan(nics.storm_start_s[[0, 1, 3]]).all()
    from_b = flows.src == 1
    assert not flows.dcqcn[from_b].any() and flows.dcqcn[~from_b].all()
    assert set(flows.mtu[from_b].tolist()) == {1024} and not flows.ecn_capable[from_b].any()


def test_dcqcn_overrides_and_bad_parameters() -> None:
    base = "name: t\nhosts: [{name: 'h{i}', ports: Ethernet0-Ethernet4}]\nworkloads: [{kind: permutation, size: 1kB}]\n"
    _, _, cfg, _ = run(base + "dcqcn: {g: 0.0625, min_rate_bps: 1G, cnp_interval_s: 4us, fast_recovery_stages: 5,"
                              " clamp_target_rate: true, byte_counter_bytes: 10MB}\n")
    d = cfg.dcqcn
    assert (d.g, d.min_rate_bps, d.cnp_interval_s, d.fast_recovery_stages, d.clamp_target_rate,
            d.byte_counter_bytes) == (0.0625, 1e9, 4e-6, 5, True, 10e6)
    assert d.alpha_period_s == 50e-6                                  # the rest keep the model's defaults
    with pytest.raises(ScenarioError) as info:
        run(base + "dcqcn: {gain: 0.5, fast_recovery_stages: 1.5, clamp_target_rate: 1, cnp_interval_s: 4 parsecs}\n")
    assert [(p.field, p.value) for p in info.value.problems] == [
        ("dcqcn.gain", 0.5), ("dcqcn.fast_recovery_stages", 1.5), ("dcqcn.clamp_target_rate", 1),
        ("dcqcn.cnp_interval_s", "4 parsecs")]
    assert "not a DCQCN parameter (known: g, " in info.value.problems[0].message


def test_ports_the_switch_lacks_are_refused() -> None:
    with pytest.raises(ScenarioError, match=r"hosts\[0\]\.ports: no such port on the switch \(got 'Ethernet64'\)"):
        run("name: t\nhosts: [{name: a, ports: Ethernet64}, {name: b, ports: Ethernet0}]\n"
            "workloads: [{kind: permutation, size: 1kB}]\n")


def programmed_switch():
    """Ports 0, 1 routed (10.0.0.0/31, 10.0.1.0/31, a neighbor on each), ports 2, 3 untagged in VLAN 100,
    port 4 configured for nothing."""
    kit = SwitchKit(n_ports=5)
    for port, ip, mac in ((0, "10.0.0.1", "02:00:00:00:01:01"), (1, "10.0.1.1", "02:00:00:00:01:02")):
        rif = kit.rif_port(kit.ports[port])
        kit.neighbor(rif, ip, mac)
    vlan = kit.vlan(100)
    for port in (2, 3):
        kit.member(vlan, 100, kit.ports[port], tagged=False)
    return compile_store(kit.store, version=1)


def test_programmed_forwarding_routes_bridges_after_learning_and_finds_no_path() -> None:
    tables = programmed_switch()
    assert tables.l3.switch_mac == int(SWITCH_MAC.replace(":", ""), 16)
    _, flows, _, _ = run("""
name: t
forwarding: programmed
hosts:
  - {name: r0, ports: Ethernet0, mac: '02:00:00:00:01:01', ip: 10.0.0.1/31}
  - {name: r1, ports: Ethernet4, mac: '02:00:00:00:01:02', ip: 10.0.1.1/31}
  - {name: 'v{i}', ports: Ethernet8-Ethernet12, ip: 192.168.0.1/24}
  - {name: lost, ports: Ethernet16, ip: 172.16.0.1/24}
workloads:
  - {kind: incast, senders: r0, receiver: r1, size: 1kB, dscp: 3}
  - {kind: incast, senders: v0, receiver: v1, size: 1kB}
  - {kind: incast, senders: lost, receiver: r1, size: 1kB}
""", tables)
    assert flows.in_port.tolist() == [0, 2, 4]
    assert flows.out_port.tolist() == [1, 3, -1]           # routed; bridged (learnt); nothing on port 4
    # no QoS maps programmed on this switch: classification is forward()'s, from the ingress port's map
    assert flows.tc.tolist()[:2] == tables.qos.dscp_to_tc[[0, 2], [3, 26]].tolist()


def test_all_to_all_over_several_queue_pairs_per_peer() -> None:
    from fastpath.workloads import expand_all_to_all
    from nos.traffic.scenario import AllToAll

    w = AllToAll(kind="all_to_all", size=1_000_000, queue_pairs=8)
    block = expand_all_to_all(w, {"hosts": [0, 1, 2]})
    assert block.n == 3 * 2 * 8 and set(block.size.tolist()) == {125_000}
    assert block.src[:8].tolist() == [0] * 8 and block.dst[:8].tolist() == [1] * 8
