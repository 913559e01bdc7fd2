"""Flow lifecycle: dependencies and compute gaps, start times, unroutable flows, samples."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.build import build_tables
from fastpath.model import Flows, Nics, RunConfig, run
from tests.unit.fastpath.model.kit import path_latency

WIRE = (4096 + 84) / 4096


def test_a_flow_waits_for_its_dependencies_and_gap() -> None:
    tables = build_tables(n_ports=3)
    # 0 -> 1 then 1 -> 2 (after 0's last byte arrives + 10 us of compute); 2 -> 0 starts at 5 us alone.
    flows = Flows.of([0, 1, 2], [1, 2, 0], [0, 1, 2], [1, 2, 0], 1_048_576, start_s=[0.0, 0.0, 5e-6],
                     deps=[[], [0], []], gap_s=[0.0, 10e-6, 0.0])
    result = run(tables, Nics.of([0, 1, 2]), flows, RunConfig(max_time_s=1e-3))
    one = 1_048_576 * WIRE * 8 / 400e9 + path_latency()
    assert result.flow_finish_s[0] == pytest.approx(one, rel=1e-6)
    assert result.flow_start_s[1] == pytest.approx(result.flow_finish_s[0] + 10e-6, rel=1e-9)
    assert result.flow_finish_s[1] == pytest.approx(result.flow_start_s[1] + one, rel=1e-6)
    assert result.flow_start_s[2] == pytest.approx(5e-6)


def test_unroutable_and_down_port_flows_never_run() -> None:
    tables = build_tables(n_ports=3, oper_up=[True, True, False])
    flows = Flows.of([0, 0, 1], [1, 2, 0], [0, 0, 1], [-1, 2, 0], 1000)
    result = run(tables, Nics.of([0, 1, 2]), flows, RunConfig(max_time_s=1e-3))
    assert np.isnan(result.flow_finish_s[:2]).all() and np.isnan(result.flow_start_s[:2]).all()
    assert np.isfinite(result.flow_finish_s[2])
    assert result.port_tx_bytes[2] == 0.0


def test_samples_are_on_the_grid_and_coarsened_to_the_cap() -> None:
    tables = build_tables(n_ports=2)
    flows = Flows.of(0, 1, 0, 1, 10_000_000)
    fine = run(tables, Nics.of([0, 1]), flows, RunConfig(max_time_s=1e-3, sample_s=1e-7))
    assert len(fine.series.t) <= 2000
    assert fine.series.t[1] - fine.series.t[0] == pytest.approx(1e-3 / 1999)
    assert fine.series.t[-1] <= fine.sim_time_s
    busy = fine.series.t < fine.flow_finish_s[0] - path_latency()
    # Frames leave at line rate less preamble/IFG while the flow sends (sample inside a step: exact).
    assert fine.series.port_tx_bps[busy & (fine.series.t > 1e-6), 1] == pytest.approx(400e9 * 4160 / 4180)
    assert fine.series.queue_bytes.shape[1:] == (2, 8) and fine.series.pause.shape[1:] == (2, 8)
