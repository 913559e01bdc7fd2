"""One traffic model across a fabric: htsim's AllReduce on its default K = 8 fat tree.

The case: ``fastpath.fabric.topo.fat_tree(8)`` (80 switches of 8 x 400G ports, 128 hosts at 400G, 5 m
cables, TH5 buffers, PFC on priority 3, ECN on queue 3), 16 rings of 8 GPUs, ring r = hosts r, r + 16,
..., r + 112 (one GPU per pod, so every send crosses the core), 15 chained steps of 1 MB per GPU
(MTU 4096, lossless TC 3, no DCQCN), ECMP placement random by seed (the seed goes into every
switch's ECMP hash seed). Reference: the packet simulator's completion time over seeds, 526-617 us
(target: within 5 %), and a wall time target of 0.41 s.

Printed, not asserted: medians over ``runs`` seeds of the completion time (last byte received), the
model's wall time (paths hop by hop + the fluid run, ``fastpath.fabric.run``), the steps, and the
time to build the 80 switches' tables (not part of the run). ``python -m bench.fabric [--runs N]``.

A second case is htsim's own matrix: ``fastpath.fabric.chain_allreduce`` is its ``gen_allreduce.py``
(128 nodes, 16 groups of 8 hosts drawn by a seeded shuffle, every member's 1 MB chunk going 15 hops
round its ring, each hop triggered by the previous one's end), the same flows for the same seed. Beside
it the bench prints what htsim itself gave on this machine for those matrices (``HTSIM_MEASURED``;
how it was run is below), and, when ``HTSIM_ROCE`` names an ``htsim_roce`` binary, runs it on the very
matrix the model ran (written by ``fastpath.fabric.connection_matrix``) and prints its figures too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from fastpath.fabric import chain_allreduce, ring_allreduce, run
from fastpath.fabric.connection_matrix import write_connection_matrix
from fastpath.fabric.topo import fat_tree
from fastpath.model import RunConfig

K = 8
RINGS, RING = 16, 8
STEPS, CHUNK = 15, 1_000_000
REFERENCE_US = (526.0, 617.0)
WALL_TARGET_S = 0.41
HOSTS = 128

#: htsim (Broadcom/csg-htsim 841d9e7, ``make`` in sim/, then sim/datacenter) on gen_allreduce.py's
#: matrix ``128 128 8 1000000 0 SEED`` (= chain_allreduce(seed=SEED)), run as ``htsim_roce -nodes 128
#: -tm FILE -strat ecmp_host -paths 1 -linkspeed 400000 -mtu 4096 -end 10000 -seed SEED`` (its default
#: lossless input queues: 15 packets, PFC at 12/15) with ``-hop_latency 0.025 -switch_latency 0.6``
#: (the model's 5 m cables and 600 ns cut-through): completion (last flow's final ACK) in us and wall
#: seconds, seeds 1-5, on this 2-core machine, 2026-12-04 (one run each; the model ran beside it).
HTSIM_MEASURED: dict[int, tuple[float, float]] = {1: (1256.6, 9.95), 2: (1271.1, 10.08), 3: (1237.3, 9.78),
                                                  4: (1225.1, 10.89), 5: (1354.3, 9.44)}
HTSIM_ARGS = ("-strat", "ecmp_host", "-paths", "1", "-linkspeed", "400000", "-mtu", "4096", "-end", "10000",
              "-hop_latency", "0.025", "-switch_latency", "0.6")


def rings() -> list[list[int]]:
    return [[r + 16 * j for j in range(RING)] for r in range(RINGS)]


def one_run(seed: int) -> dict[str, float]:
    t0 = time.perf_counter()
    fabric = fat_tree(K, seed=seed)
    build_s = time.perf_counter() - t0
    flows = ring_allreduce(rings(), STEPS, CHUNK)
    t1 = time.perf_counter()
    r = run(fabric, flows, RunConfig(max_time_s=5e-3, seed=seed))
    wall = time.perf_counter() - t1
    res = r.result
    return {"seed": seed, "completion_us": float(np.nanmax(res.flow_finish_s)) * 1e6, "wall_s": wall,
            "model_wall_s": res.wall_s, "steps": res.steps, "build_s": build_s,
            "unfinished": int(np.isnan(res.flow_finish_s).sum()), "dropped": float(res.flow_dropped.sum()),
            "flows": flows.n, "segments": int(r.hops.ptr[-1])}


def htsim_live(binary: str, text: str, seed: int) -> dict[str, float]:
    """htsim_roce on matrix ``text``: completion (the last 'finished at', us) and its wall time. It runs
    in a directory of its own: htsim writes its logs (logout.dat, idmap.txt) where it runs."""
    with tempfile.TemporaryDirectory(prefix="htsim-") as work:
        matrix = Path(work) / "matrix.cm"
        matrix.write_text(text)
        t0 = time.perf_counter()
        out = subprocess.run([binary, "-nodes", str(HOSTS), "-tm", str(matrix), "-seed", str(seed), *HTSIM_ARGS],
                             capture_output=True, text=True, check=True, cwd=work).stdout
        wall = time.perf_counter() - t0
    done = [float(line.split()[5]) for line in out.splitlines() if line.startswith("Flow ") and "finished at" in line]
    return {"completion_us": max(done) if done else float("nan"), "finished": len(done), "wall_s": wall}


def one_chain_run(seed: int, htsim: str | None) -> dict[str, Any]:
    """htsim's gen_allreduce matrix for ``seed`` on the model (and on htsim when given its binary)."""
    fabric = fat_tree(K, seed=seed)
    flows = chain_allreduce(HOSTS, RING, CHUNK, seed=seed)
    t1 = time.perf_counter()
    r = run(fabric, flows, RunConfig(max_time_s=5e-3, seed=seed))
    wall = time.perf_counter() - t1
    res = r.result
    out: dict[str, Any] = {"seed": seed, "completion_us": float(np.nanmax(res.flow_finish_s)) * 1e6, "wall_s": wall,
                           "steps": res.steps, "unfinished": int(np.isnan(res.flow_finish_s).sum()),
                           "dropped": float(res.flow_dropped.sum()), "flows": flows.n}
    if htsim:
        out["htsim"] = htsim_live(htsim, write_connection_matrix(flows, HOSTS), seed)
    return out


def run_all(runs: int) -> dict[str, Any]:
    results = [one_run(seed) for seed in range(runs)]
    med = {k: statistics.median(r[k] for r in results) for k in ("completion_us", "wall_s", "steps", "build_s")}
    htsim = os.environ.get("HTSIM_ROCE") or None
    chains = [one_chain_run(seed, htsim) for seed in range(1, runs + 1)]
    chain_med = {k: statistics.median(r[k] for r in chains) for k in ("completion_us", "wall_s", "steps")}
    return {"runs": runs, "results": results, "median": med, "chains": chains, "chain_median": chain_med}


def report(out: dict[str, Any]) -> None:
    m = out["median"]
    r0 = out["results"][0]
    lo, hi = REFERENCE_US
    per_seed = ", ".join(f"{r['completion_us']:.0f}" for r in out["results"])
    print(f"Fabric AllReduce, K={K} fat tree ({r0['flows']} flows, {r0['segments']} hops), {out['runs']} seeds "
          "(median):")
    print(f"  completion time                      {m['completion_us']:>10.0f} us      (packet simulator "
          f"{lo:.0f}-{hi:.0f} us; target within 5 %)   seeds: {per_seed}")
    print(f"  wall time (paths + fluid model)      {m['wall_s']:>10.2f} s        (target <= {WALL_TARGET_S} s)")
    print(f"  steps                                {m['steps']:>10.0f}")
    print(f"  building the 80 switches' tables     {m['build_s']:>10.2f} s        (not in the run)")
    lost = sum(r["dropped"] for r in out["results"])
    print(f"  bytes dropped, all seeds             {lost:>10.0f}          (lossless: 0)")
    report_chains(out)


def report_chains(out: dict[str, Any]) -> None:
    chains, m = out.get("chains", []), out.get("chain_median", {})
    if not chains:
        return
    seeds = [r["seed"] for r in chains]
    print(f"htsim's own AllReduce matrix (gen_allreduce.py 128 128 8 1000000 0 SEED; {chains[0]['flows']} flows, "
          f"chains of 15 triggered hops), seeds {seeds[0]}-{seeds[-1]} (median):")
    per_seed = ", ".join(f"{r['completion_us']:.0f}" for r in chains)
    print(f"  model completion                     {m['completion_us']:>10.0f} us      seeds: {per_seed}")
    print(f"  model wall time                      {m['wall_s']:>10.2f} s        steps {m['steps']:.0f}")
    measured = [HTSIM_MEASURED[s] for s in seeds if s in HTSIM_MEASURED]
    if measured:
        print(f"  htsim measured here (HTSIM_MEASURED) {statistics.median(c for c, _ in measured):>10.0f} us      "
              f"seeds: {', '.join(f'{c:.0f}' for c, _ in measured)}; wall "
              f"{statistics.median(w for _, w in measured):.2f} s")
    live = [r["htsim"] for r in chains if "htsim" in r]
    if live:
        done = [h["completion_us"] for h in live]
        print(f"  htsim now (HTSIM_ROCE)               {statistics.median(done):>10.0f} us      seeds: "
              f"{', '.join(f'{c:.0f}' for c in done)}; wall {statistics.median(h['wall_s'] for h in live):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench.fabric")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out = run_all(args.runs)
    report(out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
