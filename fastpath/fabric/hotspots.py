"""The fabric's hot spots from a run (pure): the links that were paused and the queues that marked or
held the most, each named by switch and port in that switch's own terms.

A pause is charged to the link it stops: the PG on port p of switch B that sends pause stops the
egress of the port wired to it (a peer switch's port, or the host's NIC), so a ``HotSpot`` of kind
``paused`` names the sending side (``switch``:``port``) and the pausing side (``by``). A ``queue`` hot
spot is an egress port with its ECN marks, drops and deepest queue summed over its queues.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.fabric.result import FabricResult


@dataclass(frozen=True)
class HotSpot:
    kind: str            # "paused" (the link's sender was held) or "queue" (an egress port's queues)
    switch: str          # the switch (or host) whose egress it is
    port: str
    by: str              # paused: "switch:port" (or host) that sent the pause; queue: the port's peer
    pause_s: float       # time held paused, summed over priorities
    pause_frames: float
    ecn_marked_pkts: float
    drop_pkts: float
    max_queue_bytes: float


def _names(r: FabricResult) -> tuple[list[str], list[str]]:
    """Per merged port: (switch name, port name)."""
    sw, port = [], []
    for name, tables in r.fabric.switches:
        sw += [name] * tables.ports.n
        port += list(tables.ports.names)
    return sw, port


def _end(r: FabricResult, p: int, sw: list[str], port: list[str]) -> tuple[str, str]:
    """What is at the other end of merged port ``p``: (switch or host, port or "nic")."""
    peer = int(r.wiring.peer[p])
    if peer >= 0:
        return sw[peer], port[peer]
    host = int(r.wiring.host_at[p])
    return (r.fabric.hosts[host].name, "nic") if host >= 0 else ("", "")


def hotspots(r: FabricResult, top: int = 10) -> list[HotSpot]:
    """The ``top`` most paused links, then the ``top`` ports whose queues marked, dropped or held most."""
    res = r.result
    sw, port = _names(r)
    pause_s = res.pfc_tx_pause_s.sum(axis=1)
    frames = res.pfc_tx_frames.sum(axis=1)
    out: list[HotSpot] = []
    for p in np.argsort(-pause_s, kind="stable")[:top]:
        if pause_s[p] <= 0:
            break
        sender, sender_port = _end(r, int(p), sw, port)
        out.append(HotSpot("paused", sender, sender_port, f"{sw[p]}:{port[p]}", float(pause_s[p]),
                           float(frames[p]), 0.0, 0.0, 0.0))
    marks = res.queue_ecn_marked_pkts.sum(axis=1)
    drops = res.queue_drop_pkts.sum(axis=1)
    depth = res.queue_max_bytes.max(axis=1)
    order = np.lexsort((-depth, -drops, -marks))
    for p in order[:top]:
        if marks[p] <= 0 and drops[p] <= 0 and depth[p] <= 0:
            break
        peer, peer_port = _end(r, int(p), sw, port)
        out.append(HotSpot("queue", sw[p], port[p], f"{peer}:{peer_port}", 0.0, 0.0, float(marks[p]),
                           float(drops[p]), float(depth[p])))
    return out
