"""Child processes of a switch: spawn them so they die with their parent, stop them politely.

Children run in their own session (Ctrl-C reaches only the supervisor, which stops them in
order) and get SIGTERM if the supervisor dies (Linux ``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Protocol

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        except (OSError, AttributeError):
            pass


def spawn(argv: Sequence[str], *, log_path: Path | None = None, env: dict[str, str] | None = None,
          tie_to_parent: bool = True, pass_fds: Sequence[int] = ()) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own session, output appended to ``log_path`` (or discarded)."""
    out: IO[bytes] | int = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        return subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, env=env, preexec_fn=_die_with_parent if tie_to_parent else None,
            pass_fds=tuple(pass_fds),
        )
    finally:
        if not isinstance(out, int):
            out.close()


class Stoppable(Protocol):
    """A child handle: ``subprocess.Popen`` or ``nos.runtime.forkserver.Forked``."""

    returncode: int | None

    def poll(self) -> int | None: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...
    def wait(self, timeout: float | None = None) -> int: ...


def stop(proc: Stoppable, timeout: float = 5.0) -> int | None:
    """SIGTERM, wait up to ``timeout``, then SIGKILL. Returns the exit status."""
    if proc.poll() is not None:
        return proc.returncode
    proc.terminate()
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(timeout)


def pid_alive(pid: int) -> bool:
    """True while ``pid`` runs. A zombie (exited, not yet reaped: its parent is stopped or busy)
    is not running, though signal 0 still reaches it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return not _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False  # no procfs: signal 0 is all there is
    # "pid (comm) state ...": comm may hold spaces and parentheses, the state follows the last ')'
    return stat[stat.rfind(")") + 2:stat.rfind(")") + 3] == "Z"


def terminate_and_wait(pid: int, timeout: float, poll_s: float = 0.05) -> bool:
    """SIGTERM ``pid`` (not a child of ours) and wait until it has gone; False if it is still there
    after ``timeout`` seconds."""
    import time

    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(poll_s)
    return True
