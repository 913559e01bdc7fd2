"""A single-switch traffic run from request to result on a warm switch: 64-to-1 x 1 MB (configs'
incast-64to1 with 1 MB per sender) on a running NOS-SIM-128x400G.

Figures (medians after one warm-up run): the request through ``nos.traffic.client.run_scenario`` (what
``nos traffic run`` and REST do: wait until the configuration is applied, write the job, syncd_sim
forks the model, applies the run's counters, the client reads the result), the same through REST
(``POST /api/v1/operations/traffic-run``, polling ``GET /api/v1/jobs/<id>``), the whole ``nos traffic
run --json`` command (its own start included: ``nos --help`` is printed beside it), and the model's
own wall time for the run, from the result.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from nos.db.connector import Databases
from nos.traffic.client import run_scenario

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = (ROOT / "configs" / "scenarios" / "incast-64to1.yaml").read_text().replace("size: 4MB", "size: 1MB")
NOS = [sys.executable, "-m", "nos.cli.main"]


def _timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _rest_run(base: str) -> None:
    with httpx.Client(base_url=base, timeout=30) as http:
        job = http.post("/api/v1/operations/traffic-run", json={"scenario": SCENARIO}).json()
        while True:
            state = http.get(f"/api/v1/jobs/{job['id']}").json()
            if state["state"] in ("succeeded", "failed"):
                assert state["state"] == "succeeded", state
                return
            time.sleep(0.005)


def run(runs: int = 5) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="nos-bench-run-") as tmp:
        subprocess.run([*NOS, "up", "-d", "--run-dir", tmp, "--rest-port", "0", "--gnmi-port", "0", "--redis-port",
                        "0"], check=True, capture_output=True)
        try:
            endpoints = json.loads((Path(tmp) / "endpoints.json").read_text())
            dbs = Databases(endpoints["redis"])
            scenario = Path(tmp) / "incast-1mb.yaml"
            scenario.write_text(SCENARIO)
            doc = run_scenario(dbs, SCENARIO, timeout_s=60)  # warm-up: compiles the tables
            client = [_timed(lambda: run_scenario(dbs, SCENARIO, timeout_s=60)) for _ in range(runs)]
            rest = [_timed(lambda: _rest_run(endpoints["rest"])) for _ in range(runs)]
            cli = [_timed(lambda: subprocess.run([*NOS, "traffic", "run", str(scenario), "--json", "--run-dir", tmp],
                                                 check=True, capture_output=True)) for _ in range(runs)]
            bare = [_timed(lambda: subprocess.run([*NOS, "--help"], check=True, capture_output=True))
                    for _ in range(runs)]
            dbs.close()
        finally:
            subprocess.run([*NOS, "down", "--run-dir", tmp], capture_output=True)
    model = doc.get("summary", {}).get("wall_s")
    return {"client_s": client, "rest_s": rest, "cli_s": cli, "nos_start_s": bare, "model_s": model,
            "client_median": statistics.median(client), "rest_median": statistics.median(rest),
            "cli_median": statistics.median(cli), "nos_start_median": statistics.median(bare)}


def report(r: dict[str, Any]) -> None:
    print(f"nos traffic run, 64-to-1 x 1 MB on a warm NOS-SIM-128x400G x {len(r['client_s'])} runs (median):")
    print(f"  request to result (client API)        {r['client_median']:>10.3f} s        (target < 0.2 s; "
          "issue 17 quotes 0.78 s)")
    print(f"  request to result (REST job)          {r['rest_median']:>10.3f} s")
    print(f"  'nos traffic run --json', whole       {r['cli_median']:>10.3f} s        (of which the command's own "
          f"start, 'nos --help': {r['nos_start_median']:.3f} s)")
    if r["model_s"]:
        print(f"  the model itself                      {float(r['model_s']):>10.3f} s")
