"""``nos config interface ...``: per-interface configuration commands (SONiC's words)."""

from __future__ import annotations

import time

import click

from nos.cfgmgr.breakout import BreakoutRefused, target_ports
from nos.cli.common import connect, fail, run_dir_option
from nos.db import ConfigDBConnector, Table
from nos.platform.sku import UnknownSku, load_sku
from nos.schema.dbconfig import CONFIG_DB, COUNTERS_DB
from nos.schema.tables import CFG_BREAKOUT_CFG_TABLE_NAME, CFG_DEVICE_METADATA_TABLE_NAME, COUNTERS_PORT_NAME_MAP


@click.group()
def interface() -> None:
    """Configure interfaces."""


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
