"""The one-pass sweep in port-graph level order gives what sweeping until nothing changes gives, and
bad flow sets are refused with the flow named."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.fabric import (
    FabricError,
    FabricFlows,
    find_hops,
    merge_tables,
    model_inputs,
    ring_allreduce,
    run,
    wire,
)
from fastpath.fabric.topo import fat_tree, leaf_spine
from fastpath.model import RunConfig, hops, nic
from fastpath.model.hop_tally import assemble_hops
from fastpath.model.result import Result


def _run(levels: bool) -> Result:
    fabric = fat_tree(4, overrides=dict(pool_size=[4_000_000, 4_000_000], pg_dynamic_th=-3))
    flows = FabricFlows.of(np.arange(16), (np.arange(16) * 5 + 3) % 16, 3_000_000)   # every kind of path
    w = wire(fabric)
    h = find_hops(fabric, w, flows.src.astype(np.int64), flows.dst.astype(np.int64), flows.dscp, flows.l4_src)
    merged = merge_tables(fabric.switches)
    nics, model_flows, links = model_inputs(fabric, w, flows, h, merged)
    cfg = RunConfig(max_time_s=5e-3)
    state = hops.new_run(merged, nics, model_flows, links, cfg)
    assert state.levels is not None
    if not levels:
        state.levels = None
    nic.begin(state.fs, state.flow, 0.0)
    while not hops.finished(state):
        hops.step(state)
    return assemble_hops(state.flow, state.seg, state.ch, state.links, state.flows, state.fs, state.ss, state.pfc,
                         state.storms, state.marks, state.sampler, state.t, state.steps, 0.0)


def test_level_order_sweep_equals_the_fixed_point_sweep() -> None:
    a, b = _run(levels=True), _run(levels=False)
    assert a.pfc_tx_frames.sum() > 0                       # pauses spread through the fabric
    assert np.isfinite(a.flow_finish_s).all() and a.flow_dropped.sum() == 0
    np.testing.assert_allclose(a.flow_finish_s, b.flow_finish_s, rtol=1e-9)
    np.testing.assert_allclose(a.port_tx_bytes, b.port_tx_bytes, rtol=1e-9)
    np.testing.assert_allclose(a.pfc_tx_frames, b.pfc_tx_frames, rtol=1e-9)


def test_a_ring_allreduce_on_a_fat_tree_is_lossless_and_no_faster_than_its_bound() -> None:
    fabric = fat_tree(4)
    r = run(fabric, ring_allreduce([[0, 4, 8, 12], [1, 5, 9, 13]], 6, 1_000_000), RunConfig(max_time_s=5e-3))
    res = r.result
    assert np.isfinite(res.flow_finish_s).all() and res.flow_dropped.sum() == 0
    bound = 6 * 1_000_000 * (4096 + 84) / 4096 * 8 / 400e9
    assert np.nanmax(res.flow_finish_s) > bound


def test_flows_between_unknown_or_equal_hosts_are_refused() -> None:
    fabric = leaf_spine(1, 2, 1)
    with pytest.raises(FabricError, match="flow 0: no host 7"):
        run(fabric, FabricFlows.of([7], [0], 1), RunConfig(max_time_s=1e-3))
    with pytest.raises(FabricError, match="flow 0: sends to its own host"):
        run(fabric, FabricFlows.of([1], [1], 1), RunConfig(max_time_s=1e-3))
