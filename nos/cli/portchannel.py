"""``nos config portchannel add|del <name>`` and ``member add|del <pc> <port>``.

Each command is one validated CONFIG_DB transaction (``--dry-run`` prints the patch); what it writes is in
``nos.cli.edits.portchannel``.
"""

from __future__ import annotations

import click

from nos.cli.common import dry_run_option, run_dir_option
from nos.cli.edits import portchannel as edit
from nos.cli.txn import run_edit

TRUE_FALSE = click.Choice(["true", "false"], case_sensitive=False)


@click.group()
def portchannel() -> None:
    """PortChannel-related configuration tasks."""


@portchannel.command("add")
@click.argument("portchannel_name", metavar="<portchannel_name>")
@click.option("--min-links", default=1, show_default=True, type=click.IntRange(1, 1024))
@click.option("--fallback", default="false", show_default=True, type=TRUE_FALSE)
@click.option("--fast-rate", default="false", show_default=True, type=TRUE_FALSE)
@dry_run_option
@run_dir_option
def add(portchannel_name: str, min_links: int, fallback: str, fast_rate: str, dry_run: bool,
        run_dir: str | None) -> None:
    """Add a PortChannel (LACP, MTU 9100, admin up)."""
    run_edit(run_dir, lambda config: edit.add(config, portchannel_name, min_links, fallback.lower() == "true",
                                               fast_rate.lower() == "true"), dry_run=dry_run)


@portchannel.command("del")
@click.argument("portchannel_name", metavar="<portchannel_name>")
@dry_run_option
@run_dir_option
def delete(portchannel_name: str, dry_run: bool, run_dir: str | None) -> None:
    """Remove a PortChannel (it must have no members, VLANs or addresses left)."""
    run_edit(run_dir, lambda config: edit.delete(config, portchannel_name), dry_run=dry_run)


@portchannel.group("member")
def member() -> None:
    """Add or remove PortChannel members."""


@member.command("add")
@click.argument("portchannel_name", metavar="<portchannel_name>")
@click.argument("port_name", metavar="<port_name>")
@dry_run_option
@run_dir_option
def add_member(portchannel_name: str, port_name: str, dry_run: bool, run_dir: str | None) -> None:
    """Add a port to a PortChannel."""
    run_edit(run_dir, lambda config: edit.add_member(config, portchannel_name, port_name), dry_run=dry_run)


@member.command("del")
@click.argument("portchannel_name", metavar="<portchannel_name>")
@click.argument("port_name", metavar="<port_name>")
@dry_run_option
@run_dir_option
def del_member(portchannel_name: str, port_name: str, dry_run: bool, run_dir: str | None) -> None:
    """Remove a port from a PortChannel."""
    run_edit(run_dir, lambda config: edit.delete_member(config, portchannel_name, port_name), dry_run=dry_run)
