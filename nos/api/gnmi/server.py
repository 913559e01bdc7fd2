"""Building and running the gNMI grpc server.

One listener on ``host:port`` (plain, TLS, or mutual TLS with the files of ``nos.api.tls``) and, with a
run directory, a local plaintext unix socket ``<run dir>/gnmi.sock`` (as private as the run
directory's Redis socket, and behind the same credentials) for the supervisor's readiness check.
``grpc.so_reuseport`` is off: two switches on one host must not silently share a port.

Each RPC runs in a thread of the server's pool; a STREAM subscription keeps its thread for its life.
``workers`` bounds the RPCs in flight: one more is answered RESOURCE_EXHAUSTED instead of queueing
behind the streams.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2_grpc

from nos.api.auth import Authenticator
from nos.api.gnmi.changes import ChangeFeed
from nos.api.gnmi.guard import AuthInterceptor
from nos.api.gnmi.service import GnmiService
from nos.api.tls import TlsFiles
from nos.db.connector import Databases
from nos.runtime.rundir import RunDir, write_json_atomic

log = logging.getLogger(__name__)

WORKERS = 256
UNIX_PATH_MAX = 107  # sockaddr_un.sun_path, less the terminating NUL


class BindError(RuntimeError):
    """Raised when the server cannot listen on the requested address or port."""


@dataclass(frozen=True)
class ServerOptions:
    redis: str
    host: str = "127.0.0.1"
    port: int = 8080
    run_dir: Path | None = None
    auth_file: Path | None = None
    tls: TlsFiles | None = None
    workers: int = WORKERS
    published_on: str | None = None  # the address a container's port is published at (checked instead of host)

    @property
    def credentials(self) -> Path | None:
        if self.auth_file is not None:
            return self.auth_file
        return RunDir(self.run_dir).credentials_file if self.run_dir is not None else None


def host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


class GnmiServer:
    """The server of one switch: start it, read ``port``, stop it."""

    def __init__(self, options: ServerOptions) -> None:
        """Raises ListenerRefused (a host beyond loopback without credentials) or AuthError (an unusable
        credentials file) before anything is opened."""
        self.options = options
        self.auth = Authenticator(options.credentials)
        # beyond loopback: credentials required for the server's life
        self.auth.check_listener(options.published_on or options.host)
        self.dbs = Databases(options.redis)
        self.feed = ChangeFeed(self.dbs)
        self.service = GnmiService(self.dbs, self.feed)
        self.port = 0
        self.unix: Path | None = None
        self._server: Any = grpc.server(
            ThreadPoolExecutor(max_workers=options.workers, thread_name_prefix="gnmi-rpc"),
            interceptors=[AuthInterceptor(self.auth)],
            options=[("grpc.so_reuseport", 0), ("grpc.keepalive_permit_without_calls", 1),
                     ("grpc.http2.min_ping_interval_without_data_ms", 10_000)],
            maximum_concurrent_rpcs=options.workers,
        )
        gnmi_pb2_grpc.add_gNMIServicer_to_server(self.service, self._server)

    @property
    def mode(self) -> str:
        tls = self.options.tls
        return "plain" if tls is None else ("mutual-tls" if tls.mutual else "tls")

    def start(self) -> int:
        """Bind and start serving; returns the TCP port (the chosen one for port 0)."""
        address = host_port(self.options.host, self.options.port)
        try:
            if self.options.tls is None:
                port = self._server.add_insecure_port(address)
            else:
                port = self._server.add_secure_port(address, self.options.tls.grpc_credentials())
        except RuntimeError as error:
            raise BindError(f"cannot listen on {address}: {error}") from error
        if not port:
            raise BindError(f"cannot listen on {address} (in use, or not an address of this host)")
        self.port = int(port)
        self._bind_unix()
        self._server.start()
        self._write_status()
        log.info("gnmi.listening address=%s mode=%s unix=%s", host_port(self.options.host, self.port), self.mode,
                 self.unix or "-")
        return self.port

    def _bind_unix(self) -> None:
        if self.options.run_dir is None:
            return
        path = RunDir(self.options.run_dir).gnmi_socket
        path.parent.mkdir(parents=True, exist_ok=True)
        if len(str(path)) > UNIX_PATH_MAX:
            log.warning("gnmi.unix_socket.skipped path_too_long=%s", path)
            return
        path.unlink(missing_ok=True)
        try:
            bound = self._server.add_insecure_port(f"unix:{path}")
        except RuntimeError as error:
            log.warning("gnmi.unix_socket.failed path=%s error=%s", path, error)
            return
        if bound:
            self.unix = path

    def _write_status(self) -> None:
        if self.options.run_dir is None:
            return
        write_json_atomic(RunDir(self.options.run_dir).gnmi_status_file, {
            "pid": os.getpid(), "host": self.options.host, "port": self.port,
            "address": host_port(self.options.host, self.port), "mode": self.mode,
            "unix": f"unix:{self.unix}" if self.unix else None,
        })

    def wait(self, timeout: float | None = None) -> bool:
        return bool(self._server.wait_for_termination(timeout))

    def stop(self, grace: float = 1.0) -> None:
        self._server.stop(grace).wait(grace + 1.0)
        self.feed.close()
        self.dbs.close()
        if self.options.run_dir is not None:
            run = RunDir(self.options.run_dir)
            status = run.gnmi_status()
            if status and status.get("pid") == os.getpid():
                run.gnmi_status_file.unlink(missing_ok=True)
            if self.unix is not None:
                self.unix.unlink(missing_ok=True)


__all__ = ["BindError", "GnmiServer", "ServerOptions", "WORKERS", "host_port"]
