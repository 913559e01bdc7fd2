"""Starting Python children by fork from a process that has already imported them: ``ForkServer``.

A switch runs six Python daemons, and each ``python -m <module>`` used to import its libraries again
(FastAPI, gRPC, pydantic, redis, the project's own packages): ~1.7 CPU seconds a switch, over a third of
a leaf's boot, and six times that when a lab boots six switches on two cores (issue 17). A fork server
imports them once and forks each child, which then runs its module as ``python -m`` would
(``runpy.run_module``, ``sys.argv`` set), so the child starts in milliseconds and shares the imported
pages with its siblings until it writes them.

How a child stays what ``subprocess.Popen`` made before:

* **Its parent is the supervisor.** The server is the supervisor's child, forked before the
  supervisor starts any thread (a fork copies only the calling thread; the server never touches what
  the others held) and single-threaded itself. It forks twice; the middle process exits at once and
  the child is re-parented to the supervisor, which has made itself a *child subreaper*
  (``PR_SET_CHILD_SUBREAPER``). So the supervisor reaps it and reads its exit status, and ``nos status``
  finds it among the supervisor's children. ``Forked`` is its ``Popen``-like handle. Being a subreaper
  also means adopting orphans of the children (a killed daemon's forked helper): ``reap_strays``.
* **It dies with the supervisor**: ``PR_SET_PDEATHSIG`` (SIGTERM) once it is the supervisor's child.
* **Its own session, stdin from /dev/null, stdout and stderr appended to its log**, the supervisor's
  working directory and environment at the request, and the listening sockets it is given
  (``pass_fds``, sent over the server's socket with ``SCM_RIGHTS``) at the descriptor numbers its
  arguments name; nothing else of the server's descriptors.
* **Its command line reads ``python -m <module> ...``** (``setproctitle``): how ``ps``, ``pkill -f`` and
  the liveness check (``nos.runtime.liveness``) tell the daemons apart. /proc shows it as one string
  with spaces rather than NUL-separated words; ``argv_of`` splits it.
* **Logging, signals and exit functions start as in a fresh interpreter**: the handlers and levels
  inherited from the supervisor are removed, SIGINT raises KeyboardInterrupt, SIGTERM and SIGCHLD are
  the defaults, and none of the supervisor's ``atexit`` functions is left.

A child's exit runs its ``atexit`` functions, then ``os._exit`` with its status (``SystemExit`` code, 1
on an uncaught exception, after the traceback). If the server itself is gone (killed), ``spawn``
raises ``ForkServerGone`` and the caller starts the child with ``subprocess`` instead.
"""

from __future__ import annotations

import atexit
import ctypes
import importlib
import json
import logging
import os
import runpy
import signal
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
MAX_MESSAGE = 1 << 20
MAX_FDS = 16
HIGH_FD = 900             # where passed descriptors wait while the child's other descriptors are closed
REPARENT_TIMEOUT_S = 5.0  # the middle process exits at once; a child not re-parented by then gives up
REPLY_TIMEOUT_S = 10.0
FORK_SERVER_ENV = "NOS_FORK_SERVER"  # "0": no fork server, every child by python -m (to compare, to debug)

# What a switch's Python daemons import (their ``__main__`` modules' imports, and cfgmgrd's managers).
DAEMON_PRELOAD = ("nos.api.rest.__main__", "nos.api.gnmi.__main__", "syncd_sim.__main__", "orchagent.main",
                  "nos.cfgmgr.__main__", "iccpd.__main__", "nos.runtime.redis_guard")
# The modules run by fork (``python -m <module>``); anything else is started by ``subprocess``.
FORKED_MODULES = frozenset({"nos.api.rest", "nos.api.gnmi", "syncd_sim", "orchagent", "nos.cfgmgr", "iccpd"})


class ForkServerGone(RuntimeError):
    """The fork server has exited or does not answer: start the child another way."""


def _prctl(option: int, value: int) -> None:
    ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def wanted() -> bool:
    """Whether children are to be forked (``NOS_FORK_SERVER`` is not "0")."""
    return os.environ.get(FORK_SERVER_ENV, "1") != "0"


def become_subreaper() -> None:
    """Orphaned descendants of this process are re-parented to it (Linux 3.4+)."""
    if sys.platform.startswith("linux"):
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def module_of(argv: Sequence[str]) -> str | None:
    """The module of ``[python, "-m", module, ...]`` (pure), else None."""
    return argv[2] if len(argv) >= 3 and argv[1] == "-m" else None


def argv_of(cmdline: list[str]) -> list[str]:
    """A process's words from psutil's ``cmdline()`` (pure): a forked child's title is one string with
    spaces (``setproctitle``), padded with empty strings."""
    words = [w for w in cmdline if w]
    return words[0].split(" ") if len(words) == 1 and " " in words[0] else list(cmdline)


class Forked:
    """A child started by the fork server and re-parented to us: what ``subprocess.Popen`` offers of it
    that the supervisors use (``pid``, ``returncode``, ``poll``, ``wait``, ``terminate``, ``kill``)."""

    def __init__(self, pid: int, args: Sequence[str]) -> None:
        self.pid = pid
        self.args = list(args)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: it is gone, its status unknown
                self.returncode = -signal.SIGKILL if not _exists(self.pid) else None
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            time.sleep(0.01)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ForkServer:
    """The server process and our end of its socket (see the module docstring)."""

    def __init__(self, pid: int, sock: socket.socket) -> None:
        self.pid = pid
        self.sock = sock
        self.gone = False

    @classmethod
    def start(cls, preload: Iterable[str] = DAEMON_PRELOAD) -> ForkServer:
        """Fork the server (call this before starting any thread) and make this process a subreaper.
        The server imports ``preload`` after the fork; what this process had imported it has already."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:  # the server
            try:
                ours.close()
                _serve(theirs, tuple(preload))
            finally:
                os._exit(0)
        theirs.close()
        become_subreaper()
        return cls(pid, ours)

    def alive(self) -> bool:
        if not self.gone:
            try:
                self.gone = os.waitpid(self.pid, os.WNOHANG)[0] != 0
            except ChildProcessError:
                self.gone = True
        return not self.gone

    def spawn(self, argv: Sequence[str], *, log_path: Path | None = None, env: dict[str, str] | None = None,
              pass_fds: Sequence[int] = ()) -> Forked:
        """Start ``argv`` (``[python, "-m", module, ...]``) as a child of this process; raises
        ForkServerGone when the server cannot (the caller then uses ``subprocess``)."""
        module = module_of(argv)
        if module is None:
            raise ValueError(f"not a 'python -m MODULE' command: {list(argv)}")
        request = {"argv": list(argv), "log": str(log_path) if log_path else None, "cwd": os.getcwd(),
                   "env": dict(os.environ if env is None else env), "fds": list(pass_fds), "parent": os.getpid()}
        if not self.alive():
            raise ForkServerGone("the fork server has exited")
        try:
            self.sock.settimeout(REPLY_TIMEOUT_S)
            socket.send_fds(self.sock, [json.dumps(request).encode()], list(pass_fds))
            reply = json.loads(self.sock.recv(MAX_MESSAGE) or b"{}")
        except (OSError, ValueError) as exc:
            self._stop_unanswering()
            raise ForkServerGone(f"the fork server did not answer: {exc}") from exc
        if "pid" not in reply:
            raise ForkServerGone(f"the fork server could not start {module}: {reply.get('error', 'no answer')}")
        return Forked(int(reply["pid"]), argv)

    def _stop_unanswering(self) -> None:
        """Given up on: killed and reaped, so that a server that was only held (SIGSTOP, a swapped-out
        machine) cannot start the abandoned request's child once it runs again, beside the one the
        caller then starts by exec."""
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        self.gone = True

    def close(self) -> None:
        """Stop the server (it exits at the end of its socket) and reap it."""
        self.sock.close()
        if not self.gone:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.gone = True


def reap_strays(known: Iterable[int]) -> list[tuple[int, int]]:
    """Reap exited children that are none of ``known`` (orphans a subreaper adopted); returns (pid,
    exit code) of each. Children in ``known`` are left for their own handle to reap."""
    keep = set(known)
    reaped: list[tuple[int, int]] = []
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return reaped
        if info is None or info.si_pid in keep:
            return reaped  # nothing exited, or the first that did is someone's own to reap
        try:
            _, status = os.waitpid(info.si_pid, 0)
        except ChildProcessError:
            continue
        reaped.append((info.si_pid, os.waitstatus_to_exitcode(status)))


# -- the server ---------------------------------------------------------------------------------------
def _serve(sock: socket.socket, preload: tuple[str, ...]) -> None:
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    _fresh_signals()
    atexit._clear()  # the supervisor's exit functions are not its children's
    if os.getppid() == 1:
        return
    for name in preload:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the child that needs it fails on its own import and says why
            pass
    import gc

    gc.freeze()  # what was imported is shared with every child: the collector need not touch it there
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, MAX_FDS)
        except OSError:
            return
        if not message:
            return
        try:
            reply: dict[str, Any] = {"pid": _fork_child(json.loads(message), fds)}
        except Exception as exc:  # noqa: BLE001 - said to the supervisor, which starts the child itself
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            for fd in fds:
                os.close(fd)
        try:
            sock.send(json.dumps(reply).encode())
        except OSError:
            return


def _fork_child(request: dict[str, Any], fds: list[int]) -> int:
    """Fork twice; the grandchild becomes the child of ``request["parent"]``. Returns its pid."""
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            os.close(read_end)
            os.setsid()
            pid = os.fork()
            if pid == 0:
                os.close(write_end)
                _become(request, fds)
            os.write(write_end, str(pid).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    data = b""
    while chunk := os.read(read_end, 64):
        data += chunk
    os.close(read_end)
    os.waitpid(middle, 0)
    if not data:
        raise RuntimeError("the middle process did not fork")
    return int(data)


def _become(request: dict[str, Any], fds: list[int]) -> NoReturn:
    """The child: wait to be the supervisor's, set itself up as ``python -m`` would, run the module."""
    code = 1
    try:
        parent = int(request["parent"])
        deadline = time.monotonic() + REPARENT_TIMEOUT_S
        while os.getppid() != parent:
            if time.monotonic() > deadline:
                os._exit(1)
            time.sleep(0.0005)
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the supervisor died in between
            os._exit(1)
        _descriptors(request.get("log"), fds, [int(fd) for fd in request["fds"]])
        argv = request["argv"]
        import setproctitle

        setproctitle.setproctitle(" ".join(argv))  # before the environment changes: it moves environ to make room
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        _fresh_logging()
        module = argv[2]
        sys.argv = [module, *argv[3:]]
        sys.modules.pop(f"{module}.__main__", None)  # runpy runs it afresh as __main__ (and would warn)
        if not hasattr(sys.modules.get(module), "__path__"):
            sys.modules.pop(module, None)
        code = _run(module)
    except BaseException:  # noqa: BLE001 - the child must never return into the server's loop
        traceback.print_exc()
    finally:
        os._exit(code)


def _run(module: str) -> int:
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:  # noqa: BLE001 - as the interpreter does: the traceback, status 1
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    print(value, file=sys.stderr)
    return 1


def _descriptors(log_path: str | None, received: list[int], targets: list[int]) -> None:
    """stdin /dev/null, stdout and stderr to the log (or /dev/null), ``received`` at ``targets``, and no
    other descriptor open."""
    high = [os.dup2(fd, HIGH_FD + i) for i, fd in enumerate(received)]
    null = os.open(os.devnull, os.O_RDWR)
    out = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if log_path else null
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    keep = {0, 1, 2, *high}
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    for fd, target in zip(high, targets, strict=True):
        os.dup2(fd, target)
        os.close(fd)
    # Python's own streams on 0, 1 and 2 (the parent's may have been something else: a console, a capture)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", buffering=1, closefd=False, errors="backslashreplace")  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False, errors="backslashreplace")  # noqa: SIM115


def _fresh_signals() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:
        pass


def _fresh_logging() -> None:
    """The logging configuration of a new interpreter: no handlers, default levels."""
    root = logging.getLogger()
    for logger in [root, *(lg for lg in logging.root.manager.loggerDict.values() if isinstance(lg, logging.Logger))]:
        logger.handlers.clear()
        logger.setLevel(logging.NOTSET)
        logger.propagate = True
        logger.disabled = False
    root.setLevel(logging.WARNING)
    logging.disable(logging.NOTSET)
    atexit.register(logging.shutdown)  # as importing logging does in a new interpreter


__all__ = ["DAEMON_PRELOAD", "FORKED_MODULES", "FORK_SERVER_ENV", "ForkServer", "ForkServerGone", "Forked", "argv_of",
           "become_subreaper", "module_of", "reap_strays", "wanted"]
