"""DCQCN inside the stepping loop: events taken at their own times in windows of steps (``settle``)."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.build import build_tables
from fastpath.model import Flows, Nics, Result, RunConfig, run

KMIN, KMAX = 150_000, 1_500_000          # the RoCE intent's ECN profile, 100 % at Kmax


def _incast(n: int, size: int, seed: int = 0, **cfg: float) -> Result:
    ecn = np.zeros((n + 1, 8), dtype=bool)
    ecn[:, 3] = True
    tables = build_tables(n_ports=n + 1, wred_ecn=ecn, wred_min=KMIN, wred_max=KMAX, wred_prob=1.0)
    senders = np.arange(1, n + 1)
    flows = Flows.of(senders, 0, senders, 0, size, tc=3, dcqcn=True)
    return run(tables, Nics.of(np.arange(n + 1)), flows, RunConfig(max_time_s=0.05, seed=seed, **cfg))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_first_cnp_follows_the_marks_as_the_queue_passes_kmin(seed: int) -> None:
    """Two senders at 400G into one 400G port: the queue rises at 50 GB/s and p at 1 / 27 us past
    Kmin, so each flow (~6e6 packets/s) has received b expected marks after sqrt(2 b x 27 us / 6e6/s)
    = 3 us x sqrt(b); its Exp(1) budget b is below 10 but with probability e^-10, so both flows have
    cut (and 2 x 200G no longer fills the queue) before it is 150 KB + 50 GB/s x 9.5 us = 625 KB. The
    old loop predicted the CNP from the marks at the step's start, none at Kmin, so the step that
    began there ran to Kmax and the first CNP came at 1.5 MB (the same loop with 2 us steps peaked at
    250-320 KB)."""
    result = _incast(2, 20_000_000, seed)
    t = result.series.t
    first = result.series.queue_bytes[t < 100e-6, 0, 3]
    assert KMIN < first.max() < 625_000
    assert result.pfc_tx_frames.sum() == 0 and result.flow_dropped.sum() == 0.0


def test_many_dcqcn_flows_do_not_take_a_step_each() -> None:
    """64 senders x 10 MB with ECN and DCQCN (the benchmark's incast-10MB-dcqcn on 65 ports): every
    flow has a CNP or a timer increase every ~50 us at its own phase, so a step per event (on the old
    5 us grid) meant a step per 5 us (2,984 steps for 13.8 ms). Windows of 25 us bound that part at
    a step per 25 us; with the PFC and buffer events of the first millisecond (64 PGs pausing and
    resuming) it stays below a step per 10 us."""
    result = _incast(64, 10_000_000)
    assert result.flow_dropped.sum() == 0.0
    assert result.steps < result.sim_time_s / 10e-6


def test_windows_converge_to_the_events_own_times() -> None:
    """The window spreads each rate change over at most ``dcqcn_window_s``; with 1 us windows a change
    takes effect within 1 us of its time. 32 senders x 4 MB (the queue stays above Kmax: a CNP every
    50 us): the default 25 us windows and 1 us windows agree on the mean flow completion time (the
    mean of two seeds: the draws differ per seed by ~2 %) within 3 %, on the last one (the line-rate
    bound) to float rounding, and on the marks within 1 %."""
    coarse = [_incast(32, 4_000_000, seed) for seed in (0, 1)]
    fine = [_incast(32, 4_000_000, seed, dcqcn_window_s=1e-6) for seed in (0, 1)]

    def fct(results: list[Result]) -> float:
        return float(np.mean([(r.flow_finish_s - r.flow_start_s).mean() for r in results]))

    assert fct(coarse) == pytest.approx(fct(fine), rel=0.03)
    assert max(r.sim_time_s for r in coarse) == pytest.approx(max(r.sim_time_s for r in fine), rel=1e-9)
    marks = [sum(float(r.queue_ecn_marked_pkts.sum()) for r in rs) for rs in (coarse, fine)]
    assert marks[0] == pytest.approx(marks[1], rel=0.01)
    assert sum(r.steps for r in coarse) * 4 < sum(r.steps for r in fine)
