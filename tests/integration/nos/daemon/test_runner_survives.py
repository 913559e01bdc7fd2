"""The runner against real Redis: whatever raises in the loop (a timer, a selectable, a pop) is
reported in STATE_DB and the loop goes on; bad data met by a handler is INVALID, even when strict."""

from __future__ import annotations

import pytest

from nos.daemon.consumer import TableConsumer
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import NotificationConsumer, SubscriberStateTable, Table
from nos.db.errors import WrongTypeError

pytestmark = pytest.mark.integration


def rejects(raw) -> dict[str, dict[str, str]]:
    state = raw(6)
    return {name.split("|", 1)[1]: state.hgetall(name) for name in state.keys("NOS_REJECTED_TABLE|*")}


def test_a_timer_that_raises_is_reported_and_the_loop_goes_on(dbs, raw):
    runner = Runner("testd", reporter=StateDbReporter(dbs, "testd"))
    calls: list[int] = []

    def flaky() -> None:
        calls.append(1)
        if len(calls) <= 2:
            raise KeyError("SAI_SWITCH_ATTR_DEFAULT_VIRTUAL_ROUTER_ID")

    runner.add_timer("flaky", 0.0, flaky)
    runner.step(max_wait=0.01)
    runner.step(max_wait=0.01)
    row = rejects(raw)["testd:loop:timer flaky"]
    assert row["status"] == "FAILED" and "KeyError" in row["reason"] and row["daemon"] == "testd"

    runner.step(max_wait=0.01)  # it succeeds: the report goes
    assert len(calls) == 3 and rejects(raw) == {}


def test_strict_raises_what_the_loop_would_report(dbs):
    runner = Runner("testd", strict=True)
    runner.add_timer("boom", 0.0, lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        runner.step(max_wait=0.01)


def test_a_selectable_whose_read_raises_costs_a_turn_not_the_daemon(dbs, raw):
    class Exploding(NotificationConsumer):
        def read_messages(self) -> None:
            if self._sub.drain():
                raise RecursionError("nested deeper than the parser goes")

    runner = Runner("testd", reporter=StateDbReporter(dbs, "testd"))
    notes = Exploding(dbs["STATE_DB"], "NOS_TRACE_REQUEST")
    runner.add_selectable(notes, lambda: None, "trace requests")
    raw(6).publish("NOS_TRACE_REQUEST", "x")
    runner.step(max_wait=0.2)
    assert "testd:loop:select" in rejects(raw)


def test_a_handler_meeting_a_wrong_type_key_gives_invalid_even_strict(dbs, raw):
    def handler(task):
        raise WrongTypeError("WRONGTYPE: CONFIG_DB PORT|Ethernet24 is a string, expected a hash")

    runner = Runner("testd", strict=True, reporter=StateDbReporter(dbs, "testd"))
    source = SubscriberStateTable(dbs["CONFIG_DB"], "BUFFER_PG")
    runner.add_consumer(TableConsumer("CONFIG_DB", "BUFFER_PG", source, handler))
    Table(dbs["CONFIG_DB"], "BUFFER_PG").set("Ethernet24|3-4", {"profile": "x"})
    for _ in range(5):
        runner.step(max_wait=0.05)
    row = rejects(raw)["CONFIG_DB:BUFFER_PG:Ethernet24|3-4"]
    assert row["status"] == "INVALID" and "PORT|Ethernet24 is a string" in row["reason"]


def test_an_invalid_delete_clears_the_report_of_its_row(dbs, raw):
    def handler(task):
        return Result.invalid(f"'{task.key}' is not Vlan<id>")

    runner = Runner("testd", strict=True, reporter=StateDbReporter(dbs, "testd"), retry_interval=0.01)
    source = SubscriberStateTable(dbs["CONFIG_DB"], "VLAN")
    runner.add_consumer(TableConsumer("CONFIG_DB", "VLAN", source, handler))
    raw(4).hset("VLAN|fuzz", "vlanid", "x")
    for _ in range(5):
        runner.step(max_wait=0.05)
    assert "CONFIG_DB:VLAN:fuzz" in rejects(raw)

    raw(4).delete("VLAN|fuzz")
    for _ in range(5):
        runner.step(max_wait=0.05)
    assert rejects(raw) == {}


def test_the_reporter_publishes_the_keys_readers_skip(dbs, raw):
    dbs.bad_keys.publisher = StateDbReporter(dbs, "testd")
    raw(4).set("PORT|Ethernet24", "notahash")
    assert Table(dbs["CONFIG_DB"], "PORT").get_all() == {}
    row = rejects(raw)["CONFIG_DB:PORT:Ethernet24"]
    assert row == {"op": "SET", "status": "INVALID", "daemon": "testd", "time": row["time"],
                   "reason": "WRONGTYPE: CONFIG_DB PORT|Ethernet24 is a string, expected a hash"}
    raw(6).set("NOS_REJECTED_TABLE|CONFIG_DB:PORT:Ethernet28", "garbage")  # even its own rows may be garbage
    raw(4).set("PORT|Ethernet28", "notahash")
    Table(dbs["CONFIG_DB"], "PORT").get_all()
    assert rejects(raw)["CONFIG_DB:PORT:Ethernet28"]["status"] == "INVALID"
