"""The traffic model: RoCE NICs and flows over the compiled switch, with buffers, PFC, ECN/DCQCN,
scheduling, drops and the PFC watchdog; ``run`` returns per-flow outcomes, the switch's counters and
time series.

It is a fluid model with an adaptive step (``engine``): between events every rate is constant and the
state (bytes of each flow held in the switch) is integrated exactly; no packet is an object, so the
cost does not grow with the bytes carried. Modules: ``inputs`` (what runs), ``layout`` (fixed index
arrays), ``rates`` (every rate of one step), ``sched`` (NIC and port sharing), ``buffers`` (pools,
thresholds, headroom), ``pfc`` (pause), ``wred`` (ECN marking), ``dcqcn`` (reaction point), ``nic``
(flow lifecycle, go-back-N), ``watchdog`` (pause storms), ``fluid`` (exact queue integration),
``series`` and ``tally`` (outputs). Each module's docstring states its approximations.
"""

from __future__ import annotations

from collections.abc import Callable

from fastpath.model.engine import simulate
from fastpath.model.inputs import DcqcnParams, Flows, Nics, RunConfig
from fastpath.model.result import Result, Series
from fastpath.tables import Tables


def run(tables: Tables, nics: Nics, flows: Flows, cfg: RunConfig,
        progress: Callable[[float], None] | None = None) -> Result:
    """Simulate ``flows`` between ``nics`` on the switch compiled into ``tables`` for at most
    ``cfg.max_time_s`` (less when every flow has finished); ``progress`` gets the simulated fraction."""
    return simulate(tables, nics, flows, cfg, progress)


__all__ = ["DcqcnParams", "Flows", "Nics", "Result", "RunConfig", "Series", "run"]
