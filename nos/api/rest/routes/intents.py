"""``/api/v1/intents/roce``: the RoCE intent (CONFIG_DB ``ROCE|global``) and its lossless check.

``PUT`` replaces the intent row with the body's fields (``{"profile": "nvidia", "cable_length": "5m"}``;
numbers and booleans become strings; ``{}`` is the profile's defaults) and ``DELETE`` removes it; each
is ONE transaction that also applies the expansion (``nos.intent.roce.plan``), so the answer comes after
the buffer, QoS, PFC and watchdog tables are rewritten, or after a refusal that changed nothing and names
table, key and field. ``?dry_run=true`` answers with the expanded change as a JSON Patch. ``GET`` answers
the row, its resolution over the profile and whether CONFIG_DB matches it; ``GET .../check`` the
lossless check (``?profile=`` checks against a profile's defaults instead of the switch's intent).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Query
from starlette.concurrency import run_in_threadpool

from nos.api.rest import models
from nos.api.rest.context import ApiContext
from nos.api.rest.errors import ERROR_RESPONSES, ApiError
from nos.api.rest.responses import json_response
from nos.api.rest.routes.config import JSON, DryRun, content_type, row_in, run_write
from nos.api.rest.wait_param import WAIT, until_applied
from nos.config.errors import ConfigValidationError
from nos.db.configdb import Config, Row
from nos.intent.roce import IntentError, plan
from nos.intent.roce.read import read_inputs
from nos.intent.roce.status import check_report, intent_report
from nos.schema.config.roce import CFG_ROCE_TABLE_NAME, ROCE_KEY

PATH = f"/{CFG_ROCE_TABLE_NAME}/{ROCE_KEY}"
Wait = Annotated[Literal["accepted", "applied"], Query(description=WAIT.description)]


def expanded(current: Config, row: Row | None) -> Config:
    """``current`` with ``ROCE|global`` set to ``row`` (None: removed), the intent's plan applied."""
    edited = {name: rows for name, rows in current.items() if name != CFG_ROCE_TABLE_NAME}
    if row is not None:
        edited[CFG_ROCE_TABLE_NAME] = {ROCE_KEY: row}
    try:
        return plan(edited)
    except IntentError as exc:
        raise ConfigValidationError(exc.errors) from None


def router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(prefix="/api/v1/intents/roce", tags=["intents"], responses=ERROR_RESPONSES)

    @api.get("")
    def get_roce() -> Any:
        """The intent row, its resolution over its profile, and whether CONFIG_DB is its expansion."""
        return json_response(intent_report(ctx.cdb.get_config()))

    @api.put("", response_model=models.WriteResult, dependencies=[Depends(content_type(*JSON))])
    async def put_roce(row: Annotated[models.RowIn, Body()], dry_run: DryRun = False, wait: Wait = "accepted") -> Any:
        """Set the intent (the row is replaced by the body) and apply its expansion, all or nothing."""
        fields = row_in(CFG_ROCE_TABLE_NAME, ROCE_KEY, row) if row else {}
        return await answered(lambda current: expanded(current, fields), dry_run, wait)

    @api.delete("", response_model=models.WriteResult)
    async def delete_roce(dry_run: DryRun = False, wait: Wait = "accepted") -> Any:
        """Remove the intent: every row it changed goes back to what it was."""

        def build(current: Config) -> Config:
            if ROCE_KEY not in current.get(CFG_ROCE_TABLE_NAME, {}):
                raise ApiError(404, f"{CFG_ROCE_TABLE_NAME}|{ROCE_KEY} does not exist", path=PATH)
            return expanded(current, None)

        return await answered(build, dry_run, wait)

    async def answered(build: Callable[[Config], Config], dry_run: bool, wait: str) -> Any:
        body = await run_in_threadpool(run_write, ctx, build, dry_run)
        if wait == "applied":
            await until_applied(ctx.dbs, body)
        return body

    @api.get("/check")
    def check_roce(profile: Annotated[Literal["nvidia", "sonic"] | None, Query(
            description="check against this profile's defaults instead of the switch's intent")] = None) -> Any:
        """The lossless check: for every port and RoCE priority, each inconsistency with its fix."""
        config, appl = read_inputs(ctx.dbs, ctx.cdb)
        return json_response(check_report(config, appl, profile))

    return api


__all__ = ["router"]
