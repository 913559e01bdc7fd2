"""The dynamic buffer model's headroom formula (pure), as SONiC's swss cfgmgr/buffer_headroom_mellanox.lua
computes it (the virtual switch uses the same plugin; docs: SONiC doc/qos/dynamically-headroom-calculation.md).

For one lossless PG of a port running at ``speed`` Mb/s over ``cable`` metres with port MTU ``port_mtu``:

* peer response = pause quanta x 512 / 8 bytes, quanta by speed from IEEE 802.3 31B.3.7 (10G 67, 25G 80,
  40G 118, 50G 147, 100G 394, 200G 453, 400G/800G 905); other speeds use the ASIC's ``peer_response_time``;
* worst-case factor = cell / 64 when the cell is larger than 128 bytes, else 2 * cell / (1 + cell);
  cell occupancy = (100 - p + p * factor) / 100 with p the small-packet percentage;
* bytes on cable = 2 * cable * speed * 1e9 / 198e6 / (8 * 1024); on a gearbox = speed * delay / (8 * 1024);
* propagation = port MTU + cable + 2 * gearbox + mac_phy_delay + peer response;
* xoff = lossless MTU + propagation * occupancy, xon = pipeline latency, both rounded up to 1 KiB;
* size = xon when a shared headroom pool is used (ingress_lossless_pool ``xoff`` or an over-subscribe
  ratio), else xoff + xon (+ port MTU on an 8-lane port, whose pipeline latency doubles less 1 KiB);
  rounded up to 1 KiB.

The ASIC constants are in KiB (STATE_DB ``ASIC_TABLE``); results are bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

PAUSE_QUANTA = {800000: 905, 400000: 905, 200000: 453, 100000: 394, 50000: 147, 40000: 118, 25000: 80,
                10000: 67, 1000: 2, 100: 1}
SPEED_OF_LIGHT = 198_000_000  # metres per second in the cable
MINIMAL_PACKET = 64
KB = 1024


@dataclass(frozen=True)
class AsicConstants:
    """STATE_DB ``ASIC_TABLE|<vendor>``: cell size (bytes) and delays (KiB)."""

    cell_size: int
    pipeline_latency: float
    mac_phy_delay: float
    peer_response_time: float


@dataclass(frozen=True)
class TrafficPattern:
    """CONFIG_DB ``LOSSLESS_TRAFFIC_PATTERN``: lossless MTU and small-packet percentage."""

    mtu: int = 1024
    small_packet_percentage: int = 100


@dataclass(frozen=True)
class Headroom:
    """A lossless PG's thresholds and reserved size, in bytes."""

    xon: int
    xoff: int
    size: int


def _ceil_kb(value: float) -> int:
    return math.ceil(value / KB) * KB


def parse_cable(text: str) -> float:
    """``"5m"`` -> 5.0; raises ValueError for anything else."""
    if not text.endswith("m") or not text[:-1].replace(".", "", 1).isdecimal():
        raise ValueError(f"cable length {text!r} is not like '5m'")
    return float(text[:-1])


def compute_headroom(speed: int, cable_m: float, port_mtu: int, asic: AsicConstants, pattern: TrafficPattern,
                     shared_headroom: bool, gearbox_delay_ns: float = 0, lanes: int = 4) -> Headroom:
    """The headroom of one lossless PG (see the module docstring)."""
    pipeline = asic.pipeline_latency * KB
    overhead = 0
    if lanes == 8:
        pipeline = pipeline * 2 - KB
        overhead = port_mtu
    cell = asic.cell_size
    factor = cell / MINIMAL_PACKET if cell > 2 * MINIMAL_PACKET else (2 * cell) / (1 + cell)
    p = pattern.small_packet_percentage
    occupancy = (100 - p + p * factor) / 100
    quanta = PAUSE_QUANTA.get(speed)
    peer_response = quanta * 512 / 8 if quanta is not None else asic.peer_response_time * KB
    on_gearbox = speed * gearbox_delay_ns / (8 * KB) if gearbox_delay_ns else 0
    on_cable = 2 * cable_m * speed * 1_000_000_000 / SPEED_OF_LIGHT / (8 * KB)
    propagation = port_mtu + on_cable + 2 * on_gearbox + asic.mac_phy_delay * KB + peer_response
    xoff = _ceil_kb(pattern.mtu + propagation * occupancy)
    xon = _ceil_kb(pipeline)
    size = _ceil_kb(xon if shared_headroom else xoff + xon + overhead)
    return Headroom(xon, xoff, size)


def pg_count(pg_range: str) -> int:
    """``"3-4"`` -> 2, ``"6"`` -> 1."""
    lo, _, hi = pg_range.partition("-")
    return int(hi or lo) - int(lo) + 1


def port_headroom(pgs: Iterable[tuple[str, int]]) -> int:
    """The headroom a port's lossless PGs reserve: sum of size x PGs over (range, profile size)."""
    return sum(size * pg_count(pg_range) for pg_range, size in pgs)
