"""``nos show pfc counters`` and ``nos show pfc priority [<if>]``.

As sonic-utilities' ``scripts/pfcstat``: two tables, ``Port Rx`` and ``Port Tx`` with ``PFC0..PFC7`` from
``COUNTERS:<port oid>`` ``SAI_PORT_STAT_PFC_<n>_RX_PKTS`` / ``_TX_PKTS`` (thousands separators, N/A when
absent), separated by an empty line; ``--json`` gives ``{"rx": {port: {"PFC0": ...}}, "tx": {...}}``.
``--history`` is pfcstat's pause history: per port and priority ``SAI_``/``EST_PORT_STAT_PFC_<n>_ON2OFF_RX_PKTS``
and ``..._RX_PAUSE_DURATION_US``, ``EST_..._RECENT_PAUSE_TIME_US`` and ``..._RECENT_PAUSE_TIMESTAMP`` (µs since
the epoch, printed as a local date), an empty line after each port; ``--json`` ``{port: {"PFC0": {column: ...}}}``.
As ``pfc show priority``: CONFIG_DB PORT_QOS_MAP ``pfc_enable`` per port (``Interface``, ``Lossless
priorities``), framed by empty lines as SONiC prints it; ``--json`` gives ``{port: "3,4"}``. An interface
without a PORT_QOS_MAP row is "Cannot find interface <if>" on stdout, exit 0, as SONiC.
As ``pfc show asymmetric``: CONFIG_DB PORT ``pfc_asym`` (N/A when unset) of every ``Ethernet*`` port
(``Interface``, ``Asymmetric``), framed alike; an unknown interface is an empty table, as SONiC prints it;
``--json`` gives ``{port: "off"}``.
The table functions are pure; the click commands do the reading.
"""

from __future__ import annotations

import datetime
from typing import Any

import click
from tabulate import tabulate

from nos.cli.common import fail, json_option, print_json, run_dir_option
from nos.cli.show.counters_db import Counters, load_counters, stat_value, with_commas
from nos.cli.show.interfaces import load_snapshot
from nos.cli.show.render import NA, Snapshot, natsorted
from nos.schema import tables as tbl
from nos.schema.dbconfig import CONFIG_DB

PRIORITIES = range(8)
TITLES = [f"PFC{n}" for n in PRIORITIES]


def pfc_rows(c: Counters, direction: str) -> list[list[str]]:
    """One row per port: its name and the eight PFC frame counters of ``direction`` (RX or TX)."""
    oids = c.map(tbl.COUNTERS_PORT_NAME_MAP)
    rows = []
    for port in c.ports():
        stats = c.stat(tbl.COUNTERS_TABLE, oids[port])
        rows.append([port, *(with_commas(stat_value(stats, f"SAI_PORT_STAT_PFC_{n}_{direction}_PKTS"))
                             for n in PRIORITIES)])
    return rows


def pfc_text(c: Counters) -> str:
    rx = tabulate(pfc_rows(c, "RX"), ["Port Rx", *TITLES], tablefmt="simple", stralign="right")
    tx = tabulate(pfc_rows(c, "TX"), ["Port Tx", *TITLES], tablefmt="simple", stralign="right")
    return f"{rx}\n\n{tx}"


HISTORY_HEADER = ["Port", "Priority", "RX Pause Transitions", "Total RX Pause Time US", "Recent RX Pause Time US",
                  "Recent RX Pause Timestamp"]
HISTORY_TOTALS = ("ON2OFF_RX_PKTS", "RX_PAUSE_DURATION_US")  # SAI_PORT_STAT_PFC_<n>_..., else EST_...
HISTORY_RECENT = ("RECENT_PAUSE_TIME_US", "RECENT_PAUSE_TIMESTAMP")  # EST_PORT_STAT_PFC_<n>_... only


def pause_timestamp(text: str, tz: datetime.tzinfo | None = None) -> str:
    """Microseconds since the epoch as netstat's format_microseconds_as_datetime prints them (local time,
    or ``tz``); anything else unchanged."""
    try:
        return datetime.datetime.fromtimestamp(float(text) / 1_000_000, tz).strftime("%m/%d/%Y, %H:%M:%S")
    except (ValueError, OverflowError, OSError):
        return text


def history_rows(c: Counters, tz: datetime.tzinfo | None = None) -> list[list[str]]:
    """pfcstat --history's rows: per port and priority the pause transitions, total and recent pause time
    and the recent pause's time stamp (N/A when absent), an empty row after each port."""
    oids = c.map(tbl.COUNTERS_PORT_NAME_MAP)
    rows: list[list[str]] = []
    for port in c.ports():
        stats = c.stat(tbl.COUNTERS_TABLE, oids[port]) or {}
        for n in PRIORITIES:
            totals = [stats.get(f"SAI_PORT_STAT_PFC_{n}_{name}", stats.get(f"EST_PORT_STAT_PFC_{n}_{name}", NA))
                      for name in HISTORY_TOTALS]
            time_us, stamp = (stats.get(f"EST_PORT_STAT_PFC_{n}_{name}", NA) for name in HISTORY_RECENT)
            rows.append([port, f"PFC{n}", *map(with_commas, totals), with_commas(time_us), pause_timestamp(stamp, tz)])
        rows.append([])
    return rows


def history_text(rows: list[list[str]]) -> str:
    return tabulate(rows, HISTORY_HEADER, tablefmt="simple", stralign="right")


def history_json(rows: list[list[str]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for row in rows:
        if row:
            found.setdefault(row[0], {})[row[1]] = dict(zip(HISTORY_HEADER[2:], row[2:], strict=True))
    return found


def pfc_json(c: Counters) -> dict[str, Any]:
    return {direction.lower(): {row[0]: dict(zip(TITLES, row[1:], strict=True)) for row in pfc_rows(c, direction)}
            for direction in ("RX", "TX")}


def lossless_priorities(snap: Snapshot, interface: str | None = None) -> dict[str, str]:
    """Port -> its ``pfc_enable`` (N/A when the PORT_QOS_MAP row has none), naturally sorted."""
    qos = snap.rows(CONFIG_DB, tbl.CFG_PORT_QOS_MAP_TABLE_NAME)
    names = [interface] if interface else natsorted(qos)
    return {name: snap.get(CONFIG_DB, tbl.CFG_PORT_QOS_MAP_TABLE_NAME, name, "pfc_enable") or NA for name in names}


def priority_text(found: dict[str, str]) -> str:
    return tabulate(list(found.items()), ["Interface", "Lossless priorities"], tablefmt="simple", missingval="")


def asymmetric_pfc(snap: Snapshot, interface: str | None = None) -> dict[str, str]:
    """``Ethernet*`` port -> its ``pfc_asym`` (N/A when unset), naturally sorted; only ``interface`` if named."""
    ports = snap.rows(CONFIG_DB, tbl.CFG_PORT_TABLE_NAME)
    names = [interface] if interface else natsorted(ports)
    return {name: snap.get(CONFIG_DB, tbl.CFG_PORT_TABLE_NAME, name, "pfc_asym") or NA
            for name in names if name in ports and name.startswith("Ethernet")}


def asymmetric_text(found: dict[str, str]) -> str:
    return tabulate(list(found.items()), ["Interface", "Asymmetric"], tablefmt="simple", missingval="")


def _framed(text: str) -> None:
    """pfc's tables: the (empty) namespace line, the table, an empty line."""
    click.echo()
    click.echo(text)
    click.echo()


@click.group()
def pfc() -> None:
    """Show PFC counters, lossless priorities and asymmetric PFC."""


@pfc.command()
@click.option("--history", is_flag=True, help="Show the pause transitions and times per priority")
@json_option
@run_dir_option
def counters(history: bool, as_json: bool, run_dir: str | None) -> None:
    """Show PFC frames received and sent per port and priority."""
    c = load_counters(run_dir, [tbl.COUNTERS_PORT_NAME_MAP], [(tbl.COUNTERS_TABLE, tbl.COUNTERS_PORT_NAME_MAP)])
    if history:
        rows = history_rows(c)
        if as_json:
            print_json(history_json(rows))
        else:
            click.echo(history_text(rows))
    elif as_json:
        print_json(pfc_json(c))
    else:
        click.echo(pfc_text(c))


@pfc.command()
@click.argument("interface", required=False)
@json_option
@run_dir_option
def priority(interface: str | None, as_json: bool, run_dir: str | None) -> None:
    """Show the lossless (PFC-enabled) priorities of each port."""
    snap = load_snapshot(run_dir, [(CONFIG_DB, tbl.CFG_PORT_QOS_MAP_TABLE_NAME)])
    if interface and snap.row(CONFIG_DB, tbl.CFG_PORT_QOS_MAP_TABLE_NAME, interface) is None:
        if as_json:
            fail(f"Cannot find interface {interface}")
        click.echo(f"Cannot find interface {interface}")
        return
    found = lossless_priorities(snap, interface)
    if as_json:
        print_json(found)
    else:
        _framed(priority_text(found))


@pfc.command()
@click.argument("interface", required=False)
@json_option
@run_dir_option
def asymmetric(interface: str | None, as_json: bool, run_dir: str | None) -> None:
    """Show whether asymmetric PFC is on for each port."""
    found = asymmetric_pfc(load_snapshot(run_dir, [(CONFIG_DB, tbl.CFG_PORT_TABLE_NAME)]), interface)
    if as_json:
        print_json(found)
    else:
        _framed(asymmetric_text(found))
