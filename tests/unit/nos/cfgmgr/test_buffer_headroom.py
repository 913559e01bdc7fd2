"""The dynamic model's headroom formula on plain numbers (buffer_headroom_mellanox.lua)."""

from __future__ import annotations

import pytest

from nos.cfgmgr.buffer_headroom import (
    AsicConstants,
    Headroom,
    TrafficPattern,
    compute_headroom,
    parse_cable,
    pg_count,
    port_headroom,
)

SPECTRUM = AsicConstants(cell_size=144, pipeline_latency=18, mac_phy_delay=0.8, peer_response_time=3.8)


@pytest.mark.parametrize(("speed", "cable", "expected"), [
    # reference/model-defaults.md 2.2, evaluated for 400G, MTU 9100, cell 144
    (400000, 5, Headroom(18432, 159744, 178176)),
    (400000, 40, Headroom(18432, 198656, 217088)),
    (400000, 300, Headroom(18432, 487424, 505856)),
    (100000, 5, Headroom(18432, 81920, 100352)),
    (100000, 300, Headroom(18432, 163840, 182272)),
    (50000, 5, Headroom(18432, 46080, 64512)),
])
def test_headroom_by_speed_and_cable(speed: int, cable: int, expected: Headroom) -> None:
    assert compute_headroom(speed, cable, 9100, SPECTRUM, TrafficPattern(), shared_headroom=False) == expected


def test_shared_headroom_pool_reserves_only_xon() -> None:
    head = compute_headroom(400000, 5, 9100, SPECTRUM, TrafficPattern(), shared_headroom=True)
    assert (head.xoff, head.size) == (159744, 18432)


def test_smaller_mtu_needs_less_headroom_and_unknown_speed_uses_the_asic_response_time() -> None:
    big = compute_headroom(100000, 5, 9100, SPECTRUM, TrafficPattern(), False)
    small = compute_headroom(100000, 5, 1500, SPECTRUM, TrafficPattern(), False)
    assert small.xoff < big.xoff
    odd = compute_headroom(75000, 5, 9100, SPECTRUM, TrafficPattern(), False)
    assert odd.xoff % 1024 == 0 and odd.xon == 18432


def test_small_cells_use_the_other_worst_case_factor_and_8_lanes_add_overhead() -> None:
    small_cell = AsicConstants(96, 18, 0.8, 3.8)
    assert compute_headroom(100000, 5, 9100, small_cell, TrafficPattern(), False).xoff < 81920
    eight = compute_headroom(100000, 5, 9100, SPECTRUM, TrafficPattern(), False, lanes=8)
    assert eight.xon == 36864 - 1024 and eight.size == 81920 + 35840 + 9216


def test_helpers() -> None:
    assert parse_cable("300m") == 300.0
    with pytest.raises(ValueError):
        parse_cable("300")
    assert (pg_count("3-4"), pg_count("6")) == (2, 1)
    assert port_headroom([("3-4", 100), ("6", 50)]) == 250
