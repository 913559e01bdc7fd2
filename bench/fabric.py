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
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from fastpath.fabric import ring_allreduce, run
from fastpath.fabric.topo import fat_tree
from fastpath.model import RunConfig

K = 8
RINGS, RING = 16, 8
STEPS, CHUNK = 15, 1_000_000
REFERENCE_US = (526.0, 617.0)
WALL_TARGET_S = 0.41


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


def run_all(runs: int) -> dict[str, Any]:
    results = [one_run(seed) for seed in range(runs)]
    med = {k: statistics.median(r[k] for r in results) for k in ("completion_us", "wall_s", "steps", "build_s")}
    return {"runs": runs, "results": results, "median": med}


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
