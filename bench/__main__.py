"""``python -m bench``: run every benchmark, print medians with their references and targets."""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import (
    boot,
    db,
    fabric,
    forward,
    gnmi,
    lab,
    mclag,
    reload,
    rest,
    restart,
    routes,
    soak,
    traffic,
    traffic_request,
)
from nos.runtime.redis_server import RedisServer


def median(values: list[float]) -> float:
    return statistics.median(values)


def run_db(runs: int, n: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="nos-bench-redis-") as tmp:
        server = RedisServer(Path(tmp), port=0)
        server.start()
        try:
            raw, state = [], []
            for run in range(runs):
                raw.append(db.raw_hset_rate(server.url, n, run))
                state.append(db.state_table_rate(server.url, n, run))
        finally:
            server.stop()
    return {"keys": n, "runs": runs, "raw_hset_per_s": raw, "state_table_per_s": state,
            "raw_median": median(raw), "state_median": median(state),
            "ratio": median(state) / median(raw)}


def run_boot(runs: int, sku: str) -> dict[str, object]:
    results = [boot.boot_once(sku) for _ in range(runs)]
    ready = [r[0] for r in results]
    return {"sku": sku, "runs": runs, "ready_s": ready, "wall_s": [r[1] for r in results],
            "rss_mb": [r[2] for r in results], "ready_median": median(ready),
            "wall_median": median([r[1] for r in results]), "rss_median": median([r[2] for r in results]),
            "pss_mb": [r[3] for r in results], "pss_median": median([r[3] for r in results])}


def run_routes(runs: int, n: int, sets: int) -> dict[str, object]:
    results = [routes.route_run(n=n, sets=sets, seed=run) for run in range(runs)]
    rates = [r.per_s for r in results]
    raw = [r.raw_hset_per_s for r in results]
    return {"routes": n, "sets": sets, "runs": runs, "routes_per_s": rates, "raw_hset_per_s": raw,
            "seconds": [r.seconds for r in results], "groups": [r.groups for r in results],
            "routes_median": median(rates), "raw_median": median(raw)}


def run_restart(runs: int, n: int) -> dict[str, object]:
    results = [restart.restart_run(n) for _ in range(runs)]
    ratios = [r.faulted_s / r.load_s for r in results]
    reconverge = [r.reconverge_s / r.load_s for r in results]
    return {"routes": n, "runs": runs, "load_s": [r.load_s for r in results],
            "faulted_s": [r.faulted_s for r in results], "ratio": ratios, "at_kill": [r.at_kill for r in results],
            "dip": [r.dip for r in results], "stall_s": [r.stall_s for r in results],
            "ratio_median": median(ratios), "stall_median": median([r.stall_s for r in results]),
            "dip_min": min(r.dip for r in results), "load_median": median([r.load_s for r in results]),
            "faulted_median": median([r.faulted_s for r in results]), "reconverge_s": [r.reconverge_s for r in results],
            "reconverge_ratio": reconverge, "reconverge_median": median([r.reconverge_s for r in results]),
            "reconverge_ratio_median": median(reconverge)}


def run_reload(runs: int, sku: str) -> dict[str, object]:
    pairs = [reload.reload_once(sku) for _ in range(runs)]
    seconds, applied = [p for p, _ in pairs], [a for _, a in pairs]
    return {"sku": sku, "runs": runs, "seconds": seconds, "median": median(seconds),
            "applied_seconds": applied, "applied_median": median(applied)}


#: Benchmarks that run and print themselves: name -> (run given --runs, report).
MODULES: dict[str, tuple[Callable[[int], Any], Callable[[Any], None]]] = {
    "gnmi": (lambda runs: gnmi.run_all(quick=False, repeats=runs), gnmi.report),
    "rest": (lambda runs: rest.run(repeats=runs), rest.report),
    "forward": (lambda runs: forward.run(runs=runs), forward.report),
    "traffic": (traffic.run_all, traffic.report),
    "fabric": (fabric.run_all, fabric.report),
    "traffic-request": (traffic_request.run, traffic_request.report),
    "lab": (lambda runs: lab.run(runs=min(runs, 3)), lab.report),  # a lab up costs ~20 s of both cores
    "mclag": (lambda runs: mclag.run(runs=min(runs, 5)), mclag.report),
    "soak": (lambda runs: soak.run(runs=min(runs, 3)), soak.report),  # ~80 s of both cores a run
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keys", type=int, default=50_000)
    parser.add_argument("--only", choices=["db", "boot", "reload", "routes", "restart", *MODULES])
    parser.add_argument("--routes", type=int, default=100_000)
    parser.add_argument("--route-sets", type=int, default=routes.SETS)
    parser.add_argument("--json", type=Path, default=Path("bench/results/latest.json"))
    args = parser.parse_args()
    out: dict[str, object] = {}
    if args.only in (None, "db"):
        r = out["db"] = run_db(args.runs, args.keys)
        print(f"DB layer, {r['keys']} keys x {r['runs']} runs (median):")
        print(f"  raw pipelined HSET (reference)        {r['raw_median']:>10,.0f} keys/s")
        print(f"  ProducerStateTable -> Consumer (e2e)  {r['state_median']:>10,.0f} keys/s"
              f"   = {r['ratio']:.0%} of raw   (target >= 50%)")
    if args.only in (None, "boot"):
        b = out["boot"] = run_boot(args.runs, "NOS-SIM-128x400G")
        print(f"nos up, {b['sku']} x {b['runs']} runs (median):")
        print(f"  'nos up -d' to ready, wall clock      {b['wall_median']:>10.2f} s        (target < 3 s)")
        print(f"    of which the supervisor's boot      {b['ready_median']:>10.2f} s        (Redis, config, daemons)")
        print(f"  memory, whole switch: PSS             {b['pss_median']:>10.0f} MB       (target < 400 MB; RSS "
              f"{b['rss_median']:.0f} MB counts the pages forked daemons share in each)")
    if args.only in (None, "reload"):
        c = out["reload"] = run_reload(args.runs, "NOS-SIM-128x400G")
        print(f"config reload, {c['sku']} x {c['runs']} runs (median):")
        print(f"  reload until every port is in the ASIC {c['median']:>9.2f} s        "
              "(sonic-mgmt waits up to 120 s)")
        print(f"  until 'nos config reload' returned     {c['applied_median']:>9.2f} s        "
              "(every hop applied: ports, buffers, QoS)")
    if args.only in (None, "routes"):
        r = out["routes"] = run_routes(args.runs, args.routes, args.route_sets)
        print(f"Routes, {r['routes']} IPv4 /24 over {r['sets']} ECMP sets x {r['runs']} runs (median), {routes.SKU}:")
        print(f"  raw pipelined HSET (reference)        {r['raw_median']:>10,.0f} keys/s")
        print(f"  ROUTE_TABLE -> ASIC_DB (e2e)          {r['routes_median']:>10,.0f} routes/s"
              f"   = {r['routes_median'] / r['raw_median']:.0%} of raw   (target >= 20,000)")
    if args.only in (None, "restart"):
        k = out["restart"] = run_restart(args.runs, args.routes)
        print(f"orchagent SIGKILL half-way through {k['routes']} routes x {k['runs']} runs (median), {routes.SKU}:")
        print(f"  load without a fault (reference)      {k['load_median']:>10.2f} s")
        print(f"  load with orchagent killed            {k['faulted_median']:>10.2f} s"
              f"   = {k['ratio_median']:.2f}x the load")
        print(f"  reconverged, from the kill            {k['reconverge_median']:>10.2f} s"
              f"   = {k['reconverge_ratio_median']:.2f}x the load   (target <= 2x)")
        print(f"  routes lost from the ASIC (worst)     {-min(k['dip_min'], 0):>10d}          (target 0)")
        print(f"  programming stood still for       {k['stall_median']:>10.2f} s (restart, replay, APPLY_VIEW)")
    for name, (run_bench, report) in MODULES.items():
        if args.only in (None, name):
            out[name] = run_bench(args.runs)
            report(out[name])
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
