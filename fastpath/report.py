"""A traffic run's result as JSON (pure): what ``nos traffic run`` prints and plots, with port, queue and
pool names instead of indices.

``to_json(scenario, tables, nics, flows, names, result)`` ->
``{"version", "scenario", "summary", "workloads", "ports", "pools", "watchdog", "warnings", "series"}``:

* ``workloads``: per workload its flows, finished and unroutable counts, class (DSCP -> TC, queue, PG,
  lossless when the ingress PG sends PFC), flow completion times (FCT = finish - actual start, over
  finished flows: p50, p99, max, mean), goodput (delivered payload x 8 / (last finish - first start))
  and, for AllReduce, iteration times and the GPU wait share (``fastpath.allreduce``);
* ``ports``: ports that moved traffic, paused or dropped: byte and packet counts, PFC per priority,
  queues and PGs with non-zero counters only;
* ``summary``: totals (bytes, drops, ECN marks, pause time, the deepest queue, pool peaks);
* ``series``: down-sampled time series (``fastpath.report_series``).

Times are seconds, sizes bytes, rates bits per second; a value that does not exist (the FCT of a run
where nothing finished) is ``null``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from fastpath.allreduce import allreduce_timing
from fastpath.model import Flows, Nics, Result
from fastpath.report_series import series_json
from fastpath.tables import Tables
from nos.traffic.scenario import AllReduce, Scenario

VERSION = 1


def num(value: Any) -> float | None:
    """A JSON number (None for NaN / inf)."""
    number = float(value)
    return number if math.isfinite(number) else None


def arr(values: Any) -> npt.NDArray[np.float64]:
    return np.asarray(values, dtype=np.float64)


def fct_stats(fct: npt.NDArray[np.float64]) -> dict[str, float | None]:
    done = fct[~np.isnan(fct)]
    if not len(done):
        return {"p50": None, "p99": None, "max": None, "mean": None}
    return {"p50": num(np.percentile(done, 50)), "p99": num(np.percentile(done, 99)), "max": num(done.max()),
            "mean": num(done.mean())}


def flow_class(tables: Tables, flows: Flows, index: npt.NDArray[np.int64], dscp: int) -> dict[str, Any]:
    """The most common TC / queue / PG of a workload's routable flows and whether its PG is lossless."""
    routed = index[np.asarray(flows.out_port)[index] >= 0]
    if not len(routed):
        return {"dscp": dscp, "tc": None, "queue": None, "pg": None, "lossless": None}
    triples = np.stack([np.asarray(flows.tc)[routed], np.asarray(flows.queue)[routed], np.asarray(flows.pg)[routed],
                        np.asarray(flows.in_port)[routed]], axis=1)
    values, counts = np.unique(triples, axis=0, return_counts=True)
    tc, queue, pg, port = (int(v) for v in values[int(np.argmax(counts))])
    return {"dscp": dscp, "tc": tc, "queue": queue, "pg": pg, "lossless": bool(tables.qos.pfc_tx[port, pg])}


def workload_json(index: int, name: str, scenario: Scenario, tables: Tables, flows: Flows,
                  result: Result) -> dict[str, Any]:
    workload = scenario.workloads[index]
    mine = np.flatnonzero(np.asarray(flows.group) == index)
    start, finish = arr(result.flow_start_s)[mine], arr(result.flow_finish_s)[mine]
    delivered = arr(result.flow_delivered)[mine]
    finished = ~np.isnan(finish)
    span = (finish[finished].max() - np.nanmin(start)) if finished.any() else math.nan
    out: dict[str, Any] = {
        "name": name, "kind": workload.kind, "flows": len(mine), "finished": int(finished.sum()),
        "unroutable": int((np.asarray(flows.out_port)[mine] < 0).sum()),
        "class": flow_class(tables, flows, mine, workload.dscp),
        "bytes": int(np.asarray(flows.size)[mine].sum()), "delivered_bytes": int(delivered.sum()),
        "dropped_bytes": int(arr(result.flow_dropped)[mine].sum()),
        "retransmitted_bytes": int(arr(result.flow_retransmitted)[mine].sum()),
        "ecn_marked_pkts": int(arr(result.flow_ecn_marked_pkts)[mine].sum()),
        "fct_s": fct_stats(finish - start),
        "first_start_s": num(np.nanmin(start)) if len(mine) and not np.isnan(start).all() else None,
        "last_finish_s": num(finish[finished].max()) if finished.any() else None,
        "goodput_bps": num(delivered[finished].sum() * 8 / span) if span and span > 0 else None,
    }
    if isinstance(workload, AllReduce):
        gpus = len(np.unique(np.asarray(flows.src)[mine]))
        timing = allreduce_timing(finish, gpus, workload.iterations, workload.start, workload.compute)
        out["allreduce"] = {"gpus": gpus, "iterations": workload.iterations, "compute_s": workload.compute,
                            "message_bytes": workload.message,
                            "iteration_s": [num(v) for v in timing.iteration_s],
                            "wait_s": [num(v) for v in timing.wait_s], "gpu_wait_share": num(timing.gpu_wait_share)}
    return out


def nonzero(row: dict[str, Any]) -> bool:
    return any(v for v in row.values())


def port_json(port: int, result: Result) -> dict[str, Any]:
    pfc = {str(p): row for p in range(8) if nonzero(row := {
        "tx_frames": int(result.pfc_tx_frames[port][p]), "rx_frames": int(result.pfc_rx_frames[port][p]),
        "tx_pause_s": float(result.pfc_tx_pause_s[port][p]), "rx_pause_s": float(result.pfc_rx_pause_s[port][p])})}
    n_queues = np.asarray(result.queue_tx_bytes).shape[1]
    queues = {str(q): row for q in range(n_queues) if nonzero(row := {
        "tx_bytes": int(result.queue_tx_bytes[port][q]), "tx_pkts": int(result.queue_tx_pkts[port][q]),
        "drop_pkts": int(result.queue_drop_pkts[port][q]), "drop_bytes": int(result.queue_drop_bytes[port][q]),
        "ecn_marked_pkts": int(result.queue_ecn_marked_pkts[port][q]),
        "max_bytes": int(result.queue_max_bytes[port][q])})}
    pgs = {str(g): row for g in range(8) if nonzero(row := {
        "rx_bytes": int(result.pg_rx_bytes[port][g]), "rx_pkts": int(result.pg_rx_pkts[port][g]),
        "max_shared": int(result.pg_max_shared[port][g]), "max_headroom": int(result.pg_max_headroom[port][g]),
        "drop_pkts": int(result.pg_drop_pkts[port][g])})}
    return {"rx_bytes": int(result.port_rx_bytes[port]), "tx_bytes": int(result.port_tx_bytes[port]),
            "rx_pkts": int(result.port_rx_pkts[port]), "tx_pkts": int(result.port_tx_pkts[port]),
            "pfc": pfc, "queues": queues, "pgs": pgs}


def ports_json(tables: Tables, result: Result) -> dict[str, Any]:
    out = {}
    for port, name in enumerate(tables.ports.names):
        row = port_json(port, result)
        if row["rx_bytes"] or row["tx_bytes"] or row["pfc"] or row["queues"] or row["pgs"]:
            out[name] = row
    return out


def summary_json(tables: Tables, flows: Flows, result: Result) -> dict[str, Any]:
    finish = arr(result.flow_finish_s)
    queue_max = np.asarray(result.queue_max_bytes)
    deepest = np.unravel_index(int(np.argmax(queue_max)), queue_max.shape) if queue_max.size else (0, 0)
    return {
        "sim_time_s": float(result.sim_time_s), "wall_s": float(result.wall_s), "steps": int(result.steps),
        "flows": len(finish), "finished": int((~np.isnan(finish)).sum()),
        "unroutable": int((np.asarray(flows.out_port) < 0).sum()),
        "bytes": int(np.asarray(flows.size).sum()), "delivered_bytes": int(arr(result.flow_delivered).sum()),
        "dropped_bytes": int(arr(result.flow_dropped).sum()),
        "retransmitted_bytes": int(arr(result.flow_retransmitted).sum()),
        "drop_pkts": int(np.asarray(result.queue_drop_pkts).sum() + np.asarray(result.pg_drop_pkts).sum()),
        "ecn_marked_pkts": int(np.asarray(result.queue_ecn_marked_pkts).sum()),
        "pfc_tx_frames": int(np.asarray(result.pfc_tx_frames).sum()),
        "pfc_rx_frames": int(np.asarray(result.pfc_rx_frames).sum()),
        "pause_tx_s": float(arr(result.pfc_tx_pause_s).sum()), "pause_rx_s": float(arr(result.pfc_rx_pause_s).sum()),
        "max_queue": {"port": tables.ports.names[int(deepest[0])] if queue_max.size else None,
                      "queue": int(deepest[1]), "bytes": int(queue_max.max()) if queue_max.size else 0},
        "last_finish_s": num(np.nanmax(finish)) if (~np.isnan(finish)).any() else None,
    }


def pools_json(tables: Tables, result: Result) -> dict[str, Any]:
    buffers = tables.buffers
    return {name: {"size_bytes": int(buffers.pool_size[i]), "max_bytes": int(result.pool_max_bytes[i]),
                   "ingress": bool(buffers.pool_ingress[i])}
            for i, name in enumerate(buffers.pool_names) if i < len(result.pool_max_bytes)}


def warnings_of(document: dict[str, Any], scenario: Scenario) -> list[str]:
    out = []
    for workload in document["workloads"]:
        if workload["unroutable"]:
            out.append(f"{workload['name']}: {workload['unroutable']} of {workload['flows']} flows have no path "
                       "through the switch (see 'nos trace packet')")
        unfinished = workload["flows"] - workload["finished"] - workload["unroutable"]
        if unfinished > 0:
            out.append(f"{workload['name']}: {unfinished} flows did not finish within the scenario's duration "
                       f"({scenario.duration:g} s)")
    return out


def to_json(scenario: Scenario, tables: Tables, nics: Nics, flows: Flows, names: Sequence[str],
            result: Result) -> dict[str, Any]:
    """The run's result document (JSON-able: str, int, float, bool, None, lists and dicts)."""
    document: dict[str, Any] = {
        "version": VERSION,
        "scenario": {"name": scenario.name, "description": scenario.description, "duration_s": scenario.duration,
                     "seed": scenario.seed, "forwarding": scenario.forwarding, "hosts": len(nics.port),
                     "workloads": list(names)},
        "summary": summary_json(tables, flows, result),
        "workloads": [workload_json(i, name, scenario, tables, flows, result) for i, name in enumerate(names)],
        "ports": ports_json(tables, result),
        "pools": pools_json(tables, result),
        "watchdog": [{"time_s": float(t), "port": tables.ports.names[int(p)], "queue": int(q), "event": str(e)}
                     for t, p, q, e in result.watchdog_events],
    }
    document["warnings"] = warnings_of(document, scenario)
    document["series"] = series_json(result.series, tables.ports.names)
    return document


__all__ = ["VERSION", "to_json"]
