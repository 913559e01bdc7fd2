"""Reading and writing config_db.json files, and the CONFIG_DB hash encoding of a row.

Both layouts SONiC uses are read: nested ``{TABLE: {key: {field: value}}}`` (config_db.json) and the
flat database-dump layout ``{"TABLE|key": {field: value}}`` (SONiC's test fixtures), decided per
top-level entry (a name with ``|`` is a flat row). Values are normalised the way sonic-cfggen and
ConfigDBConnector do (a flat entry may also be a redis-dump record ``{"type": "hash", "value": {...}}``,
which is unwrapped): scalars become strings (``str(value)``), lists stay lists of strings, a field
``x@`` holding a comma-joined string is the list field ``x``, and the ``NULL`` placeholder of a
field-less row is dropped. Table names are kept exactly as written (``port`` is not ``PORT``: see
``nos.schema.tables.table_name_problem``); an empty one is refused. Files are written nested, sorted,
indented by 4, like ``config save``, and replaced atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from nos.config.errors import ConfigFileError
from nos.config.limits import TooDeep, loads
from nos.db.configdb import LIST_SUFFIX, NULL_FIELD, raw_to_typed, typed_to_raw
from nos.schema.config import KEY_SEPARATOR, Config, Row, Value
from nos.schema.tables import table_name_problem

__all__ = [
    "Config",
    "dump_config",
    "from_redis_fields",
    "parse_config",
    "read_config_file",
    "read_json_file",
    "to_redis_fields",
    "write_config_file",
]

_SCALARS = (str, int, float, bool)
_DUMP_ENTRY_KEYS = frozenset({"type", "value", "ttl", "expireat"})


# ---- the CONFIG_DB hash encoding ----------------------------------------------------------------


# The ``@`` list and NULL placeholder rules live once, in the DB layer's ConfigDBConnector.
to_redis_fields = typed_to_raw
from_redis_fields = raw_to_typed


# ---- reading -----------------------------------------------------------------------------------


def read_config_file(path: str | os.PathLike[str]) -> Config:
    """Read a config_db.json file (nested or flat layout) into a Config.

    Raises ConfigFileError when the file cannot be read, is not JSON (the message gives line and
    column), nests deeper than ``nos.config.limits.MAX_DEPTH``, or is not shaped like a configuration.
    """
    return parse_config(read_json_file(path), os.fspath(path))


def read_json_file(path: str | os.PathLike[str]) -> object:
    """A JSON file's document (config files, checkpoints, JSON Patch files). Raises ConfigFileError
    naming the file: cannot be read (the OS's reason), not UTF-8, not JSON (line and column), or
    nested deeper than the limit (checked before parsing: ``nos.config.limits``)."""
    source = os.fspath(path)
    try:
        data = Path(source).read_bytes()
    except OSError as exc:
        raise ConfigFileError(source, f"cannot read: {_reason(exc)}") from exc
    try:
        return loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigFileError(source, f"cannot read: not UTF-8 text (byte {exc.start})") from exc
    except TooDeep as exc:
        raise ConfigFileError(source, str(exc)) from exc
    except json.JSONDecodeError as exc:
        reason = f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        raise ConfigFileError(source, reason) from exc


def parse_config(document: object, source: str = "<config>") -> Config:
    """A parsed JSON document as a Config (both layouts; see the module docstring)."""
    if not isinstance(document, dict):
        raise ConfigFileError(source, f"the top level must be a JSON object, not {_kind(document)}")
    flat = any(KEY_SEPARATOR in name for name in document)
    config: Config = {}
    for name, value in document.items():
        table, _, key = name.partition(KEY_SEPARATOR)
        problem = table_name_problem(table)
        if problem is not None:
            raise ConfigFileError(source, problem, table=name or None)
        if KEY_SEPARATOR in name:
            _add_row(config, source, table, key, value)
        else:
            _add_table(config, source, name, value, flat)
    return config


def _add_table(config: Config, source: str, table: str, rows: object, flat: bool) -> None:
    if not isinstance(rows, dict):
        raise ConfigFileError(source, f"a table must be an object of rows, not {_kind(rows)}", table=table)
    config.setdefault(table, {})
    for key, row in rows.items():
        if not isinstance(row, dict) and flat:
            hint = (
                f"a row must be an object, not {_kind(row)} ('{table}' has no '|': a hash outside any table?)"
            )
            raise ConfigFileError(source, hint, table=table, key=key)
        _add_row(config, source, table, key, row)


def _add_row(config: Config, source: str, table: str, key: str, row: object) -> None:
    if not isinstance(row, dict):
        raise ConfigFileError(
            source, f"a row must be an object of fields, not {_kind(row)}", table=table, key=key
        )
    fields: dict[str, object] = row
    if _is_dump_entry(row):
        if row["type"] != "hash":
            reason = f"a redis-dump entry of type '{row['type']}' is not a CONFIG_DB row (a hash)"
            raise ConfigFileError(source, reason, table=table, key=key)
        fields = row["value"]
    rows = config.setdefault(table, {})
    if key in rows:
        raise ConfigFileError(source, "the row is given twice (nested and flat)", table=table, key=key)
    rows[key] = _normalise_row(source, table, key, fields)


def _is_dump_entry(row: dict[str, object]) -> bool:
    """A redis-dump / sonic-db-dump entry ``{"type": "hash", "value": {...}, "ttl": .., "expireat": ..}``,
    which SONiC's dump tools write and its test fixtures mix into flat files."""
    return isinstance(row.get("value"), dict) and "type" in row and set(row) <= _DUMP_ENTRY_KEYS


def is_normal_row(row: object) -> bool:
    """Whether ``row`` is already what normalising it gives: fields to strings or string lists, no
    ``@`` names, no ``NULL`` placeholder (and so no redis-dump entry): a row a one-field patch changed."""
    if not isinstance(row, dict):
        return False
    for name, value in row.items():
        if type(value) is not str and not (type(value) is list and all(type(item) is str for item in value)):
            return False
        if name == NULL_FIELD or name.endswith(LIST_SUFFIX):
            return False
    return True


def _normalise_row(source: str, table: str, key: str, row: dict[str, object]) -> Row:
    normalised: Row = {}
    for name, value in row.items():
        if name == NULL_FIELD:
            continue
        field = name
        if name.endswith(LIST_SUFFIX) and isinstance(value, str):
            field, value = name[: -len(LIST_SUFFIX)], value.split(",") if value else []
        elif name.endswith(LIST_SUFFIX):
            field = name[: -len(LIST_SUFFIX)]
        if field in normalised:
            raise ConfigFileError(
                source, f"given both as '{field}' and '{field}@'", table=table, key=key, field=field
            )
        normalised[field] = _normalise_value(source, table, key, field, value)
    return normalised


def _normalise_value(source: str, table: str, key: str, field: str, value: object) -> Value:
    if isinstance(value, _SCALARS):
        return value if isinstance(value, str) else str(value)
    if isinstance(value, list):
        items: list[str] = []
        for item in value:
            if not isinstance(item, _SCALARS):
                reason = f"a list item is {_kind(item)}; expected strings"
                raise ConfigFileError(source, reason, table=table, key=key, field=field)
            items.append(item if isinstance(item, str) else str(item))
        return items
    reason = f"the value is {_kind(value)}; expected a string or a list of strings"
    raise ConfigFileError(source, reason, table=table, key=key, field=field)


_KINDS: dict[type, str] = {dict: "an object", list: "a list", str: "a string", type(None): "null"}


def _kind(value: object) -> str:
    return _KINDS.get(type(value), f"a {type(value).__name__}")


# ---- writing -----------------------------------------------------------------------------------


def dump_config(config: Config) -> str:
    """The text ``config save`` writes: nested layout, tables/keys/fields sorted, indent 4, final newline."""
    return json.dumps(config, indent=4, sort_keys=True, ensure_ascii=False) + "\n"


def write_config_file(path: str | os.PathLike[str], config: Config) -> None:
    """Write a Config as config_db.json atomically: a temporary file beside the target is written and
    fsynced, then renamed over it (and the directory fsynced). Raises ConfigFileError on OS errors."""
    target = Path(os.fspath(path))
    text = dump_config(config)
    try:
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise ConfigFileError(str(target), f"cannot write: {_reason(exc)}") from exc
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
        fsync_directory(target.parent)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise ConfigFileError(str(target), f"cannot write: {_reason(exc)}") from exc


def _reason(exc: OSError) -> str:
    """The OS's reason alone (``No space left on device``): the message names the target, not the
    temporary file beside it that the error was about."""
    return exc.strerror or str(exc)


def fsync_directory(directory: Path) -> None:
    """Make a rename or a new file in ``directory`` durable (the directory entry itself)."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
