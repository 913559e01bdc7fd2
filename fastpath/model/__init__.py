"""The traffic model: RoCE NICs and flows over the compiled switch, with buffers, PFC, ECN/DCQCN,
scheduling, drops and the PFC watchdog; ``run`` returns per-flow outcomes, the switch's counters and
time series.

It is a fluid model with an adaptive step (``engine``): between events every rate is constant and the
state (bytes of each flow held in the switch) is integrated exactly; no packet is an object, so the
cost does not grow with the bytes carried. Modules: ``inputs`` (what runs), ``layout`` (fixed index
arrays), ``rates`` (every rate of one step), ``sched`` (NIC and port sharing), ``buffers`` (pools,
thresholds, headroom), ``pfc`` (pause), ``wred`` (ECN marking), ``dcqcn`` (reaction point), ``nic``
(flow lifecycle, go-back-N), ``watchdog`` (pause storms), ``fluid`` (exact queue integration),
``settle`` (merged flow ends and DCQCN windows, shared by both loops),
``series`` and ``tally`` (outputs). Flows that cross several switches (``Flows.hops``, over tables
merged by ``fastpath.fabric``) run in ``hops`` (``hop_layout``, ``hop_rates``, ``hop_tally``): the same
rules per segment (a flow's bytes inside one switch), chained hop by hop. Each module's docstring
states its approximations.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fastpath.model.engine import simulate
from fastpath.model.hops import simulate_hops
from fastpath.model.inputs import DcqcnParams, FlowHops, Flows, Links, Nics, RunConfig
from fastpath.model.result import Result, Series
from fastpath.tables import Tables


def run(tables: Tables, nics: Nics, flows: Flows, cfg: RunConfig,
        progress: Callable[[float], None] | None = None, links: Links | None = None) -> Result:
    """Simulate ``flows`` between ``nics`` on the switch compiled into ``tables`` for at most
    ``cfg.max_time_s`` (less when every flow has finished); ``progress`` gets the simulated fraction.
    Flows with ``hops`` cross the switches merged into ``tables``, wired by ``links`` (none: no
    switch-to-switch cable)."""
    if flows.hops is None:
        return simulate(tables, nics, flows, cfg, progress)
    if links is None:
        n = tables.ports.n
        links = Links(peer=np.full(n, -1, dtype=np.int32), cable_m=np.zeros(n))
    return simulate_hops(tables, nics, flows, links, cfg, progress)


__all__ = ["DcqcnParams", "FlowHops", "Flows", "Links", "Nics", "Result", "RunConfig", "Series", "run"]
