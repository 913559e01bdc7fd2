"""``nos config roce enable|disable`` (the RoCE intent, ``ROCE|global``) and ``nos roce check``.

``enable`` sets the options given in ``ROCE|global`` (keeping the fields set before) and ``disable``
deletes the row; each is ONE transaction that also applies the expansion (``nos.intent.roce.plan``),
so the command returns with the buffer, QoS, PFC and watchdog tables already rewritten (or, refused,
with nothing changed and every bad field named). ``--dry-run`` prints the exact CONFIG_DB changes as a
JSON Patch. ``nos roce check`` runs the lossless check: exit 0 when every port's path is lossless,
1 with the issues listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import click

from nos.cli.common import connect, dry_run_option, json_option, print_json, print_table, run_dir_option
from nos.cli.txn import Planned, config_db, run_edit
from nos.cli.txn import plan as plan_transaction
from nos.config.errors import ConfigValidationError
from nos.db.configdb import Config, Row
from nos.intent.roce import IntentError, plan
from nos.intent.roce.read import read_inputs
from nos.intent.roce.status import check_report, issue_rows
from nos.schema.config.roce import CFG_ROCE_TABLE_NAME, ROCE_KEY

NOT_LOSSLESS = 1


def expanded(edit: Callable[[Config], Config]) -> Callable[[Config], Config]:
    """A build that edits ``ROCE|global`` and then applies the intent's plan, refusals as validation errors."""

    def build(current: Config) -> Config:
        try:
            return plan(edit(current))
        except IntentError as exc:
            raise ConfigValidationError(exc.errors) from None

    return build


def set_intent(fields: Row) -> Callable[[Config], Config]:
    def edit(current: Config) -> Config:
        row = {**current.get(CFG_ROCE_TABLE_NAME, {}).get(ROCE_KEY, {}), **fields}
        row.pop("enabled", None)
        return {**current, CFG_ROCE_TABLE_NAME: {ROCE_KEY: row}}

    return edit


def clear_intent(current: Config) -> Config:
    return {table: rows for table, rows in current.items() if table != CFG_ROCE_TABLE_NAME}


def given(options: dict[str, Any]) -> Row:
    """The options given on the command line, as ``ROCE|global`` fields."""
    fields: Row = {}
    for name, value in options.items():
        if value is None:
            continue
        if name == "pfcwd":
            fields[name] = "on" if value else "off"
        else:
            fields[name] = str(value)
    return fields


@click.group("roce")
def config_roce() -> None:
    """The RoCE intent: one row expanded into buffers, QoS maps, PFC, ECN and the PFC watchdog."""


@config_roce.command("enable")
@click.option("--profile", type=click.Choice(["nvidia", "sonic"]), help="Defaults to start from (nvidia).")
@click.option("--mode", type=click.Choice(["lossless", "lossy"]), help="lossless (PFC + ECN) or lossy (ECN only).")
@click.option("--dscp", "roce_dscp", metavar="N[,N]", help="RoCE DSCP(s).")
@click.option("--priority", "roce_priority", metavar="N[,N]", help="RoCE priority (one, or one per DSCP).")
@click.option("--cnp-dscp", "cnp_dscp", type=int, help="DSCP of congestion notifications.")
@click.option("--cnp-tc", "cnp_tc", type=int, help="Traffic class of congestion notifications (strict).")
@click.option("--cable-length", "cable_length", metavar="<N>m", help="Cable length for headroom (e.g. 5m).")
@click.option("--ecn-min", "ecn_min", type=int, help="ECN marking starts (bytes).")
@click.option("--ecn-max", "ecn_max", type=int, help="ECN marking at full probability (bytes).")
@click.option("--ecn-probability", "ecn_probability", type=int, help="ECN marking probability (percent).")
@click.option("--pfcwd/--no-pfcwd", "pfcwd", default=None, help="PFC watchdog on the RoCE priorities.")
@click.option("--pfcwd-detection", "pfcwd_detection_ms", type=int, help="Watchdog detection time (ms).")
@click.option("--pfcwd-restoration", "pfcwd_restoration_ms", type=int, help="Watchdog restoration time (ms).")
@click.option("--pfcwd-action", "pfcwd_action", type=click.Choice(["drop", "forward", "alert"]))
@click.option("--ports", metavar="all|P[,P]", help="Ports covered (default all).")
@dry_run_option
@json_option
@run_dir_option
def enable(dry_run: bool, as_json: bool, run_dir: str | None, **options: Any) -> None:
    """Enable (or change) the RoCE intent; options not given keep their current value."""
    planned = run(run_dir, expanded(set_intent(given(options))), dry_run, as_json)
    if not dry_run and not as_json:
        row = planned.target.get(CFG_ROCE_TABLE_NAME, {}).get(ROCE_KEY, {})
        shown = ", ".join(f"{k}={v}" for k, v in sorted(row.items())) or "profile defaults"
        click.echo(f"RoCE intent enabled ({shown}): {len(planned.result.changes)} rows changed.")


@config_roce.command("disable")
@dry_run_option
@json_option
@run_dir_option
def disable(dry_run: bool, as_json: bool, run_dir: str | None) -> None:
    """Disable the RoCE intent: every row it changed is restored to what it was before."""
    planned = run(run_dir, expanded(clear_intent), dry_run, as_json)
    if not dry_run and not as_json:
        click.echo(f"RoCE intent disabled: {len(planned.result.changes)} rows restored or removed.")


def run(run_dir: str | None, build: Callable[[Config], Config], dry_run: bool, as_json: bool) -> Planned:
    """One transaction; with ``as_json`` its result as JSON (the patch too on a dry run)."""
    if not as_json:
        return run_edit(run_dir, build, dry_run=dry_run)
    with config_db(run_dir) as cdb:
        planned = plan_transaction(cdb, build, dry_run=dry_run)
    print_json({"dry_run": dry_run, "applied": planned.result.applied, "changes": len(planned.result.changes),
                "intent": planned.target.get(CFG_ROCE_TABLE_NAME, {}).get(ROCE_KEY),
                "patch": planned.patch if dry_run else None})
    return planned


def print_issues(report: dict[str, Any]) -> None:
    head = (f"Expected: {report['expected']} ({report['mode']}, priorities "
            f"{','.join(map(str, report['priorities']))}); {report['ports']} ports checked.")
    click.echo(head)
    if report["lossless"]:
        click.echo("Lossless end to end: no issues." if report["mode"] == "lossless" else "No issues.")
        return
    click.echo(f"{len(report['issues'])} issue(s):")
    print_table(["Port", "Priority", "Kind", "Detail", "Fix"], issue_rows(report["issues"]))
    kinds = Counter(str(issue["kind"]) for issue in report["issues"])
    click.echo("\nBy kind: " + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items())))


@click.group("roce")
def roce() -> None:
    """RoCE diagnostics."""


@roce.command("check")
@click.option("--profile", type=click.Choice(["nvidia", "sonic"]),
              help="Check against this profile's defaults instead of the switch's intent.")
@json_option
@run_dir_option
def check_command(profile: str | None, as_json: bool, run_dir: str | None) -> None:
    """Is every port's RoCE path lossless end to end? Exit 0 if so, 1 with the issues listed."""
    _, dbs = connect(run_dir)
    try:
        config, appl = read_inputs(dbs)
    finally:
        dbs.close()
    report = check_report(config, appl, profile)
    if as_json:
        print_json(report)
    else:
        print_issues(report)
    if not report["lossless"]:
        raise SystemExit(NOT_LOSSLESS)


__all__ = ["config_roce", "print_issues", "roce"]
