"""``nos show interfaces status|portchannel``, and the one reader every ``nos show`` command uses.

The IO side of ``show``: ``read_snapshot`` reads the tables a command declares (through ``nos.db``)
into a ``render.Snapshot``; the ``gather_*`` functions are that read per command (the seam the
tests use against a real Redis); the click commands print ``render``'s tables or, with ``--json``,
its records.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import click

from nos.cli.common import connect, fail, json_option, print_json, run_dir_option
from nos.cli.show import render
from nos.db import DbError, Table, raw_to_typed
from nos.db.connector import Databases, DBConnector
from nos.db.errors import map_redis_errors
from nos.schema.dbconfig import CONFIG_DB


def read_snapshot(dbs: Databases, tables: Iterable[render.TableId], db_order: bool = False) -> render.Snapshot:
    """Every row of the given (DB, table) pairs; CONFIG_DB rows as ConfigDBConnector reads them
    (``NULL`` placeholder dropped, ``field@`` lists split). Rows come sorted by key, or with ``db_order``
    in the order Redis returns the keys (what SONiC's scripts print when they sort nothing)."""
    read: dict[render.TableId, render.Rows] = {}
    for db, table in dict.fromkeys(tables):
        rows = _rows_in_db_order(dbs[db], table) if db_order else Table(dbs[db], table).get_all()
        read[(db, table)] = {k: raw_to_typed(v) for k, v in rows.items()} if db == CONFIG_DB else rows
    return render.Snapshot(read)


def _rows_in_db_order(db: DBConnector, name: str) -> dict[str, dict[str, str]]:
    """A table's rows in KEYS order (``Table.get_all`` sorts them); table names hold no glob characters."""
    table = Table(db, name)
    with map_redis_errors(f"keys {table.prefix}*"):
        names = cast(list[str], db.client.keys(table.prefix + "*"))
    return table.get_many([key[len(table.prefix):] for key in names])


def load_snapshot(run_dir: str | None, tables: Iterable[render.TableId], db_order: bool = False) -> render.Snapshot:
    """``read_snapshot`` from the switch running in ``run_dir``; a clear error when it cannot be read."""
    _, dbs = connect(run_dir)
    try:
        return read_snapshot(dbs, tables, db_order)
    except DbError as exc:
        fail(f"cannot read the switch's databases: {exc}")
    finally:
        dbs.close()


def gather_status(dbs: Databases) -> render.Snapshot:
    return read_snapshot(dbs, render.STATUS_TABLES)


def gather_portchannel(dbs: Databases) -> render.Snapshot:
    return read_snapshot(dbs, render.PORTCHANNEL_TABLES)


@click.group()
def interfaces() -> None:
    """Show details of the network interfaces."""


@interfaces.command()
@click.argument("interfacename", required=False)
@json_option
@run_dir_option
def status(interfacename: str | None, as_json: bool, run_dir: str | None) -> None:
    """Show interface status (all, one, or a list like Ethernet0,Ethernet8-16)."""
    records = render.interface_status(load_snapshot(run_dir, render.STATUS_TABLES), interfacename)
    if as_json:
        print_json(records)
    else:
        click.echo(render.interface_status_table(records))


@interfaces.command()
@json_option
@run_dir_option
def portchannel(as_json: bool, run_dir: str | None) -> None:
    """Show PortChannel information (LACP state and member selection)."""
    records = render.portchannel_summary(load_snapshot(run_dir, render.PORTCHANNEL_TABLES))
    if as_json:
        print_json(records)
    else:
        click.echo(render.portchannel_table(records))
