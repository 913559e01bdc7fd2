"""``nos config interface ...``: per-interface configuration commands (SONiC's words).

``startup|shutdown <names>``, ``speed <port> <Mb/s>``, ``mtu <port> <bytes>``, ``ip add|remove <if>
<ip/len> [gw]`` (each one validated CONFIG_DB transaction, ``--dry-run`` prints the patch; what they
write is in ``nos.cli.edits.interface``), and ``breakout <cage> <mode>``.
"""

from __future__ import annotations

import time

import click

from nos.cfgmgr.breakout import BreakoutRefused, target_ports
from nos.cli.common import connect, dry_run_option, fail, run_dir_option
from nos.cli.edits import interface as edit
from nos.cli.txn import run_edit
from nos.db import ConfigDBConnector, DbError, Table
from nos.platform.sku import UnknownSku, load_sku
from nos.schema.dbconfig import CONFIG_DB, COUNTERS_DB, STATE_DB
from nos.schema.tables import (
    CFG_BREAKOUT_CFG_TABLE_NAME,
    CFG_DEVICE_METADATA_TABLE_NAME,
    COUNTERS_PORT_NAME_MAP,
    STATE_PORT_TABLE_NAME,
)


@click.group()
def interface() -> None:
    """Configure interfaces."""


@interface.command()
@click.argument("interface_name", metavar="<interface_name>")
@dry_run_option
@run_dir_option
def startup(interface_name: str, dry_run: bool, run_dir: str | None) -> None:
    """Start up interfaces (a name, a comma list, or a range like Ethernet0-8)."""
    run_edit(run_dir, lambda config: edit.set_admin_status(config, interface_name, "up"), dry_run=dry_run)


@interface.command()
@click.argument("interface_name", metavar="<interface_name>")
@dry_run_option
@run_dir_option
def shutdown(interface_name: str, dry_run: bool, run_dir: str | None) -> None:
    """Shut down interfaces (a name, a comma list, or a range like Ethernet0-8)."""
    run_edit(run_dir, lambda config: edit.set_admin_status(config, interface_name, "down"), dry_run=dry_run)


def supported_speeds(run_dir: str | None, port: str) -> list[int]:
    """STATE_DB ``PORT_TABLE|<port>`` ``supported_speeds`` (portsorch's), [] when not published."""
    _, dbs = connect(run_dir)
    try:
        raw = Table(dbs[STATE_DB], STATE_PORT_TABLE_NAME).hget(port, "supported_speeds") or ""
    except DbError as exc:
        fail(f"cannot read the switch's databases: {exc}")
    finally:
        dbs.close()
    return [int(s) for s in raw.split(",") if s.strip().isdigit()]


@interface.command()
@click.argument("interface_name", metavar="<interface_name>")
@click.argument("interface_speed", metavar="<interface_speed>", type=click.IntRange(min=1))
@dry_run_option
@run_dir_option
def speed(interface_name: str, interface_speed: int, dry_run: bool, run_dir: str | None) -> None:
    """Set a port's speed in Mb/s (400G = 400000)."""
    allowed = supported_speeds(run_dir, interface_name)
    run_edit(run_dir, lambda config: edit.set_speed(config, interface_name, interface_speed, allowed),
             dry_run=dry_run)


@interface.command()
@click.argument("interface_name", metavar="<interface_name>")
@click.argument("interface_mtu", metavar="<interface_mtu>", type=click.IntRange(68, 9216))
@dry_run_option
@run_dir_option
def mtu(interface_name: str, interface_mtu: int, dry_run: bool, run_dir: str | None) -> None:
    """Set a port's MTU (68..9216)."""
    run_edit(run_dir, lambda config: edit.set_mtu(config, interface_name, interface_mtu), dry_run=dry_run)


@interface.group()
def ip() -> None:
    """Add or remove IP addresses."""


@ip.command("add")
@click.argument("interface_name", metavar="<interface_name>")
@click.argument("ip_addr", metavar="<ip_addr>")
@click.argument("gw", metavar="<default gateway IP address>", required=False)
@dry_run_option
@run_dir_option
def ip_add(interface_name: str, ip_addr: str, gw: str | None, dry_run: bool, run_dir: str | None) -> None:
    """Add an IP address (ip/len) to an interface; the gateway is used for eth0 only."""
    if gw and interface_name != edit.MGMT_PORT:
        click.echo(f"Note: a default gateway is kept for {edit.MGMT_PORT} only; ignored for {interface_name}.",
                   err=True)
    run_edit(run_dir, lambda config: edit.add_address(config, interface_name, ip_addr, gw), dry_run=dry_run)


@ip.command("remove")
@click.argument("interface_name", metavar="<interface_name>")
@click.argument("ip_addr", metavar="<ip_addr>")
@dry_run_option
@run_dir_option
def ip_remove(interface_name: str, ip_addr: str, dry_run: bool, run_dir: str | None) -> None:
    """Remove an IP address from an interface."""
    run_edit(run_dir, lambda config: edit.remove_address(config, interface_name, ip_addr), dry_run=dry_run)


@interface.command()
@click.argument("parent")
@click.argument("mode")
@run_dir_option
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait until the ASIC has the new ports.")
@click.option("--timeout", default=30.0, show_default=True, help="Seconds to wait.")
def breakout(parent: str, mode: str, run_dir: str | None, wait: bool, timeout: float) -> None:
    """Break the cage PARENT out into MODE (e.g. 4x100G), or back (e.g. 1x400G[200G,100G])."""
    _, dbs = connect(run_dir)
    try:
        meta = Table(dbs[CONFIG_DB], CFG_DEVICE_METADATA_TABLE_NAME).get("localhost") or {}
        try:
            ports = target_ports(load_sku(meta.get("hwsku", "")), parent, mode)
        except (UnknownSku, BreakoutRefused) as exc:
            fail(str(exc))
        ConfigDBConnector(dbs[CONFIG_DB]).mod_entry(CFG_BREAKOUT_CFG_TABLE_NAME, parent, {"brkout_mode": mode})
        click.echo(f"Breakout {parent} -> {mode}: ports {', '.join(ports)}")
        if not wait:
            return
        counters = dbs[COUNTERS_DB].client
        deadline = time.monotonic() + timeout
        while missing := sorted(set(ports) - set(counters.hkeys(COUNTERS_PORT_NAME_MAP))):
            if time.monotonic() > deadline:
                fail(f"the ASIC does not have {', '.join(missing)} after {timeout:.0f}s "
                     "(see nos status and NOS_REJECTED_TABLE)")
            time.sleep(0.05)
        click.echo("Done: every new port is in the ASIC.")
    finally:
        dbs.close()
