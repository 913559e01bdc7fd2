"""The one daemon runner: select loop over consumers, retries, timers, signals, clean shutdown.

Every daemon (config managers, orchagent, syncd_sim) is a ``Runner`` with consumers and timers.
After any task completes, pending work of every consumer is re-driven (a dependency may now be
met); otherwise pending work is re-driven every ``retry_interval`` seconds.

``when_settled`` callbacks run once, at the first loop turn that finds nothing to do: the replay of
what the databases held when the daemon started is done by then (what is still pending waits for
something that has not come). A daemon that never finds a quiet turn runs them after
``SETTLE_PATIENCE_S``.

Nothing that goes wrong inside the loop ends the daemon, except the database going away: a consumer's
pop, a timer's callback and a selectable's handler that raise are each logged (with the traceback the
first time, until the error changes), reported in STATE_DB NOS_REJECTED_TABLE under the daemon's name
(cleared when the same callback next succeeds), and the loop goes on. With ``strict`` (tests) they
are raised, as the consumers' handlers' exceptions are.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from nos.daemon.consumer import TableConsumer
from nos.daemon.errors import DaemonFatal
from nos.daemon.reporting import StateDbReporter
from nos.daemon.timers import SignalWaker, Timer
from nos.db import Select
from nos.db.errors import DbConnectionError, DbError
from nos.db.select import Selectable

log = logging.getLogger(__name__)

T = TypeVar("T")

EXIT_OK = 0
EXIT_DB_GONE = 2
EXIT_FATAL = 3
SETTLE_PATIENCE_S = 60.0
SETTLE_POLL_S = 0.05  # how long a turn waits while a settled callback is due (rather than the next timer)


@dataclass
class Runner:
    """Runs one daemon until a signal or ``stop()``."""

    name: str
    strict: bool = False
    reporter: StateDbReporter | None = None
    retry_interval: float = 1.0
    heartbeat_interval: float = 1.0
    consumers: list[TableConsumer] = field(default_factory=list)
    timers: list[Timer] = field(default_factory=list)
    _others: list[tuple[Selectable, Callable[[], None], str]] = field(default_factory=list)
    _failing: dict[str, str] = field(default_factory=dict)  # what -> the error it last failed with
    _select: Select = field(default_factory=Select)
    _stopping: bool = False
    _last_redrive: float = 0.0
    _on_settled: list[Callable[[], None]] = field(default_factory=list)
    _after_step: list[Callable[[], None]] = field(default_factory=list)
    busy: list[Callable[[], bool]] = field(default_factory=list)  # components with deferred work (see progress)
    _started: float = 0.0

    def add_consumer(self, consumer: TableConsumer) -> TableConsumer:
        consumer.strict = self.strict
        consumer.reporter = consumer.reporter or self.reporter
        self.consumers.append(consumer)
        self._select.add(consumer)
        return consumer

    def add_selectable(self, item: Selectable, on_ready: Callable[[], None], name: str = "") -> None:
        """A non-table selectable (e.g. a NotificationConsumer) and what to do when it is ready;
        ``name`` says what it is in a report of its failure (default: the callback's name)."""
        self._others.append((item, on_ready, name or getattr(on_ready, "__qualname__", "selectable")))
        self._select.add(item)

    def remove_selectable(self, item: Selectable) -> None:
        """Stop waiting on ``item`` (a finished child's pipe, say)."""
        self._others = [entry for entry in self._others if entry[0] is not item]
        self._select.remove(item)

    def add_timer(self, name: str, interval: float, callback: Callable[[], None]) -> Timer:
        timer = Timer(name, interval, callback)
        timer.arm(time.monotonic())
        self.timers.append(timer)
        return timer

    def stop(self) -> None:
        self._stopping = True

    def after_each_step(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` at the end of every loop turn (after the work, the timers and the re-drive)."""
        self._after_step.append(callback)

    def when_settled(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the daemon has caught up with what it found at start (see above)."""
        self._on_settled.append(callback)

    # -- the loop -------------------------------------------------------------------------------
    def run(self) -> int:
        waker = SignalWaker()
        waker.install()
        self._select.add(waker)
        if self.reporter:
            self.add_timer("heartbeat", self.heartbeat_interval, self._heartbeat)
            self._heartbeat()
        log.info("daemon.start name=%s consumers=%d", self.name, len(self.consumers))
        self._started = time.monotonic()
        try:
            while not self._stopping and not waker.received:
                self.step()
        except DbConnectionError as exc:
            log.error("daemon.db_gone name=%s error=%s", self.name, exc)
            return EXIT_DB_GONE
        except DaemonFatal as exc:
            log.error("daemon.fatal name=%s error=%s (exiting: a restart reconciles)", self.name, exc)
            return EXIT_FATAL
        finally:
            self._select.remove(waker)
            waker.close()
        if self.reporter:
            try:
                self.reporter.heartbeat("stopped")
            except DbConnectionError:
                pass
        log.info("daemon.stop name=%s", self.name)
        return EXIT_OK

    def step(self, max_wait: float | None = None) -> int:
        """One iteration: wait for work or a timer, do it. Returns tasks completed."""
        wait = self._wait_time(time.monotonic())
        if max_wait is not None:
            wait = min(wait, max_wait)
        if self._on_settled:
            wait = min(wait, SETTLE_POLL_S)
            self._started = self._started or time.monotonic()
        # a selectable's read_messages runs inside select(): one that raises costs this turn, not the daemon
        ready = self.guarded("select", lambda: self._select.select(wait)) or []
        done = self._work(ready)
        now = time.monotonic()
        for timer in self.timers:
            if now >= timer.next_due:
                timer.arm(now)
                self.guarded(f"timer {timer.name}", timer.callback)
        soon = any(c.soon for c in self.consumers)
        if done or soon or now - self._last_redrive >= self.retry_interval:
            self._last_redrive = now
            done += self.redrive()
        if self._on_settled and (self._quiet(ready, done, soon) or now - self._started >= SETTLE_PATIENCE_S):
            callbacks, self._on_settled = self._on_settled, []
            for callback in callbacks:
                self.guarded("settled", callback)
        for callback in self._after_step:
            self.guarded("after step", callback)
        return done

    def _work(self, ready: list[Selectable]) -> int:
        """Handle what is ready: notifications first (a port coming up unblocks what the tables hold)."""
        for item in ready:
            if not isinstance(item, TableConsumer):
                self._dispatch_other(item)
        return sum(self.guarded(f"{item.db}:{item.table} pop", item.drain) or 0
                   for item in ready if isinstance(item, TableConsumer))

    def _quiet(self, ready: list[Selectable], done: int, soon: bool) -> bool:
        """Nothing was ready, nothing completed, nothing is held or asked to come back at once."""
        return not ready and not done and not soon and not any(c.held or c.has_work() for c in self.consumers)

    def _dispatch_other(self, item: Selectable) -> None:
        for other, on_ready, name in self._others:
            if other is item:
                self.guarded(name, on_ready)

    def guarded(self, what: str, action: Callable[[], T]) -> T | None:
        """Run one callback of the loop (see the module docstring): its result, or None if it raised.
        Also for a daemon's own fan-out (one listener of several failing must not starve the others)."""
        try:
            result = action()
        except (DbConnectionError, DaemonFatal):
            raise
        except Exception as exc:
            if self.strict:
                raise
            self._failed(what, exc)
            return None
        if self._failing and what in self._failing:
            del self._failing[what]
            log.info("daemon.callback.recovered name=%s what=%s", self.name, what)
            self._report(what, None)
        return result

    def _failed(self, what: str, exc: Exception) -> None:
        error = f"{type(exc).__name__}: {exc}"
        if self._failing.get(what) == error:
            log.debug("daemon.callback.crash name=%s what=%s error=%s", self.name, what, error)
            return
        self._failing[what] = error
        log.exception("daemon.callback.crash name=%s what=%s", self.name, what)
        self._report(what, f"internal error: {error}")

    def _report(self, what: str, reason: str | None) -> None:
        if self.reporter is None:
            return
        try:
            if reason is None:
                self.reporter.cleared(self.name, "loop", what)
            else:
                self.reporter.loop_failed(self.name, what, reason)
        except DbError as error:
            log.warning("daemon.callback.unreported name=%s what=%s error=%s", self.name, what, error)

    def _wait_time(self, now: float) -> float:
        if any(c.soon for c in self.consumers):
            return 0.0
        deadlines = [t.next_due for t in self.timers]
        if any(c.pending for c in self.consumers):
            deadlines.append(self._last_redrive + self.retry_interval)
        return max(0.0, min(deadlines) - now) if deadlines else self.retry_interval

    def redrive(self) -> int:
        """Re-run pending work of every consumer until nothing more completes."""
        total = 0
        while True:
            done = sum(c.execute() for c in self.consumers if c.pending)
            total += done
            if not done:
                return total

    def _heartbeat(self, status: str = "running") -> None:
        assert self.reporter is not None
        self.reporter.heartbeat(
            status,
            pending=sum(c.pending_count for c in self.consumers),
            rejected=sum(c.stats.rejected for c in self.consumers) + self.reporter.bad_keys_reported(),
        )

    def heartbeat_now(self, status: str) -> None:
        """A heartbeat from inside a long wait (the loop is not turning): ``status`` says what it waits for."""
        if self.reporter is not None:
            self._heartbeat(status)
