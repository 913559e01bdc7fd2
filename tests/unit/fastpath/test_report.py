"""The result document from a hand-made Result: names not indices, FCT statistics, goodput, only the
counters that moved, warnings, AllReduce timing and the GPU wait share, the down-sampled series; and
that it has the layout the summary and the plot read (tests/unit/nos/traffic/documents.py)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from fastpath.allreduce import allreduce_index, allreduce_timing
from fastpath.build import build_tables
from fastpath.model import Result, Series
from fastpath.report import to_json
from fastpath.report_series import POINTS, series_json, windows
from fastpath.workloads import expand
from nos.traffic.scenario import parse_scenario
from tests.unit.nos.traffic.documents import sample_document

US = 1e-6
N_PORTS = 8
TABLES = build_tables(n_ports=N_PORTS)
SCENARIO = parse_scenario("""
name: report
duration: 1ms
hosts: [{name: r, ports: Ethernet0}, {name: 's{i}', ports: Ethernet4-Ethernet8},
        {name: 'g{i}', ports: Ethernet12-Ethernet16}, {name: far, ports: Ethernet20}]
workloads:
  - {kind: incast, senders: 's*', receiver: r, size: 1MB}
  - {kind: allreduce, name: ring, gpus: 'g*', message: 2MB, compute: 10us, iterations: 2}
  - {kind: incast, name: never, senders: far, receiver: r, size: 1kB}
""")


def zeros(*shape: int) -> Any:
    return np.zeros(shape)


def make_result(n_flows: int, **given: Any) -> Result:
    t = np.arange(1000) * US
    columns: dict[str, Any] = {
        "flow_start_s": zeros(n_flows), "flow_finish_s": np.full(n_flows, np.nan), "flow_delivered": zeros(n_flows),
        "flow_dropped": zeros(n_flows), "flow_retransmitted": zeros(n_flows), "flow_ecn_marked_pkts": zeros(n_flows),
        **{name: zeros(N_PORTS) for name in ("port_rx_bytes", "port_rx_pkts", "port_tx_bytes", "port_tx_pkts")},
        **{name: zeros(N_PORTS, 8) for name in ("pfc_tx_frames", "pfc_rx_frames", "pfc_tx_pause_s", "pfc_rx_pause_s",
                                                 "queue_tx_bytes", "queue_tx_pkts", "queue_drop_bytes",
                                                 "queue_drop_pkts", "queue_ecn_marked_pkts", "queue_max_bytes",
                                                 "pg_rx_bytes", "pg_rx_pkts", "pg_max_shared", "pg_max_headroom",
                                                 "pg_drop_pkts")},
        "pool_max_bytes": np.array([5e6, 4e6]),
        "series": Series(t=t, queue_bytes=zeros(1000, N_PORTS, 8), port_tx_bps=zeros(1000, N_PORTS),
                         pause=np.zeros((1000, N_PORTS, 8), dtype=bool)),
        "sim_time_s": 1e-3, "steps": 500, "wall_s": 0.02, "watchdog_events": [(0.5e-3, 0, 3, "storm")]}
    columns.update(given)
    return Result(**columns)


def the_run() -> tuple[Any, Any, Any, list[str], Result]:
    nics, flows, _, names = expand(SCENARIO, TABLES, {})
    finish = np.full(flows.n, np.nan)
    finish[:2] = [40 * US, 80 * US]                                  # the incast
    ring = np.flatnonzero(flows.group == 1)
    finish[ring] = 100 * US + np.arange(len(ring)) * US              # every ring flow finished, in order
    delivered = np.where(np.isnan(finish), 0, flows.size).astype(float)
    result = make_result(flows.n, flow_finish_s=finish, flow_delivered=delivered,
                         flow_dropped=np.where(flows.group == 2, 1000.0, 0.0))
    result.pfc_tx_frames[1, 3] = 7
    result.pfc_tx_pause_s[1, 3] = 12 * US
    result.queue_max_bytes[0, 1] = 600_000
    result.queue_tx_bytes[0, 1] = 2_000_000
    result.queue_drop_pkts[0, 1] = 4
    result.port_tx_bytes[0] = 2_000_000
    result.port_rx_bytes[1] = 1_000_000
    result.pg_rx_bytes[1, 3] = 1_000_000
    result.pg_max_shared[1, 3] = 200_000
    result.series.queue_bytes[10:90, 0, 1] = 600_000
    result.series.port_tx_bps[:80, 0] = 400e9
    result.series.pause[20:32, 1, 3] = True
    return nics, flows, flows, names, result


def keys(value: Any) -> Any:
    """The nested key structure of a document (lists: the first element's)."""
    if isinstance(value, dict):
        return {k: keys(v) for k, v in value.items()}
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [keys(value[0])]
    return None


def test_the_document_names_ports_and_summarises_workloads() -> None:
    nics, flows, _, names, result = the_run()
    doc = to_json(SCENARIO, TABLES, nics, flows, names, result)
    json.dumps(doc, allow_nan=False)                                 # strict JSON: no NaN anywhere
    incast, ring, never = doc["workloads"]
    assert (incast["name"], incast["flows"], incast["finished"], incast["unroutable"]) == ("incast", 2, 2, 0)
    assert incast["fct_s"] == pytest.approx({"p50": 60 * US, "p99": 79.6 * US, "max": 80 * US, "mean": 60 * US})
    assert incast["goodput_bps"] == pytest.approx(2e6 * 8 / (80 * US))
    assert incast["class"] == {"dscp": 26, "tc": 1, "queue": 1, "pg": 0, "lossless": False}   # AZURE: DSCP 26 lossy
    assert never["finished"] == 0 and never["fct_s"]["p50"] is None and never["goodput_bps"] is None
    assert never["dropped_bytes"] == 1000
    assert doc["warnings"] == ["never: 1 flows did not finish within the scenario's duration (0.001 s)"]
    assert set(doc["ports"]) == {"Ethernet0", "Ethernet4"}
    assert doc["ports"]["Ethernet4"]["pfc"] == {"3": {"tx_frames": 7, "rx_frames": 0, "tx_pause_s": 12 * US,
                                                      "rx_pause_s": 0.0}}
    assert doc["ports"]["Ethernet0"]["queues"] == {"1": {"tx_bytes": 2_000_000, "tx_pkts": 0, "drop_pkts": 4,
                                                         "drop_bytes": 0, "ecn_marked_pkts": 0, "max_bytes": 600_000}}
    summary = doc["summary"]
    assert summary["max_queue"] == {"port": "Ethernet0", "queue": 1, "bytes": 600_000}
    assert (summary["flows"], summary["finished"], summary["drop_pkts"], summary["pfc_tx_frames"]) == (
        flows.n, flows.n - 1, 4, 7)
    assert doc["pools"]["ingress_lossless_pool"] == {"size_bytes": 165_660_324, "max_bytes": 5_000_000,
                                                     "ingress": True}
    assert doc["watchdog"] == [{"time_s": 0.5e-3, "port": "Ethernet0", "queue": 3, "event": "storm"}]
    assert ring["allreduce"]["gpus"] == 2 and len(ring["allreduce"]["iteration_s"]) == 2


def test_the_document_has_the_layout_the_summary_reads() -> None:
    nics, flows, _, names, result = the_run()
    doc = to_json(SCENARIO, TABLES, nics, flows, names, result)
    sample = sample_document()
    assert keys(doc).keys() == keys(sample).keys()
    for section in ("scenario", "summary", "series"):
        assert keys(doc[section]) == keys(sample[section]), section
    assert keys(doc["pools"])["egress_lossless_pool"] == keys(sample["pools"])["ingress_lossless_pool"]
    assert keys(doc["workloads"][1]) == keys(sample["workloads"][1])   # with "allreduce"
    assert keys(doc["ports"]["Ethernet4"])["pfc"] == keys(sample["ports"]["Ethernet4"])["pfc"]
    assert keys(doc["ports"]["Ethernet4"])["pgs"] == keys(sample["ports"]["Ethernet4"])["pgs"]
    assert keys(doc["ports"]["Ethernet0"])["queues"]["1"] == keys(sample["ports"]["Ethernet0"])["queues"]["3"]
    assert keys(doc["ports"]["Ethernet0"]).keys() == keys(sample["ports"]["Ethernet0"]).keys()


def test_unroutable_flows_are_counted_and_warned() -> None:
    oper = np.ones(N_PORTS, dtype=bool)
    oper[0] = False
    tables = build_tables(n_ports=N_PORTS, oper_up=oper)
    nics, flows, _, names = expand(SCENARIO, tables, {})
    doc = to_json(SCENARIO, tables, nics, flows, names, make_result(flows.n))
    assert doc["workloads"][0]["unroutable"] == 2 and doc["workloads"][0]["class"]["tc"] is None
    assert "incast: 2 of 2 flows have no path through the switch (see 'nos trace packet')" in doc["warnings"]


def test_allreduce_timing_by_hand() -> None:
    # 2 GPUs, 2 steps per iteration; finishes (us) by (iteration, step, gpu)
    finish = np.zeros(8)
    for (it, step, gpu), t in {(0, 0, 0): 20, (0, 0, 1): 22, (0, 1, 0): 40, (0, 1, 1): 45,
                               (1, 0, 0): 70, (1, 0, 1): 72, (1, 1, 0): 100, (1, 1, 1): 90}.items():
        finish[allreduce_index(2, it, step, gpu)] = t * US
    timing = allreduce_timing(finish, 2, 2, 0.0, 10 * US)
    # GPU ends: iteration 0 both 45 (max of received and own last send), iteration 1 both 100
    assert timing.iteration_s.tolist() == pytest.approx([45 * US, 55 * US])
    assert timing.wait_s.tolist() == pytest.approx([35 * US, 45 * US])
    assert timing.gpu_wait_share == pytest.approx((35 + 35 + 45 + 45) / (45 + 45 + 55 + 55))
    slower = allreduce_timing(finish * 1.5, 2, 2, 0.0, 10 * US)       # the same run on a slower network
    assert slower.gpu_wait_share > timing.gpu_wait_share
    finish[allreduce_index(2, 1, 1, 0)] = np.nan                      # iteration 1 never ends
    partial = allreduce_timing(finish, 2, 2, 0.0, 10 * US)
    assert partial.iteration_s[0] == pytest.approx(45 * US) and math.isnan(partial.iteration_s[1])
    assert partial.gpu_wait_share == pytest.approx(70 / 90)
    assert math.isnan(allreduce_timing(np.full(8, np.nan), 2, 2, 0.0, 10 * US).gpu_wait_share)


def test_series_keep_peaks_and_the_busiest_lines() -> None:
    result = make_result(1)
    queue, tx, pause = result.series.queue_bytes, result.series.port_tx_bps, result.series.pause
    queue[537, 2, 3] = 1e6                                            # one sample's spike survives down-sampling
    queue[:, 5, 1] = 10.0
    tx[:, 4] = 400e9
    pause[100:600, 6, 4] = True
    out = series_json(result.series, TABLES.ports.names)
    assert len(out["t_s"]) == POINTS and out["t_s"][0] == 0.0
    assert [(line["port"], line["queue"]) for line in out["queue_bytes"]] == [("Ethernet8", 3), ("Ethernet20", 1)]
    assert max(out["queue_bytes"][0]["values"]) == 1e6
    assert max(out["queue_bytes_total"]) == pytest.approx(1e6 + 10, rel=1e-3)   # 4 significant digits kept
    assert [line["port"] for line in out["tx_bps"]] == ["Ethernet16"] and out["tx_bps"][0]["values"][0] == 400e9
    (line,) = out["pause"]
    assert (line["port"], line["priority"]) == ("Ethernet24", 4)
    assert sum(line["values"]) == pytest.approx(500 / 1000 * POINTS, rel=0.01)   # paused half the run
    assert windows(0).tolist() == [] and windows(3).tolist() == [0, 1, 2]


def test_the_summary_and_the_plot_take_the_real_document(tmp_path) -> None:
    from rich.console import Console

    from nos.traffic.plot import draw
    from nos.traffic.summary import render

    nics, flows, _, names, result = the_run()
    doc = json.loads(json.dumps(to_json(SCENARIO, TABLES, nics, flows, names, result)))   # as the client gets it
    console = Console(record=True, width=160, color_system=None)
    render(doc, console)
    text = console.export_text()
    assert "report: " in text and "│ ring (allreduce) │" in text and "│ never (incast)" in text
    assert "Ethernet4" in text and "Ethernet0" in text
    assert draw(doc, tmp_path / "run.png").read_bytes()[:4] == b"\x89PNG"
