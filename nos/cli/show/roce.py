"""``nos show roce``: the RoCE intent (as configured and as resolved over its profile, whether CONFIG_DB
is what it expands to) and the lossless check's result. Not a SONiC command (NVIDIA's ``nv show qos
roce`` is the model)."""

from __future__ import annotations

from typing import Any

import click

from nos.cli.common import connect, json_option, print_json, print_table, run_dir_option
from nos.cli.roce import print_issues
from nos.intent.roce.read import read_inputs
from nos.intent.roce.status import show_report


def print_intent(report: dict[str, Any]) -> None:
    if report["configured"] is None:
        click.echo("RoCE intent: not configured.")
    elif report["error"]:
        click.echo("RoCE intent: refused:")
        for line in report["error"]:
            click.echo(f"  {line}")
    elif not report["enabled"]:
        click.echo("RoCE intent: disabled.")
    else:
        resolved, configured = report["resolved"], report["configured"]
        sync = "in sync" if report["in_sync"] else f"{report['pending_changes']} rows differ from the expansion"
        click.echo(f"RoCE intent: enabled, CONFIG_DB {sync}.")
        rows = [[name, _text(name, value), "set" if name in configured else "profile"]
                for name, value in resolved.items() if name != "enabled"]
        print_table(["Field", "Value", "From"], rows)
    click.echo("")


def _text(name: str, value: Any) -> str:
    if value is None:
        return "all" if name == "ports" else "(each port's own)"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


@click.command("roce")
@json_option
@run_dir_option
def roce(as_json: bool, run_dir: str | None) -> None:
    """The RoCE intent and the lossless check."""
    _, dbs = connect(run_dir)
    try:
        config, appl = read_inputs(dbs)
    finally:
        dbs.close()
    report = show_report(config, appl)
    if as_json:
        print_json(report)
        return
    print_intent(report["intent"])
    print_issues(report["check"])
