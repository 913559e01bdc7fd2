"""The REST application factory: ``/api/v1/`` with OpenAPI at ``/docs``.

Routers, one module per resource family (``routes/``): system (health, status), config (CONFIG_DB
CRUD and JSON Patch), state, counters, operations and jobs. Every request but health and the docs
passes the authentication middleware (``security.Guard``), then the body limits (``limits``); a GET
of a kept body (all ports' counters) is then answered by ``hot_reads`` without the routing; every
failure is a RESTCONF error body (``errors``).
Routes that touch Redis are plain ``def`` so FastAPI runs the blocking calls in its threadpool.

Routes are added to the application itself (``add_routes``), not with ``include_router``: FastAPI keeps
an included router nested and walks it twice per request (to match, then to handle), level by level,
which cost ~50 us of the ~540 us a one-row PATCH takes in the application.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.params import Depends as DependsParam
from fastapi.routing import APIRoute, APIRouter

from nos import __version__
from nos.api.auth import Authenticator
from nos.api.rest import errors, write_params
from nos.api.rest.context import ApiContext
from nos.api.rest.hot_reads import HotReads
from nos.api.rest.in_flight import InFlight
from nos.api.rest.limits import BodyLimits, LimitBodies
from nos.api.rest.routes import config, counters, intents, operations, state, system, traffic
from nos.api.rest.security import Guard
from nos.db.connector import Databases

DESCRIPTION = """SONiC-style switch API. CONFIG_DB under `config/` (writes are validated whole and applied
atomically; `?dry_run=true` answers with the JSON Patch), state and counters with SONiC's names, long
operations as jobs. Errors are RESTCONF `ietf-restconf:errors` bodies."""


# FastAPI's built-in OpenTelemetry (releases that have it): off. The switch configures no exporter, and
# with it on every request asks the global providers whether one was set since (~2% of a one-row PATCH).
TELEMETRY_OFF: dict[str, Any] = (
    {"telemetry": {"tracing": False, "metrics": False, "logs": False}}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters else {})


def create_app(dbs: Databases, daemons: tuple[str, ...] = (), *, run_dir: Path | None = None,
               auth: Authenticator | None = None, config_dir: Path | None = None,
               limits: BodyLimits | None = None) -> FastAPI:
    """The application for the switch whose databases are ``dbs``; ``daemons`` are the heartbeats the
    status checks, ``run_dir`` holds the saved config and checkpoints, ``auth`` the credentials (None: open),
    ``config_dir`` is where config-save and config-reload may name files (None: the run directory),
    ``limits`` the largest and deepest request body read (``nos.api.rest.limits``; None: the defaults)."""
    ctx = ApiContext(dbs, run_dir, daemons, auth, config_dir)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        ctx.close()

    app = FastAPI(title="nos switch API", version=__version__, description=DESCRIPTION, docs_url="/docs",
                  lifespan=lifespan, **TELEMETRY_OFF)
    app.state.ctx = ctx
    errors.install(app)
    app.add_middleware(HotReads, reads=ctx.kept_reads)  # innermost: kept bodies (what monitoring polls)
    app.add_middleware(LimitBodies, limits=limits)  # inside Guard: body size (413) and JSON nesting (400)
    app.add_middleware(Guard, auth=auth)  # every request but health and the docs: credentials and role
    app.add_middleware(InFlight, active=ctx.active)  # outermost: the requests being served
    add_routes(app, [system.health_router()])
    # Paths are matched in registration order (after FastAPI's own /docs and /openapi.json) and the
    # prefixes do not overlap: writes (config.routers puts them first) and what monitoring polls
    # (counters) come before the rest, so their requests are matched soonest.
    add_routes(app, [*config.routers(ctx), counters.router(ctx), system.status_router(ctx),
                     system.metrics_router(ctx), state.router(ctx), *operations.routers(ctx), intents.router(ctx),
                     traffic.router(ctx)])
    add_components(app, write_params.components(*config.BODIES))
    return app


def add_components(app: FastAPI, schemas: dict[str, Any]) -> None:
    """Component schemas for the OpenAPI document that no declared parameter brings in (the bodies the
    write routes read themselves, ``write_params``)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = generate()
            found = spec.setdefault("components", {}).setdefault("schemas", {})
            for name, schema in schemas.items():
                found.setdefault(name, schema)
        return app.openapi_schema or generate()

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend the document


def add_routes(app: FastAPI, routers: Sequence[APIRouter], dependencies: Sequence[DependsParam] = ()) -> None:
    """Every route of ``routers`` added to ``app`` itself, after ``dependencies`` (what ``include_router``
    gives, without the nesting: see the module docstring). The routers' own prefixes, tags, responses
    and dependencies are already in their routes; a router holding anything but plain routes is refused."""
    for router in routers:
        for route in router.routes:
            if not isinstance(route, APIRoute):
                raise TypeError(f"add_routes: {route!r} is not an APIRoute (include nested routers' routes directly)")
            app.router.add_api_route(
                route.path, route.endpoint, response_model=route.response_model, status_code=route.status_code,
                tags=route.tags, dependencies=[*dependencies, *route.dependencies], summary=route.summary,
                description=route.description, response_description=route.response_description,
                responses=route.responses, deprecated=route.deprecated, methods=route.methods,
                operation_id=route.operation_id, include_in_schema=route.include_in_schema,
                response_class=route.response_class, name=route.name, callbacks=route.callbacks,
                openapi_extra=route.openapi_extra, generate_unique_id_function=route.generate_unique_id_function)


__all__ = ["add_routes", "create_app"]
