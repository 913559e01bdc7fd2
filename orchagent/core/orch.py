"""The orch interface and its wiring into the daemon runner.

An orch declares ``CONSUMES`` ((db, table) pairs) and implements ``handle(table, task) -> Result``;
``wire`` makes one TableConsumer per table. APPL_DB tables are read with ConsumerStateTable, after a
replay of the rows already in the table (so a restarted orchagent rebuilds its state, as SONiC's
``bake``); CONFIG_DB and STATE_DB tables with SubscriberStateTable (its initial dump does the same).
An orch may list APPL_DB tables that are plain hashes (written with HSET, not a producer) in ``SUBSCRIBED``:
those are read with SubscriberStateTable too. An orch with a ``register(runner)`` method adds its own
selectables and timers there (e.g. a notification channel).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ConsumerStateTable, SubscriberStateTable, Table
from nos.db.connector import Databases
from nos.db.consumer_state import DEFAULT_POP_BATCH_SIZE
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import APPL_DB


class Orch(Protocol):
    """One feature's orchestration.

    An orch may also define ``handle_batch(table, tasks) -> list[Result]`` (one result per task, in
    order): the consumer then hands it the next task of every pending key at once, so that it can
    make one bulk SAI request for them (SONiC's route bulker). ``POP_BATCH`` (optional, per table
    name) sets how many keys one pop takes (default 128, as SONiC); such a table is read with
    prefetching (``ConsumerStateTable(prefetch=True)``: a full pop sends the next one at once).
    """

    CONSUMES: Sequence[tuple[str, str]]

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        """Do one task; a missing dependency is ``Result.retry``, bad data ``Result.invalid``."""
        ...


class Replayed:
    """A ConsumerStateTable whose first pops return the rows already in the table, ``size`` a pop (a
    restart replaying 100,000 routes hands them over as the pops of a load would, and reads each chunk
    when it is handed over: the start does not wait for the whole table), then what the producers queue.
    A row is read when its chunk is popped, which is as new as what it was at the start or newer; a
    change queued meanwhile comes after, from the source."""

    def __init__(self, source: ConsumerStateTable, table: Table, size: int) -> None:
        self.source = source
        self.table = table
        self.size = size
        self.initial = table.keys()

    def fileno(self) -> int:
        return self.source.fileno()

    def read_messages(self) -> None:
        self.source.read_messages()

    def has_work(self) -> bool:
        return bool(self.initial) or self.source.has_work()

    def pops(self) -> list[KeyOpFieldsValues]:
        if not self.initial:
            return self.source.pops()
        chunk, self.initial = self.initial[:self.size], self.initial[self.size:]
        rows = self.table.get_many(chunk)
        return [KeyOpFieldsValues.set(key, rows[key]) for key in chunk if key in rows]


def wire(orch: Orch, dbs: Databases, runner: Runner) -> None:
    pop_sizes: dict[str, int] = getattr(orch, "POP_BATCH", {})
    subscribed = set(getattr(orch, "SUBSCRIBED", ()))
    for db, table in orch.CONSUMES:
        source: Replayed | SubscriberStateTable
        size = pop_sizes.get(table, DEFAULT_POP_BATCH_SIZE)
        if db == APPL_DB and (db, table) not in subscribed:
            consumer = ConsumerStateTable(dbs[db], table, pop_batch_size=size, prefetch=table in pop_sizes)
            source = Replayed(consumer, Table(dbs[db], table), size)
        else:
            source = SubscriberStateTable(dbs[db], table, pop_batch_size=size)
        batch = getattr(orch, "handle_batch", None)
        settled = getattr(orch, "take_settled", None)
        runner.add_consumer(TableConsumer(db, table, source, _bind(orch, table),
                                          batch_handler=_bind_batch(batch, table) if batch else None,
                                          settled=_bind_settled(settled, table) if batch and settled else None))
    register = getattr(orch, "register", None)
    if register is not None:
        register(runner)


def _bind(orch: Orch, table: str) -> Callable[[KeyOpFieldsValues], Result]:
    return lambda task: orch.handle(table, task)


def _bind_settled(settled: Callable[[str], list[str]], table: str) -> Callable[[], list[str]]:
    return lambda: settled(table)


def _bind_batch(batch: Callable[[str, list[KeyOpFieldsValues]], list[Result]],
                table: str) -> Callable[[list[KeyOpFieldsValues]], list[Result]]:
    return lambda tasks: batch(table, tasks)
