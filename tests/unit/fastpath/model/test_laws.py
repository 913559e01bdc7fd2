"""The model's component laws: WRED probability, DCQCN rate law, buffer thresholds, exact queue
integration, the PFC duty cycle."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.build import build_tables
from fastpath.model import DcqcnParams, Flows, Nics, RunConfig, dcqcn, pfc, wred
from fastpath.model.buffers import occupancy, thresholds
from fastpath.model.fluid import contents, decay
from fastpath.model.layout import build_layout

ON = np.array([True])


def test_wred_probability_profile() -> None:
    lo, hi, pmax = np.array([100.0]), np.array([200.0]), np.array([0.2])
    depth = np.array([[50.0], [100.0], [150.0], [200.0], [201.0]])
    p = [float(wred.prob(d, lo, hi, pmax, ON)[0]) for d in depth]
    assert p == pytest.approx([0.0, 0.0, 0.1, 0.2, 1.0])
    assert wred.prob(np.array([150.0]), lo, hi, pmax, np.array([False]))[0] == 0.0
    assert wred.mean_prob(np.array([100.0]), np.array([200.0]), lo, hi, pmax, ON)[0] == pytest.approx(0.1)
    assert wred.kink_time(np.array([50.0]), np.array([10.0]), lo, hi, ON, 1e-9)[0] == pytest.approx(5.0)
    assert wred.kink_time(np.array([150.0]), np.array([-10.0]), lo, hi, ON, 1e-9)[0] == pytest.approx(5.0)


def _dq(rate: float = 400e9) -> dcqcn.DcqcnState:
    return dcqcn.DcqcnState.new(np.array([True]), np.array([rate]), DcqcnParams(), np.random.default_rng(0))


def test_dcqcn_cut_uses_alpha_then_updates_it() -> None:
    params = DcqcnParams()
    st = _dq()
    dcqcn.cut(st, params, np.array([True]), 0.0)
    assert st.rc[0] == pytest.approx(200e9)                      # alpha 1: halve
    assert st.alpha[0] == pytest.approx((1 - params.g) + params.g)
    assert st.rt[0] == pytest.approx(400e9)                      # no clamp before an increase
    # alpha decays by (1 - g) per 50 us without CNP: after 100 us, two periods.
    dcqcn.cut(st, params, np.array([True]), 100e-6)
    alpha = (1 - params.g) ** 2
    assert st.rc[0] == pytest.approx(200e9 * (1 - alpha / 2))
    assert st.next_inc[0] == pytest.approx(100e-6 + params.rate_increase_period_s)


def test_dcqcn_increase_stages() -> None:
    params = DcqcnParams()
    st = _dq()
    dcqcn.cut(st, params, np.array([True]), 0.0)                 # rc 200G, rt 400G
    dcqcn.increase(st, params, np.array([True]))                 # stage 0 < F=1: fast recovery
    assert st.rc[0] == pytest.approx(300e9) and st.rt[0] == pytest.approx(400e9)
    st.rt[0] = 300e9
    dcqcn.increase(st, params, np.array([True]))                 # stage 1 = F: additive, AI x 400/25
    assert st.rt[0] == pytest.approx(300e9 + 5e6 * 16)
    dcqcn.increase(st, params, np.array([True]))                 # stage 2 > F: hyper, HAI x 400/25
    assert st.rt[0] == pytest.approx(300e9 + 5e6 * 16 + 50e6 * 16)
    assert st.rc[0] <= st.rt[0] <= 400e9


def _advance(st: dcqcn.DcqcnState, marks: float, t0: float, t1: float) -> dcqcn.Window:
    return dcqcn.advance(st, DcqcnParams(), ON, np.array([marks]), np.zeros(1), t0, t1)


def test_dcqcn_cnp_needs_marks_and_the_interval() -> None:
    st = _dq()
    budget = float(st.budget[0])
    rate = budget / 2e-6                              # the budget's marks take 2 us
    win = _advance(st, rate, 0.0, 1e-6)
    assert win.state.cnps[0] == 0.0 and win.state.acc[0] == pytest.approx(budget / 2)
    assert st.acc[0] == 0.0                           # ``advance`` leaves its input alone
    st = dcqcn.commit(st, win)
    win = _advance(st, rate, 1e-6, 10e-6)             # the CNP comes at 2 us, inside the window
    st = dcqcn.commit(st, win)
    assert st.cnps[0] == 1.0 and st.rc[0] == pytest.approx(200e9)
    assert st.alpha_t[0] == pytest.approx(2e-6) and st.cnp_ok[0] == pytest.approx(52e-6)
    assert win.first == pytest.approx(2e-6)
    # The step's cap is the mean Rc: 400G for 1 us, then 200G for 8 us.
    assert win.mean_rc[0] == pytest.approx((1 * 400e9 + 8 * 200e9) / 9)
    st = dcqcn.commit(st, _advance(st, 1e12, 10e-6, 50e-6))    # marks galore, but within 50 us: no CNP
    assert st.cnps[0] == 1.0
    win = _advance(st, 1e12, 50e-6, 60e-6)            # the interval is over at 52 us: CNP at once
    assert win.state.cnps[0] == 2.0 and win.first == pytest.approx(52e-6, abs=1e-9)


def test_dcqcn_timer_increases_between_cnps() -> None:
    params = DcqcnParams()
    st = _dq()
    dcqcn.cut(st, params, np.array([True]), 0.0)                 # rc 200G, rt 400G, timer at 55 us
    win = _advance(st, 0.0, 0.0, 120e-6)                         # no marks: timer increases at 55 and 110 us
    assert win.state.stage[0] == 2
    assert win.state.rc[0] == pytest.approx(350e9)               # (400 + 200) / 2, then (400 + 300) / 2
    assert win.state.next_inc[0] == pytest.approx(165e-6)
    assert win.first == pytest.approx(55e-6)
    assert win.mean_rc[0] == pytest.approx((55 * 200e9 + 55 * 300e9 + 10 * 350e9) / 120)


def test_dcqcn_window_ends_at_the_first_event_beyond_its_limit() -> None:
    st = _dq()
    win = _advance(st, 1e12, 0.0, 1e-3)               # a CNP every 50 us: 20 in the millisecond
    assert win.state.cnps[0] == dcqcn.MAX_EVENTS + 1
    assert win.end == pytest.approx(dcqcn.MAX_EVENTS * 50e-6, abs=1e-9)


def _layout(**overrides: object) -> object:
    tables = build_tables(n_ports=2, **overrides)
    return build_layout(tables, Nics.of([0, 1]), Flows.of(0, 1, 0, 1, 1000), RunConfig(max_time_s=1.0))


def test_dynamic_threshold_is_alpha_times_free_pool() -> None:
    lay = _layout(pg_dynamic_th=-1)
    used = np.array([65_660_324.0, 0.0, 0.0])
    pg_th, q_th = thresholds(lay, used)  # type: ignore[arg-type]
    assert pg_th[3] == pytest.approx(0.5 * 100_000_000)          # lossless PG 3: alpha 1/2 x free
    assert np.isinf(pg_th[0])                                     # lossy PG: static_th >= pool: no limit
    assert np.isinf(q_th[3])                                      # lossless queue likewise
    assert q_th[1] == pytest.approx(165_660_324)                  # lossy queue: alpha 1 x free egress pool
    assert np.isinf(pg_th[1])                                     # no profile


def test_headroom_split_and_shared_headroom_pool() -> None:
    lay = _layout()
    content = np.array([1e6])
    paused = np.zeros(16, dtype=bool)
    paused[3] = True                       # the flow enters on port 0, PG 3
    frozen = np.full(16, np.inf)
    frozen[3] = 900_000.0
    occ = occupancy(lay, content, paused, frozen)  # type: ignore[arg-type]
    frame = 1e6 * (4096 + 64) / (4096 + 84)
    assert occ.pg[3] == pytest.approx(frame)
    assert occ.pg_shared[3] == pytest.approx(900_000)
    assert occ.pg_head[3] == pytest.approx(frame - 18_796 - 900_000)
    assert occ.room[3] == pytest.approx(612_140 - occ.pg_head[3])
    assert occ.pool_head[0] == pytest.approx(occ.pg_head[3])
    assert occ.q_buf[8 + 3] == pytest.approx(frame)            # the same bytes in port 1's queue 3


def test_exact_queue_integration_matches_fine_euler() -> None:
    q0 = np.array([1000.0])
    b0 = np.array([600.0, 400.0, 0.0])
    adm = np.array([10.0, 0.0, 30.0])
    qid = np.zeros(3, dtype=np.int64)
    serve = np.array([25.0])
    dt = 30.0
    q1, rho = decay(q0, np.array([40.0]), serve, dt)
    exact = contents(b0, adm, qid, q0, q1, np.array([40.0]), rho)
    b = b0.copy()
    n = 300_000
    for _ in range(n):
        b += (adm - serve[0] * b / b.sum()) * dt / n
    assert q1[0] == pytest.approx(1000.0 + 15.0 * dt)
    assert exact.sum() == pytest.approx(q1[0])
    assert exact == pytest.approx(b, rel=1e-4)


def test_queue_draining_to_empty_keeps_shares() -> None:
    q1, rho = decay(np.array([100.0]), np.array([0.0]), np.array([10.0]), 10.0)
    assert q1[0] == 0.0
    b = contents(np.array([30.0, 70.0]), np.zeros(2), np.zeros(2, dtype=np.int64), np.array([100.0]), q1,
                 np.array([0.0]), rho)
    assert b == pytest.approx([0.0, 0.0])


def test_pfc_duty_cycle_period_and_loss() -> None:
    lay = _layout()
    n = len(lay.pg_port)  # type: ignore[attr-defined]
    demand, drain = np.full(n, 50e9), np.full(n, 10e9)
    period, lost = pfc.cycle(demand, drain, lay, np.full(n, 1e9))  # type: ignore[arg-type]
    d, on = lay.pause_delay[3], lay.resume_delay[3]  # type: ignore[attr-defined]
    rise = 40e9 * d
    expected = d + (rise + 3556) / 10e9 + on + (3556 + 10e9 * on) / 40e9
    assert period[3] == pytest.approx(expected)
    assert lost[3] == 0.0
    # The average rate over a cycle equals the drain: the sender sends at 50G during D and the refill.
    assert 50e9 * (d + (3556 + 10e9 * on) / 40e9) / period[3] == pytest.approx(10e9, rel=1e-9)
    _, lost = pfc.cycle(demand, drain, lay, np.full(n, 10_000.0))  # type: ignore[arg-type]
    assert lost[3] == pytest.approx(rise - 10_000.0)


def test_shared_headroom_pool_bounds_the_room() -> None:
    lay = _layout(pool_xoff=[200_000, 0])
    paused = np.zeros(16, dtype=bool)
    paused[3] = True
    frozen = np.full(16, np.inf)
    frozen[3] = 900_000.0
    occ = occupancy(lay, np.array([1e6]), paused, frozen)  # type: ignore[arg-type]
    assert occ.room[3] == pytest.approx(200_000 - occ.pg_head[3])   # the pool's 200 KB, not pg_xoff


def test_a_delivered_message_is_exactly_its_payload() -> None:
    """A 1 MB message of 4096-byte packets ends in a short packet: counting it at the full packets'
    payload share once made every flow deliver 70.7 bytes more than it sent."""
    from tests.unit.fastpath.model.kit import incast

    _, result = incast(4, 1_000_000)
    assert np.allclose(result.flow_delivered, 1_000_000, rtol=0, atol=1e-6)
