"""Validating a change to a configuration: what the change breaks, in a few rows' time.

A transaction changes a few rows of a large configuration (one port's MTU among 1,800 rows);
walking every row again for each write would cost ~15 ms. ``validate_change`` checks what the
change can affect:

* every changed or added row, in full (its values, its references, its row checks);
* when a table's key set changes (rows added or removed), every row of that table and of the tables
  that reference it (a VLAN member of a deleted port, an address without its interface row): only
  the problems the change introduces are reported, compared with the same rows before it;
* every whole-table check (lanes in two ports, a port in two portchannels, ...) on the new
  configuration, and on the old one when the new one has problems: again only new problems are
  reported. A check that declares the fields it reads (``_CHECK_FIELDS``) is skipped when the
  change leaves them alone.

A change to a table whose values other tables' checks read (DEVICE_METADATA) or to many rows at once
is validated whole (``validate_config``), reporting only the problems that the configuration before
the change did not have. So a configuration that was already wrong somewhere (written by redis-cli)
does not block unrelated writes; a changed row must itself be entirely valid.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import cache

from nos.config.validate import RowWalk, ValidationReport, malformed, validate_config
from nos.schema.config import Config, ConfigError, Lookup, MapRow, Row, TableCheck, field_rules
from nos.schema.config.port import check_unique_lanes
from nos.schema.config.registry import TABLES
from nos.schema.tables import CFG_DEVICE_METADATA_TABLE_NAME, CFG_LAG_TABLE_NAME, CFG_PORT_TABLE_NAME

WHOLE_ABOVE = 400  # changed rows beyond which the whole configuration is validated
GLOBAL_TABLES = frozenset({CFG_DEVICE_METADATA_TABLE_NAME})  # read by checks of other tables' rows
# Row checks that read other tables' key sets without a declared reference (interface.py
# check_sub_interface reads PORT and PORTCHANNEL).
_CONSULTED_BY = {CFG_PORT_TABLE_NAME: {"VLAN_SUB_INTERFACE"}, CFG_LAG_TABLE_NAME: {"VLAN_SUB_INTERFACE"}}
# Whole-table checks that read tables besides their own (vlan.py check_members, mclag.py
# check_unique_ip_needs_domain, check_peer_link_not_member); a table's checks run when it or one of these changed.
_TABLE_CHECK_READS = {"VLAN_MEMBER": {"PORTCHANNEL_MEMBER", "INTERFACE"}, "MCLAG_UNIQUE_IP": {"MCLAG_DOMAIN"},
                      "MCLAG_INTERFACE": {"MCLAG_DOMAIN"}}

RowId = tuple[str, str]
# Whole-table checks that read only these fields of their own table's rows: skipped when a change
# leaves those fields alone (checks not listed always run).
_CHECK_FIELDS: dict[TableCheck, tuple[str, tuple[str, ...]]] = {check_unique_lanes: (CFG_PORT_TABLE_NAME, ("lanes",))}


@cache
def dependents() -> dict[str, frozenset[str]]:
    """Table -> the tables whose rows reference it (keys, fields, map keys), from the schema."""
    found: dict[str, set[str]] = defaultdict(set)
    for schema in TABLES.values():
        for shape in schema.shapes:
            refs = [part.ref for part in shape.parts if part.ref is not None]
            refs += [rule.ref for rule in field_rules(shape.model).values() if rule.ref is not None]
            if issubclass(shape.model, MapRow) and shape.model.MAP_KEY_REF is not None:
                refs.append(shape.model.MAP_KEY_REF)
            for target in refs:
                for table in target.tables:
                    found[table].add(schema.name)
    for table, readers in _CONSULTED_BY.items():
        found[table] |= readers
    return {table: frozenset(names) for table, names in found.items()}


@cache
def checked_by() -> dict[str, frozenset[str]]:
    """Table -> the tables whose whole-table checks must run when it changes: itself, and those whose
    checks read it (``_TABLE_CHECK_READS``)."""
    found: dict[str, set[str]] = defaultdict(set)
    for name in TABLES:
        for read in {name} | _TABLE_CHECK_READS.get(name, set()):
            found[read].add(name)
    return {table: frozenset(names) for table, names in found.items()}


def validate_change(before: Config, after: Config, changed: Iterable[RowId], *,
                    partial: bool = True) -> ValidationReport:
    """The problems that turning ``before`` into ``after`` introduces (``changed``: the rows that
    differ, added, modified or removed)."""
    changed = list(changed)
    present = [(t, k) for t, k in changed if k in after.get(t, {})]
    shapeless = list(malformed({t: {k: after[t][k]} for t, k in present}))
    if shapeless:
        return ValidationReport(errors=shapeless)
    tables = {t for t, _ in changed}
    if len(changed) > WHOLE_ABOVE or tables & GLOBAL_TABLES:
        return _whole(before, after, set(present), tables)
    # a table's key set changed iff one of its changed rows was added or removed
    rekeyed = {t for t, k in changed if (k in before.get(t, {})) != (k in after.get(t, {}))}
    around: set[RowId] = set()
    for table in rekeyed:
        for name in {table} | dependents().get(table, frozenset()):
            around.update((name, key) for key in after.get(name, {}))
    around -= set(present)

    walk = RowWalk(Lookup(after), partial)
    for table, key in present:
        _walk_row(walk, table, key, after[table][key])
    errors = list(walk.report.errors)
    if around:
        errors += _new_since(_row_errors(after, around, partial), lambda: _row_errors(before, around, partial))
    checked = set().union(*(checked_by().get(table, ()) for table in tables))
    skip = _unaffected_checks(before, after, changed, tables, rekeyed)
    errors += _new_since(_table_errors(after, checked, skip), lambda: _table_errors(before, checked, skip))
    report = ValidationReport(unknown_tables=sorted(t for t in tables if t not in TABLES and t in after),
                              unknown_fields=walk.report.unknown_fields)
    report.errors.extend(e for e in errors if not e.warning)
    report.warnings.extend(e for e in errors if e.warning)
    return report


def _walk_row(walk: RowWalk, table: str, key: str, row: Row) -> None:
    schema = TABLES.get(table)
    if schema is not None:
        walk.row(schema, key, row)


def _row_errors(config: Config, rows: Iterable[RowId], partial: bool) -> list[ConfigError]:
    walk = RowWalk(Lookup(config), partial)
    for table, key in rows:
        if key in config.get(table, {}):
            _walk_row(walk, table, key, config[table][key])
    return walk.report.errors


def _unaffected_checks(before: Config, after: Config, changed: list[RowId], tables: set[str],
                       rekeyed: set[str]) -> set[TableCheck]:
    """Whole-table checks of ``_CHECK_FIELDS`` that give the same answer after the change as before:
    their table kept its keys, no table they also read changed, and no changed row of it differs in
    a field they read (an mtu change does not re-check every port's lanes)."""
    skip: set[TableCheck] = set()
    for check, (table, fields) in _CHECK_FIELDS.items():
        if table not in tables or table in rekeyed or _TABLE_CHECK_READS.get(table, set()) & tables:
            continue
        old, new = before.get(table, {}), after.get(table, {})
        if all(old[key].get(f) == new[key].get(f) for t, key in changed if t == table for f in fields):
            skip.add(check)
    return skip


def _table_errors(config: Config, tables: set[str], skip: set[TableCheck]) -> list[ConfigError]:
    lookup = Lookup(config)
    errors: list[ConfigError] = []
    for table in tables & config.keys():
        schema = TABLES.get(table)
        if schema is not None:
            for check in schema.checks:
                if check not in skip:
                    errors.extend(check(lookup))
    return errors


def _new_since(after: list[ConfigError], before: Callable[[], list[ConfigError]]) -> list[ConfigError]:
    """The problems of ``after`` that ``before`` did not have (same table, key, field and text);
    ``before`` is not computed when there is nothing to compare (the usual, valid change)."""
    if not after:
        return []
    old = set(before())
    return [e for e in after if e not in old]


def _whole(before: Config, after: Config, present: set[RowId], tables: set[str]) -> ValidationReport:
    """Whole-configuration validation, minus what was already wrong in rows the change left alone."""
    now, then = validate_config(after, partial=True), validate_config(before, partial=True)
    old = set(then.errors) | set(then.warnings)

    def keep(error: ConfigError) -> bool:
        return (error.table, error.key) in present or error not in old

    return ValidationReport(errors=[e for e in now.errors if keep(e)], warnings=[e for e in now.warnings if keep(e)],
                            unknown_tables=[t for t in now.unknown_tables if t in tables],
                            unknown_fields=[u for u in now.unknown_fields if u[0] in tables])


__all__ = ["GLOBAL_TABLES", "WHOLE_ABOVE", "dependents", "validate_change"]
