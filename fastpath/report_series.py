"""The model's time series, down-sampled for the result JSON and its plot (pure).

At most ``POINTS`` samples survive: each kept point covers a window of consecutive samples and takes
the window's maximum for queue depth (so no peak is lost), its mean for rates and the paused share of
the window for pauses. Only the ``TOP`` busiest lines of each kind are kept (deepest queues, busiest
ports, longest-paused port/priority pairs), plus the total buffered bytes of all queues.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

POINTS = 400
TOP = 8

F64 = npt.NDArray[np.float64]


def windows(n: int, points: int = POINTS) -> npt.NDArray[np.int64]:
    """Start index of each window covering 0..n-1 (at most ``points`` windows)."""
    count = min(n, points)
    return np.unique(np.linspace(0, n, count, endpoint=False).astype(np.int64)) if n else np.zeros(0, np.int64)


def reduce(values: Any, starts: npt.NDArray[np.int64], how: str) -> F64:
    """``values`` [T, ...] reduced over time windows starting at ``starts`` (max or mean)."""
    array = np.asarray(values, dtype=np.float64)
    if len(starts) == 0:
        return np.zeros((0,) + array.shape[1:])
    if how == "max":
        return np.maximum.reduceat(array, starts, axis=0)
    sums = np.add.reduceat(array, starts, axis=0)
    sizes = np.diff(np.append(starts, len(array))).reshape((-1,) + (1,) * (array.ndim - 1))
    return sums / sizes


def rounded(values: F64, digits: int = 4) -> list[float]:
    """Values with ``digits`` significant digits (a compact JSON)."""
    return [float(f"{v:.{digits}g}") for v in values.tolist()]


def top_lines(peaks: F64, limit: int = TOP) -> list[tuple[int, ...]]:
    """Indices of the ``limit`` largest non-zero entries of ``peaks``, largest first."""
    flat = np.argsort(-peaks, axis=None, kind="stable")[:limit]
    return [tuple(int(i) for i in np.unravel_index(f, peaks.shape)) for f in flat if peaks.flat[f] > 0]


def series_json(series: Any, port_names: Sequence[str]) -> dict[str, Any]:
    """``{"t_s", "queue_bytes_total", "queue_bytes": [...], "tx_bps": [...], "pause": [...]}``."""
    t = np.asarray(series.t, dtype=np.float64)
    starts = windows(len(t))
    queue = np.asarray(series.queue_bytes, dtype=np.float64)
    tx = np.asarray(series.port_tx_bps, dtype=np.float64)
    pause = np.asarray(series.pause, dtype=np.float64)
    q_win = reduce(queue, starts, "max")
    tx_win = reduce(tx, starts, "mean")
    pause_win = reduce(pause, starts, "mean")
    total = reduce(queue.reshape(len(t), -1).sum(axis=1), starts, "max") if len(t) else np.zeros(0)
    out: dict[str, Any] = {"t_s": rounded(t[starts], 6) if len(t) else [], "queue_bytes_total": rounded(total)}
    out["queue_bytes"] = [{"port": port_names[p], "queue": q, "values": rounded(q_win[:, p, q])}
                          for p, q in top_lines(queue.max(axis=0) if len(t) else np.zeros(queue.shape[1:]))]
    out["tx_bps"] = [{"port": port_names[p], "values": rounded(tx_win[:, p])}
                     for (p,) in top_lines(tx.mean(axis=0) if len(t) else np.zeros(tx.shape[1:]))]
    out["pause"] = [{"port": port_names[p], "priority": prio, "values": rounded(pause_win[:, p, prio], 3)}
                    for p, prio in top_lines(pause.mean(axis=0) if len(t) else np.zeros(pause.shape[1:]))]
    return out


__all__ = ["POINTS", "TOP", "series_json", "windows"]
