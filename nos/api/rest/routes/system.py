"""``/api/v1/health`` (the process answers; never needs credentials) and ``/api/v1/status`` (readiness of
the switch as its databases show it, the checks ``nos status`` makes)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from nos.api import metrics
from nos.api.rest import models
from nos.api.rest.context import ApiContext
from nos.runtime import readiness
from nos.runtime import status as switch_status
from nos.runtime.rundir import RunDir


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
        """Readiness, the checks ``nos status`` makes but the API servers' own: Redis, each daemon alive
        with a fresh heartbeat, nothing waiting in the pipeline, the ASIC's ports and routes as APPL_DB
        asks (state ``ready``, ``converging`` or ``degraded``)."""
        supervisor = RunDir(ctx.run_dir).supervisor_pid() if ctx.run_dir is not None else None
        daemons = list(ctx.daemons)
        report = switch_status.gather_twice(ctx.dbs, supervisor, daemons, {}, daemons)
        return {"ready": report.state == "ready", "state": report.state,
                "checks": readiness.as_dicts(report.checks)}

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
