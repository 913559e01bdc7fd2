"""``nos show vlan brief|config``: SONiC's VLAN views, read from CONFIG_DB only (as SONiC does)."""

from __future__ import annotations

import click

from nos.cli.common import json_option, print_json, run_dir_option
from nos.cli.show import render
from nos.cli.show.interfaces import load_snapshot, read_snapshot
from nos.db.connector import Databases


def gather_vlan(dbs: Databases) -> render.Snapshot:
    return read_snapshot(dbs, render.VLAN_TABLES)


@click.group()
def vlan() -> None:
    """Show VLAN information."""


@vlan.command()
@json_option
@run_dir_option
def brief(as_json: bool, run_dir: str | None) -> None:
    """Show all VLANs: addresses, members and their tagging, proxy ARP, anycast gateway (--json: DHCP helpers too)."""
    records = render.vlan_brief(load_snapshot(run_dir, render.VLAN_TABLES))
    if as_json:
        print_json(records)
    else:
        click.echo(render.vlan_brief_table(records))


@vlan.command()
@json_option
@run_dir_option
def config(as_json: bool, run_dir: str | None) -> None:
    """Show VLAN configuration: one line per VLAN member."""
    records = render.vlan_config(load_snapshot(run_dir, render.VLAN_TABLES))
    if as_json:
        print_json(records)
    else:
        click.echo(render.vlan_config_table(records))
