"""The traffic model's speed: wall time against simulated time on the 128x400G switch's tables.

Cases (``build_tables(n_ports=128)``: TH5 buffers, AZURE maps, PFC on priorities 3 and 4):

* ``incast-1MB``: 64 senders x 1 MB to one 400G port on lossless TC3 (1.3 ms simulated; 64 MB fits in
  the buffer, so no pause);
* ``incast-10MB``: the same with 10 MB each (13 ms simulated; PFC pauses every sender);
* ``full-load``: all 128 ports at 400G for 10 ms: all-to-all, 16,256 flows of 4 MB (each NIC is busy
  for ~10.4 ms, the run stops at 10 ms);
* extra, not targets: ``incast-10MB-dcqcn`` (ECN 150 KB / 1.5 MB / 100 % and DCQCN on every sender:
  DCQCN events come every few microseconds, each a step), ``a2a-random-10ms`` (all-to-all with
  sizes drawn from 0.1-5 MB: one step per flow that finishes, so steps grow with distinct events) and
  ``oversub-2to1-dcqcn-10ms`` (all 128 ports send line rate, two senders to each of 64 receivers, so
  every receiver is 2:1 congested, with ECN and DCQCN: a full load that marks and reacts).

Printed: medians over ``runs`` runs of wall time, simulated time and steps; peak memory is measured in
one more run under ``tracemalloc`` (numpy reports its buffers to it) plus the process's peak RSS.
``python -m bench.traffic [--runs N] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from fastpath.build import build_tables
from fastpath.model import Flows, Nics, Result, RunConfig, run
from fastpath.tables import Tables

PORTS = 128
Case = Callable[[Tables], tuple[Nics, Flows, RunConfig]]


def incast(size: int, dcqcn: bool = False) -> Case:
    def build(tables: Tables) -> tuple[Nics, Flows, RunConfig]:
        senders = np.arange(1, 65)
        flows = Flows.of(senders, 0, senders, 0, size, tc=3, dcqcn=dcqcn)
        return Nics.of(np.arange(PORTS)), flows, RunConfig(max_time_s=0.05)
    return build


def all_to_all(sizes: Callable[[int], Any], max_time_s: float) -> Case:
    def build(tables: Tables) -> tuple[Nics, Flows, RunConfig]:
        src, dst = np.meshgrid(np.arange(PORTS), np.arange(PORTS), indexing="ij")
        keep = src != dst
        src, dst = src[keep], dst[keep]
        flows = Flows.of(src, dst, src, dst, sizes(len(src)), tc=3)
        return Nics.of(np.arange(PORTS)), flows, RunConfig(max_time_s=max_time_s)
    return build


def oversubscribed(size: int, max_time_s: float) -> Case:
    """Every port sends line rate to one of 64 receivers, two senders each: every receiver 2:1 congested."""
    def build(tables: Tables) -> tuple[Nics, Flows, RunConfig]:
        receivers = np.random.default_rng(0).permutation(PORTS)[:PORTS // 2]
        src = np.arange(PORTS)
        dst = receivers[src // 2]
        keep = src != dst
        flows = Flows.of(src[keep], dst[keep], src[keep], dst[keep], size, tc=3, dcqcn=True)
        return Nics.of(np.arange(PORTS)), flows, RunConfig(max_time_s=max_time_s)
    return build


def _ecn_tables() -> Tables:
    ecn = np.zeros((PORTS, 8), dtype=bool)
    ecn[:, 3] = True
    return build_tables(n_ports=PORTS, wred_ecn=ecn, wred_min=150_000, wred_max=1_500_000, wred_prob=1.0)


CASES: dict[str, tuple[Case, str, float | None]] = {
    "incast-1MB": (incast(1_000_000), "plain", 0.1),
    "incast-10MB": (incast(10_000_000), "plain", 0.2),
    "full-load": (all_to_all(lambda n: np.full(n, 4_000_000), 10e-3), "plain", 5.0),
    "incast-10MB-dcqcn": (incast(10_000_000, dcqcn=True), "ecn", None),
    "a2a-random-10ms": (all_to_all(lambda n: np.random.default_rng(0).integers(100_000, 5_000_000, n), 10e-3),
                        "plain", None),
    "oversub-2to1-dcqcn-10ms": (oversubscribed(300_000_000, 10e-3), "ecn", None),
}


def _once(tables: Tables, case: Case) -> Result:
    nics, flows, cfg = case(tables)
    return run(tables, nics, flows, cfg)


def measure(name: str, runs: int) -> dict[str, Any]:
    case, kind, target = CASES[name]
    tables = build_tables(n_ports=PORTS) if kind == "plain" else _ecn_tables()
    walls, results = [], []
    for _ in range(runs):
        start = time.perf_counter()
        results.append(_once(tables, case))
        walls.append(time.perf_counter() - start)
    tracemalloc.start()
    last = _once(tables, case)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"case": name, "runs": runs, "wall_s": walls, "wall_median": statistics.median(walls),
            "sim_s": last.sim_time_s, "steps": statistics.median([r.steps for r in results]),
            "flows": len(last.flow_finish_s), "finished": int(np.isfinite(last.flow_finish_s).sum()),
            "dropped_bytes": float(last.flow_dropped.sum()), "pfc_frames": float(last.pfc_tx_frames.sum()),
            "traced_peak_mb": peak / 1e6, "target_s": target}


def run_all(runs: int = 5) -> dict[str, Any]:
    out: dict[str, Any] = {name: measure(name, runs) for name in CASES}
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def report(out: dict[str, Any]) -> None:
    print(f"Traffic model, {PORTS}x400G tables (median of runs; peak memory of one traced run):")
    for name in CASES:
        r = out[name]
        target = f"(target < {r['target_s']:g} s)" if r["target_s"] else "(not a target)"
        print(f"  {name:<18} sim {r['sim_s'] * 1e3:7.2f} ms  wall {r['wall_median']:7.3f} s  "
              f"steps {r['steps']:6.0f}  flows {r['flows']:6d}  peak {r['traced_peak_mb']:6.1f} MB  {target}")
    print(f"  process peak RSS {out['max_rss_mb']:.0f} MB (target for full-load < 2 GB)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.traffic")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    out = run_all(args.runs)
    report(out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
