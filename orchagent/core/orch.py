"""The orch interface and its wiring into the daemon runner.

An orch declares ``CONSUMES`` ((db, table) pairs) and implements ``handle(table, task) -> Result``;
``wire`` makes one TableConsumer per table. APPL_DB tables are read with ConsumerStateTable, after a
replay of the rows already in the table (so a restarted orchagent rebuilds its state, as SONiC's
``bake``); CONFIG_DB and STATE_DB tables with SubscriberStateTable (its initial dump does the same).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ConsumerStateTable, SubscriberStateTable, Table
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import APPL_DB


class Orch(Protocol):
    """One feature's orchestration."""

    CONSUMES: Sequence[tuple[str, str]]

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        """Do one task; a missing dependency is ``Result.retry``, bad data ``Result.invalid``."""
        ...


class Replayed:
    """A ConsumerStateTable whose first pop also returns the rows already in the table."""

    def __init__(self, source: ConsumerStateTable, rows: dict[str, dict[str, str]]) -> None:
        self.source = source
        self.initial = [KeyOpFieldsValues.set(key, fields) for key, fields in sorted(rows.items())]

    def fileno(self) -> int:
        return self.source.fileno()

    def read_messages(self) -> None:
        self.source.read_messages()

    def has_work(self) -> bool:
        return bool(self.initial) or self.source.has_work()

    def pops(self) -> list[KeyOpFieldsValues]:
        first, self.initial = self.initial, []
        return first + self.source.pops()


def wire(orch: Orch, dbs: Databases, runner: Runner) -> None:
    for db, table in orch.CONSUMES:
        source: Replayed | SubscriberStateTable
        if db == APPL_DB:
            consumer = ConsumerStateTable(dbs[db], table)
            rows = {k: v for k, v in Table(dbs[db], table).get_all().items()}
            source = Replayed(consumer, rows)
        else:
            source = SubscriberStateTable(dbs[db], table)
        runner.add_consumer(TableConsumer(db, table, source, _bind(orch, table)))


def _bind(orch: Orch, table: str):  # type: ignore[no-untyped-def]
    return lambda task: orch.handle(table, task)
