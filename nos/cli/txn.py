"""Running one ``nos config`` command as one CONFIG_DB transaction, and reporting what it did.

A command hands :func:`run_edit` a build function (the running configuration in, the whole target out;
see ``nos.cli.edits``). The build runs inside ``nos.config.transaction.commit`` on a consistent snapshot,
so the checks it makes and the validation of the result see the same CONFIG_DB the change is applied
to, atomically. A dry run plans, validates and prints the JSON Patch it would apply (RFC 6902 against
the config_db.json document, field by field), and changes nothing.

Refusals, all with CONFIG_DB unchanged and exit code 2 (click's usage-error code, as SONiC's
``ctx.fail``): the command's own check (:class:`nos.cli.edits.common.Refused`), every problem the
validation found (one ``TABLE|key: field 'f' = 'v': reason`` line each), a JSON Patch that cannot be
applied. A switch that is not running, or databases that keep changing, exit 1.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NoReturn

import click
import jsonpatch

from nos.cli.applied import wait_after
from nos.cli.common import connect, fail
from nos.cli.edits.common import Refused
from nos.config.applied import current_generation
from nos.config.checkpoint import CheckpointError
from nos.config.errors import ConfigFileError, ConfigValidationError, UnreadableConfig
from nos.config.transaction import PatchError, TxResult, commit
from nos.db import ConfigDBConnector, DbError
from nos.db.configdb import Config, ConfigConflict
from nos.schema.dbconfig import CONFIG_DB

REFUSED = 2
MAX_ERRORS_SHOWN = 50
DRY_RUN_BANNER = "** DRY RUN EXECUTION **"
UNCHANGED = "CONFIG_DB unchanged."

Build = Callable[[Config], Config]
Patch = list[dict[str, Any]]


@dataclass
class Planned:
    """A transaction's result with the document it started from and the target it built."""

    result: TxResult
    before: Config = field(default_factory=dict)
    target: Config = field(default_factory=dict)
    builds: int = 0

    @property
    def patch(self) -> Patch:
        """The change as a field-level JSON Patch against ``before`` (what a dry run prints)."""
        return list(jsonpatch.make_patch(self.before, self.target).patch)


def plan(cdb: ConfigDBConnector, build: Build, *, dry_run: bool = False,
         on_build: Callable[[int], None] | None = None,
         mentioned: Callable[[Config], Iterable[str]] | None = None) -> Planned:
    """``commit`` with a recording build: the snapshot it planned on and the target it produced.
    ``on_build`` is told each time the target is built (more than once when CONFIG_DB changed meanwhile);
    ``mentioned`` is ``commit``'s (which tables' not-acted-on notes to report)."""
    seen = Planned(TxResult([], False, 0))

    def recording(current: Config) -> Config:
        seen.builds += 1
        if on_build is not None:
            on_build(seen.builds)
        seen.before = copy.deepcopy(current)
        target = build(current)
        seen.target = {table: rows for table, rows in target.items() if rows}
        return target

    seen.result = commit(cdb, recording, dry_run=dry_run, mentioned=mentioned)
    return seen


def patch_text(patch: Patch) -> str:
    return json.dumps(patch, indent=4)


def error_lines(exc: Exception) -> list[str]:
    """What to print for a refused transaction: every validation problem, or the one reason."""
    if isinstance(exc, ConfigValidationError):
        lines = [f"  {error}" for error in exc.errors[:MAX_ERRORS_SHOWN]]
        if len(exc.errors) > MAX_ERRORS_SHOWN:
            lines.append(f"  ... and {len(exc.errors) - MAX_ERRORS_SHOWN} more")
        return [f"refused ({len(exc.errors)} problem{'s' if len(exc.errors) != 1 else ''}):", *lines]
    return [str(exc)]


def refuse(exc: Exception, head: str | None = None) -> NoReturn:
    """Exit 2 with the reasons (after ``head``, when given) and ``CONFIG_DB unchanged.``"""
    fail("\n".join([*([head] if head else []), *error_lines(exc), UNCHANGED]), REFUSED)


REFUSALS = (Refused, ConfigValidationError, PatchError, CheckpointError, ConfigFileError)


@contextmanager
def config_db(run_dir: str | None, failure: str | None = None) -> Iterator[ConfigDBConnector]:
    """CONFIG_DB of the running switch; refusals (printed after ``failure``) and database errors become
    SONiC-style exits. What the block wrote is waited for until it is in the ASIC (``nos.cli.applied``)."""
    _, dbs = connect(run_dir)
    try:
        before = current_generation(dbs)
        yield ConfigDBConnector(dbs[CONFIG_DB])
        wait_after(dbs, before)
    except REFUSALS as exc:
        refuse(exc, failure)
    except ConfigConflict as exc:
        fail(f"{exc}\n{UNCHANGED}")
    except UnreadableConfig as exc:
        fail("\n".join([*([failure] if failure else []), str(exc)]))
    except DbError as exc:
        fail(f"cannot use the switch's databases: {exc}")
    finally:
        dbs.close()


def print_warnings(result: TxResult) -> None:
    for warning in result.warnings[:MAX_ERRORS_SHOWN]:
        click.echo(f"Warning: {warning}", err=True)


def run_edit(run_dir: str | None, build: Build, *, dry_run: bool = False) -> Planned:
    """One config command: plan on the running CONFIG_DB, validate, apply (or, dry, print the patch)."""
    with config_db(run_dir) as cdb:
        planned = plan(cdb, build, dry_run=dry_run)
    print_warnings(planned.result)
    if dry_run:
        click.echo(DRY_RUN_BANNER)
        click.echo(patch_text(planned.patch))
        click.echo(f"{UNCHANGED} (dry run)")
    return planned


__all__ = ["Build", "DRY_RUN_BANNER", "Planned", "REFUSALS", "REFUSED", "UNCHANGED", "config_db", "error_lines",
           "patch_text", "plan", "refuse", "run_edit"]
