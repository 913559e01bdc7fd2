"""NIC water-filling and the port scheduler (strict, DWRR)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fastpath.model.sched import BIG, fair_share, port_service


def test_fair_share_water_fills_with_caps() -> None:
    caps = np.array([1.0, 5.0, 5.0, 2.0, 0.0])
    group = np.array([0, 0, 0, 1, 1])
    rates = fair_share(caps, group, np.array([9.0, 10.0]))
    assert rates == pytest.approx([1.0, 4.0, 4.0, 2.0, 0.0])


def test_fair_share_several_levels() -> None:
    caps = np.array([1.0, 2.0, 3.0, 100.0, 100.0])
    rates = fair_share(caps, np.zeros(5, dtype=np.int64), np.array([20.0]))
    assert rates == pytest.approx([1.0, 2.0, 3.0, 7.0, 7.0])
    assert rates.sum() == pytest.approx(20.0)


def _one_port(demand: list[float], strict: list[bool], weight: list[float], cap: float = 100.0) -> Any:
    return port_service(np.array([demand]), np.array([cap]), np.array([strict]), np.array([weight]))[0]


def test_dwrr_splits_by_weight_when_backlogged() -> None:
    served = _one_port([BIG, BIG, 0.0], [False] * 3, [3.0, 1.0, 5.0])
    assert served == pytest.approx([75.0, 25.0, 0.0])


def test_dwrr_gives_what_a_light_queue_leaves_to_the_others() -> None:
    served = _one_port([10.0, BIG, BIG], [False] * 3, [1.0, 1.0, 2.0])
    assert served == pytest.approx([10.0, 30.0, 60.0])


def test_strict_first_highest_index_first() -> None:
    served = _one_port([BIG, 30.0, BIG, 0.0], [False, True, True, False], [1.0] * 4)
    assert served == pytest.approx([0.0, 0.0, 100.0, 0.0])
    served = _one_port([BIG, 30.0, 50.0, 0.0], [False, True, True, False], [1.0] * 4)
    assert served == pytest.approx([20.0, 30.0, 50.0, 0.0])


def test_work_conserving_and_never_more_than_demand() -> None:
    rng = np.random.default_rng(3)
    demand = np.where(rng.random((50, 8)) < 0.3, BIG, rng.random((50, 8)) * 40)
    strict = rng.random((50, 8)) < 0.2
    weight = rng.integers(1, 20, (50, 8)).astype(float)
    cap = np.full(50, 100.0)
    served = port_service(demand, cap, strict, weight)
    assert (served <= demand + 1e-9).all()
    assert served.sum(axis=1) == pytest.approx(np.minimum(cap, demand.sum(axis=1)))
