"""Boot CPU: user+sys CPU seconds of every process of one switch (at ready and 6 s later, per process)
and of the whole leaf-spine lab (wall time to ready, CPU of the lab supervisor and all its switches).

``python -m bench.boot_cpu switch`` / ``python -m bench.boot_cpu lab [--runs N]``. A helper for issue 17
(a 6-switch lab under 15 s on 2 cores): the figures say where boot CPU goes, process by process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import psutil

from nos.runtime.forkserver import argv_of

LAB = Path(__file__).resolve().parents[1] / "configs" / "labs" / "leaf-spine.yaml"
NOS = [sys.executable, "-m", "nos.cli.main"]
AFTER_S = 6.0


def _label(proc: psutil.Process) -> str:
    try:
        argv = argv_of(proc.cmdline())
    except psutil.Error:
        return "?"
    if argv and "redis" in Path(argv[0]).name:
        return "redis"
    if "-m" in argv:
        module = argv[argv.index("-m") + 1]
        return str({"nos.cli.main": "nos up"}.get(module, module))
    return Path(argv[0]).name if argv else "?"


def cpu_by_process(root: int) -> dict[str, float]:
    """CPU seconds (user+sys) of ``root`` and its descendants, summed per label."""
    top = psutil.Process(root)
    out: dict[str, float] = defaultdict(float)
    for proc in [top, *top.children(recursive=True)]:
        try:
            t = proc.cpu_times()
        except psutil.Error:
            continue
        out[_label(proc)] += t.user + t.system
    return dict(out)


def switch_once() -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="nos-bench-cpu-") as tmp:
        config = Path(tmp) / "leaf1.json"
        subprocess.run([*NOS, "lab", "config", str(LAB), "leaf1", "-o", str(config)], check=True, capture_output=True)
        run = Path(tmp) / "run"
        start = time.monotonic()
        subprocess.run([*NOS, "up", "-d", "--config", str(config), "--run-dir", str(run), "--rest-port", "0",
                        "--gnmi-port", "0", "--redis-port", "0"], check=True, capture_output=True)
        wall = time.monotonic() - start
        boot = json.loads((run / "boot.json").read_text())
        at_ready = cpu_by_process(int(boot["pid"]))
        time.sleep(AFTER_S)  # a measurement interval, not a wait for a condition
        later = cpu_by_process(int(boot["pid"]))
        subprocess.run([*NOS, "down", "--run-dir", str(run)], check=True, capture_output=True)
        return {"wall_s": wall, "boot_s": boot["boot_seconds"], "at_ready": at_ready, "later": later}


def lab_once() -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="nos-bench-cpu-lab-") as tmp:
        env = {**os.environ, "NOS_LABS_DIR": tmp}
        start = time.monotonic()
        done = subprocess.run([*NOS, "lab", "up", str(LAB)], check=True, capture_output=True, env=env, timeout=300)
        wall = time.monotonic() - start
        name = next(p.name for p in Path(tmp).iterdir() if p.is_dir())
        state = json.loads((Path(tmp) / name / "lab.json").read_text())
        cpu = cpu_by_process(int(state["pid"]))
        nodes = {n: info.get("boot_seconds") for n, info in state["nodes"].items()}
        subprocess.run([*NOS, "lab", "down", "--lab", name], check=True, capture_output=True, env=env, timeout=120)
        del done
        return {"wall_s": wall, "ready_s": state["boot_seconds"], "cpu": cpu, "cpu_total": sum(cpu.values()),
                "node_boot_s": nodes, "load": os.getloadavg()[0]}


def _print_cpu(title: str, cpu: dict[str, float]) -> None:
    print(f"  {title}: total {sum(cpu.values()):.2f} CPU-s")
    for label, sec in sorted(cpu.items(), key=lambda kv: -kv[1]):
        print(f"    {label:<28} {sec:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["switch", "lab"])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    if args.what == "switch":
        for _ in range(args.runs):
            r = switch_once()
            print(f"one switch: boot {r['boot_s']} s (nos up -d {r['wall_s']:.2f} s), load {os.getloadavg()[0]:.2f}")
            _print_cpu("at ready", r["at_ready"])  # type: ignore[arg-type]
            _print_cpu(f"{AFTER_S:g} s later", r["later"])  # type: ignore[arg-type]
        return
    results = []
    for _ in range(args.runs):
        r = lab_once()
        results.append(r)
        print(f"lab: wall {r['wall_s']:.2f} s, ready {r['ready_s']} s, CPU {r['cpu_total']:.1f} s, "
              f"load {r['load']:.2f}, switches {r['node_boot_s']}")
        _print_cpu("at ready", r["cpu"])  # type: ignore[arg-type]
    if len(results) > 1:
        print(f"median wall {statistics.median(float(r['wall_s']) for r in results):.2f} s, "  # type: ignore[arg-type]
              f"CPU {statistics.median(float(r['cpu_total']) for r in results):.1f} s")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
