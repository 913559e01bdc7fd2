"""``/api/v1/health`` (the process answers; never needs credentials) and ``/api/v1/status`` (readiness of
the switch as its databases show it, the checks ``nos status`` makes)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from nos.api import metrics
from nos.api.rest import models
from nos.api.rest.context import ApiContext
from nos.runtime import readiness


def health_router() -> APIRouter:
    api = APIRouter(prefix="/api/v1", tags=["system"])

    @api.get("/health", response_model=models.Health)
    async def health() -> Any:
        """The API process answers (no database access, no credentials)."""
        return {"status": "ok"}

    return api


def status_router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(prefix="/api/v1", tags=["system"])

    @api.get("/status", response_model=models.Status)
    def status() -> Any:
        """Readiness: Redis, each daemon's heartbeat, ports announced and created in the ASIC."""
        checks = [readiness.check_redis(ctx.dbs)]
        if checks[0].ok:
            rows = readiness.daemon_rows(ctx.dbs)
            checks += [readiness.check_daemon(ctx.dbs, d, rows) for d in ctx.daemons]
            checks.append(readiness.check_port_config_done(ctx.dbs))
            checks.append(readiness.check_ports_created(ctx.dbs))
        return {"ready": readiness.all_ok(checks), "checks": readiness.as_dicts(checks)}

    return api


def metrics_router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(tags=["system"])

    @api.get("/metrics", response_class=Response,
             responses={200: {"content": {metrics.CONTENT_TYPE: {}}, "description": "Prometheus text format"}})
    def prometheus() -> Response:
        """Counters and interface state in Prometheus' text format, with sonic-exporter's ``sonic_*`` names."""
        return Response(content=metrics.render(ctx.dbs), media_type=metrics.CONTENT_TYPE)

    return api


__all__ = ["health_router", "metrics_router", "status_router"]
