"""``nos show buffer_pool watermark|persistent-watermark``, ``nos show headroom-pool watermark|persistent-
watermark`` and ``nos show buffer configuration``, as sonic-utilities prints them.

* The pool watermarks are ``watermarkstat -t buffer_pool`` / ``-t headroom_pool``: a title ("Shared pool
  maximum occupancy:" / "Headroom pool maximum occupancy:"), then ``Pool  Bytes`` per pool of
  ``COUNTERS_BUFFER_POOL_NAME_MAP``, the value of ``SAI_BUFFER_POOL_STAT_WATERMARK_BYTES`` /
  ``..._XOFF_ROOM_WATERMARK_BYTES`` in ``USER_WATERMARKS:<oid>`` (``PERSISTENT_WATERMARKS`` for the
  persistent form), N/A when absent.
* ``buffer configuration`` is ``mmuconfig -l``: "Pool: <name>" and a two-column table of its CONFIG_DB
  fields, for every BUFFER_POOL, then "Profile: <name>" likewise for every BUFFER_PROFILE; in the dynamic
  model (DEVICE_METADATA buffer_model) "Lossless traffic pattern:" first.

``--json``: a list of ``{"Pool": ..., "Bytes": ...}``; for the configuration ``{"pools": ..., "profiles": ...}``.
Rendering is pure (``pool_rows``, ``configuration_text``).
"""

from __future__ import annotations

from collections.abc import Mapping

import click
from tabulate import tabulate

from nos.cli.common import connect, fail, json_option, print_json, run_dir_option
from nos.cli.show.counters_db import PERSISTENT_WATERMARKS, USER_WATERMARKS, Counters, load_counters, stat_value
from nos.cli.show.render import natsorted
from nos.db import Table
from nos.db.errors import DbError
from nos.schema import tables as tbl
from nos.schema.dbconfig import CONFIG_DB

Rows = Mapping[str, Mapping[str, str]]
KINDS = {
    "buffer_pool": ("Shared pool maximum occupancy:", "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES"),
    "headroom_pool": ("Headroom pool maximum occupancy:", "SAI_BUFFER_POOL_STAT_XOFF_ROOM_WATERMARK_BYTES"),
}
EMPTY = "Object map is empty!"


def pool_rows(c: Counters, table: str, stat: str) -> list[list[str]]:
    """``[pool, bytes]`` for every pool of COUNTERS_BUFFER_POOL_NAME_MAP, naturally sorted."""
    pools = c.map(tbl.COUNTERS_BUFFER_POOL_NAME_MAP)
    return [[name, stat_value(c.stat(table, pools[name]), stat)] for name in natsorted(pools)]


def _fields_table(fields: Mapping[str, str]) -> str:
    return tabulate(sorted(fields.items()), tablefmt="simple", disable_numparse=True)


def configuration_text(pools: Rows, profiles: Rows, pattern: Rows | None = None) -> str:
    """mmuconfig -l's output for CONFIG_DB's pools and profiles."""
    parts = []
    for name, fields in (pattern or {}).items():
        parts.append(f"Lossless traffic pattern ({name}):\n{_fields_table(fields)}\n")
    parts += [f"Pool: {name}\n{_fields_table(pools[name])}\n" for name in natsorted(pools)]
    parts += [f"Profile: {name}\n{_fields_table(profiles[name])}\n" for name in natsorted(profiles)]
    return "\n".join(parts)


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
            rows = pool_rows(c, table, stat)
            if as_json:
                print_json([{"Pool": pool, "Bytes": value} for pool, value in rows])
            elif not rows:
                fail(EMPTY)
            else:
                click.echo(title + "\n" + tabulate(rows, ["Pool", "Bytes"], tablefmt="simple", stralign="right",
                                                   disable_numparse=True))
    return group


buffer_pool = _pool_group("buffer_pool", "buffer_pool")
headroom_pool = _pool_group("headroom-pool", "headroom_pool")


@click.group("buffer")
def buffer() -> None:
    """Show buffer configuration."""


@buffer.command("configuration")
@json_option
@run_dir_option
def configuration(as_json: bool, run_dir: str | None) -> None:
    """Show the buffer pools and profiles (mmuconfig -l)."""
    _, dbs = connect(run_dir)
    try:
        db = dbs[CONFIG_DB]
        pools = Table(db, tbl.CFG_BUFFER_POOL_TABLE_NAME).get_all()
        profiles = Table(db, tbl.CFG_BUFFER_PROFILE_TABLE_NAME).get_all()
        model = (Table(db, tbl.CFG_DEVICE_METADATA_TABLE_NAME).get("localhost") or {}).get("buffer_model")
        pattern = Table(db, tbl.CFG_LOSSLESS_TRAFFIC_PATTERN_TABLE_NAME).get_all() if model == "dynamic" else None
    except DbError as exc:
        fail(f"cannot read the switch's databases: {exc}")
    finally:
        dbs.close()
    if as_json:
        print_json({"pools": pools, "profiles": profiles, **({"lossless_traffic_pattern": pattern} if pattern else {})})
    else:
        click.echo(configuration_text(pools, profiles, pattern))
