"""``nos lab traffic run SCENARIO --across CHANGE``: the run before, the change, the loss window while
the switches react, the runs during and after it (``nos.lab.across`` says what each means).

``run_across`` takes the lab's tables (the run before), makes the changes at ``t0`` (in this process:
a CONFIG_DB transaction on the node, the lab's cut list, a signal), then takes the tables of every
switch still running again and again (``export_all`` with ``applied=False``: each as its ASIC held it
at one moment, mid-change), routing the scenario's flows over each take with the dead ports dead
(and the LACP system ids the hosts' partners sent, ``nos.lab.lacp``), for at least
``observe_s`` and until a take delivers every flow the run before delivered (or ``timeout_s``). Three
model runs: before (the tables before: its counters and the MACs it taught go to the switches before
the change, as that traffic would have left them), during (the same tables with the change's dead
ports: what the data plane does until its control plane reacts; the MACs the hosts' next frames teach
are handed over at ``t0``) and after (the last take, once settled: its counters and MACs at the end). For
each MC-LAG pair, the time until every MAC one peer's hosts taught it is known to the other.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import redis

from fastpath.fabric import Fabric, FabricResult, find_hops, wire
from fastpath.fabric.route import learnt_macs
from fastpath.tables import Tables
from fastpath.values import mac_text
from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.lab import across, lacp
from nos.lab.errors import TopologyError
from nos.lab.exchange import LabExchangeError, export_all, import_all
from nos.lab.fabric_run import FabricRun, lab_fabric, split_bonds, updates_by_switch
from nos.lab.labdir import LabDir
from nos.lab.lacp import read_system_ids
from nos.lab.links import find_link, link_id
from nos.lab.model import Topology
from nos.lab.scenario import LabScenario
from nos.runtime.liveness import children_by_module
from nos.runtime.status import MODULES
from nos.schema.dbconfig import STATE_DB
from nos.traffic.exchange import Exported

TAKE_TIMEOUT_S = 10.0
MAC_SYNC_POLL_S = 0.01
MAC_TABLES = ("FDB_TABLE", "MCLAG_REMOTE_FDB_TABLE")   # the peer's own MACs, and those synced to it
Runner = Callable[[Fabric], tuple[FabricResult, dict[str, Any]]]


class ChangeFailed(RuntimeError):
    """The change could not be made (the message says which and why); nothing was changed by it."""


class UnknownTarget(ChangeFailed):
    """A change names a switch that is not running or a port it has not got (found before any run)."""


def default_observe_s(topo: Topology) -> float:
    """Long enough to see an MC-LAG peer give up on a silent session: its timeout and a second."""
    return max([2.0, *(pair.session_timeout + 1.0 for pair in topo.mclag)])


def make_change(here: LabDir, topo: Topology, change: across.Change) -> None:
    """Make one change now (see ``nos.lab.across``)."""
    if change.kind in (across.SHUTDOWN, across.STARTUP):
        _admin(here, change)
    elif change.kind in (across.LINK_DOWN, across.LINK_UP):
        name = link_id(find_link(topo, str(change.ends[0]), str(change.ends[1])))
        cuts = here.cuts()
        here.write_cuts(cuts | {name} if change.kind == across.LINK_DOWN else cuts - {name})
    else:
        _kill(here, change)


def _admin(here: LabDir, change: across.Change) -> None:
    from nos.cli.edits.common import Refused
    from nos.cli.edits.interface import set_admin_status
    from nos.config.transaction import commit
    from nos.db import ConfigDBConnector
    from nos.schema.dbconfig import CONFIG_DB

    end = change.ends[0]
    url = (here.run_dir(end.node).endpoints() or {}).get("redis")
    if not url:
        raise ChangeFailed(f"{change}: {end.node} is not running")
    dbs = Databases(url)
    try:
        status = "down" if change.kind == across.SHUTDOWN else "up"
        commit(ConfigDBConnector(dbs[CONFIG_DB]), lambda config: set_admin_status(config, end.port, status))
    except (Refused, DbError, ValueError) as exc:
        raise ChangeFailed(f"{change}: {exc}") from None
    finally:
        dbs.close()


def _kill(here: LabDir, change: across.Change) -> None:
    pid = here.run_dir(change.node).supervisor_pid()
    if pid is None:
        raise ChangeFailed(f"{change}: {change.node} is not running")
    if change.daemon:
        child = children_by_module(pid).get(MODULES[change.daemon])
        if child is None:
            raise ChangeFailed(f"{change}: {change.node} runs no {change.daemon}")
        pid = child.pid
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        raise ChangeFailed(f"{change}: process {pid} is gone already") from None


@dataclass
class Look:
    """What one take routed: its tables (overlaid with the dead ports), the LACP system ids the hosts'
    partners sent (``nos.lab.lacp``) and which flows it delivered."""

    tables: dict[str, Tables]
    lacp: dict[tuple[str, str], str]
    delivered: np.ndarray
    split: list[str]          # hosts whose bond's partners disagreed (``fabric_run.split_bonds``)


def route(topo: Topology, tables: Mapping[str, Tables], lab: LabScenario, planned: FabricRun,
          dead: Mapping[str, set[str]], lacp: dict[tuple[str, str], str]) -> Look:
    """The flows' delivery over ``tables`` with the ``dead`` ports dead (no host left: none delivered)."""
    seen = across.with_dead_ports(tables, dead)
    try:
        fabric = lab_fabric(topo, seen, lab, lacp)
    except TopologyError:
        return Look(seen, lacp, np.zeros(planned.flows.n, dtype=bool), [])
    f = planned.flows
    hops = find_hops(fabric, wire(fabric), f.src.astype(np.int64), f.dst.astype(np.int64), f.dscp, f.l4_src)
    return Look(seen, lacp, hops.delivered, split_bonds(topo, seen, lacp))


@dataclass
class Observed:
    takes: list[across.Take]
    whole: dict[str, Tables] | None      # the last take, when it delivered all
    whole_lacp: dict[tuple[str, str], str]
    observed_s: float                    # from t0 to the end of the last take
    split_takes: int                     # takes in which some host's bond was split (LACP partners disagreed)


def observe(nodes: Mapping[str, Mapping[str, Any]], t0: float, observe_s: float, timeout_s: float,
            look: Callable[[Mapping[str, Tables], dict[tuple[str, str], str]], Look], expected: np.ndarray,
            lost_at_t0: int, paired: Mapping[str, Mapping[str, Any]]) -> Observed:
    """Takes from ``t0`` (epoch seconds) on (``nodes``: the switches still running; each as its ASIC was
    at the moment syncd_sim forked to compile it, or at the take's start when unchanged since the last
    take), for ``observe_s`` and until one delivers all ``expected`` flows, at most ``timeout_s``. A
    take spans its switches' moments. The first is the change itself: the tables before it with its
    dead ports (``lost_at_t0`` flows lost)."""
    takes: list[across.Take] = [across.Take(0.0, 0.0, lost_at_t0)]
    whole: dict[str, Tables] | None = None
    whole_lacp: dict[tuple[str, str], str] = {}
    split = 0
    last: dict[str, Exported] = {}
    seen: Look | None = None
    versions: list[tuple[str, str]] = []
    while True:
        start = time.time()
        try:
            ids = read_system_ids(paired)           # first: the exports' moments are right after it
            last = export_all(nodes, timeout_s=TAKE_TIMEOUT_S, applied=False, since=last)
            now = sorted((n, e.version) for n, e in last.items())
            if seen is None or now != versions or not all(v for _, v in now) or ids != seen.lacp:
                seen, versions = look({n: e.tables for n, e in last.items()}, ids), now   # else: as before
            lost: int | None = int(np.sum(expected & ~seen.delivered))
            moments = [e.at or start for e in last.values()]      # when each switch's tables held
            first, end = min(moments), max(moments)
        except LabExchangeError:
            lost = None           # a switch busy restarting a daemon: not a look at the data plane
            first = end = time.time()
        takes.append(across.Take(first - t0, end - t0, lost))
        split += bool(lost is not None and seen is not None and seen.split)
        end = time.time()
        if lost is not None and seen is not None:
            whole, whole_lacp = (None, {}) if lost else (seen.tables, seen.lacp)
        if (whole is not None and end - t0 >= observe_s) or end - t0 >= timeout_s:
            return Observed(takes, whole, whole_lacp, end - t0, split)


def host_macs(fabric: Fabric, wiring: Any) -> dict[str, set[str]]:
    """By switch, the MACs of the hosts whose frames reach it on a link of its own that is up (what its
    FDB learns from them: in the run after the change, or earlier)."""
    out: dict[str, set[str]] = {}
    for nic, port in enumerate(wiring.nic_port.tolist()):
        s = int(wiring.switch_of[port])
        name, tables = fabric.switches[s]
        local = port - int(wiring.offset[s])
        if tables.ports.oper_up[local] and tables.ports.admin_up[local]:
            out.setdefault(name, set()).add(mac_text(fabric.hosts[int(wiring.nic_host[nic])].mac))
    return out


def mac_sync(nodes: Mapping[str, Mapping[str, Any]], topo: Topology, taught: Mapping[str, set[str]],
             timeout_s: float) -> dict[str, Any]:
    """For each MC-LAG pair, the seconds (from now: the run's MACs handed to the switches) until every
    MAC one peer's hosts taught it is known to the other (in its STATE_DB ``FDB_TABLE``, learnt, or
    ``MCLAG_REMOTE_FDB_TABLE``, synced); ``None`` and the missing count when not within ``timeout_s``."""
    want: dict[str, set[str]] = {}
    for pair in topo.mclag:
        for node in pair.peers:
            other = pair.other(node)
            if node in taught and other in nodes:
                want.setdefault(other, set()).update(mac.lower() for mac in taught[node])
    if not want:
        return {"mac_sync_s": 0.0, "macs_checked": 0, "macs_missing": 0}
    start = time.monotonic()
    clients = {n: Databases(nodes[n]["endpoints"]["redis"]) for n in want}
    try:
        missing = _missing(clients, want)
        while missing and time.monotonic() - start < timeout_s:
            time.sleep(MAC_SYNC_POLL_S)
            missing = _missing(clients, want)
    finally:
        for dbs in clients.values():
            dbs.close()
    took = time.monotonic() - start
    checked = sum(len(v) for v in want.values())
    return {"mac_sync_s": None if missing else took, "macs_checked": checked, "macs_missing": missing}


def _missing(clients: Mapping[str, Databases], want: Mapping[str, set[str]]) -> int:
    gone = 0
    for node, macs in want.items():
        db = clients[node][STATE_DB]
        try:
            known = {key.split(":", 1)[1].lower() for table in MAC_TABLES
                     for key in db.client.scan_iter(f"{table}|*", count=1000) if ":" in key}
        except (DbError, redis.RedisError):
            known = set()
        gone += len(macs - known)
    return gone


def run_across(here: LabDir, topo: Topology, lab: LabScenario, planned: FabricRun, changes: Sequence[across.Change],
               nodes: Mapping[str, Mapping[str, Any]], runner: Runner, *, observe_s: float, timeout_s: float,
               exchange_timeout_s: float) -> dict[str, Any]:
    """The whole run across ``changes`` (see the module docstring); ``ChangeFailed``, ``LabExchangeError``."""
    before_tables = {n: e.tables for n, e in export_all(nodes, timeout_s=exchange_timeout_s).items()}
    problems = across.unknown_targets(changes, {n: t.ports.names for n, t in before_tables.items()})
    if problems:          # before any run or change: nothing is made of a change that cannot be made
        raise UnknownTarget("; ".join(problems))
    before_lacp = read_system_ids(lacp.paired(topo, nodes))
    before_res, before = runner(lab_fabric(topo, before_tables, lab, before_lacp))
    expected = before_res.hops.delivered
    dead = across.dead_ports(changes, topo)
    killed = across.killed_switches(changes)
    still = {n: v for n, v in nodes.items() if n not in killed}
    during_res, during = runner(lab_fabric(topo, across.with_dead_ports(
        {n: t for n, t in before_tables.items() if n not in killed}, dead), lab, before_lacp))
    lost = expected & ~during_res.hops.delivered
    # what the traffic before taught the switches, as it would have (a lab's switches learn when a run ends)
    applied = import_all(nodes, updates_by_switch(before_res),
                         learned=learnt_macs(before_res.fabric, before_res.wiring), timeout_s=exchange_timeout_s)
    for change in changes:
        make_change(here, topo, change)
    t0 = time.time()    # epoch seconds: syncd_sim says when each look's tables held in the same clock
    taught = learnt_macs(during_res.fabric, during_res.wiring)    # the hosts' next frames, e.g. on the link left
    if taught:
        import_all(still, {}, learned=taught, timeout_s=exchange_timeout_s)
    seen = observe(still, t0, observe_s, timeout_s, lambda t, ids: route(topo, t, lab, planned, dead, ids),
                   expected, int(lost.sum()), lacp.paired(topo, still))
    window = across.loss_window(seen.takes)
    after_res, after = (runner(lab_fabric(topo, seen.whole, lab, seen.whole_lacp)) if seen.whole is not None
                        else (None, None))
    r = before_res.result
    lost_b = across.lost_bytes(planned.flows.size.astype(np.float64), np.asarray(r.flow_start_s, dtype=np.float64),
                               np.asarray(r.flow_finish_s, dtype=np.float64), lost, window.upper_s)
    updates: dict[str, list[tuple[str, str, int, str]]] = {}
    for res in (during_res, after_res):                   # the runs' traffic adds up (before's is in)
        for name, rows in (updates_by_switch(res) if res is not None else {}).items():
            if name in still:
                updates.setdefault(name, []).extend(rows)
    learned = learnt_macs(after_res.fabric, after_res.wiring) if after_res is not None else {}
    later = import_all(still, updates, learned=learned, timeout_s=exchange_timeout_s)
    applied = {n: applied.get(n, 0) + later.get(n, 0) for n in sorted(set(applied) | set(later))}
    sync = mac_sync(still, topo, host_macs(after_res.fabric, after_res.wiring) if after_res is not None else {},
                    timeout_s=max(5.0, observe_s))
    return {"changes": [str(c) for c in changes], "loss_window_s": window.upper_s,
            "loss_window_min_s": window.lower_s, "restored": window.restored and seen.whole is not None,
            "takes": window.takes, "looks": [[round(t.start_s, 4), round(t.end_s, 4), t.lost] for t in seen.takes],
            "losing_takes": window.losing_takes, "most_flows_lost": window.most_lost,
            "observed_s": seen.observed_s, "bond_split_looks": seen.split_takes,
            "flows_lost": int(lost.sum()), "lost_bytes": lost_b, **sync,
            "dead_ports": {n: sorted(p) for n, p in sorted(dead.items())}, "switches_killed": sorted(killed),
            "before": before, "during": during, "after": after, "counters_applied": applied}
