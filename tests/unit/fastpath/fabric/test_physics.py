"""Physics across a fabric: pauses spread switch by switch, victims of PFC, zero loss, ring AllReduce
at the analytic time, counters per switch, and one hop giving the single-switch model's results."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import numpy as np
import pytest

from fastpath.build import build_tables
from fastpath.fabric import FabricFlows, FabricResult, ring_allreduce, run
from fastpath.fabric.hotspots import hotspots
from fastpath.fabric.topo import leaf_spine
from fastpath.model import FlowHops, Flows, Nics, RunConfig
from fastpath.model import run as run_model
from fastpath.model.inputs import LIGHT_MPS
from tests.unit.fastpath.fabric.kit import l4_via
from tests.unit.fastpath.model.kit import CUT_THROUGH, SPEED, WIRE_PER_PAYLOAD, incast

POOL = 16_566_032           # a tenth of TH5's pools (and shared headroom), alpha 1/8: pauses come soon
SMALL = dict(pool_size=[POOL, POOL], pool_xoff=[2_942_336, 0], pg_dynamic_th=-3)
PER_LEAF = 3                # leaf l has hosts 3l .. 3l + 2


def _frames(size: Any) -> Any:
    """Frame bytes the model counts for a message: its wire bytes x frame/wire (headers 64 B, IFG 20 B)."""
    return (size + np.ceil(np.asarray(size) / 4096) * 84) * (4096 + 64) / (4096 + 84)


def _incast() -> FabricResult:
    """Host 0 (leaf0) receives from host 3 (leaf1, via spine0) and host 6 (leaf2, via spine1); at 1 ms
    victim flows start from leaf1: host 4 -> host 9 (leaf3) via spine0, host 5 -> host 10 via spine1."""
    fabric = leaf_spine(2, 4, PER_LEAF, overrides=SMALL)
    via = [l4_via(fabric, 3, 0, "spine0"), l4_via(fabric, 6, 0, "spine1"), l4_via(fabric, 4, 9, "spine0"),
           l4_via(fabric, 5, 10, "spine1")]
    flows = FabricFlows.of([3, 6, 4, 5], [0, 0, 9, 10], [40_000_000, 40_000_000, 4_000_000, 4_000_000],
                           l4_src=via, start_s=[0.0, 0.0, 1e-3, 1e-3])
    return run(fabric, flows, RunConfig(max_time_s=10e-3, sample_s=1e-6))


@pytest.fixture(scope="module")
def incast_run() -> FabricResult:
    return _incast()


def _first_pause(r: FabricResult, switch: str, port: str) -> float:
    s = r.switch_index(switch)
    p = int(r.wiring.offset[s]) + r.fabric.switches[s][1].ports.names.index(port)
    paused = r.result.series.pause[:, p, 3]
    assert paused.any(), f"{switch}:{port} never paused"
    return float(r.result.series.t[np.argmax(paused)])


def test_incast_pauses_spread_back_switch_by_switch(incast_run: FabricResult) -> None:
    r = incast_run
    # leaf0's PGs on its uplinks pause the spines' egress toward leaf0 first ...
    spines_paused = max(_first_pause(r, "leaf0", "Ethernet12"), _first_pause(r, "leaf0", "Ethernet16"))
    # ... then the spines' PGs facing leaf1 and leaf2 pause those leaves' uplinks ...
    uplinks_paused = min(_first_pause(r, "spine0", "Ethernet4"), _first_pause(r, "spine1", "Ethernet8"))
    # ... and last the senders' leaves pause their NICs
    nics_paused = min(_first_pause(r, "leaf1", "Ethernet0"), _first_pause(r, "leaf2", "Ethernet0"))
    assert spines_paused < uplinks_paused < nics_paused
    # the pause reached the spines: their ports toward leaf0 received it and their queue 3 held bytes
    spine0 = r.counters("spine0")
    assert spine0.values["pfc_rx_frames"][0, 3] > 0
    assert spine0.values["queue_max_bytes"][0, 3] > 1e6
    # spine0 never paused leaf3 (nothing congests there)
    assert spine0.values["pfc_tx_frames"][3, 3] == 0


def test_a_victim_behind_a_paused_spine_port_slows_one_via_the_other_spine_does_not(
        incast_run: FabricResult) -> None:
    res = incast_run.result
    took = res.flow_finish_s[2:] - res.flow_start_s[2:]
    alone = 4_000_000 * WIRE_PER_PAYLOAD * 8 / SPEED
    assert took[1] == pytest.approx(alone, rel=0.05)          # via spine1: line rate
    assert took[0] > 2.0 * alone                                # via spine0: stuck behind the pause


def test_a_lossless_fabric_loses_nothing(incast_run: FabricResult) -> None:
    res = incast_run.result
    assert res.flow_dropped.sum() == 0.0
    assert res.queue_drop_pkts.sum() == 0 and res.pg_drop_pkts.sum() == 0
    assert np.isfinite(res.flow_finish_s).all()
    assert res.flow_delivered.sum() == pytest.approx(incast_run.flows.size.sum(), rel=1e-5)
    assert res.port_rx_bytes.sum() == pytest.approx(res.port_tx_bytes.sum(), rel=1e-12)
    # every byte a host sent left its last hop: what the receivers' ports sent is what the NICs sent
    frames = _frames(incast_run.flows.size)
    host_ports = incast_run.wiring.host_port
    assert res.port_tx_bytes[host_ports].sum() == pytest.approx(frames.sum(), rel=1e-9)


def test_ring_allreduce_on_an_idle_fabric_takes_the_analytic_time() -> None:
    fabric = leaf_spine(2, 4, 1)                                 # one host per leaf: every flow crosses a spine
    steps, chunk = 6, 1_000_000                                  # N = 4: 2(N-1) steps
    r = run(fabric, ring_allreduce([[0, 1, 2, 3]], steps, chunk), RunConfig(max_time_s=5e-3))
    latency = 3 * CUT_THROUGH + 4 * 5.0 / LIGHT_MPS              # three switches, four cables
    one_step = chunk * WIRE_PER_PAYLOAD * 8 / SPEED + latency
    assert np.nanmax(r.result.flow_finish_s) == pytest.approx(steps * one_step, rel=0.01)
    assert np.isfinite(r.result.flow_finish_s).all()


def test_counters_split_back_per_switch_in_its_own_numbering() -> None:
    fabric = leaf_spine(2, 2, 1)
    r = run(fabric, FabricFlows.of([0], [1], 1_000_000), RunConfig(max_time_s=1e-3))
    frames = _frames(1_000_000)
    spine = fabric.names()[int(r.hops.switch[1])]
    leaf0, mid, leaf1 = r.counters("leaf0"), r.counters(spine), r.counters("leaf1")
    assert leaf0.ports == fabric.switches[0][1].ports.names
    up = int(r.hops.out_port[0])
    assert leaf0.values["port_rx_bytes"][0] == pytest.approx(frames)
    assert leaf0.values["port_tx_bytes"][up] == pytest.approx(frames)
    assert leaf0.values["queue_tx_bytes"][up, 3] == pytest.approx(frames)
    assert mid.values["port_rx_bytes"][0] == pytest.approx(frames)      # spine port 0 faces leaf0
    assert mid.values["port_tx_bytes"][1] == pytest.approx(frames)
    assert leaf1.values["port_tx_bytes"][0] == pytest.approx(frames)
    assert leaf1.values["pg_rx_bytes"][int(r.hops.in_port[2]), 3] == pytest.approx(frames)
    other = r.counters("spine1" if spine == "spine0" else "spine0")
    assert other.values["port_tx_bytes"].sum() == 0
    total = sum(c.values["port_tx_bytes"].sum() for c in r.per_switch())
    assert total == pytest.approx(3 * frames)
    with pytest.raises(KeyError, match="no switch 'x'"):
        r.counters("x")


def test_one_hop_through_the_hop_engine_is_the_single_switch_model() -> None:
    tables, single = incast(8, 20_000_000, tables=build_tables(n_ports=9, pg_dynamic_th=-3))
    nics = Nics.of(np.arange(9))
    senders = np.arange(1, 9)
    flows = Flows.of(senders, 0, senders, 0, 20_000_000, tc=3)
    hops = FlowHops(ptr=np.arange(9, dtype=np.int64), in_port=flows.in_port, out_port=flows.out_port,
                    queue=flows.queue, pg=flows.pg)
    multi = run_model(tables, nics, replace(flows, hops=hops), RunConfig(max_time_s=0.05))
    assert single.pfc_tx_frames.sum() > 0                       # the case exercises PFC
    for f in fields(single):
        a, b = getattr(single, f.name), getattr(multi, f.name)
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9, err_msg=f.name)
    assert multi.steps == single.steps


def test_hot_spots_name_the_most_paused_links_and_the_marking_queue(incast_run: FabricResult) -> None:
    spots = hotspots(incast_run)
    paused = [s for s in spots if s.kind == "paused"]
    queues = [s for s in spots if s.kind == "queue"]
    # the spines' egress toward leaf0 were held longest, by leaf0's uplink PGs
    assert {s.switch for s in paused[:2]} == {"spine0", "spine1"}
    assert all(s.by.startswith("leaf0:") for s in paused[:2])
    assert paused[0].pause_s >= paused[-1].pause_s > 0
    assert any(s.switch == "h3" and s.port == "nic" for s in paused)      # the incast's sender was paused too
    # the queue toward the incast's receiver marked most
    assert (queues[0].switch, queues[0].port, queues[0].by) == ("leaf0", "Ethernet0", "h0:nic")
    assert queues[0].ecn_marked_pkts > 0
