"""``nos show errors``: every entry a daemon or the simulated ASIC refused, by table and key.

Not a SONiC command (SONiC reports refusals in syslog and, for some tables, APPL_STATE_DB); here
each refusal is a STATE_DB ``NOS_REJECTED_TABLE|<DB>:<TABLE>:<key>`` row, cleared when the key
later succeeds.
"""

from __future__ import annotations

from typing import Any

import click

from nos.cli.common import connect, json_option, print_json, print_table, run_dir_option
from nos.db import Table
from nos.db.connector import Databases
from nos.schema.dbconfig import STATE_DB
from nos.schema.tables import STATE_NOS_REJECTED_TABLE_NAME


def gather_errors(dbs: Databases) -> list[dict[str, Any]]:
    out = []
    for key, row in sorted(Table(dbs[STATE_DB], STATE_NOS_REJECTED_TABLE_NAME).get_all().items()):
        db, _, rest = key.partition(":")
        table, _, entry = rest.partition(":")
        out.append({"db": db, "table": table, "key": entry, "op": row.get("op", ""), "status": row.get("status", ""),
                    "reason": row.get("reason", ""), "daemon": row.get("daemon", ""), "time": row.get("time", "")})
    return out


@click.command()
@json_option
@run_dir_option
def errors(as_json: bool, run_dir: str | None) -> None:
    """Entries refused by a daemon or by the ASIC (invalid values, ASIC refusals)."""
    _, dbs = connect(run_dir)
    try:
        records = gather_errors(dbs)
    finally:
        dbs.close()
    if as_json:
        print_json(records)
    elif not records:
        click.echo("No refused entries.")
    else:
        print_table(["Table", "Key", "Op", "Status", "Daemon", "Reason"],
                    [[f"{r['db']}:{r['table']}", r["key"], r["op"], r["status"], r["daemon"], r["reason"]]
                     for r in records])
