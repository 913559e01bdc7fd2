"""Physics check: the model never beats the wire. No flow ends before its bytes can have crossed the
slowest link on its path, and no set of flows into one port ends before the port can have sent all of
their bytes (issue 16: flow ends were merged up to 1 % of a flow's age early)."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.build import build_tables
from fastpath.model import Flows, Nics, Result, RunConfig, run
from fastpath.model.inputs import LIGHT_MPS
from fastpath.tables import F64, Tables

# Float rounding only: the model's times are sums of many step lengths (1e-9 relative = 1.3 ps in 1.3 ms).
ROUNDING = 1e-9


def _wire(flows: Flows, cfg: RunConfig) -> F64:
    size, mtu = flows.size.astype(np.float64), flows.mtu.astype(np.float64)
    return np.asarray(size + np.ceil(size / mtu) * (cfg.header_bytes + cfg.ifg_bytes))


def _shortfalls(tables: Tables, nics: Nics, flows: Flows, cfg: RunConfig, result: Result) -> list[tuple[str, float]]:
    """Every analytic bound the result misses, with how much earlier than the bound it ended (s).

    * A flow on its own: start + its wire bytes at the slowest of its NIC, ingress and egress port
      + its path latency (cable in, cut-through, cable out).
    * The flows into one port that start at or after ``t`` (each ``t`` a start time): the last of them
      ends no sooner than ``t`` + all their wire bytes at the port's speed + the smallest path latency
      among them (the port can send nothing of theirs before ``t``).
    Retransmitted bytes only add to these, so the bounds hold with losses too."""
    wire = _wire(flows, cfg)
    speed = tables.ports.speed_bps.astype(np.float64)
    d_in, d_out = nics.cable_m[flows.src] / LIGHT_MPS, nics.cable_m[flows.dst] / LIGHT_MPS
    latency = d_in + cfg.cut_through_s + d_out
    slowest = np.minimum(np.minimum(nics.speed_bps[flows.src], speed[flows.in_port]), speed[flows.out_port])
    finish, start = result.flow_finish_s, flows.start_s
    missed = []
    own = start + wire * 8 / slowest + latency
    for i in np.flatnonzero(finish < own - ROUNDING * own):
        missed.append((f"flow {i} alone", float(own[i] - finish[i])))
    for port in np.unique(flows.out_port):
        into = np.flatnonzero(flows.out_port == port)
        for t in np.unique(start[into]):
            group = into[start[into] >= t]
            bound = t + wire[group].sum() * 8 / speed[port] + latency[group].min()
            last = float(finish[group].max())
            if last < bound - ROUNDING * bound:
                missed.append((f"{len(group)} flows into port {port} from {t * 1e6:g} us", bound - last))
    return missed


def _random_incast(seed: int, lossless: bool) -> tuple[Tables, Nics, Flows, RunConfig]:
    """2-16 senders of 10 KB-3 MB each into one port, at 100/200/400G, cables of 1-50 m, a few start
    times; half the cases with tight buffers, so lossless PGs pause (PG alpha 1/64) and lossy queues drop
    and resend (queue alpha 1/8; tighter, go-back-N resends so much that few flows finish)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 17))
    speeds = rng.choice([100e9, 200e9, 400e9], n + 1)
    tight = (dict(pg_dynamic_th=-6) if lossless else dict(q_dynamic_th=-3)) if rng.integers(2) else {}
    tables = build_tables(n_ports=n + 1, speed_bps=speeds, **tight)
    nics = Nics.of(np.arange(n + 1), speed_bps=speeds, cable_m=rng.uniform(1.0, 50.0, n + 1))
    senders = np.arange(1, n + 1)
    start = rng.choice([0.0, 1e-6, 5e-6, 20e-6], n) * rng.integers(0, 3, n)
    tc, pg = (3, 3) if lossless else (1, 0)     # AZURE: TC3 lossless on PG 3, TC1 lossy on PG 0
    flows = Flows.of(senders, 0, senders, 0, rng.integers(10_000, 3_000_000, n), tc=tc, pg=pg, start_s=start)
    return tables, nics, flows, RunConfig(max_time_s=0.2)


@pytest.mark.parametrize("lossless", [True, False], ids=["lossless", "lossy"])
def test_random_incasts_never_beat_the_line_rate_bounds(lossless: bool) -> None:
    paused = dropped = 0
    for seed in range(12):
        tables, nics, flows, cfg = _random_incast(seed, lossless)
        result = run(tables, nics, flows, cfg)
        assert np.isfinite(result.flow_finish_s).all(), seed
        assert _shortfalls(tables, nics, flows, cfg, result) == [], seed
        paused += int(result.pfc_tx_frames.sum() > 0)
        dropped += int(result.flow_dropped.sum() > 0)
    # The draw covers what it claims: lossless cases that pause, lossy cases that drop and resend.
    assert paused > 0 if lossless else dropped > 0


def test_64_to_1_incast_of_1mb_ends_at_the_line_rate_bound() -> None:
    """Issue 16's case: 64 x 1 MB into one 400G port on lossless TC3 with the RoCE intent's ECN
    (150 KB / 1.5 MB / 100 %) and DCQCN. DCQCN staggers the senders' ends, which the model used to merge
    up to 1 % of a flow's age early (the last flow ended 9 us before the bound). The egress port is busy
    from the first byte to the last, so the last flow ends at the bound; 0.5 % above it is the most a
    merged end may add here."""
    ecn = np.zeros((65, 8), dtype=bool)
    ecn[:, 3] = True
    tables = build_tables(n_ports=65, wred_ecn=ecn, wred_min=150_000, wred_max=1_500_000, wred_prob=1.0)
    nics = Nics.of(np.arange(65))
    senders = np.arange(1, 65)
    flows = Flows.of(senders, 0, senders, 0, 1_000_000, tc=3, dcqcn=True)
    cfg = RunConfig(max_time_s=0.05)
    result = run(tables, nics, flows, cfg)
    assert result.flow_dropped.sum() == 0.0
    bound = _wire(flows, cfg).sum() * 8 / 400e9 + cfg.cut_through_s + 2 * 5.0 / LIGHT_MPS   # 1306.99 us
    last = float(np.max(result.flow_finish_s - result.flow_start_s))
    assert bound * (1 - ROUNDING) <= last <= bound * 1.005
    assert _shortfalls(tables, nics, flows, cfg, result) == []
