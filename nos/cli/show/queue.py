"""``nos show queue counters [<if>] [-a|-T] [-nz]``, ``show queue wredcounters [<if>]``,
``show queue watermark unicast|multicast|all`` and ``show queue persistent-watermark ...``.

Reading here; the tables are made by ``queuestat`` and ``watermark`` (pure).
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from nos.cli.common import fail, json_option, print_json, run_dir_option
from nos.cli.show import queuestat, watermark
from nos.cli.show.counters_db import (
    PERSISTENT_WATERMARKS,
    QUEUE_MAPS,
    USER_WATERMARKS,
    Counters,
    CountersError,
    load_counters,
)
from nos.schema import tables as tbl


def show_watermark(c: Counters, kind: watermark.Kind, table: str, as_json: bool) -> None:
    """Print a watermark/drop grid; an empty object map is SONiC's message (exit 0 or 1 as SONiC)."""
    try:
        found = watermark.grid(c, kind, table)
    except CountersError as exc:
        fail(str(exc))
    except watermark.EmptyObjectMap as exc:
        if exc.error:
            fail(str(exc))
        click.echo(str(exc))
        return
    if as_json:
        print_json(found.records())
    else:
        click.echo(found.text(kind.title))


def _queue_counters(run_dir: str | None, stats_table: str) -> Counters:
    return load_counters(run_dir, QUEUE_MAPS, [(stats_table, tbl.COUNTERS_QUEUE_NAME_MAP)])


def _print_queues(c: Counters, columns: Sequence[queuestat.Column], port: str | None, nonzero: bool,
                  as_json: bool, heading: str | None = None, zero: frozenset[str] = queuestat.ZERO) -> None:
    if port is not None and port not in c.map(tbl.COUNTERS_PORT_NAME_MAP):
        fail(f"Port doesn't exist! {port}")
    try:
        found = queuestat.queue_rows(c, columns, port, nonzero, zero)
    except CountersError as exc:
        fail(str(exc))
    if as_json:
        print_json(queuestat.queue_json(found, columns))
    else:
        click.echo(queuestat.queue_text(found, columns, heading), nl=False)


@click.group()
def queue() -> None:
    """Show queue counters and watermarks."""


@queue.command()
@click.argument("interfacename", required=False)
@click.option("-a", "--all", "show_all", is_flag=True, help="Also show the trimming counters")
@click.option("-T", "--trim", is_flag=True, help="Only the trimming counters")
@click.option("-nz", "--nonzero", is_flag=True, help="Only queues with a non-zero counter")
@json_option
@run_dir_option
def counters(interfacename: str | None, show_all: bool, trim: bool, nonzero: bool, as_json: bool,
             run_dir: str | None) -> None:
    """Show queue counters (all ports, or one)."""
    if show_all:  # queuestat: --all wins over --trim
        columns: tuple[queuestat.Column, ...] = (*queuestat.COUNTERS, *queuestat.TRIM)
    else:
        columns = queuestat.TRIM if trim else queuestat.COUNTERS
    _print_queues(_queue_counters(run_dir, tbl.COUNTERS_TABLE), columns, interfacename, nonzero, as_json,
                  queuestat.NAMESPACE_HEADING)


@queue.command()
@click.argument("interfacename", required=False)
@click.option("-nz", "--nonzero", is_flag=True, help="Only queues with a non-zero counter")
@json_option
@run_dir_option
def wredcounters(interfacename: str | None, nonzero: bool, as_json: bool, run_dir: str | None) -> None:
    """Show WRED drop and ECN mark counters per queue."""
    _print_queues(_queue_counters(run_dir, tbl.COUNTERS_TABLE), queuestat.WRED, interfacename, nonzero, as_json,
                  zero=queuestat.WRED_ZERO)


QUEUE_KINDS = {"unicast": "q_shared_uni", "multicast": "q_shared_multi", "all": "q_shared_all"}


def _watermark_group(name: str, table: str, help_text: str) -> click.Group:
    group = click.Group(name, help=help_text)
    for word, kind_name in QUEUE_KINDS.items():
        @group.command(word, help=f"Show {word} queue {help_text.lower().rstrip('.')}")
        @json_option
        @run_dir_option
        def show(as_json: bool, run_dir: str | None, kind_name: str = kind_name) -> None:
            show_watermark(_queue_counters(run_dir, table), watermark.KINDS[kind_name], table, as_json)
    return group


queue.add_command(_watermark_group("watermark", USER_WATERMARKS, "Watermarks since the last clear."))
queue.add_command(_watermark_group("persistent-watermark", PERSISTENT_WATERMARKS, "Persistent watermarks."))
