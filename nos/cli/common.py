"""What every ``nos`` command shares: finding the running switch, output helpers, errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

import click
from tabulate import tabulate

from nos.db.connector import Databases
from nos.runtime.rundir import RunDir

F = TypeVar("F", bound=Callable[..., Any])


def run_dir_option(func: F) -> F:
    """``--run-dir DIR`` (or NOS_RUN_DIR; default ~/.nos/default) on a command."""
    return click.option(
        "--run-dir", "run_dir", type=click.Path(file_okay=False), envvar="NOS_RUN_DIR", default=None,
        help="Run directory of the switch (default: $NOS_RUN_DIR or ~/.nos/default).",
    )(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")(func)


def dry_run_option(func: F) -> F:
    """``-d/--dry-run``: plan and validate, print the JSON Patch, change nothing."""
    return click.option("-d", "--dry-run", "dry_run", is_flag=True,
                        help="Validate and print the JSON Patch that would be applied; change nothing.")(func)


def fail(message: str, code: int = 1) -> NoReturn:
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


def connect(run_dir: str | None) -> tuple[RunDir, Databases]:
    """The databases of the switch running in ``run_dir`` (started by ``nos up``, or attached with
    ``nos attach``); a clear error when none is."""
    run = RunDir.resolve(run_dir)
    endpoints = run.endpoints()
    if not endpoints or (run.supervisor_pid() is None and run.attachment() is None):
        fail(f"no switch is running in {run.path} (start one with 'nos up', or pass --run-dir)")
    return run, Databases(endpoints["redis"])


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """SONiC's table style (tabulate 'simple': a dashed underline)."""
    click.echo(tabulate(rows, headers=list(headers), tablefmt="simple", disable_numparse=True))


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=4, sort_keys=True))
