"""Figures across benchmark runs: one value picked out of each run's nested result, and its median."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any


def at(result: Any, path: Sequence[str]) -> Any:
    """``result[path[0]][path[1]]...``."""
    for step in path:
        result = result[step]
    return result


def median_at(results: Sequence[Any], path: Sequence[str]) -> float:
    """The median over ``results`` of the number at ``path`` in each."""
    return float(statistics.median(float(at(result, path)) for result in results))
