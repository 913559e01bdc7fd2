"""Loading, replacing and saving CONFIG_DB: plan the row changes (pure), validate the result as a
whole, then apply every change in one atomic script (readers never see half of a file).

* load   (``config load``):   merge the file into CONFIG_DB (each row's fields merged; nothing removed).
* reload (``config reload``): make CONFIG_DB equal the file (rows not in it are deleted).
* save   (``config save``):   write CONFIG_DB to a file, sorted, indent 4, atomically.

A file that fails validation changes nothing. Tables without a model are kept, written, saved
back unchanged and reported once (``not_acted_on``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nos.config.errors import UnreadableConfig
from nos.config.files import write_config_file
from nos.config.transaction import TxResult, commit, replace_config
from nos.db.configdb import Config, ConfigDBConnector, Row


def merge_configs(current: Config, incoming: Config) -> Config:
    """``mod_config``: every incoming row's fields merged over the current row (pure)."""
    merged = {table: {key: dict(row) for key, row in rows.items()} for table, rows in current.items()}
    for table, rows in incoming.items():
        target = merged.setdefault(table, {})
        for key, row in rows.items():
            target[key] = {**target.get(key, {}), **row}
    return {table: rows for table, rows in merged.items() if rows}


@dataclass
class ApplyResult:
    """What a load or reload did."""

    changes: int
    rows: int
    not_acted_on: list[str] = field(default_factory=list)
    unknown_fields: list[tuple[str, str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _result(tx: TxResult, rows: int) -> ApplyResult:
    return ApplyResult(len(tx.changes), rows, tx.not_acted_on, tx.unknown_fields, tx.warnings)


def load_config(cdb: ConfigDBConnector, incoming: Config) -> ApplyResult:
    """Merge ``incoming`` into CONFIG_DB, all or nothing (a transaction: validated whole first)."""
    target: Config = {}

    def build(current: Config) -> Config:
        target.clear()
        target.update(merge_configs(current, incoming))
        return target

    tx = commit(cdb, build, tables=(), mentioned=lambda _t: incoming)  # merge_configs copies
    cdb.set_initialized()
    return _result(tx, _count(target))


def reload_config(cdb: ConfigDBConnector, target: Config) -> ApplyResult:
    """Make CONFIG_DB equal ``target``, all or nothing."""
    target = {table: rows for table, rows in target.items() if rows}
    tx = replace_config(cdb, target)
    cdb.set_initialized()
    return _result(tx, _count(target))


def save_config(cdb: ConfigDBConnector, path: Path) -> int:
    """Write the running CONFIG_DB to ``path``; returns the number of rows. Raises ``UnreadableConfig``
    (and writes nothing) when CONFIG_DB holds keys that are not rows: the file would lose them."""
    config = readable_config(cdb, "config save")
    write_config_file(path, config)
    return _count(config)


def readable_config(cdb: ConfigDBConnector, what: str) -> Config:
    """The whole running configuration for a file that must hold all of it (save, checkpoint):
    ``UnreadableConfig`` if some key of CONFIG_DB is not a row."""
    read = cdb.read_config()
    if read.unreadable:
        raise UnreadableConfig(read.unreadable, what)
    return read.config


def _count(config: Config) -> int:
    return sum(len(rows) for rows in config.values())


__all__ = ["ApplyResult", "Row", "load_config", "merge_configs", "readable_config", "reload_config", "save_config"]
