"""``nos lab traffic run SCENARIO`` and ``nos fabric run TOPOLOGY SCENARIO``: one traffic model across
every switch of a fabric (``nos.lab.fabric_run`` over ``fastpath.fabric``).

``lab traffic run`` takes every running lab switch's compiled tables at one moment (each after the
configuration it accepted has reached its ASIC), runs the scenario over the lab's hosts, hands every
switch its share of the counters (then ``show``, REST, gNMI and /metrics of each node see the run) and
prints the summary: workloads, switches, links, hot spots. ``fabric run`` runs the same model on a
fabric built without daemons (``leaf-spine[:SPINES,LEAVES,HOSTS]``, ``fat-tree[:K]``), for scale.
SCENARIO: a file, or a name in ``configs/labs/scenarios``; a lab scenario has no ``hosts:`` (the lab's
are used). Exit codes: 0 done, 1 the lab is not running or a switch did not answer, 2 invalid input.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
import numpy as np

from nos.cli.common import fail, json_option, print_json, print_table
from nos.paths import configs_dir

INVALID = 2
ROCE_DSCP, ROCE_TC = 26, 3
TOPOLOGY = re.compile(r"^(leaf-spine|fat-tree)(?::(\d+(?:,\d+)*))?$")
LEAF_SPINE_DEFAULT = (2, 4, 8)
FAT_TREE_DEFAULT = 8


def lab_scenarios_dir() -> Path:
    return configs_dir() / "labs" / "scenarios"


def find_scenario(given: str) -> Path:
    """A lab scenario file: the path given, else ``configs/labs/scenarios/<given>[.yaml]``."""
    for path in (Path(given), lab_scenarios_dir() / given, lab_scenarios_dir() / f"{given}.yaml"):
        if path.is_file():
            return path
    names = ", ".join(sorted(p.stem for p in lab_scenarios_dir().glob("*.yaml")))
    fail(f"no scenario file {given!r} (and none of that name in {lab_scenarios_dir()}: {names})", INVALID)
    raise AssertionError  # fail() exits


def _print_summary(doc: dict[str, Any], echo: Callable[[str], None] = click.echo) -> None:
    done = doc["completion_s"]
    echo(f"{doc['flows']} flows, {doc['finished']} finished"
         + (f", last at {done * 1e6:.1f} us" if done is not None else "")
         + f"; delivered {doc['delivered_bytes']:,} of {doc['bytes']:,} bytes, dropped {doc['dropped_bytes']:,}"
         + f" (model {doc['wall_s']:.3f} s wall, {doc['steps']} steps)")
    if doc["unroutable"]:
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(doc["unroutable"].items()))
        echo(f"Unroutable (never ran): {why}; e.g. {doc['unroutable_examples'][0]}")
    echo("")
    print_table(["Workload", "Flows", "Finished", "Completion (us)", "Dropped bytes"],
                [[w["name"], w["flows"], w["finished"],
                  f"{w['completion_s'] * 1e6:.1f}" if w["completion_s"] is not None else "-", f"{w['dropped_bytes']:,}"]
                 for w in doc["workloads"]])
    echo("")
    print_table(["Switch", "TX bytes", "PFC sent", "PFC received", "ECN marked", "Dropped", "Max queue"],
                [[s["switch"], f"{s['tx_bytes']:,}", s["pfc_tx_frames"], s["pfc_rx_frames"], s["ecn_marked_pkts"],
                  s["dropped_pkts"], f"{s['max_queue_bytes']:,}"] for s in doc["switches"]])
    if doc["links"]:
        echo("")
        print_table(["A", "B", "A->B bytes", "B->A bytes", "Pause sent A/B (us)"],
                    [[li["a"], li["b"], f"{li['a_tx_bytes']:,}", f"{li['b_tx_bytes']:,}",
                      f"{li['a_pause_sent_s'] * 1e6:.1f}/{li['b_pause_sent_s'] * 1e6:.1f}"] for li in doc["links"]])
    echo("")
    if doc["hot_spots"]:
        print_table(["Hot spot", "Egress", "Held by / peer", "Paused (us)", "ECN marked", "Dropped", "Max queue"],
                    [[h["kind"], f"{h['switch']}:{h['port']}", h["by"], f"{h['pause_s'] * 1e6:.1f}",
                      f"{h['ecn_marked_pkts']:.0f}", f"{h['drop_pkts']:.0f}", f"{h['max_queue_bytes']:,.0f}"]
                     for h in doc["hot_spots"]])
    else:
        echo("No hot spots: nothing paused, marked or queued.")


def _run(fabric: Any, lab_scenario: Any) -> tuple[Any, dict[str, Any]]:
    from fastpath.fabric import FabricError
    from fastpath.fabric import run as run_fabric
    from nos.lab.fabric_run import flows_of, run_config, summary

    try:
        planned = flows_of(lab_scenario)
        res = run_fabric(fabric, planned.flows, run_config(lab_scenario))
    except FabricError as exc:
        fail(f"the fabric does not fit the scenario: {exc}", INVALID)
    return res, summary(res, planned)


@click.command("run")
@click.argument("scenario")
@click.option("--lab", "lab_name", envvar="NOS_LAB", help="The lab (default: the only one running).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0, min_open=True), default=120.0,
              show_default=True, help="Seconds each switch may take to give its tables or take its counters.")
@click.option("--across", "across_texts", multiple=True, metavar="CHANGE",
              help="Run across a change made during the run and report its loss window: 'shutdown NODE:PORT', "
                   "'startup NODE:PORT', 'link down|up A:PORT B:PORT', 'kill NODE [DAEMON]' (repeatable: made "
                   "together).")
@click.option("--observe", "observe_s", type=click.FloatRange(min=0), default=None,
              help="With --across: seconds to keep looking after the change [default: 2, or an MC-LAG "
                   "session timeout + 1 if longer].")
@json_option
def lab_traffic_run(scenario: str, lab_name: str | None, timeout_s: float, across_texts: tuple[str, ...],
                    observe_s: float | None, as_json: bool) -> None:
    """Run SCENARIO across every switch of the lab (hosts anywhere in it). Each switch then gets its
    counters, and the MACs its hosts' frames taught it (in its FDB, as a run on it alone would leave).
    A switch that is not ready (killed, restarting) is left out: its links are down for the run.
    With --across, the run is before, during and after the change, and says how long traffic was
    lost while the switches reacted (the loss window) and how long the MC-LAG peers took to know
    each other's MACs."""
    from fastpath.fabric.route import learnt_macs
    from nos.cli.lab import lab_dir_of
    from nos.lab.exchange import LabExchangeError, export_all, import_all
    from nos.lab.fabric_run import lab_fabric, updates_by_switch
    from nos.lab.lacp import paired, read_system_ids
    from nos.lab.scenario import parse_lab_scenario
    from nos.lab.status import lab_status, lab_topology
    from nos.lab.topology import TopologyError, load_topology
    from nos.traffic.errors import ScenarioError

    here = lab_dir_of(lab_name)
    state = here.state() or {}
    path = find_scenario(scenario)
    try:
        topo = load_topology(lab_topology(state))
        lab_scenario = parse_lab_scenario(path.read_text(), topo, str(path))
    except (ScenarioError, TopologyError) as exc:
        fail(str(exc), INVALID)
    ready = {row["node"] for row in lab_status(here)["nodes"] if row["ready"]}
    nodes = {n: info for n, info in (state.get("nodes") or {}).items() if n in ready}
    down = sorted(set(state.get("nodes") or {}) - ready)
    if not nodes:
        fail(f"lab {here.name}: no switch is ready")
    if across_texts:
        from nos.cli.lab_across import run_across_cli
        run_across_cli(here, topo, lab_scenario, across_texts, nodes, down, observe_s=observe_s,
                       timeout_s=timeout_s, as_json=as_json, runner=lambda fabric: _run(fabric, lab_scenario))
        return
    try:
        exported = export_all(nodes, timeout_s=timeout_s)
        fabric = lab_fabric(topo, {n: e.tables for n, e in exported.items()}, lab_scenario,
                            read_system_ids(paired(topo, nodes)))
    except (LabExchangeError, TopologyError) as exc:
        fail(f"lab {here.name}: {exc}")
    res, doc = _run(fabric, lab_scenario)
    try:
        applied = import_all(nodes, updates_by_switch(res), learned=learnt_macs(res.fabric, res.wiring),
                             timeout_s=timeout_s)
    except LabExchangeError as exc:
        fail(f"lab {here.name}: the run is done but its counters did not reach every switch: {exc}")
    doc = {"lab": here.name, "scenario": lab_scenario.scenario.name, "switches_down": down, **doc,
           "counters_applied": applied}
    if as_json:
        print_json(doc)
        return
    click.echo(f"Lab {here.name}, scenario {lab_scenario.scenario.name}: counters written to "
               f"{len(applied)} switches ('nos --node NODE show queue counters')"
               + (f"; left out, not ready: {', '.join(down)} (their links down for the run)" if down else ""))
    _print_summary(doc)


def fabric_of_spec(spec: str) -> Any:
    """A fabric built without daemons from ``leaf-spine[:S,L,H]`` or ``fat-tree[:K]``, with RoCE's
    DSCP 26 on lossless TC 3 on every switch (``roce_dscp``)."""
    built = _build(spec)
    return replace(built, switches=tuple((name, roce_dscp(tables)) for name, tables in built.switches))


def roce_dscp(tables: Any) -> Any:
    """``tables`` with DSCP 26 classified to TC 3, as the RoCE intent's map does (the builders' switches
    otherwise have SONiC's AZURE map, where 26 is lossy TC 1)."""
    dscp_to_tc = np.array(tables.qos.dscp_to_tc)
    dscp_to_tc[:, ROCE_DSCP] = ROCE_TC
    return replace(tables, qos=replace(tables.qos, dscp_to_tc=dscp_to_tc))


def _build(spec: str) -> Any:
    from fastpath.fabric.topo import fat_tree, leaf_spine

    match = TOPOLOGY.match(spec)
    if match is None:
        fail(f"{spec!r}: not a topology (leaf-spine[:SPINES,LEAVES,HOSTS_PER_LEAF] or fat-tree[:K])", INVALID)
    numbers = [int(x) for x in match.group(2).split(",")] if match.group(2) else []
    try:
        if match.group(1) == "fat-tree":
            if len(numbers) > 1:
                raise ValueError("fat-tree takes one number, K")
            return fat_tree(numbers[0] if numbers else FAT_TREE_DEFAULT)
        if numbers and len(numbers) != 3:
            raise ValueError("leaf-spine takes SPINES,LEAVES,HOSTS_PER_LEAF")
        return leaf_spine(*(numbers or LEAF_SPINE_DEFAULT))
    except ValueError as exc:
        fail(f"{spec!r}: {exc}", INVALID)


@click.group("fabric")
def fabric() -> None:
    """The fabric traffic model on switches built without daemons (for scale; no counters kept)."""


def _run_matrix(fabric: Any, path: Path, max_time_s: float, seed: int) -> dict[str, Any]:
    """An htsim connection matrix (``fastpath.fabric.connection_matrix``) over the fabric's hosts
    (htsim's host numbering: host i is ``h<i>``)."""
    from fastpath.fabric import FabricError
    from fastpath.fabric import run as run_fabric
    from fastpath.fabric.connection_matrix import parse_connection_matrix
    from fastpath.model import RunConfig
    from nos.lab.fabric_run import FabricRun, lab_hosts_of, summary

    try:
        matrix = parse_connection_matrix(path.read_text())
    except (FabricError, UnicodeDecodeError) as exc:
        fail(f"{path}: {exc}", INVALID)
    hosts = lab_hosts_of(fabric)
    if matrix.nodes != len(hosts):
        fail(f"{path}: Nodes {matrix.nodes}, but the fabric has {len(hosts)} hosts (htsim needs them equal)",
             INVALID)
    planned = FabricRun(matrix.flows, [path.stem], tuple(h.node for h in hosts), tuple(h.name for h in hosts))
    try:
        res = run_fabric(fabric, matrix.flows, RunConfig(max_time_s=max_time_s, seed=seed))
    except FabricError as exc:
        fail(f"the fabric does not fit the matrix: {exc}", INVALID)
    return summary(res, planned)


@fabric.command("run")
@click.argument("topology")
@click.argument("scenario")
@click.option("--max-time", "max_time_s", type=click.FloatRange(min=0, min_open=True), default=0.01,
              show_default=True, help="With an htsim connection matrix: seconds of model time to run at most.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="With an htsim connection matrix: the model's seed (a scenario file has its own).")
@json_option
def fabric_run(topology: str, scenario: str, max_time_s: float, seed: int, as_json: bool) -> None:
    """Run SCENARIO (hosts h0, h1, ...) on TOPOLOGY: leaf-spine[:SPINES,LEAVES,HOSTS] (default 2,4,8) or
    fat-tree[:K] (htsim's 3-tier K-ary fat tree, default 8: 80 switches, 128 hosts). SCENARIO is a lab
    scenario, or an htsim connection matrix (a file ending in .cm, e.g. from htsim's gen_allreduce.py),
    so that the same flows run here and on htsim."""
    from nos.lab.fabric_run import lab_hosts_of
    from nos.lab.scenario import parse_over_hosts
    from nos.traffic.errors import ScenarioError

    built = fabric_of_spec(topology)
    path = find_scenario(scenario)
    if path.suffix == ".cm":
        name = path.stem
        doc = _run_matrix(built, path, max_time_s, seed)
    else:
        try:
            lab_scenario = parse_over_hosts(path.read_text(), lab_hosts_of(built), topology, str(path))
        except ScenarioError as exc:
            fail(str(exc), INVALID)
        name = lab_scenario.scenario.name
        _, doc = _run(built, lab_scenario)
    doc = {"topology": topology, "scenario": name, **doc}
    if as_json:
        print_json(doc)
        return
    click.echo(f"Fabric {topology} ({len(built.switches)} switches, {len(built.hosts)} hosts), scenario {name}:")
    _print_summary(doc)
    sys.stdout.flush()


__all__ = ["fabric", "fabric_of_spec", "lab_traffic_run"]
