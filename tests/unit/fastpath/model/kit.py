"""Small builders for the traffic model's tests: an N-to-1 incast on hand-made tables."""

from __future__ import annotations

from typing import Any

import numpy as np

from fastpath.build import build_tables
from fastpath.model import Flows, Nics, Result, RunConfig, run
from fastpath.model.inputs import LIGHT_MPS
from fastpath.tables import Tables

SPEED = 400e9
MTU = 4096
HEADER = 64
IFG = 20
CUT_THROUGH = 600e-9
WIRE_PER_PAYLOAD = (MTU + HEADER + IFG) / MTU


def lossless_row(n_ports: int, queues: tuple[int, ...] = (3, 4)) -> Any:
    """A [n_ports, 8] boolean mask true on ``queues``."""
    row = np.zeros(8, dtype=bool)
    row[list(queues)] = True
    return np.tile(row, (n_ports, 1))


def path_latency(cable_m: float = 5.0) -> float:
    """Cut-through plus the cable at both ends."""
    return CUT_THROUGH + 2 * cable_m / LIGHT_MPS


def incast(n: int, size: int, *, tc: int = 3, tables: Tables | None = None, cable_m: float = 5.0,
           max_time_s: float = 0.05, nics: Nics | None = None, cfg: RunConfig | None = None,
           **flow_kw: Any) -> tuple[Tables, Result]:
    """``n`` senders on ports 1..n each send ``size`` bytes to the host on port 0."""
    tables = tables if tables is not None else build_tables(n_ports=n + 1)
    nics = nics if nics is not None else Nics.of(np.arange(n + 1), cable_m=cable_m)
    senders = np.arange(1, n + 1)
    flows = Flows.of(senders, 0, senders, 0, size, tc=tc, **flow_kw)
    return tables, run(tables, nics, flows, cfg if cfg is not None else RunConfig(max_time_s=max_time_s))


def incast_bound(n: int, size: int, cable_m: float = 5.0) -> float:
    """The analytic completion time of an N-to-1 incast: every byte through one port, plus latency."""
    return n * size * WIRE_PER_PAYLOAD * 8 / SPEED + path_latency(cable_m)
