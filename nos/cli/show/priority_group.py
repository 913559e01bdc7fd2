"""``nos show priority-group watermark shared|headroom``, ``... persistent-watermark shared|headroom`` and
``show priority-group drop counters`` (watermarkstat's and pg-drop's tables, made by ``watermark``).

As pg-drop, the drop counters say so and stop when CONFIG_DB FLEX_COUNTER_TABLE|PG_DROP is disabled.
"""

from __future__ import annotations

import click

from nos.cli.common import json_option, run_dir_option
from nos.cli.show import watermark
from nos.cli.show.counters_db import PERSISTENT_WATERMARKS, PG_MAPS, USER_WATERMARKS, load_counters
from nos.cli.show.queue import show_watermark
from nos.schema import tables as tbl
from nos.schema.dbconfig import CONFIG_DB

PG_KINDS = {"shared": "pg_shared", "headroom": "pg_headroom"}
PG_DROP_DISABLED = "Warning: PG counters are disabled. Use 'counterpoll pg-drop enable' to enable polling"


@click.group("priority-group")
def priority_group() -> None:
    """Show priority-group watermarks and drop counters."""


def _watermark_group(name: str, table: str, help_text: str) -> click.Group:
    group = click.Group(name, help=help_text)
    for word, kind_name in PG_KINDS.items():
        @group.command(word, help=f"Show {word} PG {help_text.lower().rstrip('.')}")
        @json_option
        @run_dir_option
        def show(as_json: bool, run_dir: str | None, kind_name: str = kind_name) -> None:
            c = load_counters(run_dir, PG_MAPS, [(table, tbl.COUNTERS_PG_NAME_MAP)])
            show_watermark(c, watermark.KINDS[kind_name], table, as_json)
    return group


priority_group.add_command(_watermark_group("watermark", USER_WATERMARKS, "Watermarks since the last clear."))
priority_group.add_command(_watermark_group("persistent-watermark", PERSISTENT_WATERMARKS,
                                            "Persistent watermarks."))


@priority_group.group()
def drop() -> None:
    """Show dropped packets per priority group."""


@drop.command("counters")
@json_option
@run_dir_option
def drop_counters(as_json: bool, run_dir: str | None) -> None:
    """Show ingress PG dropped packets."""
    c = load_counters(run_dir, PG_MAPS, [(tbl.COUNTERS_TABLE, tbl.COUNTERS_PG_NAME_MAP)],
                      [(CONFIG_DB, tbl.CFG_FLEX_COUNTER_TABLE_NAME)])
    group = c.rows.row(CONFIG_DB, tbl.CFG_FLEX_COUNTER_TABLE_NAME, "PG_DROP")
    if group is not None and group.get("FLEX_COUNTER_STATUS", "disable") == "disable":
        click.echo(PG_DROP_DISABLED)
        return
    show_watermark(c, watermark.KINDS["pg_drop"], tbl.COUNTERS_TABLE, as_json)
