"""The supervisor behind ``nos up``: one whole switch, started, watched and stopped.

Boot: the management listeners are checked first (TLS files usable; a non-loopback ``--bind`` needs
credentials), then Redis (embedded on its unix socket, or ``--redis URL``) -> startup config validated
and loaded into CONFIG_DB -> CONFIG_DB's journal started -> daemons started (syncd, orchagent, cfgmgrd,
the Redis TCP guard, REST, gNMI) -> readiness awaited -> ``endpoints.json`` written. Then it watches its
children until SIGINT or SIGTERM, and stops everything it started, in reverse order:

* a child that dies is started again with back-off (``children``); its exit cause and restart count go
  to STATE_DB ``NOS_DAEMON_TABLE|<name>`` and, with the time, to ``logs/supervisor.log``;
* when Redis dies it is started again with CONFIG_DB put back from the journal (``redis_keeper``);
  meanwhile the daemons wait (no back-off is used), then the pipeline is restarted cold so that
  APPL_DB, ASIC_DB and STATE_DB are rebuilt. The unix socket path and the TCP endpoint stay the same.

REST serves on a socket the supervisor binds and passes down (``--fd``). gRPC cannot adopt a socket,
so the gNMI server binds its own port (8080 if free, else any; ``--gnmi-port 0`` any) and reports it
in ``<run dir>/gnmi.json``; once known, the port is pinned, so a restarted gNMI server comes back on
the same endpoint. Both servers get the same ``--bind`` address, credentials file and TLS files.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from nos.api.auth import Authenticator, AuthError, ListenerRefused
from nos.api.tls import TlsError, TlsFiles
from nos.config.apply import reload_config
from nos.daemon.runner import EXIT_DB_GONE
from nos.db import ConfigDBConnector, Table
from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.runtime import convergence, forkserver, readiness
from nos.runtime.children import HELD, Daemon
from nos.runtime.forkserver import ForkServer, reap_strays
from nos.runtime.listeners import (
    BootError,
    display_host,
    free_or_any,
    listen_socket,
    tls_from_record,
    tls_record,
)
from nos.runtime.redis_guard import ensure_password_file
from nos.runtime.redis_keeper import NON_CONFIG_DBS, RedisKeeper
from nos.runtime.redis_server import DEFAULT_REDIS_PORT
from nos.runtime.rundir import RunDir, write_json_atomic
from nos.runtime.startup import Startup, choose_startup
from nos.schema.dbconfig import CONFIG_DB, STATE_DB, default_db_config
from nos.schema.tables import STATE_NOS_DAEMON_TABLE_NAME

__all__ = ["BootError", "Supervisor", "UpOptions", "check_listeners", "tls_from_record"]

log = logging.getLogger(__name__)

DEFAULT_REST_PORT = 8000
DEFAULT_GNMI_PORT = 8080
READY_TIMEOUT_S = 60.0
API_CHECKS = frozenset({"redis tcp", "rest", "gnmi"})  # once they answer during a boot, not asked again
# (name, module) of the daemons, in start order (each is also runnable alone: python -m <module>)
DAEMONS = (("syncd", "syncd_sim"), ("orchagent", "orchagent"), ("cfgmgrd", "nos.cfgmgr"))
GUARD = ("redis_guard", "nos.runtime.redis_guard")
ICCPD = ("iccpd", "iccpd")
API_SERVERS = ("rest", "gnmi")  # children without a STATE_DB heartbeat; readiness asks them directly
NO_HEARTBEAT = (GUARD[0], *API_SERVERS)
REDIS_ROW = "redis"  # NOS_DAEMON_TABLE row of Redis itself (written by the supervisor)

Progress = Callable[[str, str], None]


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
    config_dir: Path | None = None  # REST config-save/config-reload files (None: the run dir)


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


@dataclass
class Supervisor:
    run: RunDir
    options: UpOptions
    progress: Progress = lambda step, detail: None  # noqa: E731
    keeper: RedisKeeper | None = None
    dbs: Databases | None = None
    daemons: list[Daemon] = field(default_factory=list)
    endpoints: dict[str, str] = field(default_factory=dict)
    startup: Startup | None = None
    stop_event: threading.Event = field(default_factory=threading.Event)
    tls: TlsFiles | None = None
    _sockets: list[socket.socket] = field(default_factory=list)
    _log_handler: logging.Handler | None = None
    forks: ForkServer | None = None

    # -- boot -----------------------------------------------------------------------------------
    def _step(self, step: str, detail: str = "") -> None:
        write_json_atomic(self.run.boot_file, {"state": "booting", "step": step, "detail": detail,
                                               "pid": os.getpid()})
        self.progress(step, detail)

    def event(self, kind: str, message: str) -> None:
        """Something the operator should know: on the console (foreground) and in logs/supervisor.log."""
        log.info("supervisor.%s %s", kind, message)
        self.progress(kind, message)

    def boot(self) -> dict[str, str]:
        started = time.monotonic()
        self._start_fork_server()
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
            "modules": {d.name: d.module for d in self.daemons},
            "heartbeat_daemons": self.heartbeat_daemons, "boot_seconds": round(time.monotonic() - started, 3),
            "started_at": time.time(), "tls": tls_record(self.tls),
        })
        self.event("ready", f"switch ready in {time.monotonic() - started:.2f}s")
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
        self._log_handler = logging.FileHandler(self.run.log_file("supervisor"))
        self._log_handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"))
        runtime = logging.getLogger("nos.runtime")
        runtime.addHandler(self._log_handler)
        runtime.setLevel(logging.INFO)

    def _start_fork_server(self) -> None:
        """Before Redis and the supervisor's threads: the daemons are forked from it
        (``nos.runtime.forkserver``; ``NOS_FORK_SERVER=0`` starts each with ``python -m`` instead)."""
        if forkserver.wanted() and self.forks is None:
            self.forks = ForkServer.start()

    def _start_redis(self) -> None:
        self.keeper = RedisKeeper(self.run, external_url=self.options.redis_url, event=self.event)
        port = 0
        if self.options.redis_url:
            self._step("redis", f"using {self.options.redis_url}")
        else:
            self._step("redis", "starting redis-server")
            self.keeper.start_server()
            if ensure_password_file(self.run.redis_password_file):
                self.event("redis", f"new password for the Redis TCP endpoint in {self.run.redis_password_file}")
            guard = listen_socket(self.options.redis_port, DEFAULT_REDIS_PORT, "Redis TCP", "127.0.0.1")
            self._sockets.append(guard)
            port = guard.getsockname()[1]
            self.endpoints.update(redis_tcp=f"redis://127.0.0.1:{port}",
                                  redis_password_file=str(self.run.redis_password_file))
        self.endpoints["redis"] = self.keeper.url
        self.dbs = Databases(self.endpoints["redis"])
        sock = self.keeper.server.socket_path if self.keeper.server else None
        write_json_atomic(self.run.db_config_file,
                          default_db_config().rendered(unix_socket=str(sock or ""), port=port))

    def _load_config(self) -> None:
        assert self.dbs is not None and self.startup is not None and self.keeper is not None
        rows = sum(len(r) for r in self.startup.config.values())
        self._step("config", f"{self.startup.note}: {rows} rows")
        if self.options.redis_url:  # a reused Redis: start from empty non-config DBs, as a cold boot
            for name in NON_CONFIG_DBS:
                self.dbs[name].client.flushdb()
        result = reload_config(ConfigDBConnector(self.dbs[CONFIG_DB]), self.startup.config)
        if result.not_acted_on:
            self.progress("config", f"kept but not acted on: {', '.join(result.not_acted_on)}")
        self.keeper.start_journal()

    def _start_daemons(self) -> None:
        url = self.endpoints["redis"]
        py = sys.executable
        self._step("daemons", f"starting {', '.join(name for name, _ in self._control_daemons())}, rest, gnmi")
        self.daemons = [Daemon(name, [py, "-m", module, "--redis", url], self.run.log_file(name))
                        for name, module in self._control_daemons()]
        if "redis_tcp" in self.endpoints:
            guard, password = self._sockets[-1], self.run.redis_password_file
            assert self.keeper is not None and self.keeper.server is not None
            argv = [py, "-m", GUARD[1], "--fd", str(guard.fileno()), "--unix", str(self.keeper.server.socket_path),
                    "--password-file", str(password)]
            self.daemons.append(Daemon(GUARD[0], argv, self.run.log_file(GUARD[0]), pass_fds=(guard.fileno(),)))
        bind = self.options.bind
        api = ["--run-dir", str(self.run.path), "--auth-file", str(auth_file(self.options, self.run))]
        api += self.tls.as_args() if self.tls is not None else []
        rest = listen_socket(self.options.rest_port, DEFAULT_REST_PORT, "REST", bind)
        self._sockets.append(rest)
        scheme = "https" if self.tls is not None else "http"
        self.endpoints["rest"] = f"{scheme}://{display_host(bind)}:{rest.getsockname()[1]}"
        self.daemons.append(Daemon(
            "rest", [py, "-m", "nos.api.rest", "--redis", url, "--host", bind, "--fd", str(rest.fileno()), *api,
                     "--daemons", ",".join(self.heartbeat_daemons),
                     *(["--config-dir", str(self.options.config_dir)] if self.options.config_dir else [])],
            self.run.log_file("rest"), pass_fds=(rest.fileno(),)))
        gnmi_port = free_or_any(self.options.gnmi_port, DEFAULT_GNMI_PORT, bind)
        self.daemons.append(Daemon(
            "gnmi", [py, "-m", "nos.api.gnmi", "--redis", url, "--host", bind, "--port", str(gnmi_port), *api,
                     *(["--port-fallback"] if self.options.gnmi_port is None else [])],
            self.run.log_file("gnmi")))
        for daemon in self.daemons:
            daemon.forks = self.forks
            daemon.start()

    def _control_daemons(self) -> tuple[tuple[str, str], ...]:
        """syncd, orchagent, cfgmgrd; and iccpd when the startup config has an MCLAG domain (SONiC starts it
        on demand too; a domain added later needs a restart of the switch, as enabling the feature does)."""
        assert self.startup is not None
        return DAEMONS + ((ICCPD,) if self.startup.config.get("MCLAG_DOMAIN") else ())

    @property
    def heartbeat_daemons(self) -> list[str]:
        """Daemons that report a heartbeat in STATE_DB (the API servers and the guard do not)."""
        names = [d.name for d in self.daemons] or [name for name, _ in DAEMONS]
        return [name for name in names if name not in NO_HEARTBEAT]

    def _daemon(self, name: str) -> Daemon | None:
        return next((d for d in self.daemons if d.name == name), None)

    def _gnmi_check(self) -> readiness.Check:
        """gNMI answers; the first time, learn its port, publish it and pin it for restarts."""
        daemon = self._daemon("gnmi")
        check = readiness.check_gnmi(self.run, daemon.pid if daemon is not None else None)
        status = self.run.gnmi_status() or {}
        if check.ok and daemon is not None and "gnmi" not in self.endpoints:
            port = str(status["port"])
            self.endpoints["gnmi"] = f"{display_host(self.options.bind)}:{port}"
            daemon.argv[daemon.argv.index("--port") + 1] = port
            if "--port-fallback" in daemon.argv:
                daemon.argv.remove("--port-fallback")
        return check

    def checks(self, passed: set[str] | None = None) -> Iterator[readiness.Check]:
        """The boot's readiness checks, cheapest first, leaving out those named in ``passed`` (an API
        that answered once during this boot is not asked again at every round). With ``passed`` (the
        rounds), the ports check is the quick one until PortInitDone; without, every figure."""
        assert self.dbs is not None
        skip = passed if passed is not None else set()
        first = readiness.check_redis(self.dbs)
        yield first
        if not first.ok:
            return
        rows = readiness.daemon_rows(self.dbs)
        for name in self.heartbeat_daemons:
            yield readiness.check_daemon(self.dbs, name, rows)
        yield readiness.check_port_config_done(self.dbs)
        yield convergence.ports_check(self.dbs, quick=passed is not None)
        if "redis_tcp" in self.endpoints and "redis tcp" not in skip:
            yield readiness.check_redis_tcp(self.endpoints["redis_tcp"], self.run.redis_password_file)
        if "rest" not in skip:
            yield readiness.check_http("rest", self.endpoints["rest"] + "/api/v1/health", tls=self.tls)
        if "gnmi" not in skip:
            yield self._gnmi_check()

    def _await_ready(self, started: float) -> None:
        """Until every check passes. Each round stops at its first failing check (while the ports are
        still coming, REST and gNMI are not asked), and the APIs, once they answered, are not asked
        again: with several switches booting at once (a lab), the rounds of each would otherwise take
        the CPU the others' daemons need. The pause between rounds grows from 20 to 100 ms."""
        self._step("readiness", "waiting for ports and APIs")
        deadline = started + READY_TIMEOUT_S
        passed: set[str] = set()
        pause = 0.02
        while True:
            dead = next((d for d in self.daemons if d.poll() is not None), None)
            if dead is not None:
                raise BootError(f"daemon {dead.name} {dead.note_exit(dead.poll() or 0)} during boot; see {dead.log}")
            failing = None
            for check in self.checks(passed):
                if not check.ok:
                    failing = check
                    break
                if check.name in API_CHECKS:
                    passed.add(check.name)
            if failing is None:
                return
            if time.monotonic() > deadline:
                every = [c for c in self.checks() if not c.ok] or [failing]
                raise BootError(f"switch not ready after {READY_TIMEOUT_S:.0f}s: "
                                + "; ".join(f"{c.name}: {c.detail}" for c in every))
            self.stop_event.wait(pause)
            pause = min(0.1, pause * 1.5)

    # -- supervise ------------------------------------------------------------------------------
    def supervise(self) -> None:
        """Watch Redis and the children until ``stop_event`` is set: bring Redis back when it dies,
        start a child that died again (with back-off)."""
        self._publish_records()
        while not self.stop_event.wait(0.2):
            self.watch_once()

    def watch_once(self) -> None:
        assert self.keeper is not None
        if self.keeper.check():
            self._stop_pipeline()
        if self.keeper.down:
            recovery = self.keeper.recover()
            if recovery is not None:
                what = (f"CONFIG_DB restored ({recovery.restored_keys} keys, generation {recovery.generation})"
                        if recovery.cold else "CONFIG_DB intact")
                self.event("redis", f"Redis back in {recovery.seconds:.2f}s, {what}; restarting the daemons")
                self._release(cold=recovery.cold)
                self._publish_records()
        self._watch_children()
        self._reap_strays()

    def _reap_strays(self) -> None:
        """Orphans of the children, adopted because the supervisor is a subreaper (a killed daemon's
        forked helper): reaped, so that no zombie stays."""
        if self.forks is None:
            return
        self.forks.alive()  # reaps the fork server itself if it has died
        known = [d.pid for d in self.daemons if d.pid is not None] + [self.forks.pid]
        server = self.keeper.server if self.keeper is not None else None
        if server is not None and server.proc is not None:
            known.append(server.proc.pid)
        for pid, code in reap_strays(known):
            log.info("supervisor.stray_reaped pid=%d status=%d", pid, code)

    def _stop_pipeline(self) -> None:
        """Redis is gone: stop the daemons that keep state in it (they exit by themselves anyway) and
        hold them, without using their back-off; a child already waiting out a back-off because it
        lost Redis gets that failure back."""
        for daemon in self.daemons:
            if daemon.name in NO_HEARTBEAT or daemon.next_start == HELD:
                continue
            if daemon.next_start != 0.0:  # exited and noticed before Redis was
                if daemon.last_code == EXIT_DB_GONE:
                    daemon.failures = max(0, daemon.failures - 1)
            elif daemon.poll() is None:
                daemon.stop(timeout=2.0)
                daemon.last_exit, daemon.last_exit_time = "stopped by the supervisor: Redis was lost", time.time()
            else:
                daemon.note_exit(daemon.poll() or 0)
            daemon.hold()
        self.event("daemons", "syncd, orchagent and cfgmgrd stopped; they start again once Redis is back")

    def _release(self, cold: bool) -> None:
        """Redis is back: start what waited for it. After a cold start the API servers are started
        afresh too: their connections, caches and subscriptions belong to the old server (the first
        write of each would fail), and their listening ports stay (REST's socket is the supervisor's,
        gNMI's port is pinned)."""
        for daemon in self.daemons:
            if cold and daemon.name in API_SERVERS and daemon.next_start == 0.0 and daemon.poll() is None:
                daemon.stop()
                daemon.last_exit = "restarted by the supervisor: Redis was restarted"
                daemon.last_exit_time = time.time()
                daemon.hold()
            if daemon.next_start == HELD:
                daemon.restart()
                self.event("restart", f"{daemon.name} started again (pid {daemon.pid}, restart {daemon.restarts})")

    def _watch_children(self) -> None:
        assert self.keeper is not None
        now = time.monotonic()
        for daemon in self.daemons:
            if daemon.next_start == 0.0:
                code = daemon.poll()
                if code is None:
                    continue
                cause = daemon.note_exit(code)
                if not self.keeper.down and code == EXIT_DB_GONE and self.keeper.check():
                    self._stop_pipeline()
                if self.keeper.down:
                    daemon.hold()
                    self.event("exit", f"{daemon.name} (pid {daemon.pid}) {cause}; it waits for Redis")
                else:
                    delay = daemon.schedule(now)
                    self.event("exit", f"{daemon.name} (pid {daemon.pid}) {cause}; restarting in {delay:g}s "
                                       f"(see {daemon.log})")
                self._publish_records(daemon)
            elif now >= daemon.next_start:
                daemon.restart()
                self.event("restart", f"{daemon.name} started again (pid {daemon.pid}, restart {daemon.restarts})")
                self._publish_records(daemon)

    def _publish_records(self, only: Daemon | None = None) -> None:
        """The supervisor's fields of NOS_DAEMON_TABLE (restarts and exit causes); Redis' own row too."""
        if self.dbs is None or self.keeper is None or self.keeper.down:
            return
        rows = {d.name: d.record() for d in ([only] if only is not None else self.daemons)}
        if only is None:
            rows[REDIS_ROW] = self.keeper.record()
        table = Table(self.dbs[STATE_DB], STATE_NOS_DAEMON_TABLE_NAME)
        try:
            for name, fields in rows.items():
                table.set(name, fields)
        except DbError as exc:  # Redis may be what failed: supervisor.log has the event anyway
            log.warning("supervisor.record_failed error=%s", exc)

    # -- shutdown -------------------------------------------------------------------------------
    def shutdown(self) -> None:
        for daemon in reversed(self.daemons):
            daemon.stop()
        if self.forks is not None:
            self.forks.close()
        for sock in self._sockets:
            sock.close()
        self.run.gnmi_status_file.unlink(missing_ok=True)
        if self.dbs is not None:
            self.dbs.close()
        if self.keeper is not None:
            self.keeper.stop()
        self.run.endpoints_file.unlink(missing_ok=True)
        if self.run.pid_file.exists() and self.run.pid_file.read_text().strip() == str(os.getpid()):
            self.run.pid_file.unlink()
        state = self.run.boot_state() or {}
        if state.get("state") != "failed":
            write_json_atomic(self.run.boot_file, {"state": "stopped", "pid": os.getpid()})
        if self._log_handler is not None:
            logging.getLogger("nos.runtime").removeHandler(self._log_handler)
            self._log_handler.close()
