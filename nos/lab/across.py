"""A lab traffic run across a change (pure): what the change is, what it does to the cables at once,
and the loss window seen by polling the switches' tables while their control planes react.

``nos lab traffic run SCENARIO --across CHANGE`` makes the change at ``t0`` and, until the lab has
settled, takes every switch's tables again and again. Each take is routed as the scenario's flows
would be (``fastpath.fabric.route``) over those tables *and the physical truth*: a port that lost its
carrier is down from ``t0`` whatever its switch has noticed yet (a cut cable, a shut port and its far
end, every port facing a killed switch), and a killed switch is gone. The loss window is the time
from ``t0`` until a take delivers every flow that the take before the change delivered; a take sees
the tables at some moment between its start and its end, so the window is known between the start of
the last losing take and the end of the first whole one (``LossWindow``). Changes, in words:

* ``shutdown NODE:PORT`` / ``startup NODE:PORT``: the port's admin status, as ``config interface``;
* ``link down|up A:PORT B:PORT``: the cable, as ``nos lab link``;
* ``kill NODE``: the whole switch (SIGKILL; the lab restarts it), ``kill NODE DAEMON``: one daemon
  (e.g. ``iccpd``: the MC-LAG keepalive lost; the switch restarts it).

Model simplification (README, Labs): the control plane's reaction is measured on the real daemons in
wall-clock time, the data plane inside the window is the tables of before the change with the dead
ports dead (flows hashed onto them are lost), and the bytes lost are what those flows' senders would
put on the wire in the window at the rate they had before (a workload that keeps sending).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from fastpath.tables import Tables
from nos.lab.links import find_link
from nos.lab.model import Endpoint, Topology
from nos.runtime.status import MODULES

SHUTDOWN, STARTUP, LINK_DOWN, LINK_UP, KILL = "shutdown", "startup", "link down", "link up", "kill"
USAGE = ("shutdown NODE:PORT | startup NODE:PORT | link down|up A:PORT B:PORT | kill NODE [DAEMON]")


@dataclass(frozen=True)
class Change:
    """One change made at ``t0``: ``kind`` and its ends (a port, or a link's two) or node (and daemon)."""

    kind: str
    ends: tuple[Endpoint, ...] = ()
    node: str = ""
    daemon: str = ""

    def __str__(self) -> str:
        if self.kind == KILL:
            return f"kill {self.node}" + (f" {self.daemon}" if self.daemon else "")
        return f"{self.kind} {' '.join(str(e) for e in self.ends)}"


def parse_change(text: str, topo: Topology) -> Change:
    """``text`` in the words above; ValueError naming what is wrong (the node, the port, the link)."""
    words = shlex.split(text)
    switches = {n.name for n in topo.switches()}
    if not words:
        raise ValueError(f"--across: empty change (one of: {USAGE})")
    verb = words[0]
    if verb in (SHUTDOWN, STARTUP) and len(words) == 2:
        end = Endpoint.parse(words[1])
        if end.node not in switches:
            raise ValueError(f"--across {text!r}: no switch {end.node!r} in lab {topo.name!r}")
        return Change(verb, (end,))
    if verb == "link" and len(words) == 4 and words[1] in ("down", "up"):
        link = find_link(topo, words[2], words[3])
        return Change(f"link {words[1]}", (link.a, link.b))
    if verb == KILL and len(words) in (2, 3):
        if words[1] not in switches:
            raise ValueError(f"--across {text!r}: no switch {words[1]!r} in lab {topo.name!r}")
        daemon = words[2] if len(words) == 3 else ""
        if daemon and daemon not in MODULES:
            raise ValueError(f"--across {text!r}: no daemon {daemon!r} (one of: {', '.join(MODULES)})")
        return Change(KILL, node=words[1], daemon=daemon)
    raise ValueError(f"--across {text!r}: not a change (one of: {USAGE})")


def dead_ports(changes: Iterable[Change], topo: Topology) -> dict[str, set[str]]:
    """The switch ports without carrier from ``t0`` on, by switch: a shut port and the far end of its
    cable, both ends of a cut link, every switch port cabled to a killed switch. (A host's link is
    seen from its switch's port: a bonded host stops sending on a dead one at once, as its carrier
    loss tells it.) Ports coming up are not here: they carry nothing until their switch says up."""
    dead: dict[str, set[str]] = {}
    for change in changes:
        ends: list[Endpoint] = []
        if change.kind == SHUTDOWN:
            far = topo.peer(change.ends[0].node, change.ends[0].port)
            ends = [change.ends[0], *([far] if far else [])]
        elif change.kind == LINK_DOWN:
            ends = list(change.ends)
        elif change.kind == KILL and not change.daemon:
            ends = [e for link in topo.links for e, other in ((link.a, link.b), (link.b, link.a))
                    if other.node == change.node]
        for end in ends:
            dead.setdefault(end.node, set()).add(end.port)
    return dead


def unknown_targets(changes: Iterable[Change], ports: Mapping[str, Sequence[str]]) -> list[str]:
    """What the changes name that the running lab does not have (``ports``: each running switch's port
    names): a switch not running, a port it has not got. Checked before anything is run or changed."""
    problems = []
    for change in changes:
        for end in change.ends if change.kind in (SHUTDOWN, STARTUP) else ():
            if end.node not in ports:
                problems.append(f"--across {change}: {end.node} is not running")
            elif end.port not in ports[end.node]:
                problems.append(f"--across {change}: {end.node} has no port {end.port!r}")
        if change.kind == KILL and change.node not in ports:
            problems.append(f"--across {change}: {change.node} is not running")
    return problems


def killed_switches(changes: Iterable[Change]) -> set[str]:
    return {c.node for c in changes if c.kind == KILL and not c.daemon}


def with_dead_ports(tables: Mapping[str, Tables], dead: Mapping[str, set[str]]) -> dict[str, Tables]:
    """Each switch's tables with its ``dead`` ports oper down (the rest as they are)."""
    out = {}
    for name, t in tables.items():
        gone = dead.get(name, set())
        if not gone:
            out[name] = t
            continue
        oper = np.array(t.ports.oper_up, dtype=bool)
        oper[[i for i, port in enumerate(t.ports.names) if port in gone]] = False
        out[name] = replace(t, ports=replace(t.ports, oper_up=oper))
    return out


@dataclass(frozen=True)
class Take:
    """One look at the lab after ``t0``: when it started and ended (seconds after ``t0``) and how many
    of the flows that ran before the change it did not deliver (None: a switch did not answer)."""

    start_s: float
    end_s: float
    lost: int | None


@dataclass(frozen=True)
class LossWindow:
    """From the takes: ``upper_s`` (the end of the first take after which every take delivered all;
    0 when none lost any), ``lower_s`` (the start of the last take that lost flows: the window is at
    least this long), the takes that lost flows, the most flows one take lost, and whether the lab
    ended whole (``restored``)."""

    upper_s: float
    lower_s: float
    losing_takes: int
    most_lost: int
    takes: int
    restored: bool


def loss_window(takes: Sequence[Take]) -> LossWindow:
    answered = [t for t in takes if t.lost is not None]
    losing = [t for t in answered if t.lost]
    restored = bool(answered) and not answered[-1].lost
    if not losing:
        return LossWindow(0.0, 0.0, 0, 0, len(takes), restored)
    last = max(losing, key=lambda t: t.start_s)
    after = [t for t in answered if t.start_s > last.start_s]
    upper = min((t.end_s for t in after), default=answered[-1].end_s)
    return LossWindow(upper, last.start_s, len(losing), max(t.lost or 0 for t in losing), len(takes), restored)


def lost_bytes(size: np.ndarray, start_s: np.ndarray, finish_s: np.ndarray, lost: np.ndarray, window_s: float) -> int:
    """What the ``lost`` flows' senders put on the wire in ``window_s`` at the rate each had before the
    change (its size over its time from start to finish in the run before); a flow that never
    finished before counts at its whole size."""
    took = finish_s - start_s
    rate = np.where(np.isfinite(took) & (took > 0), size / np.where(took > 0, took, 1.0), np.nan)
    offered = np.where(np.isnan(rate), size, rate * window_s)
    return int(round(float(np.sum(offered[lost]))))
