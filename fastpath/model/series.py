"""Time series for plots: samples on a fixed grid, filled from each step's start and end state.

Within a step every rate is constant, so a queue's depth moves linearly between the step's two ends and
a sample inside the step is the interpolation (no step is taken for a sample). The grid is coarsened
so that at most ``max_samples`` samples cover ``max_time_s``; the result is cut at the run's end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fastpath.model.result import Series
from fastpath.tables import F64, N_TC, B


@dataclass
class Sampler:
    """Preallocated sample arrays and the sampling interval."""

    every: float
    queue: F64      # [T, P, Q]
    tx_bps: F64     # [T, P]
    pause: B        # [T, P, 8]

    @classmethod
    def new(cls, max_time_s: float, sample_s: float, max_samples: int, n_ports: int, n_queues: int) -> Sampler:
        every = max(sample_s, max_time_s / max(max_samples - 1, 1))
        n = min(int(math.floor(max_time_s / every + 1e-9)) + 1, max_samples)
        return cls(every=every, queue=np.zeros((n, n_ports, n_queues)), tx_bps=np.zeros((n, n_ports)),
                   pause=np.zeros((n, n_ports, N_TC), dtype=bool))

    def _span(self, t0: float, t1: float) -> tuple[int, int]:
        lo = int(math.ceil(t0 / self.every - 1e-9))
        return lo, min(int(math.ceil(t1 / self.every - 1e-9)), len(self.queue))

    def due(self, t0: float, t1: float) -> bool:
        """Whether a sample falls in [t0, t1): the stepping loops compute a step's port rates and pause
        map for the samples only then (most steps are shorter than the sampling interval)."""
        lo, hi = self._span(t0, t1)
        return hi > lo

    def fill(self, t0: float, t1: float, depth0: F64, depth1: F64, tx_bps: F64, pause: B) -> None:
        """Samples with t0 <= t < t1 (sample 0 at t = 0 included), from one step's ends and rates."""
        lo, hi = self._span(t0, t1)
        if hi <= lo:
            return
        times = np.arange(lo, hi) * self.every
        frac = ((times - t0) / max(t1 - t0, 1e-30))[:, None, None]
        shape = self.queue.shape[1:]
        self.queue[lo:hi] = depth0.reshape(shape)[None] + frac * (depth1 - depth0).reshape(shape)[None]
        self.tx_bps[lo:hi] = tx_bps[None]
        self.pause[lo:hi] = pause[None]

    def series(self, end_s: float) -> Series:
        """The samples up to ``end_s``."""
        n = min(int(math.floor(end_s / self.every + 1e-9)) + 1, len(self.queue))
        return Series(t=np.arange(n, dtype=np.float64) * self.every, queue_bytes=self.queue[:n],
                      port_tx_bps=self.tx_bps[:n], pause=self.pause[:n])
