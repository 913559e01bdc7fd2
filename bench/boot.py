"""``nos up`` time to ready (128-port SKU) and the whole switch's resident memory."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.memory import tree_memory
from nos.runtime.rundir import RunDir


def boot_once(sku: str) -> tuple[float, float, float, float]:
    """(seconds to ready as nos up reports it, wall seconds of 'nos up -d', RSS and PSS MB of the switch)."""
    with tempfile.TemporaryDirectory(prefix="nos-bench-") as tmp:
        run = RunDir(Path(tmp))
        nos = [sys.executable, "-m", "nos.cli.main"]
        start = time.monotonic()
        subprocess.run([*nos, "up", "-d", "--sku", sku, "--run-dir", tmp, "--rest-port", "0",
                        "--redis-port", "0"], check=True, capture_output=True)
        wall = time.monotonic() - start
        state = run.boot_state() or {}
        rss, pss = tree_memory(int(state["pid"]))
        subprocess.run([*nos, "down", "--run-dir", tmp], check=True, capture_output=True)
        return float(state["boot_seconds"]), wall, rss, pss
