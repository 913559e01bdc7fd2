"""``nos config mclag add|del|keepalive-interval|session-timeout|member add|del|unique-ip add|del``, in
sonic-utilities' words; each command is one validated CONFIG_DB transaction (``--dry-run`` prints the
patch); what it writes is in ``nos.cli.edits.mclag``."""

from __future__ import annotations

import click

from nos.cli.common import dry_run_option, run_dir_option
from nos.cli.edits import mclag as edit
from nos.cli.txn import run_edit


@click.group()
def mclag() -> None:
    """MCLAG-related configuration tasks."""


@mclag.command("add")
@click.argument("domain_id", metavar="<domain_id>", type=click.IntRange(1, 4095))
@click.argument("source_ip_addr", metavar="<source_ip_addr>")
@click.argument("peer_ip_addr", metavar="<peer_ip_addr>")
@click.argument("peer_ifname", metavar="<peer_ifname>", required=False)
@dry_run_option
@run_dir_option
def add(domain_id: int, source_ip_addr: str, peer_ip_addr: str, peer_ifname: str | None, dry_run: bool,
        run_dir: str | None) -> None:
    """Add MCLAG Domain"""
    run_edit(run_dir, lambda config: edit.add(config, domain_id, source_ip_addr, peer_ip_addr, peer_ifname),
             dry_run=dry_run)


@mclag.command("del")
@click.argument("domain_id", metavar="<domain_id>", type=click.IntRange(1, 4095))
@dry_run_option
@run_dir_option
def delete(domain_id: int, dry_run: bool, run_dir: str | None) -> None:
    """Delete MCLAG Domain (and its MCLAG interfaces)"""
    run_edit(run_dir, lambda config: edit.delete(config, domain_id), dry_run=dry_run)


@mclag.command("keepalive-interval")
@click.argument("domain_id", metavar="<domain_id>")
@click.argument("time_in_secs", metavar="<time_in_secs>", type=int)
@dry_run_option
@run_dir_option
def keepalive_interval(domain_id: str, time_in_secs: int, dry_run: bool, run_dir: str | None) -> None:
    """Configure MCLAG Keepalive timer value in secs"""
    run_edit(run_dir, lambda config: edit.keepalive_interval(config, domain_id, time_in_secs), dry_run=dry_run)


@mclag.command("session-timeout")
@click.argument("domain_id", metavar="<domain_id>")
@click.argument("time_in_secs", metavar="<time_in_secs>", type=int)
@dry_run_option
@run_dir_option
def session_timeout(domain_id: str, time_in_secs: int, dry_run: bool, run_dir: str | None) -> None:
    """Configure MCLAG Session timeout value in secs"""
    run_edit(run_dir, lambda config: edit.session_timeout(config, domain_id, time_in_secs), dry_run=dry_run)


@mclag.group("member")
def member() -> None:
    """Add or remove MCLAG member PortChannels."""


@member.command("add")
@click.argument("domain_id", metavar="<domain_id>")
@click.argument("portchannel_names", metavar="<portchannel_names>")
@dry_run_option
@run_dir_option
def add_member(domain_id: str, portchannel_names: str, dry_run: bool, run_dir: str | None) -> None:
    """Add member MCLAG interfaces to an MCLAG Domain"""
    run_edit(run_dir, lambda config: edit.add_members(config, domain_id, portchannel_names), dry_run=dry_run)


@member.command("del")
@click.argument("domain_id", metavar="<domain_id>")
@click.argument("portchannel_names", metavar="<portchannel_names>")
@dry_run_option
@run_dir_option
def del_member(domain_id: str, portchannel_names: str, dry_run: bool, run_dir: str | None) -> None:
    """Delete member MCLAG interfaces from an MCLAG Domain"""
    run_edit(run_dir, lambda config: edit.del_members(config, domain_id, portchannel_names), dry_run=dry_run)


@mclag.group("unique-ip")
def unique_ip() -> None:
    """Configure Unique IP on MCLAG Vlan interface"""


@unique_ip.command("add")
@click.argument("interface_names", metavar="<interface_names>")
@dry_run_option
@run_dir_option
def add_unique_ip(interface_names: str, dry_run: bool, run_dir: str | None) -> None:
    """Add Unique IP on MCLAG Vlan interface"""
    run_edit(run_dir, lambda config: edit.add_unique_ip(config, interface_names), dry_run=dry_run)


@unique_ip.command("del")
@click.argument("interface_names", metavar="<interface_names>")
@dry_run_option
@run_dir_option
def del_unique_ip(interface_names: str, dry_run: bool, run_dir: str | None) -> None:
    """Delete Unique IP from MCLAG Vlan interface"""
    run_edit(run_dir, lambda config: edit.del_unique_ip(config, interface_names), dry_run=dry_run)
