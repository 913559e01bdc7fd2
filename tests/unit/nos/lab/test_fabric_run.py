"""A lab scenario over a fabric built without daemons (nos.lab.fabric_run on fastpath.fabric.topo):
the flows the workloads make, the summary of a run, and each switch's share as SAI stat updates."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fastpath.fabric import FabricResult, run
from fastpath.fabric.topo import leaf_spine
from nos.lab.fabric_run import FabricRun, flows_of, lab_hosts_of, run_config, summary, updates_by_switch
from nos.lab.scenario import parse_over_hosts

ROOT = Path(__file__).resolve().parents[4]
ALL_TO_ALL = (ROOT / "configs" / "labs" / "scenarios" / "all-to-all.yaml").read_text().replace("dscp: 26", "dscp: 3")


@pytest.fixture(scope="module")
def ran() -> tuple[FabricResult, FabricRun]:
    fabric = leaf_spine(2, 4, 4)
    lab = parse_over_hosts(ALL_TO_ALL, lab_hosts_of(fabric), "leaf-spine:2,4,4")
    planned = flows_of(lab)
    return run(fabric, planned.flows, run_config(lab)), planned


def test_the_workload_becomes_one_flow_per_ordered_pair(ran: tuple[FabricResult, FabricRun]) -> None:
    _, planned = ran
    assert planned.flows.n == 16 * 15 * 8 and planned.names == ["all_to_all"]
    assert len(set(planned.flows.l4_src.tolist())) == planned.flows.n   # one UDP source port per queue pair
    assert bool(planned.flows.dcqcn.all()) and int(planned.flows.dscp[0]) == 3


def test_the_summary_adds_up(ran: tuple[FabricResult, FabricRun]) -> None:
    res, planned = ran
    doc = summary(res, planned)
    assert doc["finished"] == doc["flows"] == 16 * 15 * 8 and doc["dropped_bytes"] == 0   # lossless priority 3
    assert doc["workloads"][0]["completion_s"] == doc["completion_s"] > 0
    spines = [s["tx_bytes"] for s in doc["switches"] if s["switch"].startswith("spine")]
    assert sum(spines) >= 16 * 12 * 1_000_000                          # every flow between leaves crosses one
    link_bytes = sum(li["a_tx_bytes"] + li["b_tx_bytes"] for li in doc["links"])
    assert link_bytes == pytest.approx(2 * sum(spines), rel=1e-4)       # a spine sends all it receives


def test_each_switch_gets_updates_on_its_own_objects(ran: tuple[FabricResult, FabricRun]) -> None:
    res, _ = ran
    updates = updates_by_switch(res)
    assert sorted(updates) == sorted(res.fabric.names())
    for name, tables in res.fabric.switches:
        mine = {u[0] for u in updates[name]}
        known = set(tables.ports.oids) | {q for row in tables.ports.queue_oids for q in row} | \
            {p for row in tables.ports.pg_oids for p in row} | set(tables.buffers.pool_oids)
        assert mine and mine <= known, name
    sent = [u[2] for u in updates["spine0"] if u[1] == "SAI_PORT_STAT_IF_OUT_OCTETS"]
    assert sum(sent) == int(np.sum(np.round(res.counters("spine0").values["port_tx_bytes"])))
