"""The CONFIG_DB row encoding (swss-common ``configdb.py``): ``NULL``=``NULL`` for a field-less
row, ``field@`` for a comma-joined list. Shared by ConfigDBConnector and ConfigCache."""

from __future__ import annotations

from collections.abc import Mapping

Value = str | list[str]
Row = dict[str, Value]
Config = dict[str, dict[str, Row]]

NULL_FIELD = "NULL"
LIST_SUFFIX = "@"
CONFIG_SEPARATOR = "|"


def typed_to_raw(row: Mapping[str, Value] | None) -> dict[str, str]:
    """Row as Redis stores it: lists become ``field@`` = comma-joined, {} becomes NULL=NULL."""
    if not row:
        return {NULL_FIELD: NULL_FIELD}
    raw: dict[str, str] = {}
    for field, value in row.items():
        if isinstance(value, list):
            raw[field + LIST_SUFFIX] = ",".join(value)
        else:
            raw[field] = str(value)
    return raw


def raw_to_typed(raw: Mapping[str, str] | None) -> Row:
    """Row as readers see it: NULL placeholder dropped, ``field@`` split into a list."""
    typed: Row = {}
    for field, value in (raw or {}).items():
        if field == NULL_FIELD:
            continue
        if field.endswith(LIST_SUFFIX):
            typed[field[:-1]] = value.split(",") if value else []
        else:
            typed[field] = value
    return typed
