"""Traffic scenarios for the simulated ASIC, on the management side: the scenario schema and its
checks against a switch's ports (``scenario``, ``hosts``), the request protocol to syncd_sim
(``client``), and the result's presentation (``summary`` tables, ``plot``). The expansion into the
traffic model's flows and the result document are syncd_sim's (``fastpath.workloads``,
``fastpath.report``); this package imports nothing from syncd_sim.
"""
