"""``/api/v1/config``: CONFIG_DB as config_db.json, read and written row by row or with an RFC 6902 patch.

Every write is one ``nos.config.transaction`` commit: the whole resulting configuration is validated
and applied atomically, or nothing changes and the error names the table, key and field. ``?dry_run=true``
answers with the row-level JSON Patch the write would apply, and changes nothing. Keys with several
parts use ``|`` (``Vlan100|Ethernet0``, URL-encoded as ``%7C`` if need be); a key may contain ``/``
(``Ethernet0|10.0.0.0/31``), in the URL as is or as ``%2F``. In a JSON Patch path it is ``~1``.
The switch's own tables (``NOS_*``, ``nos.api.internal``) are read here like any other but never
written: a write that names one, or would change one, is refused with 403 naming the table.
Table names are case-exact (``nos.schema.tables.table_name_problem``): ``/config/port/Ethernet0`` is a
row of a table ``port`` (kept, reported in ``not_acted_on``), never of ``PORT``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from nos.api import internal
from nos.api.rest import models, write_params
from nos.api.rest.context import ApiContext
from nos.api.rest.errors import ACCESS_DENIED, ERROR_RESPONSES, RESOURCE_DENIED, ApiError, escape
from nos.api.rest.responses import json_response
from nos.api.rest.wait_param import WAIT, until_applied
from nos.api.rest.write_params import Body, Flag, check_media_type
from nos.config.transaction import JsonPatch, PatchError, Rows, TxResult, commit, normalise
from nos.db import Table
from nos.db.configdb import Config, Row, raw_to_typed
from nos.schema.tables import table_name_problem

JSON = ("application/json",)
JSON_PATCH = ("application/json-patch+json", "application/json")

DryRun = Annotated[bool, Query(description="plan only: answer with the JSON Patch, change nothing")]
DRY_RUN = Flag("dry_run", "plan only: answer with the JSON Patch, change nothing")
ROW_BODY = Body(models.RowIn, JSON, "Row")
PATCH_BODY = Body(list[models.PatchOperation], JSON_PATCH, "Operations")
Build = Callable[[Config], Config]
INLINE_ROWS = 16  # a write naming at most this many rows runs on the event loop (see ``write``)
ROUTER: dict[str, Any] = {"prefix": "/api/v1/config", "tags": ["config"], "responses": ERROR_RESPONSES}


def content_type(*allowed: str) -> Callable[[Request], Awaitable[None]]:
    """A dependency refusing a body of another media type with 415."""

    async def check(request: Request) -> None:  # async: a plain def dependency would cost a threadpool hop
        check_media_type(request, allowed)

    return check


# ---- pure helpers ---------------------------------------------------------------------------------

def check_table(table: str) -> None:
    """A table a write route names: a name that can be a table (``table_name_problem``; used as given:
    ``port`` is a table of its own, kept and reported as not acted on, never ``PORT``), and not one of the
    switch's own (``nos.api.internal``)."""
    if (problem := table_name_problem(table)) is not None:
        raise ApiError(400, f"table name '{table}': {problem}", path=f"/{escape(table)}")
    if internal.is_internal(table):
        raise internal_refused(table)


def internal_refused(table: str) -> ApiError:
    return ApiError(403, internal.refusal(table), path=row_path(table), tag=ACCESS_DENIED)


def check_key(table: str, key: str) -> None:
    if not key:
        raise ApiError(400, f"{table}: the row key is empty", path=f"/{escape(table)}/")


def row_target(request: Request) -> tuple[str, str]:
    """The checked ``{table}`` and ``{key}`` of a row route's path."""
    table, key = request.path_params["table"], request.path_params["key"]
    check_table(table)
    check_key(table, key)
    return table, key


def row_in(table: str, key: str, row: models.RowIn) -> Row:
    """A request row as config_db.json would hold it (numbers and booleans as strings)."""
    return normalise({table: {key: dict(row)}}, "body")[table][key]


def row_path(table: str, key: str | None = None) -> str:
    return f"/{escape(table)}" + (f"/{escape(key)}" if key is not None else "")


def put_row(table: str, key: str, row: Row) -> Build:
    return lambda current: {**current, table: {**current.get(table, {}), key: row}}


def post_row(table: str, key: str, row: Row) -> Build:
    def build(current: Config) -> Config:
        if key in current.get(table, {}):
            raise ApiError(409, f"{table}|{key} already exists (PUT replaces it, PATCH changes fields)",
                           path=row_path(table, key), tag=RESOURCE_DENIED)
        return put_row(table, key, row)(current)

    return build


def delete_row(table: str, key: str) -> Build:
    def build(current: Config) -> Config:
        rows = dict(current.get(table, {}))
        if rows.pop(key, None) is None:
            raise ApiError(404, f"{table}|{key} does not exist", path=row_path(table, key))
        return {**current, table: rows}

    return build


def delete_table(table: str) -> Build:
    def build(current: Config) -> Config:
        if not current.get(table):
            raise ApiError(404, f"table {table} has no rows", path=row_path(table))
        return {name: rows for name, rows in current.items() if name != table}

    return build


def _first_token(pointer: str) -> str:
    return pointer[1:].split("/", 1)[0].replace("~1", "/").replace("~0", "~")


def check_patch_tables(operations: Sequence[dict[str, Any]]) -> None:
    """Every table a patch names (its paths' first tokens, or a new document's keys) is a table name."""
    for index, operation in enumerate(operations):
        names: list[str] = []
        for member in ("path", "from"):
            pointer = operation.get(member)
            if isinstance(pointer, str) and pointer.startswith("/"):
                names.append(_first_token(pointer))
        if operation.get("path") == "" and isinstance(operation.get("value"), dict):
            names += [str(name) for name in operation["value"]]
        for name in names:
            if (problem := table_name_problem(name)) is not None:
                raise PatchError(index, str(operation.get("op")), str(operation.get("path")),
                                 f"table name '{name}': {problem}")


def rebase(operations: Sequence[models.PatchOperation], prefix: str) -> list[dict[str, Any]]:
    """Operations on a table or row, their paths made absolute (``/mtu`` on ``/PORT/Ethernet0``)."""
    out = []
    for index, operation in enumerate(operations):
        raw: dict[str, Any] = dict(operation)
        for member in ("path", "from"):
            pointer = raw.get(member)
            if isinstance(pointer, str):
                if pointer and not pointer.startswith("/"):
                    raise PatchError(index, raw["op"], pointer,
                                     f"'{member}' must be a JSON pointer relative to {prefix}, such as /mtu")
                raw[member] = prefix + pointer
        out.append(raw)
    return out


def write_body(tx: TxResult, before: Config, dry_run: bool) -> dict[str, Any]:
    """``models.WriteResult`` as JSON (built directly: validating the model again costs more than the write)."""
    return {"applied": tx.applied, "dry_run": dry_run, "generation": tx.generation, "changes": len(tx.changes),
            "patch": tx.as_patch(before), "warnings": tx.warnings, "not_acted_on": tx.not_acted_on,
            "unknown_fields": [{"table": t, "key": k, "field": f} for t, k, f in tx.unknown_fields]}


def run_write(ctx: ApiContext, build: Build, dry_run: bool, rows: Rows | None = None) -> dict[str, Any]:
    """One transaction (serialised with this server's other writes); raises what ``commit`` raises.
    ``rows``: the only rows ``build`` changes, when known (``commit``)."""
    with ctx.write_lock:
        return _write_locked(ctx, build, dry_run, rows)


def _write_locked(ctx: ApiContext, build: Build, dry_run: bool, rows: Rows | None) -> dict[str, Any]:
    seen: list[Config] = []

    def planned(current: Config) -> Config:
        seen[:] = [current]
        return build(current)

    # every builder here leaves ``current`` alone (they copy what they change): nothing to copy for them
    tx = commit(ctx.cdb, planned, dry_run=dry_run, tables=(), rows=rows)
    return write_body(tx, seen[0] if seen else {}, dry_run)


async def write(ctx: ApiContext, build: Build, dry_run: bool, rows: Rows | None, *, status: int = 200,
                wait: bool = False) -> Response:
    """``run_write`` answered as JSON. A small write (at most ``INLINE_ROWS`` rows named in ``rows``:
    well under a millisecond of work) runs on the event loop when it is the only request in flight and
    the write lock is free, saving two thread hops; otherwise it runs in the threadpool, never holding
    the loop while Redis answers (``nos.api.rest.in_flight``), and there waits for the lock if a job or
    another write holds it. After the answer is sent, the server's CONFIG_DB cache reads
    the events of this write (``catch_up``) while the client reads the answer, not in the next write.
    A write that would change one of the switch's own tables (``NOS_*``) is refused (403) whole. ``wait``:
    answer once the change has reached the ASIC (``?wait=applied``, ``nos.api.rest.wait_param``)."""
    build = internal.guarded(build, internal_refused)  # a raw write never changes a NOS_* table
    if small(rows) and ctx.active.alone() and ctx.write_lock.acquire(blocking=False):
        try:
            body = _write_locked(ctx, build, dry_run, rows)
        finally:
            ctx.write_lock.release()
    else:
        body = await run_in_threadpool(run_write, ctx, build, dry_run, rows)
    if wait:
        await until_applied(ctx.dbs, body)
    return json_response(body, status, background=BackgroundTask(catch_up, ctx))


async def catch_up(ctx: ApiContext) -> None:
    """Read the cache's pending events on the loop (a poll and a read: no waiting), unless a write
    holds the lock (it reads them itself)."""
    if ctx.write_lock.acquire(blocking=False):
        try:
            ctx.cdb.catch_up()
        finally:
            ctx.write_lock.release()


def small(rows: Rows | None) -> bool:
    """Whether ``rows`` names at most ``INLINE_ROWS`` rows and never a whole table or the root."""
    if rows is None or any(keys is None for keys in rows.values()):
        return False
    return sum(len(keys or ()) for keys in rows.values()) <= INLINE_ROWS


# ---- routes ---------------------------------------------------------------------------------------

def routers(ctx: ApiContext) -> list[APIRouter]:
    return [patch_router(ctx), write_router(ctx), read_router(ctx)]  # writes first: matched soonest


def read_router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(**ROUTER)

    @api.get("", response_model=models.Config)
    def get_config() -> Any:
        """The whole of CONFIG_DB, as config_db.json."""
        return json_response(ctx.cdb.get_config())

    @api.get("/{table}", response_model=models.Table)
    def get_table(table: str) -> Any:
        """Every row of one table."""
        rows = ctx.cdb.get_table(table)
        if not rows:
            raise ApiError(404, f"table {table} has no rows", path=row_path(table))
        return json_response(rows)

    @api.get("/{table}/{key:path}", response_model=models.Row)
    def get_row(table: str, key: str) -> Any:
        """One row; multi-part keys use '|'."""
        raw = Table(ctx.cdb.db, table).read(key) if key else None  # a key not a row: 409
        if raw is None:
            raise ApiError(404, f"{table}|{key} does not exist", path=row_path(table, key))
        return json_response(raw_to_typed(raw))

    return api


def write_router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(**ROUTER)
    row_extra = write_params.operation(("table", "key"), (DRY_RUN, WAIT), ROW_BODY)

    @api.put("/{table}/{key:path}", response_model=models.WriteResult, openapi_extra=row_extra)
    async def put(request: Request) -> Any:
        """Create or replace a row (fields it lacks are removed)."""
        table, key = row_target(request)
        row = row_in(table, key, await ROW_BODY.read(request))
        return await write(ctx, put_row(table, key, row), DRY_RUN.read(request), {table: {key}},
                           wait=WAIT.read(request))

    @api.post("/{table}/{key:path}", response_model=models.WriteResult, status_code=201, openapi_extra=row_extra)
    async def post(request: Request) -> Any:
        """Create a row; 409 (resource-denied) if it exists."""
        table, key = row_target(request)
        row = row_in(table, key, await ROW_BODY.read(request))
        return await write(ctx, post_row(table, key, row), DRY_RUN.read(request), {table: {key}}, status=201,
                           wait=WAIT.read(request))

    @api.delete("/{table}/{key:path}", response_model=models.WriteResult,
                openapi_extra=write_params.operation(("table", "key"), (DRY_RUN, WAIT)))
    async def delete(request: Request) -> Any:
        """Delete a row."""
        table, key = row_target(request)
        return await write(ctx, delete_row(table, key), DRY_RUN.read(request), {table: {key}},
                           wait=WAIT.read(request))

    @api.delete("/{table}", response_model=models.WriteResult,
                openapi_extra=write_params.operation(("table",), (DRY_RUN, WAIT)))
    async def delete_whole_table(request: Request) -> Any:
        """Delete every row of a table."""
        table = request.path_params["table"]
        check_table(table)
        return await write(ctx, delete_table(table), DRY_RUN.read(request), {table: None}, wait=WAIT.read(request))

    return api


def patch_router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(**ROUTER)

    async def patched(request: Request, prefix: str | None) -> Response:
        """The patch of the request (paths relative to ``prefix``, if given) as one transaction."""
        operations: list[models.PatchOperation] = await PATCH_BODY.read(request)
        if prefix is None:
            raw: list[dict[str, Any]] = operations  # type: ignore[assignment]  # validated: RFC 6902 JSON already
            check_patch_tables(raw)
            named = internal.named_in_patch(raw)
            if named is not None:
                raise internal_refused(named)
        else:
            raw = rebase(operations, prefix)
        patch = JsonPatch.of(raw)
        return await write(ctx, patch.apply, DRY_RUN.read(request), patch.rows, wait=WAIT.read(request))

    @api.patch("", response_model=models.WriteResult,
               openapi_extra=write_params.operation((), (DRY_RUN, WAIT), PATCH_BODY))
    async def patch(request: Request) -> Any:
        """An RFC 6902 JSON Patch on the whole configuration (``config apply-patch``), all or nothing."""
        return await patched(request, None)

    @api.patch("/{table}", response_model=models.WriteResult,
               openapi_extra=write_params.operation(("table",), (DRY_RUN, WAIT), PATCH_BODY))
    async def patch_table(request: Request) -> Any:
        """A JSON Patch with paths relative to the table (``/Ethernet0/mtu``)."""
        table = request.path_params["table"]
        check_table(table)
        return await patched(request, row_path(table))

    @api.patch("/{table}/{key:path}", response_model=models.WriteResult,
               openapi_extra=write_params.operation(("table", "key"), (DRY_RUN, WAIT), PATCH_BODY))
    async def patch_row(request: Request) -> Any:
        """A JSON Patch with paths relative to the row (``/mtu``)."""
        table, key = row_target(request)
        return await patched(request, row_path(table, key))

    return api


BODIES = (ROW_BODY, PATCH_BODY)  # for the OpenAPI document's components

__all__ = ["BODIES", "DRY_RUN", "check_patch_tables", "rebase", "routers", "run_write", "small", "write"]
