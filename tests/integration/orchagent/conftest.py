"""Harness for orch tests: syncd_sim in a thread on the test Redis, orchagent's switch init, chosen
orchs wired onto a strict Runner, and helpers to boot ports and drive the loop."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from nos.daemon.runner import Runner
from nos.db import NotificationConsumer, ProducerStateTable, Select
from nos.db.connector import Databases
from orchagent.core.deps import OrchDeps
from orchagent.core.orch import wire
from orchagent.orchs.switch import init_switch
from orchagent.sairedis import SaiRedis
from syncd_sim.syncd import Syncd
from tests.conftest import wait_until


class SyncdThread:
    """The simulated ASIC answering requests in the background (own DB connections)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._start()

    def _start(self) -> None:
        self.dbs = Databases(self.url)
        self.syncd = Syncd(self.dbs)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def restart(self) -> None:
        """As if killed between two batches and started again (a new process: a new Syncd from the DB)."""
        self.close()
        self._start()

    def _loop(self) -> None:
        select = Select()
        select.add(self.syncd.requests)
        while not self.stop.is_set():
            if select.select(0.02):
                self.syncd.on_ready()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.dbs.close()


@pytest.fixture
def syncd(redis_url: str) -> Iterator[SyncdThread]:
    thread = SyncdThread(redis_url)
    yield thread
    thread.close()


@dataclass
class Agent:
    """orchagent under test: the runner, the shared deps and the orchs by class."""

    runner: Runner
    deps: OrchDeps
    orchs: dict[type, Any]

    def drive(self, predicate: Callable[[], object], timeout: float = 10.0) -> object:
        """Step the daemon loop until ``predicate`` holds."""
        return wait_until(lambda: (self.runner.step(max_wait=0.02), predicate())[1], timeout, interval=0)

    def settle(self, steps: int = 20) -> None:
        for _ in range(steps):
            self.runner.step(max_wait=0.02)


@pytest.fixture
def orchagent(redis_url: str, syncd: SyncdThread) -> Iterator[Callable[..., Agent]]:
    opened: list[Databases] = []

    def make(*orch_classes: type) -> Agent:
        dbs = Databases(redis_url)
        opened.append(dbs)
        sai = SaiRedis(dbs, timeout=10)
        deps = OrchDeps(dbs, sai, init_switch(dbs, sai))
        runner = Runner("orchagent-test", strict=True, retry_interval=0.05)
        orchs = {cls: cls(deps) for cls in orch_classes}
        for orch in orchs.values():
            wire(orch, dbs, runner)
        notes = NotificationConsumer(dbs["ASIC_DB"], "NOTIFICATIONS")
        listeners = [o for o in orchs.values() if hasattr(o, "on_notifications")]

        def dispatch() -> None:
            batch = notes.pops()
            for orch in listeners:
                orch.on_notifications(batch)

        runner.add_selectable(notes, dispatch)
        return Agent(runner, deps, orchs)

    yield make
    for dbs in opened:
        dbs.close()


def port_rows(n: int, speed: str = "100000", admin: str = "up") -> dict[str, dict[str, str]]:
    """``n`` 4-lane ports Ethernet0, Ethernet4, ... as portsyncd would write them."""
    return {f"Ethernet{4 * i}": {"lanes": ",".join(str(4 * i + k) for k in range(4)), "speed": speed,
                                 "mtu": "9100", "admin_status": admin, "alias": f"etp{i + 1}"} for i in range(n)}


def write_ports(dbs: Databases, rows: dict[str, dict[str, str]]) -> None:
    appl = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    appl.set_many(list(rows.items()))
    appl.set("PortConfigDone", {"count": str(len(rows))})


def boot_ports(agent: Agent, dbs: Databases, n: int, admin: str = "up") -> dict[str, str]:
    """Create ``n`` ports through PortOrch and wait until they exist; returns name -> oid."""
    write_ports(dbs, port_rows(n, admin=admin))
    counters = dbs["COUNTERS_DB"].client
    agent.drive(lambda: counters.hlen("COUNTERS_PORT_NAME_MAP") == n)
    return dict(counters.hgetall("COUNTERS_PORT_NAME_MAP"))
