"""Compiling the PFC watchdog settings per queue from the PFC_WD flex-counter rows that
``syncd_sim.pfcwd`` holds (queue oid -> PFC_WD_DETECTION_TIME / PFC_WD_RESTORATION_TIME in ms,
PFC_WD_ACTION). A queue without a row is not watched; a missing time is 0 s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from fastpath.tables import WD_ALERT, WD_DROP, WD_FORWARD, WatchdogTables
from fastpath.values import as_int

ACTIONS = {"drop": WD_DROP, "forward": WD_FORWARD, "alert": WD_ALERT}


def compile_watchdog(queue_oids: Sequence[Sequence[str]], n_queues: int,
                     rows: Mapping[str, Mapping[str, str]]) -> WatchdogTables:
    n = len(queue_oids)
    enabled = np.zeros((n, n_queues), dtype=bool)
    detection = np.zeros((n, n_queues))
    restoration = np.zeros((n, n_queues))
    action = np.full((n, n_queues), WD_DROP, dtype=np.int8)
    for p, queues in enumerate(queue_oids):
        for i, oid in enumerate(queues[:n_queues]):
            row = rows.get(oid)
            if row is None:
                continue
            enabled[p, i] = True
            detection[p, i] = as_int(row, "PFC_WD_DETECTION_TIME") / 1000
            restoration[p, i] = as_int(row, "PFC_WD_RESTORATION_TIME") / 1000
            action[p, i] = ACTIONS.get(row.get("PFC_WD_ACTION", "drop"), WD_DROP)
    return WatchdogTables(enabled=enabled, detection_s=detection, restoration_s=restoration, action=action)
