"""TableConsumer.drain runs what the pop brought, not every waiting task; the runner re-drives those;
a DaemonFatal is not caught by the per-task catch-all (pure: list-backed sources)."""

from __future__ import annotations

import pytest

from nos.daemon.consumer import TableConsumer
from nos.daemon.errors import DaemonFatal
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db.keyops import KeyOpFieldsValues as K
from tests.unit.nos.daemon.test_batch_consumer import ListSource


def test_a_pop_runs_only_its_own_keys_and_a_redrive_runs_the_waiting_ones():
    handled = []

    def handle(task):
        handled.append(task.key)
        return Result.retry("no next hop yet") if task.key.startswith("wait") else Result.success()

    source = ListSource([K.set(f"wait{i}", {"x": "1"}) for i in range(3)])
    consumer = TableConsumer("APPL_DB", "ROUTE_TABLE", source, handle)
    consumer.drain()
    source.tasks = [K.set("new", {"x": "1"})]
    handled.clear()
    assert consumer.drain() == 1 and handled == ["new"]  # the three waiting tasks were not run again
    assert consumer.execute() == 0 and sorted(handled[1:]) == ["wait0", "wait1", "wait2"]


def test_a_daemon_fatal_goes_through_the_catch_all():
    def handle(task):
        raise DaemonFatal("syncd lost the session")

    consumer = TableConsumer("APPL_DB", "T", ListSource([K.set("a", {"x": "1"})]), handle)
    with pytest.raises(DaemonFatal):
        consumer.drain()


def test_settled_callbacks_run_once_at_the_first_quiet_turn():
    source = ListSource([K.set("a", {"x": "1"})])
    runner = Runner("t", retry_interval=0.01)
    runner.add_consumer(TableConsumer("APPL_DB", "T", source, lambda t: Result.success()))
    calls = []
    runner.when_settled(lambda: calls.append(len(source.tasks)))
    runner.step(max_wait=0)  # handles "a": not quiet
    assert calls == []
    runner.step(max_wait=0)
    runner.step(max_wait=0)
    assert calls == [0]
