"""A traffic run's time series (the result document's ``series``) drawn into a PNG with matplotlib's Agg
canvas (no display, no pyplot global state): queue depth, port transmit rates and PFC pauses over time,
one panel each.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

DPI = 110


def time_axis(seconds: list[float]) -> tuple[list[float], str]:
    """Times in the unit that suits the run's length (us up to 5 ms, then ms)."""
    scale, unit = (1e3, "ms") if seconds and seconds[-1] > 5e-3 else (1e6, "us")
    return [v * scale for v in seconds], unit


def _queues(axes: Any, t: list[float], series: Mapping[str, Any]) -> None:
    axes.plot(t, [v / 1e6 for v in series["queue_bytes_total"]], color="black", lw=1.5, label="all queues")
    for line in series["queue_bytes"]:
        axes.plot(t, [v / 1e6 for v in line["values"]], lw=1, label=f"{line['port']} q{line['queue']}")
    axes.set_ylabel("queue depth (MB)")


def _rates(axes: Any, t: list[float], series: Mapping[str, Any]) -> None:
    for line in series["tx_bps"]:
        axes.plot(t, [v / 1e9 for v in line["values"]], lw=1, label=line["port"])
    axes.set_ylabel("transmit rate (Gb/s)")


def _pauses(axes: Any, t: list[float], series: Mapping[str, Any]) -> None:
    for line in series["pause"]:
        axes.plot(t, line["values"], lw=1, drawstyle="steps-post", label=f"{line['port']} prio {line['priority']}")
    axes.set_ylabel("switch sends pause\n(share of interval)")
    axes.set_ylim(-0.05, 1.05)


def draw(doc: Mapping[str, Any], path: str | Path) -> Path:
    """Write the run's plot to ``path`` (PNG); the path written."""
    series = doc["series"]
    t, unit = time_axis(series["t_s"])
    figure = Figure(figsize=(10, 9))
    FigureCanvasAgg(figure)
    panels = figure.subplots(3, 1, sharex=True)
    for axes, draw_panel in zip(panels, (_queues, _rates, _pauses), strict=True):
        draw_panel(axes, t, series)
        axes.grid(True, alpha=0.3)
        if axes.get_legend_handles_labels()[0]:
            axes.legend(loc="upper right", fontsize="small", ncol=2)
    panels[-1].set_xlabel(f"simulated time ({unit})")
    figure.suptitle(f"{doc['scenario']['name']}: queue depth, rates and pauses")
    figure.tight_layout()
    out = Path(path)
    figure.savefig(out, dpi=DPI, format="png")
    return out


__all__ = ["draw"]
