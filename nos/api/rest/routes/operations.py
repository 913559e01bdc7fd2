"""``/api/v1/operations/<name>`` (config-save, config-reload, checkpoint, rollback, delete-checkpoint) as
jobs, ``/api/v1/jobs[/<id>]`` to follow them, ``/api/v1/checkpoints`` to list checkpoints.

What can be checked at once is (a missing file or checkpoint: 404; a bad checkpoint name or file name:
400; a file outside the configuration directory, or led out of it by a symbolic link: 403, see
``nos.api.rest.config_dir``, checked again just before the file is opened); the rest is reported by the
job, which fails with the same RESTCONF error entries a synchronous write would give.
Config reload and rollback take this server's write lock, so they never interleave with REST writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Response

from nos.api.rest import models
from nos.api.rest.config_dir import checkpoint_file
from nos.api.rest.context import ApiContext
from nos.api.rest.errors import ERROR_RESPONSES, ApiError
from nos.api.rest.jobs import Job, JobRun, Step
from nos.config import checkpoint
from nos.config.apply import readable_config, reload_config
from nos.config.files import read_config_file, write_config_file
from nos.config.transaction import TxResult

JOBS_PATH = "/api/v1/jobs"


def _rows(config: dict[str, dict[str, Any]]) -> int:
    return sum(len(rows) for rows in config.values())


def _file(ctx: ApiContext, given: str | None, default: Path | None, what: str) -> Path:
    """The file an operation reads or writes: ``given`` confined to the configuration directory
    (``nos.api.rest.config_dir``), or ``default`` (the run directory's config_db.json)."""
    if given is None:
        if default is None:
            raise ApiError(400, f"this server has no run directory (--run-dir): give the {what} as 'path'",
                           path="path")
        return default
    if ctx.files is None:
        raise ApiError(400, f"path '{given}': this server has no configuration directory (--config-dir or "
                       "--run-dir), so it reads and writes no files", path="path")
    return ctx.files.file(given)


def _recheck(ctx: ApiContext, path: Path) -> None:
    """Just before the file is opened: still where it was checked to be (no symbolic link swapped in)."""
    if ctx.files is not None and path != ctx.saved_config:
        ctx.files.file(str(path))


def _run_dir(ctx: ApiContext) -> Path:
    if ctx.run_dir is None:
        raise ApiError(400, "this server has no run directory (--run-dir), where checkpoints are kept")
    return ctx.run_dir


def _checkpoint(ctx: ApiContext, name: str) -> None:
    """A checkpoint name that is allowed (400) and whose file stays in the checkpoint directory (403)."""
    checkpoint_file(_run_dir(ctx), name)


def _existing_checkpoint(ctx: ApiContext, name: str) -> None:
    _checkpoint(ctx, name)
    if name not in {cp.name for cp in checkpoint.list_all(_run_dir(ctx))}:
        raise ApiError(404, f"no checkpoint '{name}' (see GET /api/v1/checkpoints)", path="name")


def save_steps(ctx: ApiContext, path: Path) -> list[Step]:
    def read(run: JobRun) -> None:
        run.values["config"] = readable_config(ctx.cdb, "config-save")  # all of it, or refused

    def write(run: JobRun) -> dict[str, Any]:
        _recheck(ctx, path)
        write_config_file(path, run.values["config"])
        return {"path": str(path), "rows": _rows(run.values["config"])}

    return [Step("read CONFIG_DB", read), Step(f"write {path}", write)]


def reload_steps(ctx: ApiContext, path: Path) -> list[Step]:
    def read(run: JobRun) -> None:
        _recheck(ctx, path)
        run.values["config"] = read_config_file(path)
        run.note(f"{path}: {_rows(run.values['config'])} rows")

    def apply(run: JobRun) -> dict[str, Any]:
        with ctx.write_lock:
            result = reload_config(ctx.cdb, run.values["config"])
        return {"path": str(path), "changes": result.changes, "rows": result.rows,
                "not_acted_on": result.not_acted_on, "warnings": result.warnings}

    return [Step(f"read {path}", read), Step("validate the whole configuration and apply it", apply)]


def checkpoint_steps(ctx: ApiContext, name: str) -> list[Step]:
    def create(_run: JobRun) -> dict[str, Any]:
        _checkpoint(ctx, name)
        made = checkpoint.create(ctx.cdb, _run_dir(ctx), name)
        return {"name": made.name, "path": str(made.path), "rows": made.rows}

    return [Step(f"save the running configuration as checkpoint '{name}'", create)]


def rollback_steps(ctx: ApiContext, name: str, dry_run: bool) -> list[Step]:
    def apply(_run: JobRun) -> dict[str, Any]:
        _checkpoint(ctx, name)
        with ctx.write_lock:
            before = ctx.cdb.get_config() if dry_run else {}
            tx: TxResult = checkpoint.rollback(ctx.cdb, _run_dir(ctx), name, dry_run=dry_run)
        result: dict[str, Any] = {"name": name, "applied": tx.applied, "dry_run": dry_run,
                                  "generation": tx.generation, "changes": len(tx.changes), "warnings": tx.warnings}
        if dry_run:
            result["patch"] = tx.as_patch(before)
        return result

    verb = "plan" if dry_run else "validate and apply"
    return [Step(f"{verb} checkpoint '{name}'", apply)]


def delete_steps(ctx: ApiContext, name: str) -> list[Step]:
    def delete(_run: JobRun) -> dict[str, Any]:
        _checkpoint(ctx, name)
        checkpoint.delete(_run_dir(ctx), name)
        return {"name": name, "deleted": True}

    return [Step(f"delete checkpoint '{name}'", delete)]


def routers(ctx: ApiContext) -> list[APIRouter]:
    return [operations_router(ctx), jobs_router(ctx)]


def operations_router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(prefix="/api/v1", tags=["operations"], responses=ERROR_RESPONSES)
    accepted: dict[int | str, dict[str, Any]] = {202: {"description": "accepted; follow the Location header"}}

    def started(job: Job, response: Response) -> dict[str, Any]:
        response.status_code = 202
        response.headers["Location"] = f"{JOBS_PATH}/{job.id}"
        return job.view()

    @api.post("/operations/config-save", response_model=models.JobOut, status_code=202, responses=accepted)
    def config_save(response: Response, body: models.SaveRequest | None = None) -> Any:
        """``config save [file]``: write the running configuration (default: the run dir's config_db.json)."""
        path = _file(ctx, (body or models.SaveRequest()).path, ctx.saved_config, "file to write")
        if not path.parent.is_dir():
            raise ApiError(400, f"path '{path}': directory {path.parent} does not exist", path="path")
        return started(ctx.jobs.submit("config-save", save_steps(ctx, path)), response)

    @api.post("/operations/config-reload", response_model=models.JobOut, status_code=202, responses=accepted)
    def config_reload(response: Response, body: models.ReloadRequest | None = None) -> Any:
        """``config reload [file]``: make the running configuration equal a file (default: the saved one)."""
        path = _file(ctx, (body or models.ReloadRequest()).path, ctx.saved_config, "file to load")
        if not path.is_file():
            raise ApiError(404, f"no file {path}", path="path")
        return started(ctx.jobs.submit("config-reload", reload_steps(ctx, path)), response)

    @api.post("/operations/checkpoint", response_model=models.JobOut, status_code=202, responses=accepted)
    def create_checkpoint(body: models.CheckpointRequest, response: Response) -> Any:
        """``config checkpoint <name>``."""
        _checkpoint(ctx, body.name)
        return started(ctx.jobs.submit("checkpoint", checkpoint_steps(ctx, body.name)), response)

    @api.post("/operations/rollback", response_model=models.JobOut, status_code=202, responses=accepted)
    def rollback(body: models.RollbackRequest, response: Response) -> Any:
        """``config rollback <name>``: make the running configuration equal a checkpoint, all or nothing."""
        _existing_checkpoint(ctx, body.name)
        return started(ctx.jobs.submit("rollback", rollback_steps(ctx, body.name, body.dry_run)), response)

    @api.post("/operations/delete-checkpoint", response_model=models.JobOut, status_code=202, responses=accepted)
    def delete_checkpoint(body: models.CheckpointRequest, response: Response) -> Any:
        """``config delete-checkpoint <name>``."""
        _existing_checkpoint(ctx, body.name)
        return started(ctx.jobs.submit("delete-checkpoint", delete_steps(ctx, body.name)), response)

    return api


def jobs_router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(prefix="/api/v1", tags=["operations"], responses=ERROR_RESPONSES)

    @api.get("/jobs", response_model=list[models.JobOut])
    def jobs() -> Any:
        """Jobs of this server process, oldest first (kept in memory only)."""
        return [job.view() for job in ctx.jobs.all()]

    @api.get("/jobs/{job_id}", response_model=models.JobOut)
    def job(job_id: str) -> Any:
        found = ctx.jobs.get(job_id)
        if found is None:
            raise ApiError(404, f"no job {job_id} (jobs live in the server's memory)", path=job_id)
        return found.view()

    @api.get("/checkpoints", response_model=list[models.CheckpointOut])
    def checkpoints() -> Any:
        """``config list-checkpoints``, oldest first."""
        if ctx.run_dir is None:
            return []
        return [{"name": cp.name, "created": cp.created.isoformat()} for cp in checkpoint.list_all(ctx.run_dir)]

    return api


__all__ = ["routers"]
