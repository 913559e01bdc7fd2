"""Physics checks 3, 4, 8: a lossless incast pauses and loses nothing at the analytic completion time,
the same incast on a lossy queue drops, and PFC headroom against what is in flight on the cable."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.build import LOSSLESS_PG_XOFF, build_tables
from fastpath.model import Flows, Nics, RunConfig, run
from fastpath.model.inputs import LIGHT_MPS
from tests.unit.fastpath.model.kit import SPEED, incast, incast_bound

N = 32
SIZE = 10_000_000      # 320 MB in all: more than TH5's 165.7 MB pool, so the PGs must reach XOFF


def test_lossless_incast_pauses_loses_nothing_and_ends_at_the_bound() -> None:
    tables, result = incast(N, SIZE)
    assert result.flow_dropped.sum() == 0.0
    assert result.pg_drop_pkts.sum() == 0 and result.queue_drop_pkts.sum() == 0
    senders = np.arange(1, N + 1)
    assert (result.pfc_tx_frames[senders, 3] > 0).all()       # every sender's ingress port paused it
    assert (result.pfc_tx_pause_s[senders, 3] > 0).all()
    assert result.pfc_tx_frames[0].sum() == 0                  # the receiver's port never did
    assert np.isfinite(result.flow_finish_s).all()
    # The bound: N x size x wire/payload x 8 / speed + path latency, within 1 %. (The model
    # keeps the egress port busy from the first byte to the last, so it is in fact within 0.01 %.)
    assert np.nanmax(result.flow_finish_s) == pytest.approx(incast_bound(N, SIZE), rel=0.01)
    # Each sender's PG held at its XOFF point, with the first overshoot in headroom below pg_xoff.
    assert (result.pg_max_headroom[senders, 3] > 0).all()
    assert (result.pg_max_headroom[senders, 3] < LOSSLESS_PG_XOFF).all()


def test_same_incast_on_a_lossy_queue_drops() -> None:
    tables, result = incast(N, SIZE, tc=1, pg=0)    # AZURE: TC1 is lossy (PG 0, queue 1, no PFC)
    assert result.queue_drop_pkts[0, 1] > 0
    assert result.flow_dropped.sum() > 0
    assert result.flow_retransmitted.sum() >= result.flow_dropped.sum() * 0.99   # go-back-N resends them
    assert result.pfc_tx_frames.sum() == 0
    # The lossy queue is tail-dropped at its dynamic limit: alpha 1 x free egress pool, about half of it.
    pool = float(tables.buffers.pool_size[1])
    assert result.queue_max_bytes[0, 1] == pytest.approx(pool / 2, rel=0.01)
    assert np.isfinite(result.flow_finish_s).all()   # retransmission completes every flow


def _in_flight(cable_m: float, n_senders: int) -> float:
    """What reaches a paused PG after XOFF: the rate it fills at (line less its drain share) times the
    pause delay (max frame, cable both ways, the peer's 905 quanta at 400G)."""
    delay = 9100 * 8 / SPEED + 2 * cable_m / LIGHT_MPS + 905 * 512 / SPEED
    return SPEED / 8 * (1 - 1 / n_senders) * delay


def _headroom_run(cable_m: float, pg_xoff: int) -> tuple[float, float]:
    n = 8
    xoff = np.zeros((n + 1, 8), dtype=np.int64)
    xoff[:, 3] = pg_xoff
    # alpha 1/8 so the XOFF point comes soon; 8 x 20 MB forces PFC (each PG's XOFF point ~10 MB).
    tables = build_tables(n_ports=n + 1, pg_xoff=xoff, pg_dynamic_th=-3)
    _, result = incast(n, 20_000_000, tables=tables, cable_m=cable_m)
    assert result.pfc_tx_frames[1:, 3].sum() > 0
    return float(result.flow_dropped.sum()), float(result.pg_max_headroom[1:, 3].max())


def test_headroom_that_covers_the_cable_loses_nothing() -> None:
    headroom = 80_000               # about SONiC's textbook 5 m figure (77 KiB) for 400G
    assert _in_flight(5.0, 8) < headroom
    dropped, used = _headroom_run(5.0, headroom)
    assert dropped == 0.0
    # The headroom used is what was in flight, within 5 % (the drain share moves a little meanwhile).
    assert used == pytest.approx(_in_flight(5.0, 8), rel=0.05)


def test_too_little_headroom_for_a_long_cable_loses_on_the_lossless_pg() -> None:
    headroom = 80_000               # a 5 m profile on a 300 m cable
    assert _in_flight(300.0, 8) > headroom
    dropped, used = _headroom_run(300.0, headroom)
    assert dropped > 0.0
    assert used == pytest.approx(headroom, rel=1e-3)   # headroom full


def test_tiny_pg_xoff_loses_even_on_a_short_cable() -> None:
    dropped, _ = _headroom_run(5.0, 10_000)
    assert dropped > 0.0


def test_a_nic_that_ignores_pause_overruns_its_headroom() -> None:
    n = 8
    tables = build_tables(n_ports=n + 1, pg_dynamic_th=-3)
    honours = np.ones(n + 1, dtype=bool)
    honours[1] = False
    nics = Nics.of(np.arange(n + 1), honours_pause=honours)
    senders = np.arange(1, n + 1)
    flows = Flows.of(senders, 0, senders, 0, 20_000_000)
    result = run(tables, nics, flows, RunConfig(max_time_s=0.05))
    assert result.pg_drop_pkts[1, 3] > 0                 # the rogue sender's PG lost bytes
    assert result.pg_drop_pkts[2:, 3].sum() == 0         # the obedient senders did not
    assert result.flow_dropped[0] > 0 and result.flow_dropped[1:].sum() == 0


def test_pause_time_and_frames_follow_the_duty_cycle() -> None:
    _, result = incast(N, SIZE)
    step = result.series.t[1] - result.series.t[0]
    paused_for = result.series.pause[:, 1, 3].sum() * step
    # Sliding mode: each sender is stopped 1 - drain/line of the time, drain = line / N. The paused span
    # is read off the samples (+-1 sample of 25 us over ~3 ms): 3 %.
    assert result.pfc_tx_pause_s[1, 3] == pytest.approx(paused_for * (1 - 1 / N), rel=0.03)
    # Frames: an XOFF and an XON per cycle. By hand: the PG overshoots by (line - drain) x D during the
    # pause delay D, drains that plus the 3,556 B XON offset at the drain rate, waits the XON's delay and
    # refills at line - drain. Within 5 % (the sampled span, and the first XOFF's own transient).
    line = SPEED / 8 * 4160 / 4180
    drain = line / N
    delay = 9100 * 8 / SPEED + 2 * 5 / LIGHT_MPS + 905 * 512 / SPEED
    resume = 9100 * 8 / SPEED + 2 * 5 / LIGHT_MPS
    period = (delay + ((line - drain) * delay + 3556) / drain + resume
              + (3556 + drain * resume) / (line - drain))
    assert result.pfc_tx_frames[1, 3] == pytest.approx(2 * paused_for / period, rel=0.05)
