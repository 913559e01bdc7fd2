"""The supervisor behind ``nos up``: one whole switch, started, watched and stopped.

Boot: the management listeners are checked first (TLS files usable; a non-loopback ``--bind`` needs
credentials), then Redis (embedded, or ``--redis URL``) -> startup config validated and loaded into
CONFIG_DB -> daemons started (syncd, orchagent, cfgmgrd, REST, gNMI) -> readiness awaited ->
``endpoints.json`` written. Then it watches its children (a daemon that dies is restarted with
back-off and counted in STATE_DB) until SIGINT or SIGTERM, and stops everything it started, in
reverse order.

REST serves on a socket the supervisor binds and passes down (``--fd``). gRPC cannot adopt a socket,
so the gNMI server binds its own port (8080 if free, else any; ``--gnmi-port 0`` any) and reports it
in ``<run dir>/gnmi.json``; once known, the port is pinned, so a restarted gNMI server comes back on
the same endpoint. Both servers get the same ``--bind`` address, credentials file and TLS files.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nos.api.auth import Authenticator, AuthError, ListenerRefused
from nos.api.tls import TlsError, TlsFiles
from nos.config.apply import reload_config
from nos.db import ConfigDBConnector, Table
from nos.db.connector import Databases
from nos.runtime import procs, readiness
from nos.runtime.redis_server import RedisServer, port_is_free
from nos.runtime.rundir import RunDir, write_json_atomic
from nos.runtime.startup import Startup, choose_startup
from nos.schema.dbconfig import CONFIG_DB, STATE_DB, default_db_config
from nos.schema.tables import STATE_NOS_DAEMON_TABLE_NAME

DEFAULT_REST_PORT = 8000
DEFAULT_GNMI_PORT = 8080
READY_TIMEOUT_S = 60.0
# (name, module) of the daemons, in start order (each is also runnable alone: python -m <module>)
DAEMONS = (("syncd", "syncd_sim"), ("orchagent", "orchagent"), ("cfgmgrd", "nos.cfgmgr"))
API_SERVERS = ("rest", "gnmi")  # children without a STATE_DB heartbeat; readiness asks them directly
_RESTART_BACKOFF_MAX_S = 30.0

Progress = Callable[[str, str], None]


class BootError(RuntimeError):
    """Raised when the switch cannot boot; the message says what failed and where to look."""


@dataclass
class UpOptions:
    sku: str | None = None
    config: Path | None = None
    rest_port: int | None = None   # None: 8000 if free else any; 0: any
    gnmi_port: int | None = None   # None: 8080 if free else any; 0: any
    redis_port: int | None = None  # None: 6379 if free else any; 0: any
    redis_url: str | None = None   # use an existing Redis instead of starting one
    bind: str = "127.0.0.1"        # listen address of REST and gNMI
    auth_file: Path | None = None  # None: <run dir>/credentials.json
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_ca: str | None = None      # set: mutual TLS


def check_listeners(options: UpOptions, run: RunDir) -> TlsFiles | None:
    """The TLS files of the API servers, after refusing what they would refuse (raises BootError):
    an incomplete or missing set of TLS files, a non-loopback bind address without credentials."""
    try:
        tls = TlsFiles.from_flags(options.tls_cert, options.tls_key, options.tls_ca)
        Authenticator(auth_file(options, run)).check_listener(options.bind)
    except (TlsError, ListenerRefused, AuthError) as exc:
        raise BootError(str(exc)) from exc
    return tls


def auth_file(options: UpOptions, run: RunDir) -> Path:
    return options.auth_file if options.auth_file is not None else run.credentials_file


def display_host(bind: str) -> str:
    """The address clients on this host use for a listener bound to ``bind``."""
    if bind in ("", "0.0.0.0", "::", "[::]"):
        return "127.0.0.1"
    return f"[{bind}]" if ":" in bind and not bind.startswith("[") else bind


@dataclass
class Daemon:
    """A child process of the switch."""

    name: str
    argv: list[str]
    log: Path
    pass_fds: tuple[int, ...] = ()
    proc: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    next_start: float = 0.0

    def start(self) -> None:
        self.proc = procs.spawn(self.argv, log_path=self.log, pass_fds=self.pass_fds)


def free_or_any(port: int | None, default: int, host: str) -> int:
    """The port to ask for: the one given, else ``default`` when free, else 0 (any)."""
    if port is not None:
        return port
    try:
        return default if port_is_free(default, host) else 0
    except OSError:  # not an IPv4 address: let the bind pick
        return 0


def listen_socket(port: int | None, default: int, what: str, host: str = "127.0.0.1") -> socket.socket:
    """A bound, listening TCP socket on ``host`` for a server child to inherit. Without a port given, the
    default is tried and any free port taken if another process got the default in the meantime."""
    chosen = free_or_any(port, default, host)
    try:
        family = socket.getaddrinfo(host.strip("[]"), chosen, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as exc:
        raise BootError(f"--bind {host}: not an address of this host ({exc.strerror})") from exc
    attempts = [chosen, 0] if port is None and chosen else [chosen]
    for attempt in attempts:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host.strip("[]"), attempt))
        except OSError as exc:
            sock.close()
            if attempt == attempts[-1]:
                raise BootError(f"{what} port {attempt} on {host} is not available ({exc.strerror}); "
                                "use 0 to pick a free one") from exc
            continue
        sock.listen(128)
        sock.set_inheritable(True)
        return sock
    raise AssertionError("unreachable: the last attempt raises")


@dataclass
class Supervisor:
    run: RunDir
    options: UpOptions
    progress: Progress = lambda step, detail: None  # noqa: E731
    redis: RedisServer | None = None
    dbs: Databases | None = None
    daemons: list[Daemon] = field(default_factory=list)
    endpoints: dict[str, str] = field(default_factory=dict)
    startup: Startup | None = None
    stop_event: threading.Event = field(default_factory=threading.Event)
    tls: TlsFiles | None = None
    _sockets: list[socket.socket] = field(default_factory=list)

    # -- boot -----------------------------------------------------------------------------------
    def _step(self, step: str, detail: str = "") -> None:
        write_json_atomic(self.run.boot_file, {"state": "booting", "step": step, "detail": detail,
                                               "pid": os.getpid()})
        self.progress(step, detail)

    def boot(self) -> dict[str, str]:
        started = time.monotonic()
        self.tls = check_listeners(self.options, self.run)
        self._claim_run_dir()
        self._step("startup config", "choosing")
        self.startup = choose_startup(self.options.sku, self.options.config, self.run.saved_config_file)
        self._start_redis()
        self._load_config()
        self._start_daemons()
        self._await_ready(started)
        assert self.startup is not None
        write_json_atomic(self.run.endpoints_file, self.endpoints)
        write_json_atomic(self.run.boot_file, {
            "state": "ready", "pid": os.getpid(), "endpoints": self.endpoints, "sku": self.startup.sku.name,
            "config": str(self.startup.source), "daemons": [d.name for d in self.daemons],
            "heartbeat_daemons": self.heartbeat_daemons, "boot_seconds": round(time.monotonic() - started, 3),
            "started_at": time.time(), "tls": _tls_record(self.tls),
        })
        return self.endpoints

    def fail(self, error: str) -> None:
        """Record a failed boot for ``nos up -d`` to report."""
        write_json_atomic(self.run.boot_file, {"state": "failed", "pid": os.getpid(), "error": error})

    def _claim_run_dir(self) -> None:
        self.run.path.mkdir(parents=True, exist_ok=True)
        self.run.logs.mkdir(exist_ok=True)
        other = self.run.supervisor_pid()
        if other is not None and other != os.getpid():
            raise BootError(f"a switch is already running in {self.run.path} (pid {other}); "
                            f"stop it with 'nos down --run-dir {self.run.path}'")
        self.run.pid_file.write_text(f"{os.getpid()}\n")
        self.run.endpoints_file.unlink(missing_ok=True)
        self.run.gnmi_status_file.unlink(missing_ok=True)

    def _start_redis(self) -> None:
        if self.options.redis_url:
            self._step("redis", f"using {self.options.redis_url}")
            self.endpoints["redis"] = self.options.redis_url
        else:
            self._step("redis", "starting redis-server")
            self.redis = RedisServer(self.run.path, port=self.options.redis_port)
            self.redis.start()
            self.endpoints.update(redis=self.redis.url, redis_tcp=self.redis.tcp_url)
        self.dbs = Databases(self.endpoints["redis"])
        sock = self.redis.socket_path if self.redis else None
        port = self.redis.port if self.redis else 0
        write_json_atomic(self.run.db_config_file,
                          default_db_config().rendered(unix_socket=str(sock or ""), port=port or 0))

    def _load_config(self) -> None:
        assert self.dbs is not None and self.startup is not None
        rows = sum(len(r) for r in self.startup.config.values())
        self._step("config", f"{self.startup.note}: {rows} rows")
        if self.options.redis_url:  # a reused Redis: start from empty non-config DBs, as a cold boot
            for name in ("APPL_DB", "ASIC_DB", "COUNTERS_DB", "FLEX_COUNTER_DB", "STATE_DB", "APPL_STATE_DB"):
                self.dbs[name].client.flushdb()
        result = reload_config(ConfigDBConnector(self.dbs[CONFIG_DB]), self.startup.config)
        if result.not_acted_on:
            self.progress("config", f"kept but not acted on: {', '.join(result.not_acted_on)}")

    def _start_daemons(self) -> None:
        url = self.endpoints["redis"]
        py = sys.executable
        self._step("daemons", "starting syncd, orchagent, cfgmgrd, rest, gnmi")
        self.daemons = [Daemon(name, [py, "-m", module, "--redis", url], self.run.log_file(name))
                        for name, module in DAEMONS]
        bind = self.options.bind
        api = ["--run-dir", str(self.run.path), "--auth-file", str(auth_file(self.options, self.run))]
        api += self.tls.as_args() if self.tls is not None else []
        rest = listen_socket(self.options.rest_port, DEFAULT_REST_PORT, "REST", bind)
        self._sockets.append(rest)
        scheme = "https" if self.tls is not None else "http"
        self.endpoints["rest"] = f"{scheme}://{display_host(bind)}:{rest.getsockname()[1]}"
        self.daemons.append(Daemon(
            "rest", [py, "-m", "nos.api.rest", "--redis", url, "--host", bind, "--fd", str(rest.fileno()), *api,
                     "--daemons", ",".join(self.heartbeat_daemons)],
            self.run.log_file("rest"), pass_fds=(rest.fileno(),)))
        gnmi_port = free_or_any(self.options.gnmi_port, DEFAULT_GNMI_PORT, bind)
        self.daemons.append(Daemon(
            "gnmi", [py, "-m", "nos.api.gnmi", "--redis", url, "--host", bind, "--port", str(gnmi_port), *api,
                     *(["--port-fallback"] if self.options.gnmi_port is None else [])],
            self.run.log_file("gnmi")))
        for daemon in self.daemons:
            daemon.start()

    @property
    def heartbeat_daemons(self) -> list[str]:
        """Daemons that report a heartbeat in STATE_DB (the API servers do not)."""
        return [d.name for d in self.daemons if d.name not in API_SERVERS]

    def _daemon(self, name: str) -> Daemon | None:
        return next((d for d in self.daemons if d.name == name), None)

    def _gnmi_check(self) -> readiness.Check:
        """gNMI answers; the first time, learn its port, publish it and pin it for restarts."""
        daemon = self._daemon("gnmi")
        pid = daemon.proc.pid if daemon is not None and daemon.proc is not None else None
        check = readiness.check_gnmi(self.run, pid)
        status = self.run.gnmi_status() or {}
        if check.ok and daemon is not None and "gnmi" not in self.endpoints:
            port = str(status["port"])
            self.endpoints["gnmi"] = f"{display_host(self.options.bind)}:{port}"
            daemon.argv[daemon.argv.index("--port") + 1] = port
            if "--port-fallback" in daemon.argv:
                daemon.argv.remove("--port-fallback")
        return check

    def checks(self) -> list[readiness.Check]:
        assert self.dbs is not None
        checks = [readiness.check_redis(self.dbs)]
        if not checks[0].ok:
            return checks
        rows = readiness.daemon_rows(self.dbs)
        checks += [readiness.check_daemon(self.dbs, name, rows) for name in self.heartbeat_daemons]
        checks.append(readiness.check_port_config_done(self.dbs))
        checks.append(readiness.check_ports_created(self.dbs))
        checks.append(readiness.check_http("rest", self.endpoints["rest"] + "/api/v1/health", tls=self.tls))
        checks.append(self._gnmi_check())
        return checks

    def _await_ready(self, started: float) -> None:
        self._step("readiness", "waiting for ports and APIs")
        deadline = started + READY_TIMEOUT_S
        while True:
            dead = [d for d in self.daemons if d.proc is not None and d.proc.poll() is not None]
            if dead:
                raise BootError(f"daemon {dead[0].name} exited with status {dead[0].proc.returncode} "  # type: ignore[union-attr]
                                f"during boot; see {dead[0].log}")
            checks = self.checks()
            if readiness.all_ok(checks):
                return
            if time.monotonic() > deadline:
                failing = "; ".join(f"{c.name}: {c.detail}" for c in checks if not c.ok)
                raise BootError(f"switch not ready after {READY_TIMEOUT_S:.0f}s: {failing}")
            self.stop_event.wait(0.02)

    # -- supervise ------------------------------------------------------------------------------
    def supervise(self) -> None:
        """Watch children until ``stop_event`` is set; restart any that die (with back-off)."""
        while not self.stop_event.wait(0.2):
            now = time.monotonic()
            for daemon in self.daemons:
                if daemon.proc is None or daemon.proc.poll() is None:
                    continue
                if daemon.next_start == 0.0:
                    delay = min(2.0 ** daemon.restarts, _RESTART_BACKOFF_MAX_S)
                    daemon.next_start = now + delay
                    self.progress("daemon", f"{daemon.name} exited with status {daemon.proc.returncode}; "
                                            f"restarting in {delay:.0f}s (see {daemon.log})")
                elif now >= daemon.next_start:
                    daemon.restarts += 1
                    daemon.next_start = 0.0
                    daemon.start()
                    self._record_restart(daemon)

    def _record_restart(self, daemon: Daemon) -> None:
        if self.dbs is None:
            return
        try:
            Table(self.dbs[STATE_DB], STATE_NOS_DAEMON_TABLE_NAME).set(daemon.name, {"restarts": str(daemon.restarts)})
        except Exception:  # the database itself may be what failed; the log line above says enough
            pass

    # -- shutdown -------------------------------------------------------------------------------
    def shutdown(self) -> None:
        for daemon in reversed(self.daemons):
            if daemon.proc is not None:
                procs.stop(daemon.proc)
        for sock in self._sockets:
            sock.close()
        self.run.gnmi_status_file.unlink(missing_ok=True)
        if self.dbs is not None:
            self.dbs.close()
        if self.redis is not None:
            self.redis.stop()
        self.run.endpoints_file.unlink(missing_ok=True)
        if self.run.pid_file.exists() and self.run.pid_file.read_text().strip() == str(os.getpid()):
            self.run.pid_file.unlink()
        state = self.run.boot_state() or {}
        if state.get("state") != "failed":
            write_json_atomic(self.run.boot_file, {"state": "stopped", "pid": os.getpid()})



def _tls_record(tls: TlsFiles | None) -> dict[str, str] | None:
    """The TLS files as boot.json records them (paths only), for ``nos status``."""
    if tls is None:
        return None
    record = {"cert": str(tls.cert), "key": str(tls.key)}
    return record | ({"ca": str(tls.ca)} if tls.ca is not None else {})


def tls_from_record(record: object) -> TlsFiles | None:
    if not isinstance(record, dict) or "cert" not in record or "key" not in record:
        return None
    ca = record.get("ca")
    return TlsFiles(Path(record["cert"]), Path(record["key"]), Path(ca) if ca else None)
