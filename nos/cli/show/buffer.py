"""``nos show buffer_pool watermark|persistent-watermark``, ``nos show headroom-pool watermark|persistent-
watermark`` and ``nos show buffer configuration``, as sonic-utilities prints them.

* The pool watermarks are ``watermarkstat -t buffer_pool`` / ``-t headroom_pool``: a title ("Shared pool
  maximum occupancy:" / "Headroom pool maximum occupancy:"), then ``Pool  Bytes`` per pool of
  ``COUNTERS_BUFFER_POOL_NAME_MAP`` (naturally sorted), the value of ``SAI_BUFFER_POOL_STAT_WATERMARK_BYTES`` /
  ``..._XOFF_ROOM_WATERMARK_BYTES`` in ``USER_WATERMARKS:<oid>`` (``PERSISTENT_WATERMARKS`` for the
  persistent form), N/A when absent. The headroom pool is the ingress lossless pool: watermarkstat lists
  only the pools whose name holds ``ingress_lossless``.
* ``buffer configuration`` is ``mmuconfig -l`` on CONFIG_DB: "Lossless traffic pattern:" and a two-column
  table for each DEFAULT_LOSSLESS_BUFFER_PARAMETER row, "Pool: <name>" likewise for every BUFFER_POOL, then
  "Profile: <name>" for every BUFFER_PROFILE, each table followed by an empty line. Rows come in the order
  the database returns their keys and fields in the order of the hash (mmuconfig sorts nothing), through
  ConfigDBConnector's typing (the ``NULL`` field dropped, ``name@`` a list). ``-vv`` adds the totals.

``--json``: a list of ``{"Pool": ..., "Bytes": ...}`` for every pool (the headroom pool's too, as before);
for the configuration ``{"pools": ..., "profiles": ...}``.
Rendering is pure (``pool_rows``, ``pool_text``, ``configuration_text``); the rows are read in the database's
key order (``load_snapshot(..., db_order=True)``).
"""

from __future__ import annotations

from collections.abc import Mapping

import click
from tabulate import tabulate

from nos.cli.common import connect, fail, json_option, print_json, run_dir_option
from nos.cli.show.counters_db import PERSISTENT_WATERMARKS, USER_WATERMARKS, Counters, load_counters, stat_value
from nos.cli.show.interfaces import load_snapshot
from nos.cli.show.render import Row, natsorted
from nos.db import Table
from nos.db.connector import DBConnector
from nos.db.errors import DbError
from nos.schema import tables as tbl
from nos.schema.dbconfig import CONFIG_DB

Rows = Mapping[str, Row]
KINDS = {
    "buffer_pool": ("Shared pool maximum occupancy:", "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES"),
    "headroom_pool": ("Headroom pool maximum occupancy:", "SAI_BUFFER_POOL_STAT_XOFF_ROOM_WATERMARK_BYTES"),
}
HEADROOM_POOL_MARK = "ingress_lossless"  # watermarkstat: the headroom pool is the ingress lossless pool
CONFIGURATION_TABLES = ((CONFIG_DB, tbl.CFG_DEFAULT_LOSSLESS_BUFFER_PARAMETER),
                        (CONFIG_DB, tbl.CFG_BUFFER_POOL_TABLE_NAME), (CONFIG_DB, tbl.CFG_BUFFER_PROFILE_TABLE_NAME))
EMPTY = "Object map is empty!"
NO_POOLS = "No buffer pool information available"
NO_PROFILES = "No buffer profile information available"


def pool_rows(c: Counters, table: str, stat: str, headroom: bool = False) -> list[list[str]]:
    """``[pool, bytes]`` for every pool of COUNTERS_BUFFER_POOL_NAME_MAP (only the ingress lossless
    pools for the headroom pool), naturally sorted."""
    pools = c.map(tbl.COUNTERS_BUFFER_POOL_NAME_MAP)
    return [[name, stat_value(c.stat(table, pools[name]), stat)] for name in natsorted(pools)
            if not headroom or HEADROOM_POOL_MARK in name]


def pool_text(title: str, rows: list[list[str]]) -> str:
    """watermarkstat's table (numbers parsed by tabulate, as it does)."""
    return title + "\n" + tabulate(rows, ["Pool", "Bytes"], tablefmt="simple", stralign="right")


def _section(title: str, fields: Row) -> str:
    return f"{title}\n{tabulate([[name, value] for name, value in fields.items()])}\n\n"


def configuration_text(pools: Rows, profiles: Rows, pattern: Rows | None = None, verbose: bool = False) -> str:
    """mmuconfig -l's output (every line ends in a newline) for CONFIG_DB's rows, in their order."""
    parts = [_section("Lossless traffic pattern:", fields) for fields in (pattern or {}).values()]
    if pools:
        parts += [_section(f"Pool: {name}", fields) for name, fields in pools.items()]
        if verbose:
            parts.append(f"Total pools: {len(pools)}\n\n\n")
    else:
        parts.append(NO_POOLS + "\n")
    if profiles:
        parts += [_section(f"Profile: {name}", fields) for name, fields in profiles.items()]
        if verbose:
            parts.append(f"Total profiles: {len(profiles)}\n")
    else:
        parts.append(NO_PROFILES + "\n")
    return "".join(parts)


def _pool_group(name: str, kind: str) -> click.Group:
    title, stat = KINDS[kind]
    group = click.Group(name, help=f"Show {title.rstrip(':').lower()}.")
    for word, table in (("watermark", USER_WATERMARKS), ("persistent-watermark", PERSISTENT_WATERMARKS)):
        @group.command(word, help=f"Show {word}s of the {name} (bytes).")
        @json_option
        @run_dir_option
        def show(as_json: bool, run_dir: str | None, table: str = table) -> None:
            c = load_counters(run_dir, [tbl.COUNTERS_BUFFER_POOL_NAME_MAP],
                              [(table, tbl.COUNTERS_BUFFER_POOL_NAME_MAP)])
            if as_json:  # every pool, as before (the text follows watermarkstat)
                print_json([{"Pool": pool, "Bytes": value} for pool, value in pool_rows(c, table, stat)])
            elif not c.map(tbl.COUNTERS_BUFFER_POOL_NAME_MAP):
                fail(EMPTY)
            else:
                click.echo(pool_text(title, pool_rows(c, table, stat, headroom=kind == "headroom_pool")))
    return group


buffer_pool = _pool_group("buffer_pool", "buffer_pool")
headroom_pool = _pool_group("headroom-pool", "headroom_pool")


@click.group("buffer")
def buffer() -> None:
    """Show buffer configuration."""


@buffer.command("configuration")
@click.option("-vv", "--verbose", is_flag=True, help="Also print the number of pools and profiles")
@json_option
@run_dir_option
def configuration(verbose: bool, as_json: bool, run_dir: str | None) -> None:
    """Show the lossless traffic pattern, the buffer pools and profiles (mmuconfig -l)."""
    if as_json:
        _, dbs = connect(run_dir)
        try:
            _print_configuration_json(dbs[CONFIG_DB])
        except DbError as exc:
            fail(f"cannot read the switch's databases: {exc}")
        finally:
            dbs.close()
        return
    snap = load_snapshot(run_dir, CONFIGURATION_TABLES, db_order=True)
    pattern, pools, profiles = (snap.rows(db, table) for db, table in CONFIGURATION_TABLES)
    click.echo(configuration_text(pools, profiles, pattern, verbose), nl=False)


def _print_configuration_json(db: DBConnector) -> None:
    """Our --json: pools and profiles, and in the dynamic model the lossless traffic pattern."""
    pools = Table(db, tbl.CFG_BUFFER_POOL_TABLE_NAME).get_all()
    profiles = Table(db, tbl.CFG_BUFFER_PROFILE_TABLE_NAME).get_all()
    model = (Table(db, tbl.CFG_DEVICE_METADATA_TABLE_NAME).get("localhost") or {}).get("buffer_model")
    pattern = Table(db, tbl.CFG_LOSSLESS_TRAFFIC_PATTERN_TABLE_NAME).get_all() if model == "dynamic" else None
    print_json({"pools": pools, "profiles": profiles, **({"lossless_traffic_pattern": pattern} if pattern else {})})
