"""TableConsumer with a batch handler (pure: a list-backed source, no Redis)."""

from __future__ import annotations

from nos.daemon import consumer as consumer_module
from nos.daemon.consumer import TableConsumer
from nos.daemon.task import Result
from nos.db.keyops import KeyOpFieldsValues as K


class ListSource:
    def __init__(self, tasks):
        self.tasks = list(tasks)

    def fileno(self):
        return -1

    def read_messages(self):
        pass

    def has_work(self):
        return bool(self.tasks)

    def pops(self):
        out, self.tasks = self.tasks, []
        return out


def test_heads_of_all_keys_come_together_and_del_then_set_take_two_rounds():
    calls = []

    def batch(tasks):
        calls.append([(t.key, t.op) for t in tasks])
        return [Result.retry("later") if t.key == "c" else Result.success() for t in tasks]

    source = ListSource([K.set("a", {"x": "1"}), K.delete("b"), K.set("b", {"y": "2"}), K.set("c", {"z": "3"})])
    consumer = TableConsumer("APPL_DB", "T", source, lambda t: Result.success(), batch_handler=batch)
    assert consumer.drain() == 3
    assert calls == [[("a", "SET"), ("b", "DEL"), ("c", "SET")], [("b", "SET")]]
    assert list(consumer.pending) == ["c"] and consumer.stats.retried == 1


def test_a_crashing_batch_fails_every_task_when_not_strict():
    def batch(tasks):
        raise RuntimeError("bug")

    consumer = TableConsumer("APPL_DB", "T", ListSource([K.set("a", {"x": "1"}), K.set("b", {"x": "1"})]),
                             lambda t: Result.success(), batch_handler=batch)
    assert consumer.drain() == 2
    assert consumer.stats.rejected == 2 and not consumer.pending


def test_a_retry_marked_soon_is_flagged_for_the_next_loop_turn():
    results = iter([[Result.retry("answer on its way", soon=True)], [Result.success()]])
    consumer = TableConsumer("APPL_DB", "T", ListSource([K.set("a", {"x": "1"})]), lambda t: Result.success(),
                             batch_handler=lambda tasks: next(results))
    consumer.drain()
    assert consumer.soon and consumer.pending_count == 1
    assert consumer.execute() == 1 and not consumer.soon


class Pipelining:
    """A batch handler that sends what it is handed and answers it later, as RouteOrch does: a task is
    held (Result.held_by_handler) until ``answer`` settles it; its verdict comes when it is handed again."""

    def __init__(self):
        self.handed: list[list[str]] = []
        self.sent: dict[str, K] = {}
        self.verdicts: dict[str, tuple[K, Result]] = {}
        self.released: list[str] = []

    def __call__(self, tasks):
        self.handed.append([t.key for t in tasks])
        out = []
        for task in tasks:
            done = self.verdicts.get(task.key)
            if done is not None and done[0] is task:
                out.append(self.verdicts.pop(task.key)[1])
            else:
                self.sent[task.key] = task
                out.append(Result.held_by_handler("answer not read yet"))
        return out

    def answer(self, key, result=None):
        self.verdicts[key] = (self.sent.pop(key), result or Result.success())
        self.released.append(key)

    def settled(self):
        keys, self.released = self.released, []
        return keys


def pipelined(handler, source):
    return TableConsumer("APPL_DB", "T", source, lambda t: Result.success(), batch_handler=handler,
                         settled=handler.settled)


def test_a_held_task_is_not_handed_again_until_the_handler_settles_it():
    handler = Pipelining()
    source = ListSource([K.set("a", {"x": "1"}), K.set("b", {"x": "1"})])
    consumer = pipelined(handler, source)
    assert consumer.drain() == 0
    assert consumer.held == {"a", "b"} and consumer.soon  # kept calling so that the handler can settle
    source.tasks = [K.set("c", {"x": "1"})]
    assert consumer.drain() == 0
    assert handler.handed[-1] == ["c"]  # a and b were not handed again
    assert consumer.execute() == 0 and handler.handed[-1] == []  # only held tasks: called with nothing
    handler.answer("a")
    handler.answer("b", Result.failed("ASIC said no"))
    assert consumer.execute() == 2
    assert handler.handed[-1] == ["a", "b"] and consumer.stats.rejected == 1
    assert list(consumer.pending) == ["c"] and consumer.held == {"c"}
    assert consumer.stats.retried == 3  # one NEED_RETRY per task, not one per loop turn


def test_a_task_merged_over_a_held_one_waits_for_the_held_ones_verdict():
    handler = Pipelining()
    source = ListSource([K.set("a", {"x": "1"})])
    consumer = pipelined(handler, source)
    consumer.drain()
    source.tasks = [K.set("a", {"x": "2"})]  # merged into the pending SET: a new head task for a
    assert consumer.drain() == 0 and handler.handed[-1] == []
    handler.answer("a")  # the old task's verdict: the merged task is handed now, and sent
    assert consumer.execute() == 0
    assert handler.handed[-1] == ["a"] and handler.sent["a"].fvs == (("x", "2"),)
    handler.answer("a")
    assert consumer.execute() == 1 and not consumer.pending and not consumer.held


def test_held_tasks_are_handed_again_when_the_handler_settles_none_for_too_long():
    handler = Pipelining()
    handler.settled = lambda: []  # a handler that never names what it settled (a bug)
    consumer = pipelined(handler, ListSource([K.set("a", {"x": "1"})]))
    consumer.drain()
    handler.verdicts["a"] = (handler.sent.pop("a"), Result.success())
    assert consumer.execute() == 0  # still within its patience
    consumer._released_at -= consumer_module.HELD_PATIENCE_S
    assert consumer.execute() == 1 and not consumer.pending


def test_a_crash_releases_what_the_handler_held():
    handler = Pipelining()
    source = ListSource([K.set("a", {"x": "1"})])
    consumer = pipelined(handler, source)
    consumer.drain()
    real = consumer.batch_handler

    def crash(tasks):
        raise RuntimeError("bug")

    consumer.batch_handler = crash
    source.tasks = [K.set("b", {"x": "1"})]
    assert consumer.drain() == 1  # b failed; a is no longer taken as held
    assert consumer.held == set()
    consumer.batch_handler = real
    handler.answer("a")
    assert consumer.execute() == 1 and not consumer.pending
