"""Full config reload of the 128-port SKU until ASIC_DB has converged.

The running configuration is saved, then replaced by one without ports (every port leaves the
ASIC); the figure is the time from ``nos config reload <saved>`` until every port is back in the
ASIC (its name in COUNTERS_PORT_NAME_MAP, written once syncd_sim created the SAI port). SONiC's
own ``config reload`` is waited on for 120 s by sonic-mgmt (reference model-defaults.md 3.1).

Since issue 15 the command itself returns only once every hop has applied the new configuration
(ports, and then their buffers, QoS and the rest): that is the second figure, taken from the same
runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import redis

NOS = [sys.executable, "-m", "nos.cli.main"]


def _ports_in_asic(counters: redis.Redis) -> int:
    return int(counters.hlen("COUNTERS_PORT_NAME_MAP"))


def _wait(predicate: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError("reload did not converge")
        time.sleep(0.01)


def reload_once(sku: str = "NOS-SIM-128x400G") -> tuple[float, float]:
    """(seconds until every port is in the ASIC, seconds until ``nos config reload`` returned)."""
    with tempfile.TemporaryDirectory(prefix="nos-bench-reload-") as tmp:
        run = Path(tmp)
        subprocess.run([*NOS, "up", "-d", "--sku", sku, "--run-dir", tmp, "--rest-port", "0", "--redis-port", "0"],
                       check=True, capture_output=True)
        try:
            url = json.loads((run / "endpoints.json").read_text())["redis"]
            counters = redis.Redis.from_url(url, db=2)
            saved = run / "saved.json"
            subprocess.run([*NOS, "config", "save", str(saved), "--run-dir", tmp], check=True, capture_output=True)
            config = json.loads(saved.read_text())
            expected = len(config["PORT"])
            empty = run / "empty.json"
            empty.write_text(json.dumps({"DEVICE_METADATA": config["DEVICE_METADATA"]}))
            subprocess.run([*NOS, "config", "reload", str(empty), "--run-dir", tmp], check=True, capture_output=True)
            _wait(lambda: _ports_in_asic(counters) == 0)
            start = time.monotonic()
            command = subprocess.Popen([*NOS, "config", "reload", str(saved), "--run-dir", tmp],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _wait(lambda: _ports_in_asic(counters) == expected)
            ports = time.monotonic() - start
            if command.wait(timeout=120) != 0:
                raise RuntimeError(f"nos config reload exited {command.returncode}")
            return ports, max(ports, time.monotonic() - start)
        finally:
            subprocess.run([*NOS, "down", "--run-dir", tmp], capture_output=True)
