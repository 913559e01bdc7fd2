"""``nos config pfcwd start|stop|interval``: the PFC watchdog's configuration (SONiC's ``config pfcwd``,
sonic-utilities pfcwd/main.py); each one validated CONFIG_DB transaction, ``--dry-run`` prints the
patch. What they write is in ``nos.cli.edits.pfcwd``.
"""

from __future__ import annotations

import click

from nos.cli.common import dry_run_option, run_dir_option
from nos.cli.edits import pfcwd as edit
from nos.cli.txn import run_edit
from nos.db.configdb import Config


@click.group()
def pfcwd() -> None:
    """Configure the PFC watchdog."""


@pfcwd.command()
@click.option("--action", "-a", type=click.Choice(["drop", "forward", "alert"]))
@click.option("--restoration-time", "-r", type=click.IntRange(100, 60000))
@click.argument("ports", nargs=-1)
@click.argument("detection_time", metavar="DETECTION_TIME", type=click.IntRange(100, 5000))
@dry_run_option
@run_dir_option
def start(action: str | None, restoration_time: int | None, ports: tuple[str, ...], detection_time: int,
          dry_run: bool, run_dir: str | None) -> None:
    """Start the PFC watchdog on ports ('all' for every port), e.g. start --action drop all 400 -r 400."""
    if restoration_time is None:
        click.echo(f"restoration time not defined; default to 2 times detection time: {2 * detection_time} ms")
    warnings: list[str] = []

    def build(config: Config) -> Config:
        warnings.clear()
        return edit.start(config, ports, detection_time, action, restoration_time, warnings)
    run_edit(run_dir, build, dry_run=dry_run)
    for line in warnings:
        click.echo(line)


@pfcwd.command()
@click.argument("ports", nargs=-1)
@dry_run_option
@run_dir_option
def stop(ports: tuple[str, ...], dry_run: bool, run_dir: str | None) -> None:
    """Stop the PFC watchdog on ports (default: every port)."""
    run_edit(run_dir, lambda config: edit.stop(config, ports), dry_run=dry_run)


@pfcwd.command()
@click.argument("poll_interval", type=click.IntRange(100, 3000))
@dry_run_option
@run_dir_option
def interval(poll_interval: int, dry_run: bool, run_dir: str | None) -> None:
    """Set the PFC watchdog's counter polling interval (ms)."""
    run_edit(run_dir, lambda config: edit.interval(config, poll_interval), dry_run=dry_run)
