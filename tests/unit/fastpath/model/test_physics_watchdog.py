"""Physics check 9: a pause storm from a NIC, detected by the PFC watchdog, whose action applies."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.build import build_tables
from fastpath.model import Flows, Nics, Result, RunConfig, run
from fastpath.tables import WD_ALERT, WD_DROP, WD_FORWARD

START, END = 100e-6, 2e-3
DETECT, RESTORE = 500e-6, 300e-6


def _storm(action: int | None) -> Result:
    """Hosts on ports 1 and 2 send to the host on port 0, which storms pause on priority 3."""
    n_ports = 3
    enabled = np.zeros((n_ports, 8), dtype=bool)
    if action is not None:
        enabled[0, 3] = True
    # alpha 1/8: each sender's PG pauses at ~16.6 MB, which the stopped queue backs up to in ~330 us.
    tables = build_tables(n_ports=n_ports, enabled=enabled, detection_s=DETECT, restoration_s=RESTORE,
                          action=action if action is not None else WD_DROP, pg_dynamic_th=-3)
    nics = Nics.of([0, 1, 2], storm_start_s=[START, np.nan, np.nan], storm_end_s=[END, np.nan, np.nan],
                   storm_priority=3)
    flows = Flows.of([1, 2], 0, [1, 2], 0, 40_000_000)
    return run(tables, nics, flows, RunConfig(max_time_s=10e-3))


def _tx_during(result: Result, lo: float, hi: float) -> float:
    t = result.series.t
    return float(result.series.port_tx_bps[(t > lo) & (t < hi), 0].mean())


def test_storm_detected_after_detection_time_and_drop_applies() -> None:
    result = _storm(WD_DROP)
    assert [e[1:] for e in result.watchdog_events] == [(0, 3, "storm"), (0, 3, "restore")]
    assert [e[0] for e in result.watchdog_events] == pytest.approx([START + DETECT, END + RESTORE])
    assert _tx_during(result, START + 1e-6, START + DETECT - 1e-6) == 0.0     # the queue is stopped
    assert result.queue_drop_pkts[0, 3] > 0                                     # drop action discards
    assert _tx_during(result, START + DETECT + 1e-6, END + RESTORE - 1e-6) == 0.0
    assert result.pfc_rx_pause_s[0, 3] == pytest.approx(END - START)            # pause received, all storm
    assert result.pfc_rx_frames[0, 3] > 0
    assert result.pfc_tx_frames[1, 3] > 0                                       # backpressure to the senders
    assert np.isfinite(result.flow_finish_s).all()                              # recovered after restore


def test_forward_action_transmits_through_the_storm() -> None:
    result = _storm(WD_FORWARD)
    assert [e[3] for e in result.watchdog_events] == ["storm", "restore"]
    assert _tx_during(result, START + 1e-6, START + DETECT - 1e-6) == 0.0
    # After detection the queue ignores the pause and runs at line rate less framing (within 1 %).
    assert _tx_during(result, START + DETECT + 5e-6, END) == pytest.approx(400e9 * 4160 / 4180, rel=0.01)
    assert result.queue_drop_pkts.sum() == 0 and result.flow_dropped.sum() == 0.0


def test_alert_action_and_no_watchdog_leave_the_queue_stuck() -> None:
    for action in (WD_ALERT, None):
        result = _storm(action)
        assert [e[3] for e in result.watchdog_events] == (["storm", "restore"] if action is not None else [])
        assert _tx_during(result, START + 1e-6, END - 1e-6) == 0.0
        assert result.flow_dropped.sum() == 0.0
