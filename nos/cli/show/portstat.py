"""``nos show interfaces counters [-a] [-i list]``, ``... counters errors`` and ``... counters rates``.

SONiC's portstat (sonic-utilities ``utilities_common/portstat.py``): per port in COUNTERS_PORT_NAME_MAP,
RX_OK = ``SAI_PORT_STAT_IF_IN_UCAST_PKTS`` + ``..._IF_IN_NON_UCAST_PKTS``, RX_ERR = ``..._IF_IN_ERRORS``,
RX_DRP = ``..._IF_IN_DISCARDS``, RX_OVR = ``..._ETHER_RX_OVERSIZE_PKTS`` (TX alike), and with ``-a`` the
trimming counters TRIM/TRIM_TX/TRIM_DRP (``..._TRIM_PACKETS``, ``_TX_TRIM_PACKETS``,
``_DROPPED_TRIM_PACKETS``; not in ``--json``, which keeps its columns), printed with
thousands separators, N/A when the stat (or the port's whole ``COUNTERS:<oid>`` hash) is absent. STATE
is U (admin and oper up), D (oper down), X (admin down) from APPL_DB PORT_TABLE. The rates are not
computed here: as portstat does, they are read from ``RATES:<oid>`` (``RX_BPS``, ``RX_PPS``, ``TX_BPS``,
``TX_PPS``, optionally ``RX_UTIL``/``TX_UTIL``), which orchagent's ``port_rates.lua`` keeps in SONiC;
N/A while that hash is absent. UTIL is BPS over the port speed (STATE_DB's while the port is up, else
APPL_DB's). ``--json`` prints portstat's ``-j`` shape: ``{port: {column: value}}``.
The first half is pure (plain data in, text out); the click commands at the end do the reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
from tabulate import tabulate

from nos.cli.common import fail, json_option, print_json, run_dir_option
from nos.cli.edits.common import Refused, parse_interface_list
from nos.cli.show.counters_db import NA, RATES_TABLE, Counters, load_counters, stat_value, with_commas
from nos.schema import tables as tbl
from nos.schema.dbconfig import APPL_DB, STATE_DB

HEADER_STD = ("IFACE", "STATE", "RX_OK", "RX_BPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR",
              "TX_OK", "TX_BPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR")
HEADER_ALL_JSON = ("IFACE", "STATE", "RX_OK", "RX_BPS", "RX_PPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR",
                   "TX_OK", "TX_BPS", "TX_PPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR")
HEADER_ALL = (*HEADER_ALL_JSON, "TRIM", "TRIM_TX", "TRIM_DRP")
HEADER_ERRORS = ("IFACE", "STATE", "RX_ERR", "RX_DRP", "RX_OVR", "TX_ERR", "TX_DRP", "TX_OVR")
HEADER_RATES = ("IFACE", "STATE", "RX_OK", "RX_BPS", "RX_PPS", "RX_UTIL", "TX_OK", "TX_BPS", "TX_PPS", "TX_UTIL")
VIEWS = {"std": HEADER_STD, "all": HEADER_ALL, "errors": HEADER_ERRORS, "rates": HEADER_RATES}
JSON_VIEWS = {**VIEWS, "all": HEADER_ALL_JSON}  # --json -a as before the trimming columns

_P = "SAI_PORT_STAT_"
COUNTER_STATS = {
    "RX_OK": (f"{_P}IF_IN_UCAST_PKTS", f"{_P}IF_IN_NON_UCAST_PKTS"), "RX_ERR": (f"{_P}IF_IN_ERRORS",),
    "RX_DRP": (f"{_P}IF_IN_DISCARDS",), "RX_OVR": (f"{_P}ETHER_RX_OVERSIZE_PKTS",),
    "TX_OK": (f"{_P}IF_OUT_UCAST_PKTS", f"{_P}IF_OUT_NON_UCAST_PKTS"), "TX_ERR": (f"{_P}IF_OUT_ERRORS",),
    "TX_DRP": (f"{_P}IF_OUT_DISCARDS",), "TX_OVR": (f"{_P}ETHER_TX_OVERSIZE_PKTS",),
    "TRIM": (f"{_P}TRIM_PACKETS",), "TRIM_TX": (f"{_P}TX_TRIM_PACKETS",), "TRIM_DRP": (f"{_P}DROPPED_TRIM_PACKETS",),
}
PORT_TABLES = ((APPL_DB, tbl.APP_PORT_TABLE_NAME), (STATE_DB, tbl.STATE_PORT_TABLE_NAME))


def format_brate(rate: float | None) -> str:
    """Bytes/s as portstat prints them: ``653.87 MB/s``, ``12.50 KB/s``, ``0.00 B/s``."""
    if rate is None:
        return NA
    if rate > 10_000_000:
        return f"{rate / 1000 / 1000:.2f} MB/s"
    if rate > 10_000:
        return f"{rate / 1000:.2f} KB/s"
    return f"{rate:.2f} B/s"


def format_prate(rate: float | None) -> str:
    return NA if rate is None else f"{rate:.2f}/s"


def format_util(rate: float | None, speed_mbps: int | None) -> str:
    """Bytes/s over the port speed (Mb/s) as a percentage."""
    if rate is None or not speed_mbps:
        return NA
    return f"{rate / (speed_mbps * 1000 * 1000 / 8.0) * 100:.2f}%"


def port_state(c: Counters, port: str) -> str:
    admin = c.rows.get(APPL_DB, tbl.APP_PORT_TABLE_NAME, port, "admin_status")
    oper = c.rows.get(APPL_DB, tbl.APP_PORT_TABLE_NAME, port, "oper_status")
    if admin is None or oper is None:
        return NA
    if admin.lower() == "down":
        return "X"
    if admin.lower() == "up":
        return {"up": "U", "down": "D"}.get(oper.lower(), NA)
    return NA


def port_speed(c: Counters, port: str) -> int | None:
    """STATE_DB's speed while the port is oper up, else APPL_DB's (portstat's get_port_speed)."""
    speed = c.rows.get(STATE_DB, tbl.STATE_PORT_TABLE_NAME, port, "speed")
    if speed is None or speed == NA or c.rows.get(APPL_DB, tbl.APP_PORT_TABLE_NAME, port, "oper_status") != "up":
        speed = c.rows.get(APPL_DB, tbl.APP_PORT_TABLE_NAME, port, "speed")
    return int(speed) if speed and speed.isdigit() else None


def _rate(rates: dict[str, str] | None, name: str) -> float | None:
    try:
        return float(rates[name]) if rates is not None and name in rates else None
    except ValueError:
        return None


def port_values(c: Counters, port: str) -> dict[str, str]:
    """Every column portstat can show for one port, formatted."""
    oid = c.map(tbl.COUNTERS_PORT_NAME_MAP)[port]
    stats, rates = c.stat(tbl.COUNTERS_TABLE, oid), c.stat(RATES_TABLE, oid)
    rates_row = dict(rates) if rates is not None else None
    values = {column: with_commas(stat_value(stats, *names)) for column, names in COUNTER_STATS.items()}
    values.update(IFACE=port, STATE=port_state(c, port))
    speed = port_speed(c, port)
    for side in ("RX", "TX"):
        bps = _rate(rates_row, f"{side}_BPS")
        util = _rate(rates_row, f"{side}_UTIL")
        values[f"{side}_BPS"] = format_brate(bps)
        values[f"{side}_PPS"] = format_prate(_rate(rates_row, f"{side}_PPS"))
        values[f"{side}_UTIL"] = format_util(bps, speed) if util is None else f"{util:.2f}%"
    return values


def port_table(c: Counters, view: str = "std", names: set[str] | None = None,
               header: Sequence[str] | None = None) -> list[list[str]]:
    """One row per port (naturally sorted; only ``names`` when given), the view's columns (or ``header``)."""
    header = header or VIEWS[view]
    return [[port_values(c, port)[column] for column in header] for port in c.ports()
            if names is None or port in names]


def table_text(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    return tabulate(rows, list(header), tablefmt="simple", stralign="right")


def table_json(header: Sequence[str], rows: Sequence[Sequence[str]]) -> dict[str, dict[str, Any]]:
    """netstat's table_as_json: ``{first column: {other column: value}}``."""
    return {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in rows}


# ---- the commands ------------------------------------------------------------------------------------


def _names(text: str | None, ports: list[str]) -> set[str] | None:
    if not text:
        return None
    try:
        names = set(parse_interface_list(text))
    except Refused as exc:
        fail(str(exc))
    if not names & set(ports):
        fail(f"Invalid interface name {text}: no such port")
    return names


def show_ports(run_dir: str | None, view: str, interfaces: str | None, as_json: bool) -> None:
    stats = [(tbl.COUNTERS_TABLE, tbl.COUNTERS_PORT_NAME_MAP), (RATES_TABLE, tbl.COUNTERS_PORT_NAME_MAP)]
    c = load_counters(run_dir, [tbl.COUNTERS_PORT_NAME_MAP], stats, PORT_TABLES)
    names = _names(interfaces, c.ports())
    if as_json:
        print_json(table_json(JSON_VIEWS[view], port_table(c, view, names, JSON_VIEWS[view])))
        return
    rows = port_table(c, view, names)
    if rows:
        click.echo(table_text(VIEWS[view], rows))


@click.group(invoke_without_command=True)
@click.option("-a", "--printall", is_flag=True, help="Show all counters (adds RX_PPS and TX_PPS)")
@click.option("-i", "--interface", "interfaces", help="Interfaces: a name, a comma list or a range")
@json_option
@run_dir_option
@click.pass_context
def counters(ctx: click.Context, printall: bool, interfaces: str | None, as_json: bool, run_dir: str | None) -> None:
    """Show interface counters."""
    if ctx.invoked_subcommand is None:
        show_ports(run_dir, "all" if printall else "std", interfaces, as_json)


@counters.command()
@click.option("-i", "--interface", "interfaces", help="Interfaces: a name, a comma list or a range")
@json_option
@run_dir_option
def errors(interfaces: str | None, as_json: bool, run_dir: str | None) -> None:
    """Show interface error and drop counters."""
    show_ports(run_dir, "errors", interfaces, as_json)


@counters.command()
@click.option("-i", "--interface", "interfaces", help="Interfaces: a name, a comma list or a range")
@json_option
@run_dir_option
def rates(interfaces: str | None, as_json: bool, run_dir: str | None) -> None:
    """Show interface rates (from COUNTERS_DB RATES, N/A until rates are published)."""
    show_ports(run_dir, "rates", interfaces, as_json)
