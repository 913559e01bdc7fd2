"""orchagent killed in the middle of a 100,000-route load: what the ASIC held meanwhile, how long route
programming stood still, and how long until every route was in the ASIC.

Each run takes two fresh switches (``nos up -d``, 128x400G) configured as the route benchmark's
(``bench.routes``: routed ports with a static peer each, settled): on the first the load runs without a
fault (the reference time); on the second orchagent gets SIGKILL once half the routes are in the ASIC.
The ASIC's route count is sampled every 10 ms from syncd_sim's object counts. Figures:

* ``dip``: the lowest count after the kill less the count at the kill (goal: never below 0: a restart
  must not take routes away);
* ``stall_s``: from the kill until the count rises again (programming stood still while orchagent was
  restarted, replayed what APPL_DB holds into a temporary view, and APPLY_VIEW made it the ASIC's);
* ``load_s`` / ``faulted_s``: first write to the last route in the ASIC, without and with the kill;
* ``reconverge_s``: from the kill to the last route in the ASIC (goal: within 2x ``load_s``, the time
  the load itself took).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from bench.routes import BATCH, SKU, configure, count, route_rows, wait_for
from bench.settle import settle
from nos.db import ProducerStateTable
from nos.db.connector import Databases
from nos.runtime.rundir import RunDir

PORTS = 32
TIMEOUT_S = 300.0
NOS = [sys.executable, "-m", "nos.cli.main"]


@dataclass
class Sampler:
    """(seconds, route count) every 10 ms, in a thread."""

    asic: redis.Redis
    samples: list[tuple[float, int]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    thread: threading.Thread | None = None

    def start(self) -> Sampler:
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        return self

    def finish(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join()

    def _run(self) -> None:
        while not self.stop.is_set():
            self.samples.append((time.monotonic(), count(self.asic, "ROUTE_ENTRY")))
            time.sleep(0.01)


@dataclass(frozen=True)
class RestartRun:
    load_s: float
    faulted_s: float
    at_kill: int
    dip: int
    stall_s: float
    reconverge_s: float


Loaded = tuple[float, int, int, float, float]


def load(url: str, n: int, kill_after: int | None) -> Loaded:
    """Push ``n`` routes; with ``kill_after``, SIGKILL orchagent once that many are in the ASIC.
    Returns (seconds to the last route, count at the kill, dip after it, stall after it, kill to done)."""
    dbs = Databases(url)
    asic = redis.Redis.from_url(url, db=1, decode_responses=True)
    state = redis.Redis.from_url(url, db=6, decode_responses=True)
    try:
        configure(dbs, PORTS)
        wait_for(lambda: count(asic, "NEXT_HOP") >= PORTS, f"{PORTS} next hops in ASIC_DB")
        settle(url)
        base = count(asic, "ROUTE_ENTRY")
        rows = route_rows(n, PORTS, 2000, 0)
        producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE", buffered=True)
        sampler = Sampler(asic).start()
        start = time.monotonic()
        for i in range(0, n, BATCH):
            producer.set_many(rows[i:i + BATCH])
        producer.flush()
        killed_at, at_kill = 0.0, 0
        if kill_after is not None:
            wait_for(lambda: count(asic, "ROUTE_ENTRY") >= base + kill_after, "routes before the kill")
            pid = int(state.hget("NOS_DAEMON_TABLE|orchagent", "pid") or 0)
            at_kill = count(asic, "ROUTE_ENTRY") - base
            killed_at = time.monotonic()
            os.kill(pid, signal.SIGKILL)
        wait_for(lambda: count(asic, "ROUTE_ENTRY") >= base + n, f"{n} routes in ASIC_DB", TIMEOUT_S)
        done = time.monotonic()
        sampler.finish()
        if kill_after is None:
            return done - start, 0, 0, 0.0, 0.0
        after = [(t, c - base) for t, c in sampler.samples if t >= killed_at]
        return (done - start, at_kill, min(c for _, c in after) - at_kill, longest_still(after, killed_at),
                done - killed_at)
    finally:
        asic.close()
        state.close()
        dbs.close()


def longest_still(samples: list[tuple[float, int]], since: float) -> float:
    """The longest time in ``samples`` (time, count) during which the count did not rise."""
    longest, still_from, high = 0.0, since, -1
    for t, value in samples:
        if value > high:
            longest, still_from, high = max(longest, t - still_from), t, value
    return longest


def on_fresh_switch(n: int, kill_after: int | None) -> Loaded:
    with tempfile.TemporaryDirectory(prefix="nos-bench-restart-") as tmp:
        subprocess.run([*NOS, "up", "-d", "--sku", SKU, "--run-dir", tmp, "--rest-port", "0", "--redis-port", "0",
                        "--gnmi-port", "0"], check=True, capture_output=True)
        try:
            return load((RunDir(Path(tmp)).endpoints() or {})["redis"], n, kill_after)
        finally:
            subprocess.run([*NOS, "down", "--run-dir", tmp], check=True, capture_output=True)


def restart_run(n: int = 100_000) -> RestartRun:
    reference = on_fresh_switch(n, None)[0]
    faulted, at_kill, dip, stall, reconverge = on_fresh_switch(n, n // 2)
    return RestartRun(reference, faulted, at_kill, dip, stall, reconverge)


if __name__ == "__main__":
    r = restart_run(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    print(f"load {r.load_s:.2f} s, with orchagent killed at {r.at_kill} routes: {r.faulted_s:.2f} s "
          f"({r.faulted_s / r.load_s:.2f}x), reconverged {r.reconverge_s:.2f} s after the kill "
          f"({r.reconverge_s / r.load_s:.2f}x), dip {r.dip}, stall {r.stall_s:.2f} s")
