"""A process that has exited is not running, even while nobody has reaped it (a zombie)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from nos.runtime.procs import pid_alive
from tests.conftest import wait_until


def _state(pid: int) -> str:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rfind(")") + 2]


def test_a_running_process_is_alive_and_an_unreaped_dead_one_is_not():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert pid_alive(child.pid)
        os.kill(child.pid, signal.SIGKILL)
        wait_until(lambda: _state(child.pid) == "Z", timeout=10)  # exited, not reaped yet
        os.kill(child.pid, 0)  # signal 0 still reaches a zombie: that alone said "running"
        assert not pid_alive(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not pid_alive(child.pid)
