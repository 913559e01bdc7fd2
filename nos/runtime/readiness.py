"""Is the switch ready? Small checks, each answering (name, ok, detail), shared by ``nos up`` and
``nos status`` (and the REST status route). Ready = every check passes.
"""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import asdict, dataclass

from nos.daemon.reporting import rejected_key
from nos.db import Table
from nos.db.connector import Databases
from nos.db.errors import DbError
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


def check_http(name: str, url: str, timeout: float = 1.0) -> Check:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            body = json.loads(reply.read() or b"{}")
            return Check(name, reply.status == 200, f"{url} {body.get('status', reply.status)}")
    except (OSError, ValueError) as exc:
        return Check(name, False, f"{url}: {exc}")


def all_ok(checks: list[Check]) -> bool:
    return bool(checks) and all(c.ok for c in checks)


def as_dicts(checks: list[Check]) -> list[dict[str, object]]:
    return [asdict(c) for c in checks]
