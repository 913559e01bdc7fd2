"""``nos show qos interface [<if>]``: the QoS a port is configured with, from CONFIG_DB.

sonic-utilities has no such show command (its users read PORT_QOS_MAP and QUEUE with ``show
runningconfiguration``), so the layout is ours, in the style of ``ecnconfig -l``: per port an
``Interface: <name>`` line, a field/value table of its PORT_QOS_MAP row (maps by name, ``pfc_enable``,
``pfcwd_sw_enable``, the port scheduler; SONiC's field names), then its QUEUE rows (``Queue``,
``Scheduler``, ``WRED profile``). Rows keyed by several ports (``Ethernet0,Ethernet4``) or queue ranges
(``0-2``) count for each. ``PORT_QOS_MAP|global`` is shown as ``Interface: global``. ``--json`` gives
``{port: {"port_qos_map": {field: value}, "queues": {index: {"scheduler", "wred_profile"}}}}``.
"""

from __future__ import annotations

from typing import Any

import click
from tabulate import tabulate

from nos.cli.common import fail, json_option, print_json, run_dir_option
from nos.cli.show.interfaces import load_snapshot
from nos.cli.show.render import NA, Snapshot, natsorted
from nos.schema import tables as tbl
from nos.schema.dbconfig import CONFIG_DB

TABLES = [(CONFIG_DB, tbl.CFG_PORT_TABLE_NAME), (CONFIG_DB, tbl.CFG_PORT_QOS_MAP_TABLE_NAME),
          (CONFIG_DB, tbl.CFG_QUEUE_TABLE_NAME)]


def _queues(key: str) -> list[str]:
    low, _, high = key.partition("-")
    if not (low.isdigit() and (high or low).isdigit()):
        return [key]
    return [str(q) for q in range(int(low), int(high or low) + 1)]


def port_qos(snap: Snapshot, interface: str | None = None) -> dict[str, dict[str, Any]]:
    """Port -> its PORT_QOS_MAP fields and its queues' scheduler and WRED profile."""
    found: dict[str, dict[str, Any]] = {}
    for key, row in snap.rows(CONFIG_DB, tbl.CFG_PORT_QOS_MAP_TABLE_NAME).items():
        for port in key.split(","):
            found.setdefault(port, {"port_qos_map": {}, "queues": {}})["port_qos_map"].update(
                {f: v for f, v in row.items() if f != "NULL"})
    for key, row in snap.rows(CONFIG_DB, tbl.CFG_QUEUE_TABLE_NAME).items():
        ports, _, queues = key.rpartition("|")
        for port in ports.split(","):
            entry = found.setdefault(port, {"port_qos_map": {}, "queues": {}})
            for queue in _queues(queues):
                entry["queues"][queue] = {"scheduler": row.get("scheduler", NA),
                                          "wred_profile": row.get("wred_profile", NA)}
    names = [interface] if interface else natsorted(found)
    return {name: {"port_qos_map": dict(sorted(found.get(name, {}).get("port_qos_map", {}).items())),
                   "queues": dict(sorted(found.get(name, {}).get("queues", {}).items(), key=lambda q: int(q[0])
                                         if q[0].isdigit() else -1))}
            for name in names}


def qos_text(found: dict[str, dict[str, Any]]) -> str:
    blocks = []
    for name, entry in found.items():
        lines = [f"Interface: {name}"]
        fields = [[f, v] for f, v in entry["port_qos_map"].items()]
        lines.append(tabulate(fields) if fields else "(no PORT_QOS_MAP entry)")
        if entry["queues"]:
            rows = [[q, v["scheduler"], v["wred_profile"]] for q, v in entry["queues"].items()]
            lines.append(tabulate(rows, ["Queue", "Scheduler", "WRED profile"], tablefmt="simple"))
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


@click.group()
def qos() -> None:
    """Show QoS configuration."""


@qos.command()
@click.argument("interface", required=False)
@json_option
@run_dir_option
def interface(interface: str | None, as_json: bool, run_dir: str | None) -> None:
    """Show the QoS maps, PFC priorities and queue schedulers/WRED profiles of each port."""
    snap = load_snapshot(run_dir, TABLES)
    if interface and interface != "global" and snap.row(CONFIG_DB, tbl.CFG_PORT_TABLE_NAME, interface) is None:
        fail(f"Cannot find interface {interface}")
    found = port_qos(snap, interface)
    if as_json:
        print_json(found)
    else:
        click.echo(qos_text(found))
