"""``nos show pfcwd config [ports]`` and ``nos show pfcwd stats [-e] [queues]`` (sonic-utilities pfcwd/main.py).

* config: CONFIG_DB ``PFC_WD|<port>`` per ``Ethernet*`` port of COUNTERS_PORT_NAME_MAP that has a row, columns ``PORT
  ACTION "DETECTION TIME" "RESTORATION TIME" HISTORY`` (defaults drop, N/A, infinite, disable; HISTORY is
  ``pfc_stat_history``), preceded by "Changed polling interval to <n>ms" and "BIG_RED_SWITCH status is <s>"
  when ``PFC_WD|GLOBAL`` has them.
* stats: per queue of COUNTERS_QUEUE_NAME_MAP (naturally sorted), ``QUEUE STATUS "STORM DETECTED/RESTORED"
  "TX OK/DROP" "RX OK/DROP" "TX LAST OK/DROP" "RX LAST OK/DROP"`` from ``COUNTERS:<queue oid>``
  ``PFC_WD_STATUS`` and ``PFC_WD_QUEUE_STATS_*`` (``a/b``, 0 when absent); queues whose counters are all
  zero are left out unless ``-e``. Right-aligned, tabulate ``simple``, as SONiC.
``--json`` gives ``{port: {column: value}}`` / ``{queue: {column: value}}`` (config: without HISTORY, as
before the column was added). Table functions are pure.
"""

from __future__ import annotations

from typing import Any

import click
from tabulate import tabulate

from nos.cli.common import json_option, print_json, run_dir_option
from nos.cli.show.counters_db import Counters, load_counters
from nos.cli.show.render import NA, natsorted
from nos.schema import tables as tbl
from nos.schema.dbconfig import CONFIG_DB

STATS_DESCRIPTION = (
    ("STORM DETECTED/RESTORED", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"),
    ("TX OK/DROP", "PFC_WD_QUEUE_STATS_TX_PACKETS", "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"),
    ("RX OK/DROP", "PFC_WD_QUEUE_STATS_RX_PACKETS", "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS"),
    ("TX LAST OK/DROP", "PFC_WD_QUEUE_STATS_TX_PACKETS_LAST", "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS_LAST"),
    ("RX LAST OK/DROP", "PFC_WD_QUEUE_STATS_RX_PACKETS_LAST", "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS_LAST"),
)
CONFIG_DESCRIPTION = (("ACTION", "action", "drop"), ("DETECTION TIME", "detection_time", NA),
                      ("RESTORATION TIME", "restoration_time", "infinite"),
                      ("HISTORY", "pfc_stat_history", "disable"))
STATS_HEADER = ["QUEUE", "STATUS", *(d[0] for d in STATS_DESCRIPTION)]
CONFIG_HEADER = ["PORT", *(d[0] for d in CONFIG_DESCRIPTION)]
PHYSICAL = "Ethernet"  # pfcwd's get_all_ports: the physical ports of COUNTERS_PORT_NAME_MAP
CONFIG_JSON_COLUMNS = len(CONFIG_HEADER) - 1  # --json leaves out HISTORY


def stats_rows(c: Counters, queues: tuple[str, ...] = (), empty: bool = False) -> list[list[str]]:
    names = c.map(tbl.COUNTERS_QUEUE_NAME_MAP)
    out = []
    for queue in queues or tuple(natsorted(names)):
        oid = names.get(queue)
        stats = c.stat(tbl.COUNTERS_TABLE, oid) if oid else None
        if stats is None:
            continue
        cells = [f"{stats.get(ok, '0')}/{stats.get(bad, '0')}" for _, ok, bad in STATS_DESCRIPTION]
        if empty or cells != ["0/0"] * len(STATS_DESCRIPTION):
            out.append([queue, stats.get("PFC_WD_STATUS", NA), *cells])
    return out


def stats_text(table: list[list[str]]) -> str:
    return tabulate(table, STATS_HEADER, stralign="right", numalign="right", tablefmt="simple")


def config_rows(c: Counters, ports: tuple[str, ...] = ()) -> list[list[str]]:
    wd = c.rows.rows(CONFIG_DB, tbl.CFG_PFC_WD_TABLE_NAME)
    out = []
    for port in ports or tuple(natsorted(p for p in c.map(tbl.COUNTERS_PORT_NAME_MAP) if p.startswith(PHYSICAL))):
        row = wd.get(port)
        if row:
            out.append([port, *(str(row.get(name, default)) for _, name, default in CONFIG_DESCRIPTION)])
    return out


def config_preamble(c: Counters) -> list[str]:
    glob = c.rows.row(CONFIG_DB, tbl.CFG_PFC_WD_TABLE_NAME, "GLOBAL") or {}
    lines = []
    if "POLL_INTERVAL" in glob:
        lines.append(f"Changed polling interval to {glob['POLL_INTERVAL']}ms")
    if "BIG_RED_SWITCH" in glob:
        lines.append(f"BIG_RED_SWITCH status is {glob['BIG_RED_SWITCH']}")
    return lines


def config_text(c: Counters, ports: tuple[str, ...] = ()) -> str:
    """What ``show pfcwd config`` prints: the global lines (only when some port has a row), then the table."""
    table = config_rows(c, ports)
    lines = config_preamble(c) if table else []
    return "\n".join([*lines, tabulate(table, CONFIG_HEADER, stralign="right", numalign="right", tablefmt="simple")])


def config_json(c: Counters, ports: tuple[str, ...] = ()) -> dict[str, Any]:
    table = [row[:CONFIG_JSON_COLUMNS] for row in config_rows(c, ports)]
    return {"global": c.rows.row(CONFIG_DB, tbl.CFG_PFC_WD_TABLE_NAME, "GLOBAL") or {},
            "ports": to_json(table, CONFIG_HEADER[:CONFIG_JSON_COLUMNS])}


def to_json(table: list[list[str]], header: list[str]) -> dict[str, Any]:
    return {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in table}


@click.group()
def pfcwd() -> None:
    """Show the PFC watchdog's configuration and statistics."""


@pfcwd.command()
@click.option("-e", "--empty", is_flag=True, help="also queues whose watchdog counters are all zero")
@click.argument("queues", nargs=-1)
@json_option
@run_dir_option
def stats(empty: bool, queues: tuple[str, ...], as_json: bool, run_dir: str | None) -> None:
    """Show PFC watchdog statistics per queue."""
    c = load_counters(run_dir, [tbl.COUNTERS_QUEUE_NAME_MAP], [(tbl.COUNTERS_TABLE, tbl.COUNTERS_QUEUE_NAME_MAP)])
    table = stats_rows(c, queues, empty)
    if as_json:
        print_json(to_json(table, STATS_HEADER))
    else:
        click.echo(stats_text(table))


@pfcwd.command()
@click.argument("ports", nargs=-1)
@json_option
@run_dir_option
def config(ports: tuple[str, ...], as_json: bool, run_dir: str | None) -> None:
    """Show the PFC watchdog's configuration per port."""
    c = load_counters(run_dir, [tbl.COUNTERS_PORT_NAME_MAP], tables=[(CONFIG_DB, tbl.CFG_PFC_WD_TABLE_NAME)])
    if as_json:
        print_json(config_json(c, ports))
    else:
        click.echo(config_text(c, ports))
