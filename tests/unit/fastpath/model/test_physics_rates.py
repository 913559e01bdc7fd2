"""Physics checks 1, 2, 6, 7: line rate less framing, fair sharing, DWRR weights, strict priority."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.build import build_tables
from fastpath.model import Flows, Nics, RunConfig, run
from fastpath.tables import SCHED_DWRR, SCHED_STRICT
from tests.unit.fastpath.model.kit import HEADER, IFG, MTU, SPEED, path_latency


def test_single_flow_reaches_line_rate_less_framing() -> None:
    tables = build_tables(n_ports=2)
    size = 100 * MTU * 1000  # 409.6 MB: whole packets, so framing is exactly mtu / (mtu + header + ifg)
    result = run(tables, Nics.of([0, 1]), Flows.of(0, 1, 0, 1, size), RunConfig(max_time_s=0.1))
    transfer = result.flow_finish_s[0] - result.flow_start_s[0] - path_latency()
    goodput = size * 8 / transfer
    expected = SPEED * MTU / (MTU + HEADER + IFG)   # 391.96 Gb/s
    # The fluid model is exact here (one flow, constant rate): only float rounding, so 1e-6.
    assert goodput == pytest.approx(expected, rel=1e-6)
    assert result.flow_delivered[0] == pytest.approx(size)
    assert result.flow_dropped[0] == 0.0


def test_two_flows_into_one_port_share_it_fairly() -> None:
    tables = build_tables(n_ports=3)
    size = 200_000_000
    flows = Flows.of([1, 2], 0, [1, 2], 0, size)
    result = run(tables, Nics.of([0, 1, 2]), flows, RunConfig(max_time_s=0.5))
    # Both senders are held to half the port each (PFC) and finish together: each got half.
    # Tolerance 0.5 %: equal content shares are exact; the margin covers the first XOFF transient.
    finish = result.flow_finish_s
    assert finish[0] == pytest.approx(finish[1], rel=5e-3)
    both = 2 * size * (MTU + HEADER + IFG) / MTU * 8 / SPEED
    assert finish.max() == pytest.approx(both + path_latency(), rel=1e-3)
    assert result.flow_dropped.sum() == 0.0


def _two_classes(kind_q3: int, kind_q4: int, weights: tuple[int, int]) -> tuple[float, float]:
    """Sender on port 1 (TC3) and port 2 (TC4) into port 0; bytes each queue sent in 2 ms."""
    n_ports = 3
    kinds = np.full((n_ports, 8), SCHED_DWRR, dtype=np.int8)
    kinds[:, 3], kinds[:, 4] = kind_q3, kind_q4
    weight = np.full((n_ports, 8), 14)
    weight[:, 3], weight[:, 4] = weights
    tables = build_tables(n_ports=n_ports, sched_kind=kinds, sched_weight=weight)
    flows = Flows.of([1, 2], 0, [1, 2], 0, 10**9, tc=[3, 4])
    result = run(tables, Nics.of([0, 1, 2]), flows, RunConfig(max_time_s=2e-3))
    assert result.flow_dropped.sum() == 0.0          # lossless classes: PFC holds the senders
    return float(result.queue_tx_bytes[0, 3]), float(result.queue_tx_bytes[0, 4])


def test_dwrr_three_to_one_splits_the_port_three_to_one() -> None:
    q3, q4 = _two_classes(SCHED_DWRR, SCHED_DWRR, (3, 1))
    # Both queues stay backlogged from the first microsecond (two 400G senders into one 400G port), so
    # the split is the weights' (the first ~0.1 us before both queues hold bytes is 0.005 % of 2 ms): 1 %.
    assert q3 / q4 == pytest.approx(3.0, rel=0.01)
    assert (q3 + q4) * 8 / 2e-3 == pytest.approx(SPEED * (MTU + HEADER) / (MTU + HEADER + IFG), rel=0.01)


def test_strict_priority_starves_the_lower_queue() -> None:
    q3, q4 = _two_classes(SCHED_DWRR, SCHED_STRICT, (15, 1))
    # Queue 4 is strict and always backlogged: queue 3 only gets what moved before queue 4 held bytes,
    # a few bytes at most (less than one 4 KB packet).
    assert q4 > 90e6
    assert q3 < MTU
