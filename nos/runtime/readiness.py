"""Is the switch ready? Small checks, each answering (name, ok, detail), shared by ``nos up`` and
``nos status`` (and the REST status route). Ready = every check passes. A failing check with
``waiting`` set fails only because work is still in flight (the switch is converging); any other
failure means something is wrong (degraded). The checks of what the ASIC holds are in ``convergence``,
those of the processes in ``liveness``.

The API checks talk to the servers themselves: REST answers ``/api/v1/health`` (over https when the
switch runs TLS: the supervisor checks its own child, so the certificate is not verified; under mutual
TLS the server's own certificate is offered as the client's, and a listener that still wants another
client certificate counts as up, said so in the detail), and gNMI answers Capabilities on its local
socket ``<run dir>/gnmi.sock`` (UNAUTHENTICATED counts as answering: the checker has no credentials).
"""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

import redis

from nos.api.tls import TlsFiles
from nos.db import Table
from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.runtime.procs import pid_alive
from nos.runtime.rundir import RunDir
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    APP_PORT_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
    PORT_CONFIG_DONE_KEY,
    STATE_NOS_DAEMON_TABLE_NAME,
)

HEARTBEAT_STALE_S = 5.0


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    waiting: bool = False  # failing only because work is in flight


def check_redis(dbs: Databases) -> Check:
    try:
        dbs[STATE_DB].ping()
    except DbError as exc:
        return Check("redis", False, str(exc))
    return Check("redis", True, dbs.url)


def daemon_rows(dbs: Databases) -> dict[str, dict[str, str]]:
    return Table(dbs[STATE_DB], STATE_NOS_DAEMON_TABLE_NAME).get_all()


def check_daemon(dbs: Databases, name: str, rows: dict[str, dict[str, str]] | None = None) -> Check:
    row = (rows if rows is not None else daemon_rows(dbs)).get(name)
    if not row:
        return Check(f"daemon {name}", False, "not started")
    age = time.time() - float(row.get("heartbeat", "0"))
    ok = row.get("status") == "running" and age < HEARTBEAT_STALE_S
    detail = f"pid {row.get('pid')} {row.get('status')}, heartbeat {age:.1f}s ago"
    if row.get("restarts", "0") != "0":
        detail += f", restarted {row['restarts']}x"
    return Check(f"daemon {name}", ok, detail)


def check_port_config_done(dbs: Databases) -> Check:
    """APPL_DB PORT_TABLE:PortConfigDone is written (or still queued): cfgmgrd copied CONFIG_DB's ports.
    Its count is the ports CONFIG_DB had when cfgmgrd started (portsyncd's), so it is shown, not held
    to today's port count: a breakout changes that count and PortConfigDone stays as it was, as on
    SONiC. Whether each port made it to the ASIC is the "asic ports" check."""
    appl = dbs[APPL_DB].client
    sep = dbs[APPL_DB].separator
    configured = len(Table(dbs[CONFIG_DB], CFG_PORT_TABLE_NAME).keys())
    done = cast(dict[str, str], appl.hgetall(f"{APP_PORT_TABLE_NAME}{sep}{PORT_CONFIG_DONE_KEY}") or appl.hgetall(
        f"_{APP_PORT_TABLE_NAME}{sep}{PORT_CONFIG_DONE_KEY}"))
    if not done:
        return Check("ports", False, f"{configured} configured, PortConfigDone not yet written", waiting=True)
    return Check("ports", True, f"{configured} configured; PortConfigDone ({done.get('count', '?')} ports "
                                f"when cfgmgrd started)")


def check_redis_tcp(url: str, password_file: Path, timeout: float = 1.0) -> Check:
    """The Redis TCP endpoint refuses a client without the password and serves one with it."""
    try:
        password = password_file.read_text().strip()
    except OSError as exc:
        return Check("redis tcp", False, f"{url}: cannot read {password_file}: {exc.strerror}")
    try:
        with redis.Redis.from_url(url, socket_timeout=timeout, protocol=2) as anonymous:
            try:
                anonymous.ping()
                return Check("redis tcp", False, f"{url} answers without a password")
            except redis.AuthenticationError:
                pass
        with redis.Redis.from_url(url, password=password, socket_timeout=timeout, protocol=2) as client:
            client.ping()
    except (redis.RedisError, OSError) as exc:
        return Check("redis tcp", False, f"{url}: {exc}")
    return Check("redis tcp", True, f"{url} password required (in {password_file})")


def _https_context(tls: TlsFiles | None) -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # our own child: its certificate may come from a CA we are not given
    if tls is not None and tls.mutual:
        context.load_cert_chain(str(tls.cert), str(tls.key))
    return context


def check_http(name: str, url: str, timeout: float = 1.0, tls: TlsFiles | None = None) -> Check:
    context = _https_context(tls) if url.startswith("https:") else None
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=context) as reply:
            body = json.loads(reply.read() or b"{}")
            return Check(name, reply.status == 200, f"{url} {body.get('status', reply.status)}")
    except (OSError, ValueError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        # a server certificate limited to serverAuth (the usual EKU) is refused as our client certificate:
        # an alert in the handshake (SSLError) or, with TLS 1.3, a connection closed after it
        if tls is not None and tls.mutual and isinstance(reason, ssl.SSLError | ConnectionResetError):
            return Check(name, True, f"{url} TLS listener up; health not read (mutual TLS wants a client "
                                     f"certificate signed by {tls.ca})")
        return Check(name, False, f"{url}: {exc}")


def check_gnmi(run: RunDir, pid: int | None = None, timeout: float = 1.0) -> Check:
    """The gNMI server of ``run`` answers Capabilities (``pid``: the process expected to serve)."""
    status = run.gnmi_status() or {}
    served_by = int(status.get("pid") or 0)
    if served_by <= 0 or (pid is not None and served_by != pid) or not pid_alive(served_by):
        return Check("gnmi", False, "not listening yet")
    where = f"{status.get('address')} ({status.get('mode')})"
    target = status.get("unix") or (f"127.0.0.1:{status.get('port')}" if status.get("mode") == "plain" else None)
    if target is None:
        return Check("gnmi", True, f"{where} listening; Capabilities not checked (no local socket)")
    from nos.api.gnmi.probe import capabilities  # grpc loads only where gNMI is checked

    ok, detail = capabilities(str(target), timeout)
    return Check("gnmi", ok, f"{where} {detail}")


def check_gnmi_at(address: str, timeout: float = 1.0) -> Check:
    """A gNMI server that is not this host's process (an attached switch's, published by docker) answers
    Capabilities at ``address`` (plaintext ``host:port``; a TLS listener counts as down here)."""
    from nos.api.gnmi.probe import capabilities  # grpc loads only where gNMI is checked

    ok, detail = capabilities(address, timeout)
    return Check("gnmi", ok, f"{address} {detail}")


def all_ok(checks: list[Check]) -> bool:
    return bool(checks) and all(c.ok for c in checks)


def as_dicts(checks: list[Check]) -> list[dict[str, object]]:
    return [asdict(c) for c in checks]
