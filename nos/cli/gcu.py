"""``nos config apply-patch|replace|checkpoint|rollback|list-checkpoints|delete-checkpoint``.

SONiC's generic config updater (sonic-utilities ``generic_config_updater``) on this switch's transaction
layer: a patch, a replacement or a rollback is planned on one CONFIG_DB snapshot, validated whole,
and applied atomically (GCU sorts the patch into ordered steps instead; here every row changes in one
step, so there is no half-applied state to order around). Progress is printed in GCU's words
(``Patch Applier: ...``, ``Config Replacer: ...``, ``Config Rollbacker: ...``); ``-v`` adds the details.
Checkpoints are ``<run dir>/checkpoints/<name>.cp.json`` (``nos.config.checkpoint``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from nos.cli.common import dry_run_option, run_dir_option
from nos.cli.txn import DRY_RUN_BANNER, UNCHANGED, Planned, config_db, plan, refuse
from nos.config import checkpoint
from nos.config.errors import ConfigFileError
from nos.config.files import read_config_file, read_json_file
from nos.config.transaction import PatchError, apply_json_patch
from nos.db.configdb import Config, ConfigDBConnector
from nos.runtime.rundir import RunDir

SCOPE = "localhost"  # GCU's name for the (only) host namespace
APPLIER, REPLACER, ROLLBACKER = "Patch Applier", "Config Replacer", "Config Rollbacker"
FORMATS = click.Choice(["CONFIGDB"], case_sensitive=False)
VERBOSE_HELP = "print additional details of what the operation is doing"


@dataclass(frozen=True)
class Log:
    """GCU's console logger: notices always, details with -v, each line ``<title>: <message>``."""

    title: str
    verbose: bool = False

    def notice(self, message: str) -> None:
        click.echo(f"{self.title}: {message}")

    def info(self, message: str) -> None:
        if self.verbose:
            self.notice(message)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _on_build(log: Log) -> Callable[[int], None]:
    def told(count: int) -> None:
        if count == 1:
            log.notice(f"{SCOPE} getting current config db.")
        else:
            log.notice(f"{SCOPE}: CONFIG_DB changed while planning; planning again on the new config.")
        log.notice(f"{SCOPE}: simulating the target full config after applying the patch.")
    return told


def _report(log: Log, planned: Planned, cdb: ConfigDBConnector, dry_run: bool) -> None:
    """The changes planned (row by row), applied or not, and the check that CONFIG_DB holds them."""
    result = planned.result
    ops = result.as_patch(planned.before)
    log.notice(f"{SCOPE}: validating the target config as a whole (types, keys, references, constraints).")
    for warning in result.warnings:
        log.info(f"{SCOPE}: warning: {warning}")
    if result.not_acted_on:
        log.info(f"{SCOPE}: kept but not acted on by this switch: {', '.join(result.not_acted_on)}")
    tail = ":" if ops else "."
    log.notice(f"The {SCOPE} patch was converted into {_plural(len(ops), 'change')}{tail}")
    for op in ops:
        log.notice(f"  * {json.dumps([op])}")
    if dry_run:
        log.notice(f"{SCOPE}: dry run: {_plural(len(ops), 'change')} not applied.")
        return
    log.notice(f"{SCOPE}: applying {_plural(len(ops), 'change')} in one transaction.")
    log.notice(f"{SCOPE}: verifying patch updates are reflected on ConfigDB.")
    tables = {table: cdb.get_table(table) for table in {change.table for change in result.changes}}  # not per row
    for change in result.changes:
        expected = {} if change.mode == "delete" else (change.row or {})
        if tables[change.table].get(change.key, {}) != expected:
            log.notice(f"{SCOPE}: {change.table}|{change.key} changed again after the transaction (another writer)")
    log.notice(f"{SCOPE} patch application completed.")


def _read_patch(path: Path) -> list[dict[str, object]]:
    try:
        document = read_json_file(path)
    except ConfigFileError as exc:
        refuse(PatchError(None, "", "", str(exc)), "Failed to apply patch due to:")
    if not isinstance(document, list):
        refuse(PatchError(None, "", "", "a JSON Patch is a list of operations"), "Failed to apply patch due to:")
    return document


@click.command("apply-patch")
@click.argument("patch_file_path", metavar="<patch-file-path>", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-f", "--format", "config_format", type=FORMATS, default="CONFIGDB", show_default=True,
              help="format of the patch: ConfigDb paths (/TABLE/key/field)")
@dry_run_option
@click.option("-p", "--parallel", is_flag=True, help="accepted for SONiC compatibility (one namespace here)")
@click.option("-v", "--verbose", is_flag=True, help=VERBOSE_HELP)
@run_dir_option
def apply_patch(patch_file_path: Path, config_format: str, dry_run: bool, parallel: bool, verbose: bool,
                run_dir: str | None) -> None:
    """Apply an RFC 6902 JSON Patch to the running config, all or nothing."""
    if dry_run:
        click.echo(DRY_RUN_BANNER)
    operations = _read_patch(patch_file_path)
    log = Log(APPLIER, verbose)
    log.notice(f"{SCOPE}: Patch application starting.")
    log.notice(f"{SCOPE}: Patch: {json.dumps(operations)}")
    with config_db(run_dir, "Failed to apply patch due to:") as cdb:
        planned = plan(cdb, lambda current: apply_json_patch(current, operations), dry_run=dry_run,
                       on_build=_on_build(log))
        _report(log, planned, cdb, dry_run)
    click.echo(f"{UNCHANGED} (dry run)" if dry_run else "Patch applied successfully.")


def _replace(log: Log, cdb: ConfigDBConnector, target: Config, dry_run: bool) -> Planned:
    log.notice("Config replacement starting.")
    log.notice(f"Target config length: {len(json.dumps(target))}.")
    log.notice("Getting current config db.")
    log.notice("Generating patch between target config and current config db.")
    log.notice("Applying patch using 'Patch Applier'.")
    applier = Log(APPLIER, log.verbose)
    applier.notice(f"{SCOPE}: Patch application starting.")
    planned = plan(cdb, lambda _current: copy.deepcopy(target), dry_run=dry_run, on_build=_on_build(applier),
                   mentioned=lambda t: t)
    applier.notice(f"{SCOPE}: Patch: {json.dumps(planned.patch)}")
    _report(applier, planned, cdb, dry_run)
    log.notice("Verifying config replacement is reflected on ConfigDB.")
    log.notice("Config replacement completed.")
    return planned


@click.command()
@click.argument("target_file_path", metavar="<target-file-path>",
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-f", "--format", "config_format", type=FORMATS, default="CONFIGDB", show_default=True,
              help="format of the target config: config_db.json")
@dry_run_option
@click.option("-v", "--verbose", is_flag=True, help=VERBOSE_HELP)
@run_dir_option
def replace(target_file_path: Path, config_format: str, dry_run: bool, verbose: bool, run_dir: str | None) -> None:
    """Replace the whole running config with a config_db.json file, changing only what differs."""
    if dry_run:
        click.echo(DRY_RUN_BANNER)
    with config_db(run_dir, "Failed to replace config") as cdb:
        _replace(Log(REPLACER, verbose), cdb, read_config_file(target_file_path), dry_run)
    click.echo(f"{UNCHANGED} (dry run)" if dry_run else "Config replaced successfully.")


def _checkpoint_target(run: RunDir, name: str, log: Log) -> Config:
    log.notice(f"Verifying '{name}' exists.")
    found = {cp.name: cp for cp in checkpoint.list_all(run.path)}
    if name not in found:
        raise checkpoint.CheckpointError(f"Checkpoint '{name}' does not exist")
    log.notice("Loading checkpoint into memory.")
    try:
        return read_config_file(found[name].path)
    except ConfigFileError as exc:
        raise checkpoint.CheckpointError(f"checkpoint '{name}' cannot be read: {exc}") from exc


@click.command()
@click.argument("checkpoint_name", metavar="<checkpoint-name>")
@dry_run_option
@click.option("-v", "--verbose", is_flag=True, help=VERBOSE_HELP)
@run_dir_option
def rollback(checkpoint_name: str, dry_run: bool, verbose: bool, run_dir: str | None) -> None:
    """Make the running config equal a checkpoint, changing only what differs."""
    if dry_run:
        click.echo(DRY_RUN_BANNER)
    log = Log(ROLLBACKER, verbose)
    with config_db(run_dir, "Failed to rollback config") as cdb:
        log.notice("Config rollbacking starting.")
        log.notice(f"Checkpoint name: {checkpoint_name}.")
        target = _checkpoint_target(RunDir.resolve(run_dir), checkpoint_name, log)
        log.notice("Replacing config using 'Config Replacer'.")
        _replace(Log(REPLACER, verbose), cdb, target, dry_run)
        log.notice("Config rollbacking completed.")
    click.echo(f"{UNCHANGED} (dry run)" if dry_run else "Config rolled back successfully.")


@click.command("checkpoint")
@click.argument("checkpoint_name", metavar="<checkpoint-name>")
@click.option("-v", "--verbose", is_flag=True, help=VERBOSE_HELP)
@run_dir_option
def create_checkpoint(checkpoint_name: str, verbose: bool, run_dir: str | None) -> None:
    """Save the whole running config as a checkpoint."""
    log = Log(ROLLBACKER, verbose)
    with config_db(run_dir, "Failed to create a config checkpoint") as cdb:
        log.notice("Config checkpoint starting.")
        log.notice(f"Checkpoint name: {checkpoint_name}.")
        log.notice("Getting current config db.")
        made = checkpoint.create(cdb, RunDir.resolve(run_dir).path, checkpoint_name)
        log.notice(f"Saving config db content to {made.path}.")
        log.info(f"{made.rows} rows saved.")
        log.notice("Config checkpoint completed.")
    click.echo("Checkpoint created successfully.")


@click.command("delete-checkpoint")
@click.argument("checkpoint_name", metavar="<checkpoint-name>")
@click.option("-v", "--verbose", is_flag=True, help=VERBOSE_HELP)
@run_dir_option
def delete_checkpoint(checkpoint_name: str, verbose: bool, run_dir: str | None) -> None:
    """Delete a checkpoint."""
    log = Log(ROLLBACKER, verbose)
    log.notice("Deleting checkpoint starting.")
    log.notice(f"Checkpoint name: {checkpoint_name}.")
    log.notice("Checking checkpoint exists.")
    try:
        checkpoint.delete(RunDir.resolve(run_dir).path, checkpoint_name)
    except checkpoint.CheckpointError as exc:
        refuse(exc, "Failed to delete config checkpoint")
    log.notice("Deleting checkpoint completed.")
    click.echo("Checkpoint deleted successfully.")


def checkpoint_listing(found: list[checkpoint.Checkpoint], with_time: bool) -> list[object]:
    """``list-checkpoints`` output: names, or ``{name, time}`` (ISO 8601, UTC), newest first."""
    newest = sorted(found, key=lambda cp: (cp.created, cp.name), reverse=True)
    if with_time:
        return [{"name": cp.name, "time": cp.created.isoformat()} for cp in newest]
    return [cp.name for cp in newest]


@click.command("list-checkpoints")
@click.option("-t", "--time", "with_time", is_flag=True, help="Add the last modified time of each checkpoint")
@click.option("-v", "--verbose", is_flag=True, help=VERBOSE_HELP)
@run_dir_option
def list_checkpoints(with_time: bool, verbose: bool, run_dir: str | None) -> None:
    """List the checkpoints (JSON), newest first."""
    log = Log(ROLLBACKER, verbose)
    log.info("Listing checkpoints starting.")
    listing = checkpoint_listing(checkpoint.list_all(RunDir.resolve(run_dir).path), with_time)
    log.info(f"Found {_plural(len(listing), 'checkpoint')}{':' if listing else '.'}")
    for entry in listing:
        log.info(f"  * {entry['name']} (Last Modified: {entry['time']})" if isinstance(entry, dict) else f"  * {entry}")
    log.info("Listing checkpoints completed.")
    click.echo(json.dumps(listing, indent=4))


COMMANDS = (apply_patch, replace, rollback, create_checkpoint, delete_checkpoint, list_checkpoints)
