"""The runner against real Redis: a consumer whose tasks wait for a dependency, then succeed."""

from __future__ import annotations

import signal
import threading

import pytest

from nos.daemon.consumer import TableConsumer
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ConsumerStateTable, ProducerStateTable

pytestmark = pytest.mark.integration


class VlanMemberHandler:
    """Needs the VLAN to exist first (as VLAN_MEMBER needs VLAN in SONiC)."""

    def __init__(self, vlans: set[str]) -> None:
        self.vlans = vlans
        self.applied: list[str] = []

    def __call__(self, task):
        vlan = task.key.split(":")[0]
        if task.fields.get("tagging_mode") == "bogus":
            return Result.invalid("tagging_mode 'bogus' is not untagged|tagged|priority_tagged")
        if vlan not in self.vlans:
            return Result.retry(f"{vlan} does not exist yet")
        self.applied.append(task.key)
        return Result.success()


def make(dbs, handler, reporter=None):
    runner = Runner("test", strict=True, reporter=reporter, retry_interval=0.05)
    source = ConsumerStateTable(dbs["APPL_DB"], "VLAN_MEMBER_TABLE")
    consumer = runner.add_consumer(TableConsumer("APPL_DB", "VLAN_MEMBER_TABLE", source, handler))
    return runner, consumer


def test_need_retry_stays_pending_until_the_dependency_appears(dbs):
    handler = VlanMemberHandler(set())
    runner, consumer = make(dbs, handler)
    ProducerStateTable(dbs["APPL_DB"], "VLAN_MEMBER_TABLE").set("Vlan100:Ethernet0", {"tagging_mode": "untagged"})

    for _ in range(5):
        runner.step(max_wait=0.1)
    assert handler.applied == [] and consumer.pending_count == 1
    assert consumer.stats.retried >= 2  # re-driven on the retry timer

    handler.vlans.add("Vlan100")
    for _ in range(5):
        runner.step(max_wait=0.1)
        if handler.applied:
            break
    assert handler.applied == ["Vlan100:Ethernet0"] and consumer.pending_count == 0


def test_invalid_is_reported_in_state_db_and_cleared_on_success(dbs, raw):
    handler = VlanMemberHandler({"Vlan100"})
    runner, _ = make(dbs, handler, reporter=StateDbReporter(dbs, "testd"))
    producer = ProducerStateTable(dbs["APPL_DB"], "VLAN_MEMBER_TABLE")
    producer.set("Vlan100:Ethernet0", {"tagging_mode": "bogus"})
    runner.step(max_wait=0.5)
    row = raw(6).hgetall("NOS_REJECTED_TABLE|APPL_DB:VLAN_MEMBER_TABLE:Vlan100:Ethernet0")
    assert row["status"] == "INVALID" and "bogus" in row["reason"] and row["daemon"] == "testd"

    producer.set("Vlan100:Ethernet0", {"tagging_mode": "tagged"})
    runner.step(max_wait=0.5)
    assert not raw(6).exists("NOS_REJECTED_TABLE|APPL_DB:VLAN_MEMBER_TABLE:Vlan100:Ethernet0")


def test_handler_crash_is_a_failed_task_when_not_strict(dbs):
    def boom(task):
        raise RuntimeError("bug")

    runner = Runner("test", strict=False, retry_interval=0.05)
    source = ConsumerStateTable(dbs["APPL_DB"], "X_TABLE")
    consumer = runner.add_consumer(TableConsumer("APPL_DB", "X_TABLE", source, boom))
    ProducerStateTable(dbs["APPL_DB"], "X_TABLE").set("k", {"a": "1"})
    runner.step(max_wait=0.5)
    assert consumer.stats.rejected == 1 and consumer.pending_count == 0


def test_timers_fire_and_sigterm_stops_the_loop_cleanly(dbs, raw):
    runner = Runner("timerd", reporter=StateDbReporter(dbs, "timerd"), heartbeat_interval=0.05)
    ticks = []
    runner.add_timer("tick", 0.02, lambda: ticks.append(1))
    source = ConsumerStateTable(dbs["APPL_DB"], "Y_TABLE")
    runner.add_consumer(TableConsumer("APPL_DB", "Y_TABLE", source, lambda t: Result.success()))

    def stop_soon():
        while len(ticks) < 5:
            threading.Event().wait(0.01)
        signal.raise_signal(signal.SIGTERM)

    previous = signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=stop_soon)
    thread.start()
    try:
        assert runner.run() == 0
    finally:
        thread.join()
    assert signal.getsignal(signal.SIGTERM) is previous  # the runner put the old handler back
    assert raw(6).hget("NOS_DAEMON_TABLE|timerd", "status") == "stopped"
