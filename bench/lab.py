"""``nos lab up configs/labs/leaf-spine.yaml`` (6 switches) to ready, and the lab's resident memory.

Ready means what ``nos lab up`` waits for: every switch's own status ready (its generated routes in
its ASIC) and every link's carrier written. Memory is the RSS of the lab supervisor and every process
of every switch (psutil), whole lab and per switch.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

LAB = Path(__file__).resolve().parents[1] / "configs" / "labs" / "leaf-spine.yaml"
NOS = [sys.executable, "-m", "nos.cli.main"]


def _rss(pid: int) -> int:
    proc = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [proc, *proc.children(recursive=True)])


def up_once(lab_file: Path = LAB) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="nos-bench-lab-") as tmp:
        env = {**os.environ, "NOS_LABS_DIR": tmp}
        start = time.monotonic()
        subprocess.run([*NOS, "lab", "up", str(lab_file)], check=True, capture_output=True, env=env, timeout=300)
        wall = time.monotonic() - start
        name = next(p.name for p in Path(tmp).iterdir() if p.is_dir())
        state = json.loads((Path(tmp) / name / "lab.json").read_text())
        switches = {node: _rss(int(json.loads((Path(info["run_dir"]) / "boot.json").read_text())["pid"]))
                    for node, info in state["nodes"].items()}
        whole = _rss(int(state["pid"]))
        subprocess.run([*NOS, "lab", "down", "--lab", name], check=True, capture_output=True, env=env, timeout=120)
        return {"wall_s": wall, "ready_s": float(state["boot_seconds"]), "rss_mb": whole / 1e6,
                "per_switch_mb": statistics.median(switches.values()) / 1e6, "switches": len(switches)}


def run(runs: int = 3) -> dict[str, Any]:
    results = [up_once() for _ in range(runs)]
    return {"runs": results, "wall_median": statistics.median(r["wall_s"] for r in results),
            "ready_median": statistics.median(r["ready_s"] for r in results),
            "rss_median": statistics.median(r["rss_mb"] for r in results),
            "per_switch_median": statistics.median(r["per_switch_mb"] for r in results),
            "switches": results[0]["switches"]}


def report(r: dict[str, Any]) -> None:
    print(f"nos lab up {LAB.name}, {r['switches']} switches x {len(r['runs'])} runs (median), {os.cpu_count()} cores:")
    print(f"  'nos lab up' to every switch ready    {r['wall_median']:>10.2f} s        (target < 15 s; one switch: "
          "see 'nos up' above)")
    print(f"  resident memory, whole lab            {r['rss_median']:>10.0f} MB")
    print(f"  resident memory, per switch           {r['per_switch_median']:>10.0f} MB       (nos.lab.memory budgets "
          "460 MiB)")
