"""How a child's exit is told, and its back-off."""

from __future__ import annotations

import signal
from pathlib import Path

from nos.daemon.runner import EXIT_DB_GONE
from nos.runtime.children import BACKOFF_MAX_S, HELD, STABLE_S, Daemon, backoff_delay, exit_cause


def test_exit_causes():
    assert exit_cause(-signal.SIGKILL) == "killed by SIGKILL"
    assert exit_cause(-signal.SIGSEGV) == "killed by SIGSEGV"
    assert exit_cause(EXIT_DB_GONE) == "exited with status 2 (lost its Redis connection)"
    assert exit_cause(EXIT_DB_GONE, uses_redis=False) == "exited with status 2"
    assert exit_cause(1) == "exited with status 1"
    assert exit_cause(-200) == "killed by signal 200"


def test_backoff_doubles_to_a_ceiling():
    assert [backoff_delay(n) for n in range(8)] == [0.2, 1, 2, 4, 8, 16, BACKOFF_MAX_S, BACKOFF_MAX_S]


def test_a_child_that_ran_long_starts_its_backoff_again():
    child = Daemon("orchagent", ["python", "-m", "orchagent"], Path("/dev/null"))
    child.started_at = 100.0
    assert child.schedule(100.5) == 0.2 and child.schedule(101.0) == 1 and child.schedule(102.0) == 2
    assert child.schedule(100.0 + STABLE_S) == 0.2  # ran STABLE_S since its start
    assert child.next_start == 100.2 + STABLE_S


def test_record_and_module():
    child = Daemon("syncd", ["python", "-m", "syncd_sim", "--redis", "x"], Path("/dev/null"))
    assert child.module == "syncd_sim" and child.record() == {"restarts": "0"}
    child.note_exit(-signal.SIGKILL)
    child.hold()
    assert child.next_start == HELD
    assert child.record()["last_exit"] == "killed by SIGKILL" and float(child.record()["last_exit_time"]) > 0
