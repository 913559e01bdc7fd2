"""``nos show runningconfiguration all``: the whole of CONFIG_DB as config_db.json, as SONiC prints it
(``sonic-cfggen -d --print-data``: tables and keys in natural order, 4-space indent, ``NULL`` placeholders
dropped, ``@`` lists as lists). The output is JSON already; ``--json`` is accepted and prints the same.
A key of CONFIG_DB that is not a row (a string where a hash is expected) cannot be shown: each is named
in a warning on stderr, so that the JSON on stdout stays whole.
"""

from __future__ import annotations

import json

import click

from nos.cli.common import connect, fail, json_option, run_dir_option
from nos.cli.show.render import natsorted
from nos.db import ConfigDBConnector, DbError
from nos.db.configdb import Config
from nos.schema.dbconfig import CONFIG_DB


def running_config_text(config: Config) -> str:
    ordered = {table: {key: dict(sorted(config[table][key].items())) for key in natsorted(config[table])}
               for table in natsorted(config)}
    return json.dumps(ordered, indent=4)


@click.group()
def runningconfiguration() -> None:
    """Show the running configuration."""


@runningconfiguration.command("all")
@json_option
@run_dir_option
def show_all(as_json: bool, run_dir: str | None) -> None:
    """Show the whole running configuration (CONFIG_DB) as JSON."""
    _, dbs = connect(run_dir)
    try:
        read = ConfigDBConnector(dbs[CONFIG_DB]).read_config()
    except DbError as exc:
        fail(f"cannot read the switch's databases: {exc}")
    finally:
        dbs.close()
    click.echo(running_config_text(read.config))
    for bad in read.unreadable:
        click.echo(f"Warning: not shown, not a row: {bad.reason}", err=True)
