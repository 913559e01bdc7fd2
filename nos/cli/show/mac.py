"""``nos show mac [-v vlan] [-p port] [-a mac] [-t type] [-c]``: the FDB as the ASIC holds it.

As sonic-utilities' ``scripts/fdbshow``, read from ASIC_DB (not STATE_DB): every
``ASIC_STATE:SAI_OBJECT_TYPE_FDB_ENTRY:{"bvid","mac","switch_id"}`` object; its bridge port
(``SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID``) leads through ``SAI_BRIDGE_PORT_ATTR_PORT_ID`` to a port or LAG named
by COUNTERS_PORT_NAME_MAP / COUNTERS_LAG_NAME_MAP, the ``bvid`` to ``SAI_VLAN_ATTR_VLAN_ID``;
``SAI_FDB_ENTRY_TYPE_STATIC`` is Static, anything else Dynamic. Entries whose bridge port or VLAN cannot
be resolved are skipped, as fdbshow does; a port oid that names no port or LAG is printed without its
``oid:0x``, as fdbshow does. Sorted by VLAN, stable over the order Redis returns the keys (as fdbshow),
numbered, then ``Total number of entries N``. ``--json`` gives the records.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import click
from tabulate import tabulate

from nos.cli.common import connect, fail, json_option, print_json, run_dir_option
from nos.cli.show.counters_db import read_counters
from nos.cli.show.render import Snapshot, TableId
from nos.db import DbError
from nos.schema import tables as tbl
from nos.schema.dbconfig import ASIC_DB

FDB_TABLE = f"{tbl.ASIC_STATE_TABLE}:SAI_OBJECT_TYPE_FDB_ENTRY"
BRIDGE_PORT_TABLE = f"{tbl.ASIC_STATE_TABLE}:SAI_OBJECT_TYPE_BRIDGE_PORT"
VLAN_TABLE = f"{tbl.ASIC_STATE_TABLE}:SAI_OBJECT_TYPE_VLAN"
FDB_TABLES: tuple[TableId, ...] = ((ASIC_DB, FDB_TABLE), (ASIC_DB, BRIDGE_PORT_TABLE), (ASIC_DB, VLAN_TABLE))
HEADER = ["No.", "Vlan", "MacAddress", "Port", "Type"]
OID_PREFIX = "oid:0x"
MAC = re.compile(r"([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}")


@dataclass(frozen=True)
class FdbEntry:
    vlan: int
    mac: str
    port: str
    type: str


def _endpoint(row: Mapping[str, Any]) -> str | None:
    endpoint = row.get("SAI_FDB_ENTRY_ATTR_ENDPOINT_IP")
    return endpoint if isinstance(endpoint, str) and endpoint not in ("0.0.0.0", "::") else None


def fdb_entries(snap: Snapshot, names: Mapping[str, str]) -> list[FdbEntry]:
    """The ASIC's FDB entries; ``names`` maps port/LAG oids to names."""
    bridge_ports = {oid: row.get("SAI_BRIDGE_PORT_ATTR_PORT_ID")
                    for oid, row in snap.rows(ASIC_DB, BRIDGE_PORT_TABLE).items()}
    vlans = snap.rows(ASIC_DB, VLAN_TABLE)
    found = []
    for key, row in snap.rows(ASIC_DB, FDB_TABLE).items():
        try:
            entry = json.loads(key)
        except ValueError:
            continue
        port = _endpoint(row)
        if port is None:
            target = bridge_ports.get(str(row.get("SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID", "")))
            if not isinstance(target, str):
                continue
            port = names.get(target, target.removeprefix(OID_PREFIX))  # fdbshow prints an unknown oid bare
        vlan = entry.get("vlan") or vlans.get(str(entry.get("bvid", "")), {}).get("SAI_VLAN_ATTR_VLAN_ID")
        if not isinstance(vlan, str | int) or not str(vlan).isdigit():
            continue
        kind = "Static" if row.get("SAI_FDB_ENTRY_ATTR_TYPE") == "SAI_FDB_ENTRY_TYPE_STATIC" else "Dynamic"
        found.append(FdbEntry(int(vlan), str(entry.get("mac", "")), port, kind))
    return sorted(found, key=lambda e: e.vlan)


def check_filters(vlan: str | None, port: str | None, address: str | None, kind: str | None,
                  known_ports: Mapping[str, str]) -> str | None:
    """fdbshow's validate_params: the error message, or None."""
    if vlan is not None and (not vlan.isnumeric() or int(vlan) not in range(1, 4096)):
        return f"Invalid vlan id {vlan}"
    if port is not None and port not in known_ports:
        return f"Invalid port {port}"
    if address is not None and not MAC.fullmatch(address):
        return f"Invalid mac address {address}"
    if kind is not None and kind.capitalize() not in ("Static", "Dynamic"):
        return f"Invalid type {kind}"
    return None


def select(entries: list[FdbEntry], vlan: str | None = None, port: str | None = None, address: str | None = None,
           kind: str | None = None) -> list[FdbEntry]:
    return [e for e in entries if (vlan is None or e.vlan == int(vlan)) and (port is None or e.port == port)
            and (address is None or e.mac == address.upper())
            and (kind is None or e.type == kind.capitalize())]


def fdb_text(entries: list[FdbEntry], count_only: bool = False) -> str:
    lines = [] if count_only else [tabulate([[n, e.vlan, e.mac, e.port, e.type] for n, e in enumerate(entries, 1)],
                                            HEADER)]
    return "\n".join([*lines, f"Total number of entries {len(entries)}"])


@click.command()
@click.option("-v", "--vlan", help="FDB learned on a specific VLAN id, e.g. 1000")
@click.option("-p", "--port", help="FDB learned on a specific port, e.g. Ethernet0")
@click.option("-a", "--address", help="One MAC address")
@click.option("-t", "--type", "kind", help="Static or Dynamic")
@click.option("-c", "--count", is_flag=True, help="Only the number of entries")
@json_option
@run_dir_option
def mac(vlan: str | None, port: str | None, address: str | None, kind: str | None, count: bool, as_json: bool,
        run_dir: str | None) -> None:
    """Show the MAC (FDB) entries the ASIC holds."""
    _, dbs = connect(run_dir)
    try:
        c = read_counters(dbs, [tbl.COUNTERS_PORT_NAME_MAP, tbl.COUNTERS_LAG_NAME_MAP], tables=FDB_TABLES,
                          db_order=True)
    except DbError as exc:
        fail(f"cannot read the switch's databases: {exc}")
    finally:
        dbs.close()
    known = {**c.map(tbl.COUNTERS_PORT_NAME_MAP), **c.map(tbl.COUNTERS_LAG_NAME_MAP)}
    problem = check_filters(vlan, port, address, kind, known)
    if problem:
        fail(problem)
    entries = select(fdb_entries(c.rows, {oid: name for name, oid in known.items()}), vlan, port, address, kind)
    if as_json:
        print_json([{"vlan": e.vlan, "mac": e.mac, "port": e.port, "type": e.type} for e in entries])
    else:
        click.echo(fdb_text(entries, count))
