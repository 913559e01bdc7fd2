"""TableConsumer: the one place where popped tasks are merged, executed and retried.

A feature module never touches the queue: it supplies ``handle(task) -> Result`` and declares what
it consumes. NEED_RETRY keeps a task (and the tasks after it for the same key) pending; INVALID
and FAILED are reported once and dropped.

A batch handler that pipelines (RouteOrch: answers of bulk requests read later) may answer
``Result.held_by_handler``: the task stays pending but is not handed again until the handler's
``settled()`` names its key (it has the verdict then). Handing a held task again is harmless, never
handing it would not be: so every key is released when the handler raises, and when the handler has
settled none of them for ``HELD_PATIENCE_S``. While it holds tasks it is called at every loop turn,
with nothing to hand if need be, so that it can settle them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from nos.daemon.errors import DaemonFatal
from nos.daemon.merge import PendingForKey, merge_into
from nos.daemon.task import Result, TaskStatus
from nos.db.errors import WrongTypeError
from nos.db.keyops import KeyOpFieldsValues

log = logging.getLogger(__name__)

HELD_PATIENCE_S = 1.0  # held tasks are all handed again after this long without the handler settling any

Handler = Callable[[KeyOpFieldsValues], Result]
BatchHandler = Callable[[list[KeyOpFieldsValues]], list[Result]]
Settled = Callable[[], list[str]]  # keys of held tasks the batch handler has a verdict for (drained)


class PoppableTable(Protocol):
    """A ConsumerStateTable or SubscriberStateTable (a selectable that pops tasks)."""

    def fileno(self) -> int: ...
    def read_messages(self) -> None: ...
    def has_work(self) -> bool: ...
    def pops(self) -> list[KeyOpFieldsValues]: ...


class StatusReporter(Protocol):
    """Where rejections become visible (STATE_DB in daemons)."""

    def rejected(self, db: str, table: str, task: KeyOpFieldsValues, result: Result) -> None: ...
    def cleared(self, db: str, table: str, key: str) -> None: ...


@dataclass
class ConsumerStats:
    executed: int = 0
    retried: int = 0
    rejected: int = 0


@dataclass
class TableConsumer:
    """Pending tasks of one (db, table), fed by ``source``, executed by ``handler``."""

    db: str
    table: str
    source: PoppableTable
    handler: Handler
    reporter: StatusReporter | None = None
    strict: bool = False
    batch_handler: BatchHandler | None = None  # all keys' next tasks at once (e.g. bulk SAI requests)
    settled: Settled | None = None  # the batch handler's released held keys (see the module docstring)
    pending: dict[str, PendingForKey] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)  # keys whose head task the batch handler holds
    stats: ConsumerStats = field(default_factory=ConsumerStats)
    soon: bool = False  # a task asked to be re-driven at the next loop turn
    last_popped: int = 0  # tasks the last drain's pop brought
    _rejected_keys: set[str] = field(default_factory=set)
    _released_at: float = 0.0  # when the handler last settled a held task (or began to hold some)

    # -- Selectable (delegates to the source) ---------------------------------------------------
    def fileno(self) -> int:
        return self.source.fileno()

    def read_messages(self) -> None:
        self.source.read_messages()

    def has_work(self) -> bool:
        return self.source.has_work()

    # -- work -----------------------------------------------------------------------------------
    def drain(self) -> int:
        """Pop one batch into the pending map and execute what it brought (the keys it touched); tasks
        that waited before are re-driven by the runner, not by every pop: with 100,000 routes waiting
        for their next hops, re-running all of them at each pop of 1,024 was quadratic."""
        popped = self.source.pops()
        self.last_popped = len(popped)
        merge_into(self.pending, popped)
        return self.execute(dict.fromkeys(task.key for task in popped))

    def execute(self, keys: Iterable[str] | None = None) -> int:
        """Run the pending tasks (of ``keys``, or all) in order; returns how many completed (not NEED_RETRY)."""
        self.soon = False
        if self.batch_handler is not None:
            return self._execute_batched(keys)
        done = 0
        for key in list(self.pending) if keys is None else [k for k in keys if k in self.pending]:
            remaining = list(self.pending[key])
            while remaining:
                result = self._run(remaining[0])
                if not result.done:
                    break
                remaining.pop(0)
                done += 1
            if remaining:
                self.pending[key] = tuple(remaining)
            else:
                del self.pending[key]
        return done

    def _execute_batched(self, keys: Iterable[str] | None) -> int:
        """Rounds: the head task of every pending key (of ``keys``) not held by the handler, handed over
        together; a key whose head is done, or whose held task the handler settled, offers a task next round."""
        assert self.batch_handler is not None
        done = 0
        ready = self._ready(keys)
        while ready or self.held:
            heads = [self.pending[key][0] for key in ready]
            results = self._run_batch(heads)
            self.stats.executed += len(heads)
            progressed = self._release() if self.settled is not None else []
            for key, task, result in zip(ready, heads, results, strict=True):
                if result.status is TaskStatus.NEED_RETRY:
                    self._retry(key, task, result)
                    continue
                self._account(task, result)
                done += 1
                rest = self.pending[key][1:]
                if rest:
                    self.pending[key] = rest
                    progressed.append(key)
                else:
                    del self.pending[key]
            ready = progressed
            if not ready:
                break
        if self.held:
            self.soon = True  # the handler settles held tasks when it is called: keep calling it
        return done

    def _ready(self, keys: Iterable[str] | None) -> list[str]:
        """The pending keys (of ``keys``) to hand in a first round: those whose task the handler does not hold."""
        candidates = list(self.pending) if keys is None else [k for k in keys if k in self.pending]
        held = self.held
        if not held:
            return candidates
        if time.monotonic() - self._released_at >= HELD_PATIENCE_S:
            held.clear()  # the handler has settled none of what it holds for a while: hand it all again
            return list(self.pending)
        return [key for key in candidates if key not in held]

    def _retry(self, key: str, task: KeyOpFieldsValues, result: Result) -> None:
        """_account's retry branch, for a batch (a held task comes here once, others once a round)."""
        self.stats.retried += 1
        self.soon = self.soon or result.soon
        if result.held and self.settled is not None:
            if not self.held:
                self._released_at = time.monotonic()
            self.held.add(key)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("daemon.task.retry table=%s key=%s reason=%s", self.table, task.key, result.reason)

    def _release(self) -> list[str]:
        """Keys of held tasks the handler has settled: pending keys to hand in the next round."""
        assert self.settled is not None
        released = []
        for key in self.settled():
            if key in self.held:
                self.held.discard(key)
                if key in self.pending:
                    released.append(key)
        if released:
            self._released_at = time.monotonic()
        return released

    def _run_batch(self, tasks: list[KeyOpFieldsValues]) -> list[Result]:
        assert self.batch_handler is not None
        try:
            results = self.batch_handler(tasks)
            if len(results) != len(tasks):
                raise RuntimeError(f"batch handler gave {len(results)} results for {len(tasks)} tasks")
            return results
        except DaemonFatal:
            raise
        except WrongTypeError as exc:  # bad data met by the handler: not a bug, even when strict
            self.held.clear()
            return [Result.invalid(str(exc))] * len(tasks)
        except Exception as exc:  # a program bug: report every task of the batch, once
            if self.strict:
                raise
            log.exception("daemon.batch.crash db=%s table=%s tasks=%d", self.db, self.table, len(tasks))
            self.held.clear()  # whatever the handler held is in doubt: hand it again
            return [Result.failed(f"internal error: {type(exc).__name__}: {exc}")] * len(tasks)

    def _run(self, task: KeyOpFieldsValues) -> Result:
        try:
            result = self.handler(task)
        except DaemonFatal:
            raise
        except WrongTypeError as exc:  # bad data met by the handler (a key it reads is not a row)
            result = Result.invalid(str(exc))
        except Exception as exc:  # a program bug: SONiC's catch-all, written once
            if self.strict:
                raise
            log.exception("daemon.task.crash db=%s table=%s key=%s", self.db, self.table, task.key)
            result = Result.failed(f"internal error: {type(exc).__name__}: {exc}")
        self.stats.executed += 1
        self._account(task, result)
        return result

    def _account(self, task: KeyOpFieldsValues, result: Result) -> None:
        if result.status is TaskStatus.NEED_RETRY:
            self.stats.retried += 1
            self.soon = self.soon or result.soon
            log.debug("daemon.task.retry table=%s key=%s reason=%s", self.table, task.key, result.reason)
        elif result.rejected and task.is_del and result.status is TaskStatus.INVALID:
            # a delete refused as bad data (its key does not parse): the row is gone, so what was reported
            # of it (it was refused when set, surely) no longer stands, nor does this refusal
            log.info("daemon.task.invalid_delete table=%s key=%s reason=%s", self.table, task.key, result.reason)
            self._rejected_keys.discard(task.key)
            if self.reporter:
                self.reporter.cleared(self.db, self.table, task.key)
        elif result.rejected:
            self.stats.rejected += 1
            level = logging.ERROR if result.status is TaskStatus.FAILED else logging.WARNING
            log.log(level, "daemon.task.%s table=%s key=%s op=%s reason=%s", result.status.name.lower(),
                    self.table, task.key, task.op, result.reason)
            self._rejected_keys.add(task.key)
            if self.reporter:
                self.reporter.rejected(self.db, self.table, task, result)
        elif task.key in self._rejected_keys:
            self._rejected_keys.discard(task.key)
            if self.reporter:
                self.reporter.cleared(self.db, self.table, task.key)

    @property
    def pending_count(self) -> int:
        return sum(len(tasks) for tasks in self.pending.values())
