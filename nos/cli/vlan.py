"""``nos config vlan add|del <vid>`` (``-m`` for lists and ranges) and ``member add|del [-u] <vid> <port>``.

Each command is one validated CONFIG_DB transaction (``--dry-run`` prints the patch); what it writes is in
``nos.cli.edits.vlan``.
"""

from __future__ import annotations

import click

from nos.cli.common import dry_run_option, run_dir_option
from nos.cli.edits import vlan as edit
from nos.cli.edits.common import Refused
from nos.cli.txn import refuse, run_edit

MULTIPLE_HELP = "Add Multiple Vlan(s) in Range or in Comma separated list"


def _vids(vid: str, multiple: bool) -> list[int]:
    try:
        return edit.parse_vids(vid, multiple)
    except Refused as exc:
        refuse(exc)


@click.group()
def vlan() -> None:
    """VLAN-related configuration tasks."""


@vlan.command("add")
@click.argument("vid", metavar="<vid>")
@click.option("-m", "--multiple", is_flag=True, help=MULTIPLE_HELP)
@dry_run_option
@run_dir_option
def add_vlan(vid: str, multiple: bool, dry_run: bool, run_dir: str | None) -> None:
    """Add VLAN(s)."""
    vids = _vids(vid, multiple)
    run_edit(run_dir, lambda config: edit.add_vlans(config, vids), dry_run=dry_run)


@vlan.command("del")
@click.argument("vid", metavar="<vid>")
@click.option("-m", "--multiple", is_flag=True, help="Delete Multiple Vlan(s) in Range or in Comma separated list")
@dry_run_option
@run_dir_option
def del_vlan(vid: str, multiple: bool, dry_run: bool, run_dir: str | None) -> None:
    """Delete VLAN(s)."""
    vids = _vids(vid, multiple)
    run_edit(run_dir, lambda config: edit.delete_vlans(config, vids), dry_run=dry_run)


@vlan.group("member")
def member() -> None:
    """Add or remove VLAN members."""


@member.command("add")
@click.argument("vid", metavar="<vid>")
@click.argument("port", metavar="<port>")
@click.option("-u", "--untagged", is_flag=True, help="Untagged status")
@dry_run_option
@run_dir_option
def add_member(vid: str, port: str, untagged: bool, dry_run: bool, run_dir: str | None) -> None:
    """Add a port or PortChannel to a VLAN (tagged unless -u)."""
    (number,) = _vids(vid, False)
    run_edit(run_dir, lambda config: edit.add_member(config, number, port, untagged), dry_run=dry_run)


@member.command("del")
@click.argument("vid", metavar="<vid>")
@click.argument("port", metavar="<port>")
@dry_run_option
@run_dir_option
def del_member(vid: str, port: str, dry_run: bool, run_dir: str | None) -> None:
    """Remove a port or PortChannel from a VLAN."""
    (number,) = _vids(vid, False)
    run_edit(run_dir, lambda config: edit.delete_member(config, number, port), dry_run=dry_run)
