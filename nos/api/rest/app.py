"""The REST application factory: ``/api/v1/`` with OpenAPI at ``/docs``.

Routers, one module per resource family (``routes/``): system (health, status), config (CONFIG_DB
CRUD and JSON Patch), state, counters, operations and jobs. Every router but health runs the
authentication dependency (``security``); every failure is a RESTCONF error body (``errors``).
Routes that touch Redis are plain ``def`` so FastAPI runs the blocking calls in its threadpool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI

from nos import __version__
from nos.api.auth import Authenticator
from nos.api.rest import errors
from nos.api.rest.context import ApiContext
from nos.api.rest.routes import config, counters, intents, operations, state, system, traffic
from nos.api.rest.security import authenticator_dependency
from nos.db.connector import Databases

DESCRIPTION = """SONiC-style switch API. CONFIG_DB under `config/` (writes are validated whole and applied
atomically; `?dry_run=true` answers with the JSON Patch), state and counters with SONiC's names, long
operations as jobs. Errors are RESTCONF `ietf-restconf:errors` bodies."""


def create_app(dbs: Databases, daemons: tuple[str, ...] = (), *, run_dir: Path | None = None,
               auth: Authenticator | None = None) -> FastAPI:
    """The application for the switch whose databases are ``dbs``; ``daemons`` are the heartbeats the
    status checks, ``run_dir`` holds the saved config and checkpoints, ``auth`` the credentials (None: open)."""
    ctx = ApiContext(dbs, run_dir, daemons, auth)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        ctx.close()

    app = FastAPI(title="nos switch API", version=__version__, description=DESCRIPTION, docs_url="/docs",
                  lifespan=lifespan)
    app.state.ctx = ctx
    errors.install(app)
    guarded = [Depends(authenticator_dependency(auth))]
    app.include_router(system.health_router())
    # Paths are matched in registration order and the prefixes do not overlap: what monitoring polls
    # (counters) and writes come before the rest, so their requests are matched soonest.
    for module in (counters, config):
        app.include_router(module.router(ctx), dependencies=guarded)
    app.include_router(system.status_router(ctx), dependencies=guarded)
    app.include_router(system.metrics_router(ctx), dependencies=guarded)
    for module in (state, operations, intents, traffic):
        app.include_router(module.router(ctx), dependencies=guarded)
    return app


__all__ = ["create_app"]
