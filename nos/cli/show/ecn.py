"""``nos show ecn``: the WRED/ECN profiles, as sonic-utilities' ``show ecn`` (``ecnconfig -l``) prints
them: for each CONFIG_DB WRED_PROFILE row a ``Profile: <name>`` line and a two-column field/value table
(tabulate's plain ``simple`` format without headers), then an empty line; nothing at all without profiles.
The fields keep the row's order as Redis returns it (HGETALL: the order they were written, for hashes as
small as these), as ecnconfig prints them; the profiles are naturally sorted (ecnconfig follows the order
of Redis' KEYS, which nothing reproduces). ``--json`` gives ``{profile: {field: value}}``. The rendering
is pure; the click command reads.
"""

from __future__ import annotations

import click
from tabulate import tabulate

from nos.cli.common import json_option, print_json, run_dir_option
from nos.cli.show.interfaces import load_snapshot
from nos.cli.show.render import Rows, natsorted
from nos.schema import tables as tbl
from nos.schema.dbconfig import CONFIG_DB


def ecn_text(profiles: Rows) -> str:
    """``Profile: <name>`` and its fields in the row's order, one block per profile; empty without any."""
    blocks = []
    for name in natsorted(profiles):
        fields = [[field, value] for field, value in profiles[name].items() if field != "NULL"]
        blocks.append(f"Profile: {name}\n{tabulate(fields)}\n")
    return "\n".join(blocks)


@click.command()
@json_option
@run_dir_option
def ecn(as_json: bool, run_dir: str | None) -> None:
    """Show the ECN/WRED profiles (ecnconfig -l)."""
    snap = load_snapshot(run_dir, [(CONFIG_DB, tbl.CFG_WRED_PROFILE_TABLE_NAME)])
    profiles = snap.rows(CONFIG_DB, tbl.CFG_WRED_PROFILE_TABLE_NAME)
    if as_json:
        print_json({name: dict(profiles[name]) for name in natsorted(profiles)})
    elif profiles:
        click.echo(ecn_text(profiles))
