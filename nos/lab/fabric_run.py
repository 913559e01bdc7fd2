"""One traffic run across a fabric: a lab scenario's flows over every switch's tables, one fluid model
(``fastpath.fabric``), and what each switch's counters get from it.

Used by ``nos lab traffic run`` (the tables each running switch's syncd_sim compiled, exported at one
moment: ``nos.lab.exchange``) and ``nos fabric run`` (tables built for a topology without daemons:
``fastpath.fabric.topo``). Pure but for the caller's I/O: ``lab_fabric`` and ``flows_of`` build the
inputs, ``summary`` says what happened, ``updates_by_switch`` is each switch's share as SAI stat updates
(``fastpath.run_counters``, as a single-switch run's).
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from fastpath.fabric import DELIVERED, Fabric, FabricFlows, FabricResult
from fastpath.fabric import Host as FabricHost
from fastpath.fabric import Link as FabricLink
from fastpath.fabric.hotspots import hotspots
from fastpath.model import RunConfig
from fastpath.run_counters import counter_updates
from fastpath.tables import Tables
from fastpath.workloads import concat, dcqcn_params, expand_workloads
from nos.lab.errors import TopologyError
from nos.lab.lacp import one_aggregator
from nos.lab.model import Host as LabHost
from nos.lab.model import Topology, mac_text
from nos.lab.scenario import LabScenario
from nos.traffic.scenario import workload_names

FIRST_L4_SRC = 49152   # each flow its own UDP source port (RoCEv2 sets it per queue pair): ECMP spreads them
HOT_SPOTS = 5
UNROUTABLE_EXAMPLES = 10


@dataclass(frozen=True)
class FabricRun:
    """What a run was given, for its summary: the flows, their workload names, the hosts' switches."""

    flows: FabricFlows
    names: list[str]
    node_of: tuple[str, ...]
    host_names: tuple[str, ...]


def _links_up(host: LabHost, tables: Mapping[str, Tables],
              lacp: Mapping[tuple[str, str], str] | None = None) -> list[tuple[str, str]]:
    """The host's links to switches in the run whose port is oper up (a bond sends on those only, as
    LACP would see) and, of a bond's, those one aggregator takes (``nos.lab.lacp``: partners that send
    the same system id); when none is up, those to switches in the run (its flows then meet the down
    port and are dropped there); TopologyError when every switch it is on is left out."""
    ends = [(e.node, e.port) for e in host.attachments() if e.node in tables]
    if not ends:
        raise TopologyError([f"host {host.name}: every switch it is cabled to ({host.node}"
                             f"{', ' + host.peer_node if host.peer_node else ''}) is down"])
    up = [(n, p) for n, p in ends if _oper_up(tables[n], p)]
    return one_aggregator(up, lacp or {}) or ends


def split_bonds(topo: Topology, tables: Mapping[str, Tables], lacp: Mapping[tuple[str, str], str]) -> list[str]:
    """The hosts whose bond aggregates fewer of its up links than it has: its partners send different
    LACP system ids (an MC-LAG pair whose session is down)."""
    out = []
    for h in topo.hosts:
        up = [(e.node, e.port) for e in h.attachments() if e.node in tables and _oper_up(tables[e.node], e.port)]
        if len(one_aggregator(up, lacp)) < len(up):
            out.append(h.name)
    return out


def _oper_up(tables: Tables, port: str) -> bool:
    names = list(tables.ports.names)
    return port in names and bool(tables.ports.oper_up[names.index(port)])


def lab_fabric(topo: Topology, tables: Mapping[str, Tables], lab: LabScenario,
               lacp: Mapping[tuple[str, str], str] | None = None) -> Fabric:
    """The fabric of a running lab: each switch's exported tables, the topology's cables and hosts (a
    host honours pause unless its scenario group says ``ignores_pause``; a dual-homed host is a bond of
    its links that are up and that one aggregator takes, by the system ids ``lacp`` says each switch
    port sends). A switch without tables (down) is left out with its links."""
    groups = lab.scenario.hosts
    hosts = []
    for i, h in enumerate(topo.hosts):
        (switch, port), *also = _links_up(h, tables, lacp)
        hosts.append(FabricHost(h.name, switch, port, int(h.mac.replace(":", ""), 16), int(ipaddress.IPv4Address(h.ip)),
                                float(groups[i].speed or h.speed_bps), float(groups[i].cable or h.cable_m),
                                honours_pause=not groups[i].ignores_pause, also=tuple(also)))
    links = tuple(FabricLink((link.a.node, link.a.port), (link.b.node, link.b.port), link.cable_m)
                  for link in topo.links if link.a.node in tables and link.b.node in tables)
    return Fabric(switches=tuple((n.name, tables[n.name]) for n in topo.switches() if n.name in tables), links=links,
                  hosts=tuple(hosts))


def lab_hosts_of(fabric: Fabric, prefix_len: int = 24) -> tuple[LabHost, ...]:
    """A fabric's hosts as lab host rows, for a scenario over a fabric built without daemons."""
    return tuple(LabHost(h.name, h.switch, h.port, h.speed_bps, mac_text(h.mac), str(ipaddress.IPv4Address(h.ip)),
                         prefix_len, "", h.cable_m) for h in fabric.hosts)


def flows_of(lab: LabScenario) -> FabricRun:
    """Every workload's flows (``fastpath.workloads``: the same expansion as on one switch); DCQCN, ECN
    and MTU from the sender's host group; ``ScenarioError`` for a selector that matches nothing."""
    scenario = lab.scenario
    blocks = expand_workloads(scenario, lab.hosts)
    merged, group, dscp = concat(blocks)
    sender = np.asarray([h.group for h in lab.hosts], dtype=np.int32)[merged.src]
    groups = scenario.hosts
    dcqcn_of_block = np.asarray([b.dcqcn for b in blocks], dtype=bool)
    flows = FabricFlows(
        src=merged.src, dst=merged.dst, size=merged.size, dscp=dscp, start_s=merged.start_s,
        dep_ptr=merged.dep_ptr, dep_idx=merged.dep_idx, gap_s=merged.gap_s,
        l4_src=(FIRST_L4_SRC + np.arange(merged.n) % 16384).astype(np.int32),
        dcqcn=np.asarray([g.dcqcn for g in groups], dtype=bool)[sender] & dcqcn_of_block[group],
        ecn_capable=np.asarray([g.ecn for g in groups], dtype=bool)[sender],
        mtu=np.asarray([g.mtu for g in groups], dtype=np.int64)[sender], group=group)
    return FabricRun(flows, workload_names(scenario), lab.node_of, tuple(h.name for h in lab.hosts))


def run_config(lab: LabScenario) -> RunConfig:
    scenario = lab.scenario
    return RunConfig(max_time_s=scenario.duration, sample_s=scenario.sample_interval, seed=scenario.seed,
                     dcqcn=dcqcn_params(scenario))


def updates_by_switch(res: FabricResult) -> dict[str, list[tuple[str, str, int, str]]]:
    """Each switch's share of the run as SAI stat updates on its own objects."""
    out = {}
    for (name, tables), counters in zip(res.fabric.switches, res.per_switch(), strict=True):
        view = SimpleNamespace(**counters.values, pool_max_bytes=counters.pool_max_bytes)
        out[name] = [(u.oid, u.stat, u.value, u.mode) for u in counter_updates(tables, view)]
    return out


def _workloads(run: FabricRun, finish: np.ndarray, delivered: np.ndarray, dropped: np.ndarray) -> list[dict[str, Any]]:
    rows = []
    for g, name in enumerate(run.names):
        mine = run.flows.group == g
        done = finish[mine][~np.isnan(finish[mine])]
        rows.append({"name": name, "flows": int(mine.sum()), "finished": int(done.size),
                     "completion_s": float(done.max()) if done.size else None,
                     "delivered_bytes": int(delivered[mine].sum()), "dropped_bytes": int(dropped[mine].sum())})
    return rows


def _switch_rows(res: FabricResult) -> list[dict[str, Any]]:
    rows = []
    for c in res.per_switch():
        v = c.values
        rows.append({"switch": c.switch, "tx_bytes": int(np.sum(v["port_tx_bytes"])),
                     "pfc_tx_frames": int(np.sum(v["pfc_tx_frames"])), "pfc_rx_frames": int(np.sum(v["pfc_rx_frames"])),
                     "ecn_marked_pkts": int(np.sum(v["queue_ecn_marked_pkts"])),
                     "dropped_pkts": int(np.sum(v["queue_drop_pkts"]) + np.sum(v["pg_drop_pkts"])),
                     "max_queue_bytes": int(np.max(v["queue_max_bytes"])) if np.size(v["queue_max_bytes"]) else 0})
    return rows


def _links(res: FabricResult) -> list[dict[str, Any]]:
    """Bytes each way over every switch-to-switch link, and the pause each end sent."""
    by_switch = {c.switch: c for c in res.per_switch()}
    rows = []
    for link in res.fabric.links:
        ends = []
        for node, port in (link.a, link.b):
            c = by_switch[node]
            i = c.ports.index(port)
            ends.append((int(c.values["port_tx_bytes"][i]), float(np.sum(c.values["pfc_tx_pause_s"][i])),
                         int(np.sum(c.values["queue_ecn_marked_pkts"][i]))))
        rows.append({"a": f"{link.a[0]}:{link.a[1]}", "b": f"{link.b[0]}:{link.b[1]}",
                     "a_tx_bytes": ends[0][0], "b_tx_bytes": ends[1][0],
                     "a_pause_sent_s": ends[0][1], "b_pause_sent_s": ends[1][1],
                     "a_ecn_marked_pkts": ends[0][2], "b_ecn_marked_pkts": ends[1][2]})
    return rows


def hot_spots(res: FabricResult, n: int = HOT_SPOTS) -> list[dict[str, Any]]:
    """The links paused longest and the egress ports that marked, dropped or queued most
    (``fastpath.fabric.hotspots``), as plain rows."""
    return [asdict(h) for h in hotspots(res, top=n)]


def summary(res: FabricResult, run: FabricRun) -> dict[str, Any]:
    r = res.result
    finish = np.asarray(r.flow_finish_s, dtype=np.float64)
    delivered = np.asarray(r.flow_delivered, dtype=np.float64)
    dropped = np.asarray(r.flow_dropped, dtype=np.float64)
    done = finish[~np.isnan(finish)]
    lost = [i for i, status in enumerate(res.hops.status) if status != DELIVERED]
    return {"flows": run.flows.n, "finished": int(done.size), "completion_s": float(done.max()) if done.size else None,
            "unroutable": dict(Counter(res.hops.status[i] for i in lost)),
            "unroutable_examples": [f"{run.host_names[run.flows.src[i]]}->{run.host_names[run.flows.dst[i]]}: "
                                    f"{res.hops.status[i]}" for i in lost[:UNROUTABLE_EXAMPLES]],
            "bytes": int(run.flows.size.sum()), "delivered_bytes": int(delivered.sum()),
            "dropped_bytes": int(dropped.sum()), "sim_time_s": float(r.sim_time_s), "wall_s": float(r.wall_s),
            "steps": int(r.steps), "workloads": _workloads(run, finish, delivered, dropped),
            "switches": _switch_rows(res), "links": _links(res), "hot_spots": hot_spots(res)}
