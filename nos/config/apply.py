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

from nos.config.errors import ConfigValidationError
from nos.config.files import write_config_file
from nos.config.validate import validate_config
from nos.db.configdb import Config, ConfigDBConnector, Row, RowChange


def merge_configs(current: Config, incoming: Config) -> Config:
    """``mod_config``: every incoming row's fields merged over the current row (pure)."""
    merged = {table: {key: dict(row) for key, row in rows.items()} for table, rows in current.items()}
    for table, rows in incoming.items():
        target = merged.setdefault(table, {})
        for key, row in rows.items():
            target[key] = {**target.get(key, {}), **row}
    return {table: rows for table, rows in merged.items() if rows}


def plan_changes(current: Config, target: Config, *, remove_missing: bool) -> list[RowChange]:
    """Row changes that turn ``current`` into ``target`` (identical rows are left alone)."""
    changes: list[RowChange] = []
    for table, rows in sorted(target.items()):
        now = current.get(table, {})
        for key, row in sorted(rows.items()):
            if now.get(key) != row or key not in now:
                changes.append(RowChange(table, key, "replace", row))
    if remove_missing:
        for table, rows in sorted(current.items()):
            for key in sorted(rows):
                if key not in target.get(table, {}):
                    changes.append(RowChange(table, key, "delete"))
    return changes


@dataclass
class ApplyResult:
    """What a load or reload did."""

    changes: int
    rows: int
    not_acted_on: list[str] = field(default_factory=list)
    unknown_fields: list[tuple[str, str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _checked(target: Config, incoming: Config) -> tuple[list[str], list[tuple[str, str, str]], list[str]]:
    # partial: references into a table the result has no rows of at all (a buffers-only file loaded
    # into an empty switch has no PORT table) cannot be checked; every other reference is.
    report = validate_config(target, partial=True)
    if not report.ok:
        raise ConfigValidationError(report.errors)
    mentioned = set(incoming)
    unknown_tables = sorted(t for t in report.unknown_tables if t in mentioned)
    unknown_fields = [u for u in report.unknown_fields if u[0] in mentioned]
    return unknown_tables, unknown_fields, [str(w) for w in report.warnings if w.table in mentioned]


def load_config(cdb: ConfigDBConnector, incoming: Config) -> ApplyResult:
    """Merge ``incoming`` into CONFIG_DB, all or nothing."""
    current = cdb.get_config()
    target = merge_configs(current, incoming)
    tables, fields, warnings = _checked(target, incoming)
    changes = plan_changes(current, {t: {k: target[t][k] for k in rows} for t, rows in incoming.items()},
                           remove_missing=False)
    cdb.apply(changes)
    cdb.set_initialized()
    return ApplyResult(len(changes), _count(target), tables, fields, warnings)


def reload_config(cdb: ConfigDBConnector, target: Config) -> ApplyResult:
    """Make CONFIG_DB equal ``target``, all or nothing."""
    target = {table: rows for table, rows in target.items() if rows}
    tables, fields, warnings = _checked(target, target)
    changes = plan_changes(cdb.get_config(), target, remove_missing=True)
    cdb.apply(changes)
    cdb.set_initialized()
    return ApplyResult(len(changes), _count(target), tables, fields, warnings)


def save_config(cdb: ConfigDBConnector, path: Path) -> int:
    """Write the running CONFIG_DB to ``path``; returns the number of rows."""
    config = cdb.get_config()
    write_config_file(path, config)
    return _count(config)


def _count(config: Config) -> int:
    return sum(len(rows) for rows in config.values())


__all__ = ["ApplyResult", "Row", "load_config", "merge_configs", "plan_changes", "reload_config", "save_config"]
