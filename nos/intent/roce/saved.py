"""What turning the intent off restores (pure): the rows the expansion owns, as they were before the
intent first touched them, kept in CONFIG_DB ``NOS_ROCE_SAVED|<TABLE>`` {``<key>``: row as JSON, or
``null`` when there was no row}.

:func:`apply_desired` saves a row the first time the intent wants it changed (a later expansion never
overwrites what was saved), writes back the saved rows the intent no longer wants, and writes the
wanted ones. :func:`restore` writes back every saved row and drops the table. A saved row keyed by a
port that no longer exists (a breakout happened meanwhile) is not written back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from nos.intent.roce.expand import OWNED_PORT_TABLES, SEP, Desired
from nos.intent.roce.model import IntentError
from nos.schema import tables as t
from nos.schema.config import Config, ConfigError, Row, display
from nos.schema.config.roce import CFG_ROCE_SAVED_TABLE_NAME, parse_saved_row

Saved = dict[tuple[str, str], Row | None]


def decode(config: Config) -> Saved:
    """The saved rows held in ``config``; raises IntentError naming a field that holds no row."""
    saved: Saved = {}
    errors: list[ConfigError] = []
    for table, fields in config.get(CFG_ROCE_SAVED_TABLE_NAME, {}).items():
        for key, text in fields.items():
            row = parse_saved_row(text) if isinstance(text, str) else False
            if row is False:
                errors.append(ConfigError(CFG_ROCE_SAVED_TABLE_NAME, table, key, display(text),
                                          "must be a row as JSON (an object of strings) or null"))
            else:
                saved[(table, key)] = row
    if errors:
        raise IntentError(errors)
    return saved


def encode(saved: Saved) -> dict[str, Row]:
    """``NOS_ROCE_SAVED`` rows for the saved rows."""
    rows: dict[str, Row] = {}
    for (table, key), row in sorted(saved.items()):
        rows.setdefault(table, {})[key] = json.dumps(row, sort_keys=True, separators=(",", ":"))
    return rows


def _restorable(config: Config, table: str, key: str, row: Row | None) -> Row | None:
    """A saved row as it can be written back now (None: delete), given the ports that exist now."""
    ports = config.get(t.CFG_PORT_TABLE_NAME, {})
    if row is None:
        return None
    if table in OWNED_PORT_TABLES and not key.startswith(("global", "GLOBAL")):
        names = key.partition(SEP)[0].split(",")
        return row if all(name in ports for name in names) else None
    if table == t.CFG_PORT_CABLE_LEN_TABLE_NAME:
        return {port: value for port, value in row.items() if port in ports} or None
    return row


def _write(out: Config, config: Config, table: str, key: str, row: Row | None) -> None:
    if table not in out or out[table] is config.get(table):
        out[table] = dict(config.get(table, {}))
    if row is None:
        out[table].pop(key, None)
    else:
        out[table][key] = row


def apply_desired(config: Config, desired: Desired) -> Config:
    """The target configuration: ``desired`` written, rows no longer wanted restored, saved rows kept."""
    saved = decode(config)
    out: Config = dict(config)
    for (table, key), row in saved.items():
        if (table, key) not in desired:
            _write(out, config, table, key, _restorable(config, table, key, row))
    kept: Saved = {k: v for k, v in saved.items() if k in desired}
    for (table, key), row in desired.items():
        before = config.get(table, {}).get(key)
        if (table, key) not in kept and before != row:  # a row the intent leaves as it was needs no saving
            kept[(table, key)] = before
        _write(out, config, table, key, row)
    out[CFG_ROCE_SAVED_TABLE_NAME] = encode(kept)
    return {table: rows for table, rows in out.items() if rows}


def restore(config: Config) -> Config:
    """The configuration with every saved row written back and no saved rows left."""
    out = apply_desired(config, {})
    out.pop(CFG_ROCE_SAVED_TABLE_NAME, None)
    return out


def saved_tables(config: Mapping[str, object]) -> list[str]:
    """The tables whose rows are saved (what turning off would touch)."""
    rows = config.get(CFG_ROCE_SAVED_TABLE_NAME)
    return sorted(rows) if isinstance(rows, Mapping) else []


__all__ = ["Saved", "apply_desired", "decode", "encode", "restore", "saved_tables"]
