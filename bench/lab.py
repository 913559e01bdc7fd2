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

from bench.memory import tree_memory

LAB = Path(__file__).resolve().parents[1] / "configs" / "labs" / "leaf-spine.yaml"
NOS = [sys.executable, "-m", "nos.cli.main"]


def up_once(lab_file: Path = LAB) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="nos-bench-lab-") as tmp:
        env = {**os.environ, "NOS_LABS_DIR": tmp}
        start = time.monotonic()
        subprocess.run([*NOS, "lab", "up", str(lab_file)], check=True, capture_output=True, env=env, timeout=300)
        wall = time.monotonic() - start
        name = next(p.name for p in Path(tmp).iterdir() if p.is_dir())
        state = json.loads((Path(tmp) / name / "lab.json").read_text())
        switches = {node: tree_memory(int(json.loads((Path(info["run_dir"]) / "boot.json").read_text())["pid"]))
                    for node, info in state["nodes"].items()}
        whole_rss, whole_pss = tree_memory(int(state["pid"]))
        subprocess.run([*NOS, "lab", "down", "--lab", name], check=True, capture_output=True, env=env, timeout=120)
        return {"wall_s": wall, "ready_s": float(state["boot_seconds"]), "rss_mb": whole_rss, "pss_mb": whole_pss,
                "per_switch_mb": statistics.median(m[0] for m in switches.values()),
                "per_switch_pss_mb": statistics.median(m[1] for m in switches.values()), "switches": len(switches)}


def run(runs: int = 3) -> dict[str, Any]:
    results = [up_once() for _ in range(runs)]
    return {"runs": results, "wall_median": statistics.median(r["wall_s"] for r in results),
            "ready_median": statistics.median(r["ready_s"] for r in results),
            "rss_median": statistics.median(r["rss_mb"] for r in results),
            "per_switch_median": statistics.median(r["per_switch_mb"] for r in results),
            "pss_median": statistics.median(r["pss_mb"] for r in results),
            "per_switch_pss_median": statistics.median(r["per_switch_pss_mb"] for r in results),
            "switches": results[0]["switches"]}


def report(r: dict[str, Any]) -> None:
    print(f"nos lab up {LAB.name}, {r['switches']} switches x {len(r['runs'])} runs (median), {os.cpu_count()} cores:")
    print(f"  'nos lab up' to every switch ready    {r['wall_median']:>10.2f} s        (target < 15 s; one switch: "
          "see 'nos up' above)")
    print(f"  memory, whole lab: PSS / RSS          {r['pss_median']:>6.0f} / {r['rss_median']:.0f} MB  (RSS counts "
          "the pages forked daemons share in each of them)")
    pss, rss = r["per_switch_pss_median"], r["per_switch_median"]
    print(f"  memory, per switch: PSS / RSS         {pss:>6.0f} / {rss:.0f} MB   (nos.lab.memory budgets 460 MiB)")
