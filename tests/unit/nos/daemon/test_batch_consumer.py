"""TableConsumer with a batch handler (pure: a list-backed source, no Redis)."""

from __future__ import annotations

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
