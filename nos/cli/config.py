"""``nos config``: the group, and ``load|reload|save`` (config_db.json in and out of the running CONFIG_DB).

Its other commands live with their subject: ``interface``, ``vlan``, ``portchannel``, ``mclag`` (one validated
transaction each) and the generic config updater's ``apply-patch|replace|checkpoint|rollback|
list-checkpoints|delete-checkpoint`` (``nos.cli.gcu``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from nos.cli import gcu
from nos.cli.applied import WaitOptions, wait_after
from nos.cli.common import connect, fail, run_dir_option
from nos.cli.interface import interface
from nos.cli.mclag import mclag
from nos.cli.pfcwd import pfcwd
from nos.cli.portchannel import portchannel
from nos.cli.roce import config_roce
from nos.cli.vlan import vlan
from nos.config.applied import DEFAULT_TIMEOUT_S, current_generation
from nos.config.apply import ApplyResult, load_config, reload_config, save_config
from nos.config.errors import ConfigFileError, ConfigValidationError, UnreadableConfig
from nos.config.files import read_config_file
from nos.db import ConfigDBConnector
from nos.db.configdb import Config
from nos.db.connector import Databases
from nos.schema.dbconfig import CONFIG_DB

_MAX_ERRORS_SHOWN = 50


@click.group()
@click.option("--no-wait", is_flag=True, envvar="NOS_NO_WAIT",
              help="Return once CONFIG_DB holds the change, without waiting for it to reach the ASIC.")
@click.option("--wait-timeout", type=float, default=DEFAULT_TIMEOUT_S, show_default=True,
              help="Seconds to wait for the change to reach the ASIC.")
@click.pass_context
def config(ctx: click.Context, no_wait: bool, wait_timeout: float) -> None:
    """Change the running configuration (each command waits until its change is in the ASIC)."""
    ctx.obj = WaitOptions(wait=not no_wait, timeout=wait_timeout)


config.add_command(interface)
config.add_command(vlan)
config.add_command(portchannel)
config.add_command(config_roce)
config.add_command(pfcwd)
config.add_command(mclag)
for _command in gcu.COMMANDS:
    config.add_command(_command)


def _read(path: Path) -> Config:
    try:
        return read_config_file(path)
    except ConfigFileError as exc:
        fail(f"{exc}\nCONFIG_DB unchanged.")


def _report(verb: str, path: Path, result: ApplyResult) -> None:
    click.echo(f"{verb} {path}: {result.changes} rows changed; CONFIG_DB now holds {result.rows} rows.")
    if result.not_acted_on:
        click.echo(f"Kept but not acted on by this switch: {', '.join(result.not_acted_on)}")
    if result.warnings:
        click.echo(f"Accepted with {len(result.warnings)} warnings (kept; the daemons wait or report):")
        for warning in result.warnings[:_MAX_ERRORS_SHOWN]:
            click.echo(f"  {warning}")
    if result.unknown_fields:
        shown = ", ".join(f"{t}|{k}:{f}" for t, k, f in result.unknown_fields[:10])
        more = f" (+{len(result.unknown_fields) - 10} more)" if len(result.unknown_fields) > 10 else ""
        click.echo(f"Fields kept but not acted on: {shown}{more}")


def _refused(exc: ConfigValidationError, path: Path) -> None:
    lines = [str(e) for e in exc.errors[:_MAX_ERRORS_SHOWN]]
    if len(exc.errors) > _MAX_ERRORS_SHOWN:
        lines.append(f"... and {len(exc.errors) - _MAX_ERRORS_SHOWN} more")
    fail(f"{path} refused ({len(exc.errors)} problems):\n  " + "\n  ".join(lines) + "\nCONFIG_DB unchanged.")


Action = Callable[[ConfigDBConnector, Config], ApplyResult]


def _apply_file(verb: str, path: Path, dbs: Databases, action: Action) -> None:
    """Read, validate and apply one file; refused files change nothing and exit 1."""
    try:
        before = current_generation(dbs)
        _report(verb, path, action(ConfigDBConnector(dbs[CONFIG_DB]), _read(path)))
        wait_after(dbs, before)
    except ConfigValidationError as exc:
        _refused(exc, path)
    finally:
        dbs.close()


@config.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@run_dir_option
def load(file: Path, run_dir: str | None) -> None:
    """Merge FILE into the running configuration (nothing is removed)."""
    _, dbs = connect(run_dir)
    _apply_file("Loaded", file, dbs, load_config)


@config.command()
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@run_dir_option
def reload(file: Path | None, run_dir: str | None) -> None:
    """Replace the running configuration with FILE (default: the saved config)."""
    run, dbs = connect(run_dir)
    path = file or run.saved_config_file
    if not path.exists():
        dbs.close()
        fail(f"no saved configuration at {path}: give a FILE, or 'nos config save' first")
    _apply_file("Reloaded", path, dbs, reload_config)


@config.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@run_dir_option
def save(file: Path | None, run_dir: str | None) -> None:
    """Write the running configuration to FILE (default: the run dir's config_db.json, used at boot)."""
    run, dbs = connect(run_dir)
    path = file or run.saved_config_file
    try:
        rows = save_config(ConfigDBConnector(dbs[CONFIG_DB]), path)
    except ConfigFileError as exc:  # a full disk, a read-only or missing directory: the file is as it was
        fail(f"{exc}; {path} is as it was")
    except UnreadableConfig as exc:
        fail(str(exc))
    finally:
        dbs.close()
    click.echo(f"Saved {rows} rows to {path}.")
