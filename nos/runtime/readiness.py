"""Is the switch ready? Small checks, each answering (name, ok, detail), shared by ``nos up`` and
``nos status`` (and the REST status route). Ready = every check passes.

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

from nos.api.tls import TlsFiles
from nos.daemon.reporting import rejected_key
from nos.db import Table
from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.runtime.procs import pid_alive
from nos.runtime.rundir import RunDir
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, COUNTERS_DB, STATE_DB
from nos.schema.tables import (
    APP_PORT_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
    COUNTERS_PORT_NAME_MAP,
    PORT_CONFIG_DONE_KEY,
    PORT_INIT_DONE_KEY,
    STATE_NOS_DAEMON_TABLE_NAME,
    STATE_NOS_REJECTED_TABLE_NAME,
)

HEARTBEAT_STALE_S = 5.0


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


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
    """APPL_DB PORT_TABLE:PortConfigDone (or still pending in its state hash) with the right count."""
    appl = dbs[APPL_DB].client
    sep = dbs[APPL_DB].separator
    configured = len(Table(dbs[CONFIG_DB], CFG_PORT_TABLE_NAME).keys())
    done = appl.hgetall(f"{APP_PORT_TABLE_NAME}{sep}{PORT_CONFIG_DONE_KEY}") or appl.hgetall(
        f"_{APP_PORT_TABLE_NAME}{sep}{PORT_CONFIG_DONE_KEY}")
    if not done:
        return Check("ports", False, f"{configured} configured, PortConfigDone not yet written")
    count = int(done.get("count", "-1"))
    return Check("ports", count == configured, f"{count} of {configured} ports announced (PortConfigDone)")


def check_ports_created(dbs: Databases) -> Check:
    """Every CONFIG_DB port exists in the ASIC (orchagent published it in COUNTERS_PORT_NAME_MAP)
    and PortInitDone was written (every port's netdev exists)."""
    configured = set(Table(dbs[CONFIG_DB], CFG_PORT_TABLE_NAME).keys())
    created = set(dbs[COUNTERS_DB].client.hkeys(COUNTERS_PORT_NAME_MAP))
    appl = dbs[APPL_DB]
    init_done = any(appl.client.exists(f"{prefix}{APP_PORT_TABLE_NAME}{appl.separator}{PORT_INIT_DONE_KEY}")
                    for prefix in ("", "_"))
    prefix = rejected_key(APPL_DB, APP_PORT_TABLE_NAME, "")
    refused = {k[len(prefix):] for k in Table(dbs[STATE_DB], STATE_NOS_REJECTED_TABLE_NAME).keys()
               if k.startswith(prefix)}
    missing = configured - created
    ok = missing <= refused and init_done
    detail = f"{len(configured & created)} of {len(configured)} ports in the ASIC"
    if missing & refused:
        detail += f", {len(missing & refused)} refused (nos redis-cli -n 6 keys 'NOS_REJECTED_TABLE|*')"
    detail += ", PortInitDone" if init_done else ", PortInitDone not yet written"
    return Check("asic ports", ok, detail)


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


def all_ok(checks: list[Check]) -> bool:
    return bool(checks) and all(c.ok for c in checks)


def as_dicts(checks: list[Check]) -> list[dict[str, object]]:
    return [asdict(c) for c in checks]
