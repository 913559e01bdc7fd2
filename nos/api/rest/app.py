"""The REST application (FastAPI, OpenAPI at /docs), under ``/api/v1/``.

So far: health, the switch's readiness checks, and read-only CONFIG_DB tables and rows.
Writes, state and counters, intents and operations are added by the management-plane issue.
Routes are plain ``def`` so FastAPI runs the blocking Redis calls in its threadpool.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, HTTPException

from nos import __version__
from nos.db import ConfigDBConnector
from nos.db.connector import Databases
from nos.runtime import readiness
from nos.schema.dbconfig import CONFIG_DB


def create_app(dbs: Databases, daemons: tuple[str, ...] = ()) -> FastAPI:
    app = FastAPI(title="nos switch API", version=__version__, docs_url="/docs")
    cdb = ConfigDBConnector(dbs[CONFIG_DB])

    @app.get("/api/v1/health")
    def health() -> dict[str, str]:
        """The API process answers."""
        return {"status": "ok"}

    @app.get("/api/v1/status")
    def status() -> dict[str, Any]:
        """Readiness of the switch as seen from its databases."""
        checks = [readiness.check_redis(dbs)]
        if checks[0].ok:
            rows = readiness.daemon_rows(dbs)
            checks += [readiness.check_daemon(dbs, d, rows) for d in daemons]
            checks.append(readiness.check_port_config_done(dbs))
            checks.append(readiness.check_ports_created(dbs))
        return {"ready": readiness.all_ok(checks), "checks": readiness.as_dicts(checks)}

    @app.get("/api/v1/config/{table}")
    def config_table(table: str) -> dict[str, Any]:
        """Every row of one CONFIG_DB table, as in config_db.json."""
        rows = cdb.get_table(table)
        if not rows:
            raise HTTPException(404, detail={"error-tag": "invalid-value", "error-path": f"/{table}",
                                             "error-message": f"table {table} has no rows"})
        return rows

    @app.get("/api/v1/config/{table}/{key:path}")
    def config_row(table: str, key: str) -> dict[str, Any]:
        """One CONFIG_DB row; multi-part keys use '|' (URL-encoded as %7C)."""
        if key not in cdb.get_keys(table):
            raise HTTPException(404, detail={"error-tag": "invalid-value", "error-path": f"/{table}/{key}",
                                             "error-message": f"{table}|{key} does not exist"})
        return cdb.get_entry(table, key)

    return app
