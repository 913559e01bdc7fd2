"""The supervisor's children: how each is started, how its exit is told, and when it starts again.

An exit is told by its cause: ``killed by SIGKILL`` (a signal), ``exited with status 2 (lost its Redis
connection)`` (``nos.daemon.runner.EXIT_DB_GONE``), ``exited with status N``. A child that dies is
started again after 0.2 s, then a back-off of 1, 2, 4 ... 30 s (consecutive failures; a child that ran
``STABLE_S`` or longer starts again at 0.2 s). A child that exits while Redis is down is held instead,
without using its back-off: the supervisor starts it again once Redis is back (``release``).

What the supervisor publishes of each child in STATE_DB ``NOS_DAEMON_TABLE|<name>`` (beside what a
daemon's own heartbeat writes there): ``restarts``, ``last_exit`` (the cause), ``last_exit_time``
(epoch seconds); for Redis itself (row ``redis``) also ``pid``, ``status`` and ``started``.
"""

from __future__ import annotations

import logging
import math
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from nos.daemon.runner import EXIT_DB_GONE
from nos.runtime import procs
from nos.runtime.forkserver import FORKED_MODULES, Forked, ForkServer, ForkServerGone, module_of

STABLE_S = 30.0
BACKOFF_MAX_S = 30.0
FIRST_RESTART_S = 0.2  # a first failure is restarted at once (its restart reconciles); then 1, 2, 4 ... s
HELD = math.inf  # next_start of a child waiting for Redis

log = logging.getLogger(__name__)


def exit_cause(returncode: int, *, uses_redis: bool = True) -> str:
    """How a child's exit reads in ``nos status`` and supervisor.log (pure)."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    if returncode == EXIT_DB_GONE and uses_redis:
        return f"exited with status {returncode} (lost its Redis connection)"
    return f"exited with status {returncode}"


def backoff_delay(failures: int) -> float:
    """Seconds before the next start after ``failures`` consecutive failures (pure)."""
    return FIRST_RESTART_S if failures == 0 else min(2.0 ** (failures - 1), BACKOFF_MAX_S)


@dataclass
class Daemon:
    """A child process of the switch."""

    name: str
    argv: list[str]
    log: Path
    pass_fds: tuple[int, ...] = ()
    forks: ForkServer | None = None  # started by fork from it when it runs (the Python daemons)
    proc: subprocess.Popen[bytes] | Forked | None = None
    restarts: int = 0
    failures: int = 0              # consecutive, for the back-off
    next_start: float = 0.0        # monotonic; 0: running (or not yet noticed dead); HELD: waiting for Redis
    started_at: float = 0.0        # monotonic time of the last start
    last_exit: str = ""
    last_exit_time: float = 0.0    # epoch
    last_code: int | None = None

    def start(self) -> None:
        self.proc = None
        if self.forks is not None and module_of(self.argv) in FORKED_MODULES:
            try:
                self.proc = self.forks.spawn(self.argv, log_path=self.log, pass_fds=self.pass_fds)
            except ForkServerGone as exc:
                log.warning("supervisor.fork_server_gone daemon=%s error=%s (started by exec)", self.name, exc)
        if self.proc is None:
            self.proc = procs.spawn(self.argv, log_path=self.log, pass_fds=self.pass_fds)
        self.started_at = time.monotonic()
        self.next_start = 0.0

    @property
    def module(self) -> str:
        """The module it runs (``python -m <module>``): how ``nos status`` knows the process is this child."""
        return self.argv[self.argv.index("-m") + 1] if "-m" in self.argv else ""

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def poll(self) -> int | None:
        """The exit status once it has exited (reaping it), else None."""
        return self.proc.poll() if self.proc is not None else None

    def note_exit(self, returncode: int) -> str:
        self.last_code = returncode
        self.last_exit = exit_cause(returncode)
        self.last_exit_time = time.time()
        return self.last_exit

    def schedule(self, now: float) -> float:
        """After a failure: when to start again (monotonic); returns the delay."""
        if now - self.started_at >= STABLE_S:
            self.failures = 0
        delay = backoff_delay(self.failures)
        self.failures += 1
        self.next_start = now + delay
        return delay

    def hold(self) -> None:
        """Wait for Redis: no back-off is used (``release`` starts it)."""
        self.next_start = HELD

    def restart(self) -> None:
        self.restarts += 1
        self.start()

    def stop(self, timeout: float = 5.0) -> None:
        if self.proc is not None:
            procs.stop(self.proc, timeout)

    def record(self) -> dict[str, str]:
        """Its STATE_DB fields written by the supervisor."""
        fields = {"restarts": str(self.restarts)}
        if self.last_exit:
            fields.update(last_exit=self.last_exit, last_exit_time=f"{self.last_exit_time:.3f}")
        return fields
