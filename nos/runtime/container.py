"""One container of a switch split as SONiC splits it: ``python -m nos.runtime.container ROLE``.

docker-compose runs a switch as four containers (``docker/docker-compose.yml``), each of them this
module with its role; they share one run directory (a volume, ``/var/run/nos``: the saved
``config_db.json``, ``credentials.json``, ``redis.pass``, Redis' unix socket ``redis.sock``):

* ``database``: redis-server on ``<run dir>/redis.sock`` (``notify-keyspace-events AKE``, no
  persistence), the startup configuration validated and loaded into CONFIG_DB (``--config FILE``,
  else the run dir's saved ``config_db.json``, else the SKU's default: ``nos up``'s order), CONFIG_DB's
  journal, and the Redis TCP guard (``nos.runtime.redis_guard``, password ``<run dir>/redis.pass``) on
  ``--redis-port``. A redis-server that dies is started again with CONFIG_DB put back from the journal
  (``nos.runtime.redis_keeper``, as under ``nos up``);
* ``syncd``: syncd_sim;  ``swss``: orchagent and cfgmgrd (and iccpd when CONFIG_DB has an
  ``MCLAG_DOMAIN``);  ``mgmt``: the REST and gNMI servers on ``--bind`` (all addresses by default),
  checking the credentials rule against ``--published-on``, the address docker publishes their ports at.

Each role starts its processes (the modules ``nos up`` starts, with the same flags), starts one that
dies again with ``nos.runtime.children``'s back-off (restarts and exit causes in STATE_DB
``NOS_DAEMON_TABLE``, as ``nos up`` records them; a child is not started while Redis does not answer,
and every child is started afresh when Redis was restarted: its connections and subscriptions belong
to the old server), and stops them on SIGTERM (``docker stop``), in reverse order. Children write to
the container's output (``docker logs``).

Health: every ``CHECK_S`` the role checks what it runs (database: Redis answers, CONFIG_DB is
initialised, the guard serves with the password; syncd and swss: each daemon is this role's live child
and the pid of a fresh heartbeat; mgmt: REST answers ``/api/v1/health``, gNMI answers Capabilities on
its local socket) and writes the result to ``--health-file`` while all pass, removing the file when one
fails. The container's healthcheck only asks whether that file is fresh: a probe costs a ``find``, not a
Python start.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import redis

from nos.api.tls import TlsError, TlsFiles
from nos.config.apply import reload_config
from nos.config.errors import ConfigFileError, ConfigValidationError
from nos.daemon.logs import setup_logging
from nos.db import ConfigDBConnector, Table
from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.runtime import liveness, readiness
from nos.runtime.children import Daemon
from nos.runtime.redis_guard import ensure_password_file
from nos.runtime.redis_keeper import RedisKeeper
from nos.runtime.redis_server import RedisNotFound, RedisStartError
from nos.runtime.rundir import RunDir, write_json_atomic
from nos.runtime.startup import StartupError, choose_startup
from nos.schema.dbconfig import CONFIG_DB, STATE_DB
from nos.schema.tables import CFG_MCLAG_TABLE_NAME, STATE_NOS_DAEMON_TABLE_NAME

log = logging.getLogger("nos.runtime.container")

ROLES = ("database", "syncd", "swss", "mgmt")
DEFAULT_RUN_DIR = Path("/var/run/nos")
DEFAULT_HEALTH_FILE = Path("/run/nos-health.json")
CHECK_S = 1.0       # between health checks (and Redis watches)
WATCH_S = 0.2       # between looks at the children
REDIS_ROW = "redis"  # NOS_DAEMON_TABLE row of Redis itself (nos.runtime.switch.REDIS_ROW)
HEARTBEAT = {"syncd", "orchagent", "cfgmgrd", "iccpd"}  # children that write a STATE_DB heartbeat


class RoleError(RuntimeError):
    """The role cannot start (bad flags, an unusable startup config, no redis-server): the message says why."""


@dataclass(frozen=True)
class RoleOptions:
    role: str
    run_dir: Path = DEFAULT_RUN_DIR
    config: Path | None = None        # database: the startup config (default: the saved one, else the SKU's)
    sku: str | None = None            # database: the SKU when no config names one
    redis_port: int = 6379            # database: the guard's TCP port
    rest_port: int = 8000             # mgmt
    gnmi_port: int = 8080             # mgmt
    bind: str = "0.0.0.0"             # mgmt: listen address of REST and gNMI
    published_on: str | None = None   # mgmt: where docker publishes their ports (the credentials rule's address)
    tls: TlsFiles | None = None       # mgmt
    health_file: Path = DEFAULT_HEALTH_FILE
    log_level: str = "INFO"

    @property
    def run(self) -> RunDir:
        return RunDir(self.run_dir)

    @property
    def redis_url(self) -> str:
        return f"unix://{self.run_dir / 'redis.sock'}"


def children(opts: RoleOptions, mclag: bool = False, python: str = sys.executable) -> list[tuple[str, list[str]]]:
    """(name, argv) of every process the role starts, in start order (pure). ``mclag``: CONFIG_DB has an
    MCLAG_DOMAIN (swss then runs iccpd, as ``nos up`` does)."""
    url = opts.redis_url
    if opts.role == "database":
        return [("redis_guard", [python, "-m", "nos.runtime.redis_guard", "--listen", f"0.0.0.0:{opts.redis_port}",
                                 "--unix", str(opts.run_dir / "redis.sock"),
                                 "--password-file", str(opts.run.redis_password_file)])]
    if opts.role == "syncd":
        return [("syncd", [python, "-m", "syncd_sim", "--redis", url])]
    if opts.role == "swss":
        daemons = [("orchagent", "orchagent"), ("cfgmgrd", "nos.cfgmgr")] + ([("iccpd", "iccpd")] if mclag else [])
        return [(name, [python, "-m", module, "--redis", url]) for name, module in daemons]
    if opts.role == "mgmt":
        common = ["--redis", url, "--host", opts.bind, "--run-dir", str(opts.run_dir),
                  "--auth-file", str(opts.run.credentials_file),
                  *(["--published-on", opts.published_on] if opts.published_on else []),
                  *(opts.tls.as_args() if opts.tls is not None else [])]
        return [("rest", [python, "-m", "nos.api.rest", *common, "--port", str(opts.rest_port),
                          "--daemons", "syncd,orchagent,cfgmgrd"]),
                ("gnmi", [python, "-m", "nos.api.gnmi", *common, "--port", str(opts.gnmi_port)])]
    raise RoleError(f"unknown role {opts.role!r} (roles: {', '.join(ROLES)})")


def health_record(role: str, checks: Sequence[readiness.Check], now: float) -> dict[str, object] | None:
    """What the health file holds while every check passes (pure); None when one fails."""
    if not checks or not all(c.ok for c in checks):
        return None
    return {"role": role, "healthy": True, "at": round(now, 3), "checks": readiness.as_dicts(list(checks))}


@dataclass
class Role:
    """One container's processes, watched (see the module docstring)."""

    opts: RoleOptions
    stop_event: threading.Event = field(default_factory=threading.Event)
    daemons: list[Daemon] = field(default_factory=list)
    keeper: RedisKeeper | None = None
    dbs: Databases | None = None
    redis_run_id: str | None = None
    _failing: str = ""

    # -- start ----------------------------------------------------------------------------------
    def start(self) -> None:
        self.opts.run_dir.mkdir(parents=True, exist_ok=True)
        self.dbs = Databases(self.opts.redis_url)
        mclag = False
        if self.opts.role == "database":
            self._start_database()
        else:
            self._await_redis()
            if self.stop_event.is_set():
                return
            mclag = self.opts.role == "swss" and self._has_mclag()
        self.redis_run_id = self._run_id()
        out = Path("/dev/stdout")
        self.daemons = [Daemon(name, argv, out) for name, argv in children(self.opts, mclag)]
        for daemon in self.daemons:
            daemon.start()
            self.event("start", f"{daemon.name} pid {daemon.pid}")
        self._publish()

    def _start_database(self) -> None:
        opts = self.opts
        try:
            startup = choose_startup(opts.sku, opts.config, opts.run.saved_config_file)
        except (StartupError, ConfigFileError) as exc:
            raise RoleError(str(exc)) from exc
        if ensure_password_file(opts.run.redis_password_file):
            self.event("redis", f"new password for the Redis TCP endpoint in {opts.run.redis_password_file}")
        self.keeper = RedisKeeper(opts.run, event=self.event)
        try:
            self.keeper.start_server()
        except (RedisNotFound, RedisStartError) as exc:
            raise RoleError(str(exc)) from exc
        assert self.dbs is not None
        try:
            result = reload_config(ConfigDBConnector(self.dbs[CONFIG_DB]), startup.config)
        except ConfigValidationError as exc:
            raise RoleError(f"startup config {startup.source} refused:\n{exc}") from exc
        self.event("config", f"{startup.note}: {result.rows} rows loaded (sku {startup.sku.name})")
        if result.not_acted_on:
            self.event("config", f"kept but not acted on: {', '.join(result.not_acted_on)}")
        self.keeper.start_journal()

    def _await_redis(self) -> None:
        """Until Redis answers with CONFIG_DB loaded (compose starts this container once the database is
        healthy; started by hand, it waits)."""
        assert self.dbs is not None
        waited = False
        while not self.stop_event.is_set():
            try:
                if ConfigDBConnector(self.dbs[CONFIG_DB]).is_initialized():
                    return
            except DbError:
                pass
            if not waited:
                self.event("wait", f"waiting for the switch's database at {self.opts.redis_url}")
                waited = True
            self.stop_event.wait(0.2)

    def _has_mclag(self) -> bool:
        assert self.dbs is not None
        return bool(Table(self.dbs[CONFIG_DB], CFG_MCLAG_TABLE_NAME).keys())

    # -- watch ----------------------------------------------------------------------------------
    def event(self, kind: str, message: str) -> None:
        log.info("container.%s role=%s %s", kind, self.opts.role, message)

    def run(self) -> int:
        """Watch until stopped; 0, or 1 when the role cannot go on."""
        next_check = 0.0
        while not self.stop_event.wait(WATCH_S):
            now = time.monotonic()
            self._watch_children(now)
            if now >= next_check:
                next_check = now + CHECK_S
                self._watch_redis()
                self._write_health()
        return 0

    def _redis_answers(self) -> bool:
        return self._server_info() is not None

    def _server_info(self) -> tuple[str, float] | None:
        """Redis' run id and how long it has been up (seconds), or None when it does not answer."""
        assert self.dbs is not None
        try:
            info = self.dbs[STATE_DB].client.info("server")
            return str(info["run_id"]), float(info["uptime_in_seconds"])
        except (redis.RedisError, OSError, KeyError, ValueError):
            return None

    def _run_id(self) -> str | None:
        info = self._server_info()
        return info[0] if info is not None else None

    def _watch_children(self, now: float) -> None:
        for daemon in self.daemons:
            if daemon.next_start == 0.0:
                code = daemon.poll()
                if code is None:
                    continue
                cause = daemon.note_exit(code)
                delay = daemon.schedule(now)
                self.event("exit", f"{daemon.name} (pid {daemon.pid}) {cause}; starting it again in {delay:g}s")
                self._publish(daemon)
            elif now >= daemon.next_start:
                if self.keeper is None and not self._redis_answers():
                    daemon.next_start = now + 0.5  # waits for Redis without using its back-off
                    continue
                daemon.restart()
                self.event("restart", f"{daemon.name} started again (pid {daemon.pid}, restart {daemon.restarts})")
                self._publish(daemon)

    def _watch_redis(self) -> None:
        """database: bring a dead redis-server back; the others: restart every child after Redis restarted."""
        if self.keeper is not None:
            self.keeper.check()
            if self.keeper.down and self.keeper.recover() is not None:
                self.event("redis", "Redis is back with CONFIG_DB")
                self._publish()
            return
        info = self._server_info()
        if info is None or info[0] == self.redis_run_id:
            return
        self.redis_run_id = info[0]
        since = time.monotonic() - info[1]  # the new server started at most 1 s before this (uptime's steps)
        stale = [d for d in self.daemons if d.next_start == 0.0 and d.started_at < since]
        self.event("redis", f"Redis was restarted: starting {', '.join(d.name for d in stale) or 'nothing'} afresh")
        for daemon in stale:  # those (re)started since then already talk to the new server
            daemon.stop()
            daemon.last_exit, daemon.last_exit_time = "restarted: Redis was restarted", time.time()
            daemon.failures = 0
            daemon.restart()
        self._publish()

    def _publish(self, only: Daemon | None = None) -> None:
        """The supervisor's fields of NOS_DAEMON_TABLE, as ``nos up`` writes them (and Redis' own row)."""
        if self.dbs is None:
            return
        rows = {d.name: d.record() for d in ([only] if only is not None else self.daemons)}
        if self.keeper is not None and only is None:
            rows[REDIS_ROW] = self.keeper.record()
        try:
            table = Table(self.dbs[STATE_DB], STATE_NOS_DAEMON_TABLE_NAME)
            for name, fields in rows.items():
                table.set(name, fields)
        except DbError as exc:
            log.warning("container.record_failed role=%s error=%s", self.opts.role, exc)

    # -- health ---------------------------------------------------------------------------------
    def checks(self) -> list[readiness.Check]:
        """The role's health checks (see the module docstring)."""
        assert self.dbs is not None
        first = readiness.check_redis(self.dbs)
        if not first.ok:
            return [first]
        checks = [first]
        role = self.opts.role
        if role == "database":
            initialised = ConfigDBConnector(self.dbs[CONFIG_DB]).is_initialized()
            checks.append(readiness.Check("config", initialised, "CONFIG_DB_INITIALIZED" if initialised
                                          else "startup config not loaded"))
            checks.append(readiness.check_redis_tcp(f"redis://127.0.0.1:{self.opts.redis_port}",
                                                    self.opts.run.redis_password_file))
        elif role == "mgmt":
            scheme = "https" if self.opts.tls is not None else "http"
            checks.append(readiness.check_http("rest", f"{scheme}://127.0.0.1:{self.opts.rest_port}/api/v1/health",
                                               tls=self.opts.tls))
            gnmi = next(d for d in self.daemons if d.name == "gnmi")
            checks.append(readiness.check_gnmi(self.opts.run, gnmi.pid))
        checks += self._child_checks()
        return checks

    def _child_checks(self) -> list[readiness.Check]:
        assert self.dbs is not None
        rows = readiness.daemon_rows(self.dbs)
        now, mono = time.time(), time.monotonic()
        out = []
        for daemon in self.daemons:
            alive = daemon.next_start == 0.0 and daemon.poll() is None and daemon.pid is not None
            child = liveness.Child(daemon.pid, now - (mono - daemon.started_at)) if alive and daemon.pid else None
            row = rows.get(daemon.name, {})
            judge = liveness.judge_daemon(daemon.name, row, child, now) if daemon.name in HEARTBEAT \
                else liveness.judge_server(daemon.name, row, child)
            out.append(judge)
        return out

    def _write_health(self) -> None:
        try:
            checks = self.checks()
        except DbError as exc:
            checks = [readiness.Check("redis", False, str(exc))]
        record = health_record(self.opts.role, checks, time.time())
        if record is not None:
            write_json_atomic(self.opts.health_file, record)
            if self._failing:
                self.event("healthy", "every check passes")
            self._failing = ""
            return
        self.opts.health_file.unlink(missing_ok=True)
        failing = "; ".join(f"{c.name}: {c.detail}" for c in checks if not c.ok)
        if failing != self._failing:
            self.event("unhealthy", failing)
        self._failing = failing

    # -- stop -----------------------------------------------------------------------------------
    def shutdown(self) -> None:
        self.opts.health_file.unlink(missing_ok=True)
        for daemon in reversed(self.daemons):
            daemon.stop()
        if self.keeper is not None:
            self.keeper.stop()
        if self.dbs is not None:
            self.dbs.close()


def parse_args(argv: Sequence[str] | None) -> RoleOptions:
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="python -m nos.runtime.container",
                                     description="One container of a docker-compose switch.")
    parser.add_argument("role", choices=ROLES)
    parser.add_argument("--run-dir", type=Path, default=Path(env("NOS_RUN_DIR", str(DEFAULT_RUN_DIR))),
                        help="the switch's run directory, shared by its containers (default $NOS_RUN_DIR or "
                             f"{DEFAULT_RUN_DIR})")
    parser.add_argument("--config", type=Path, help="database: startup config (default: the run dir's saved "
                                                    "config_db.json, else the SKU's default)")
    parser.add_argument("--sku", default=env("NOS_SKU") or None, help="database: the SKU (default $NOS_SKU, else "
                                                                      "the config's, else NOS-SIM-128x400G)")
    parser.add_argument("--redis-port", type=int, default=6379, help="database: the Redis TCP guard's port")
    parser.add_argument("--rest-port", type=int, default=8000)
    parser.add_argument("--gnmi-port", type=int, default=8080)
    parser.add_argument("--bind", default="0.0.0.0", help="mgmt: listen address of REST and gNMI")
    parser.add_argument("--published-on", default=env("NOS_PUBLISHED_ON") or None,
                        help="mgmt: the address their ports are published at (default $NOS_PUBLISHED_ON); a "
                             "non-loopback one needs credentials")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--tls-ca")
    parser.add_argument("--health-file", type=Path, default=DEFAULT_HEALTH_FILE)
    parser.add_argument("--log-level", default=env("NOS_LOG_LEVEL", "INFO"))
    args = parser.parse_args(argv)
    try:
        tls = TlsFiles.from_flags(args.tls_cert, args.tls_key, args.tls_ca)
    except TlsError as exc:
        parser.error(str(exc))
    return RoleOptions(args.role, args.run_dir.resolve(), args.config, args.sku, args.redis_port, args.rest_port,
                       args.gnmi_port, args.bind, args.published_on, tls, args.health_file, args.log_level)


def main(argv: Sequence[str] | None = None) -> int:
    opts = parse_args(argv)
    setup_logging(opts.log_level)
    role = Role(opts)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: role.stop_event.set())
    try:
        role.start()
        return role.run()
    except RoleError as exc:
        print(f"nos container {role.opts.role}: {exc}", file=sys.stderr, flush=True)
        return 1
    finally:
        role.shutdown()


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["ROLES", "Role", "RoleError", "RoleOptions", "children", "health_record", "main"]
