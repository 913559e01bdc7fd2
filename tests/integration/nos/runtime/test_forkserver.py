"""The fork server (``nos.runtime.forkserver``) with real processes: a forked child is this process's
child with the argv, cwd, environment, log, descriptors, command line and exit status that
``subprocess`` would have given it; it dies with us; orphans are reaped; a dead server is said so."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from nos.runtime import forkserver
from nos.runtime.forkserver import ForkServer, ForkServerGone, argv_of, reap_strays
from tests.conftest import wait_until

pytestmark = pytest.mark.integration

CHILD = "tests.integration.nos.runtime.forked_child"


@pytest.fixture
def server() -> Iterator[ForkServer]:
    forks = ForkServer.start(preload=())
    yield forks
    forks.close()
    forkserver._prctl(forkserver._PR_SET_CHILD_SUBREAPER, 0)  # this test process stays as it was


def test_a_forked_child_is_ours_with_what_python_m_would_give_it(server, tmp_path, monkeypatch):
    out, log = tmp_path / "out.json", tmp_path / "child.log"
    monkeypatch.chdir(tmp_path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    reader = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    reader.bind(str(tmp_path / "dgram"))
    listener.connect(str(tmp_path / "dgram"))
    argv = [sys.executable, "-m", CHILD, str(out), str(listener.fileno())]
    child = server.spawn(argv, log_path=log, env={**os.environ, "FORKED_CHILD_ENV": "given"},
                         pass_fds=[listener.fileno()])
    assert child.wait(10) == 3
    record = json.loads(out.read_text())
    assert record["ppid"] == os.getpid()  # re-parented to us: we reaped it and read its status
    assert record["argv"][1:] == [str(out), str(listener.fileno())] and record["name"] == "__main__"
    assert record["cwd"] == str(tmp_path) and record["env"] == "given"
    assert record["fds"] == [0, 1, 2, listener.fileno()]  # nothing of the server's is left open
    assert record["handlers"] == 0 and record["sigint"]
    assert reader.recv(100) == b"through the passed socket"
    assert "hello from the child" in log.read_text()
    listener.close()
    reader.close()


def test_its_command_line_names_its_module_and_signals_reach_it(server, tmp_path):
    child = server.spawn([sys.executable, "-m", CHILD, str(tmp_path / "x.sleep")], log_path=tmp_path / "log")
    wait_until(lambda: (tmp_path / "x.sleep").exists(), 10)
    argv = argv_of(psutil.Process(child.pid).cmdline())
    assert argv[argv.index("-m") + 1] == CHILD
    child.terminate()
    assert child.wait(10) == -signal.SIGTERM


def test_a_child_dies_with_its_parent(tmp_path):
    """The parent is SIGKILLed: its forked child gets SIGTERM (PR_SET_PDEATHSIG) and ends."""
    script = textwrap.dedent(f"""
        import sys, time
        from nos.runtime.forkserver import ForkServer
        forks = ForkServer.start(preload=())
        child = forks.spawn([sys.executable, "-m", "{CHILD}", "{tmp_path / 'y.sleep'}"], log_path="{tmp_path / 'log'}")
        print(child.pid, flush=True)
        time.sleep(60)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=Path(__file__).parents[4])
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    wait_until(lambda: (tmp_path / "y.sleep").exists(), 10)
    parent.kill()
    parent.wait()
    parent.stdout.close()
    wait_until(lambda: not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE, 10)


def test_a_dead_server_is_said_so_and_orphans_are_reaped(server, tmp_path):
    orphan_maker = subprocess.Popen([sys.executable, "-c", "import subprocess, sys; "
                                     "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(0.3)'])"])
    orphan_maker.wait()  # its child is orphaned and re-parented to us (a subreaper), then exits
    reaped: list[tuple[int, int]] = []
    wait_until(lambda: reaped.extend(reap_strays([server.pid])) or reaped, 10)
    assert reaped[0][1] == 0
    os.kill(server.pid, signal.SIGKILL)
    wait_until(lambda: not server.alive(), 10)
    with pytest.raises(ForkServerGone):
        server.spawn([sys.executable, "-m", CHILD, str(tmp_path / "z.json")])


def test_a_server_that_does_not_answer_is_stopped_and_starts_nothing_later(server, tmp_path, monkeypatch):
    """A held (SIGSTOPped) server: the spawn gives up after the reply timeout, and the server is killed,
    so that it cannot start the abandoned request's daemon once it runs again (a second orchagent
    beside the one the caller then starts by exec)."""
    monkeypatch.setattr(forkserver, "REPLY_TIMEOUT_S", 0.5)
    out = tmp_path / "late.json"
    os.kill(server.pid, signal.SIGSTOP)
    try:
        with pytest.raises(ForkServerGone, match="did not answer"):
            server.spawn([sys.executable, "-m", CHILD, str(out)])
    finally:
        if psutil.pid_exists(server.pid):
            os.kill(server.pid, signal.SIGCONT)
    wait_until(lambda: not psutil.pid_exists(server.pid), 10)  # killed and reaped: it can fork nothing more
    assert not server.alive() and not out.exists()
    assert not [c for c in psutil.Process().children() if CHILD in " ".join(c.cmdline())]
