"""Pause storms from NICs and the PFC watchdog that detects them.

A NIC with ``storm_start_s`` <= t < ``storm_end_s`` sends continuous pause on ``storm_priority`` to its
switch port; if the port honours pause on that priority (``pfc_rx``), the egress queue mapped to it
(``pfc_priority_to_queue``) stops. With the watchdog enabled on that queue, the storm is detected
``detection_s`` after it began (if it lasts that long) and the action applies until ``restoration_s``
after it ended: ``drop`` discards what the queue holds and everything that arrives for it, ``forward``
transmits ignoring the pause, ``alert`` only records the event. Events are ``(time, port, queue,
"storm" | "restore")``.

Approximations, stated: detection needs only the pause (SONiC's detection script also checks that the
queue holds packets and sent none, which a stopped queue with traffic does), and it is not rounded to
the watchdog's polling interval. Received pause frames are counted at the storming NIC's refresh
rate, one every half of ``storm_refresh_quanta``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fastpath.model.inputs import Nics, RunConfig
from fastpath.model.layout import QUANTUM_BITS, Layout
from fastpath.tables import F64, I64, N_TC, WD_DROP, WD_FORWARD, B


@dataclass
class Storms:
    """Storm and watchdog timings per NIC, the received-pause counters, and flushes due."""

    start: F64
    end: F64
    detect: F64          # watchdog action begins (inf: never)
    restore: F64         # watchdog action ends
    qid: I64             # stopped queue (-1: the port ignores this pause)
    frame_rate: F64      # pause frames per second received while storming
    rx_frames: F64       # [P, 8]
    rx_pause_s: F64      # [P, 8]
    flushed: B           # per NIC: the drop action's flush has been done
    events: list[tuple[float, int, int, str]] = field(default_factory=list)


def plan_storms(lay: Layout, nics: Nics, cfg: RunConfig) -> Storms:
    """Every storm's detection and restoration times, known from the start."""
    start = np.where(np.isfinite(nics.storm_start_s), nics.storm_start_s, np.inf)
    end = np.where(np.isfinite(nics.storm_end_s), nics.storm_end_s, np.inf)
    qid = lay.storm_qid
    safe = np.maximum(qid, 0)
    watched = (qid >= 0) & lay.wd_enabled[safe]
    detect = np.where(watched & (end > start + lay.wd_detect[safe]), start + lay.wd_detect[safe], np.inf)
    restore = np.where(np.isfinite(detect), end + lay.wd_restore[safe], np.inf)
    speed = lay.port_cap[lay.storm_port] * 8.0
    rate = 2.0 / (max(cfg.storm_refresh_quanta, 1) * QUANTUM_BITS / speed)
    z = np.zeros((lay.n_ports, N_TC))
    return Storms(start=start, end=end, detect=detect, restore=restore, qid=qid, frame_rate=rate,
                  rx_frames=z.copy(), rx_pause_s=z.copy(), flushed=np.zeros(len(qid), dtype=bool))


@dataclass(frozen=True)
class QueueControl:
    """What storms and the watchdog do to each queue during a step."""

    stalled: B | None    # cannot transmit (None: no queue)
    dropping: B | None   # discards arrivals, the watchdog's drop action (None: no queue)


def control(lay: Layout, storms: Storms, now: float) -> QueueControl:
    """Queue effects in force from ``now`` until the next storm event."""
    n_q = lay.n_ports * lay.n_queues
    storming = (storms.start <= now) & (now < storms.end) & (storms.qid >= 0)
    acting = (storms.detect <= now) & (now < storms.restore)
    action = lay.wd_action[np.maximum(storms.qid, 0)]
    overridden = acting & ((action == WD_DROP) | (action == WD_FORWARD))
    stalled = np.zeros(n_q, dtype=bool)
    stalled[storms.qid[storming & ~overridden]] = True
    dropping = np.zeros(n_q, dtype=bool)
    dropping[storms.qid[acting & (action == WD_DROP)]] = True
    return QueueControl(stalled=stalled if stalled.any() else None, dropping=dropping if dropping.any() else None)


def next_event(storms: Storms, now: float) -> float:
    """Time of the next storm start or end, detection or restoration after ``now``."""
    times = np.concatenate([storms.start, storms.end, storms.detect, storms.restore])
    later = times[times > now + 1e-15]
    return float(later.min()) if len(later) else np.inf


def account(lay: Layout, storms: Storms, t0: float, t1: float) -> None:
    """Received pause time and frames for the part of [t0, t1) each NIC was storming."""
    overlap = np.maximum(np.minimum(storms.end, t1) - np.maximum(storms.start, t0), 0.0)
    np.add.at(storms.rx_pause_s, (lay.storm_port, lay.storm_prio), overlap)
    np.add.at(storms.rx_frames, (lay.storm_port, lay.storm_prio), overlap * storms.frame_rate)


def record(lay: Layout, storms: Storms, now: float) -> B:
    """Log detections and restorations reached by ``now``; the NICs whose drop action starts now
    (their queue must be flushed)."""
    action = lay.wd_action[np.maximum(storms.qid, 0)]
    port = lay.storm_port
    queue = np.maximum(storms.qid, 0) % lay.n_queues
    for i in np.flatnonzero((storms.detect <= now + 1e-15) & ~storms.flushed):
        storms.events.append((float(storms.detect[i]), int(port[i]), int(queue[i]), "storm"))
    flush = (storms.detect <= now + 1e-15) & ~storms.flushed & (action == WD_DROP)
    storms.flushed |= storms.detect <= now + 1e-15
    restored = (storms.restore <= now + 1e-15) & np.isfinite(storms.restore)
    for i in np.flatnonzero(restored):
        storms.events.append((float(storms.restore[i]), int(port[i]), int(queue[i]), "restore"))
    storms.restore[restored] = np.inf
    storms.detect[restored] = np.inf
    return np.asarray(flush)
