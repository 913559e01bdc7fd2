"""Loads to kill daemons in: a routing table pushed at full speed into APPL_DB (as fpmsyncd does), and
the watching that goes with it (the ASIC's route count sampled from syncd_sim's object counts)."""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass, field

import redis

from bench.routes import BATCH, configure, route_rows
from nos.db import ProducerStateTable
from nos.db.connector import Databases
from tests.e2e.conftest import RunningSwitch

COUNTS = "NOS_SYNCD_OBJECT_COUNTS"
ROUTES = "SAI_OBJECT_TYPE_ROUTE_ENTRY"
PORTS = 32


def routes_in_asic(asic: redis.Redis) -> int:
    return int(asic.hget(COUNTS, ROUTES) or 0)


def wait(predicate: object, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.05)


def prepare(switch: RunningSwitch) -> int:
    """Routed ports with a static peer each; returns the ASIC's route count before any route is pushed."""
    dbs = Databases(switch.endpoints["redis"])
    try:
        configure(dbs, PORTS)
    finally:
        dbs.close()
    asic = switch.db(1)
    wait(lambda: int(asic.hget(COUNTS, "SAI_OBJECT_TYPE_NEXT_HOP") or 0) >= PORTS, "next hops", 60)
    last, since = asic.hgetall(COUNTS), time.monotonic()
    while time.monotonic() - since < 1.0:  # orchagent's post-boot work done
        time.sleep(0.05)
        now = asic.hgetall(COUNTS)
        if now != last:
            last, since = now, time.monotonic()
    return routes_in_asic(asic)


def daemon_pid(switch: RunningSwitch, name: str) -> int:
    return int(switch.db(6).hget(f"NOS_DAEMON_TABLE|{name}", "pid") or 0)


@dataclass
class Watch:
    """Samples the ASIC's route count in a thread: the lowest count seen after ``mark`` was called."""

    asic: redis.Redis
    floor: int | None = None
    lowest: int | None = None
    stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> Watch:
        threading.Thread(target=self._run, daemon=True).start()
        return self

    def mark(self) -> None:
        self.floor = routes_in_asic(self.asic)
        self.lowest = self.floor

    def _run(self) -> None:
        while not self.stop.is_set():
            if self.lowest is not None:
                self.lowest = min(self.lowest, routes_in_asic(self.asic))
            time.sleep(0.01)


def push_and_kill(switch: RunningSwitch, n: int, victim: str | None, after: int, seed: int = 0) -> Watch:
    """Push ``n`` routes; SIGKILL ``victim`` once ``after`` of them are in the ASIC (None: no kill)."""
    dbs = Databases(switch.endpoints["redis"])
    asic = switch.db(1)
    watch = Watch(asic).start()
    base = routes_in_asic(asic)
    try:
        producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE", buffered=True)
        rows = route_rows(n, PORTS, 500, seed)
        for i in range(0, n, BATCH):
            producer.set_many(rows[i:i + BATCH])
        producer.flush()
        if victim is not None:
            wait(lambda: routes_in_asic(asic) >= base + after, f"{after} routes before the kill", 120)
            watch.mark()
            os.kill(daemon_pid(switch, victim), signal.SIGKILL)
    finally:
        dbs.close()
    return watch
