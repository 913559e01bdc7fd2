"""Validating a whole configuration against the CONFIG_DB schema.

Severity: a wrong value, a malformed key, a reference to a port that does not exist, a port in two
portchannels refuse the configuration (errors). A reference to any other missing object and lanes
shared by two ports are warnings: SONiC's ``config load`` writes such files, and its daemons then wait
for the object (NEED_RETRY) or the ASIC refuses the port; both are visible there.

Validation sees the whole configuration (the result of a merge), so besides each value's type it checks
references between tables (a VLAN member's port exists, a profile's pool exists, ...) and constraints
across rows (no lane in two ports, no port in two portchannels). Every problem is collected, none stops
the walk. Tables without a model are kept and listed as unknown, as are fields a model does not declare.

The row models in ``nos.schema.config`` are read once into per-field rules (:func:`field_rules`); rows
are checked field by field with those rules, without building pydantic instances, which keeps a
128-port default configuration well under the time budget.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from nos.config.errors import ConfigError
from nos.schema.config import (
    KEY_SEPARATOR,
    Config,
    KeyPart,
    KeyShape,
    Leaf,
    Lookup,
    MapRow,
    Ref,
    Row,
    TableSchema,
    Value,
    display,
    field_rules,
    strip_brackets,
)
from nos.schema.config.registry import TABLES, case_twin
from nos.schema.tables import CFG_PORT_TABLE_NAME

__all__ = ["ConfigError", "RowWalk", "ValidationReport", "case_hints", "malformed", "validate_config"]


@dataclass(frozen=True)
class ValidationReport:
    """What validation found: errors, and what it kept without checking."""

    errors: list[ConfigError] = field(default_factory=list)
    warnings: list[ConfigError] = field(default_factory=list)
    unknown_tables: list[str] = field(default_factory=list)
    unknown_fields: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when there are no errors (unknown tables and fields are not errors)."""
        return not self.errors


def validate_config(config: Config, *, partial: bool = False) -> ValidationReport:
    """Validate a whole configuration (table -> key -> row).

    ``partial`` is for a fragment meant to be merged into a running configuration (``config load`` of
    a buffers- or QoS-only file): references into tables the fragment does not contain at all are not
    checked, since the merge target will supply them. Everything else is checked as usual.

    A configuration that is not even shaped like one (a row that is not a dict, a value that is neither
    a string nor a list of strings, as an API body might carry) gets only those structural errors.
    """
    shapeless = list(malformed(config))
    if shapeless:
        return ValidationReport(errors=shapeless)
    walk = RowWalk(Lookup(config), partial)
    for table in config:
        schema = TABLES.get(table)
        if schema is None:
            walk.report.unknown_tables.append(table)
            continue
        for key, row in config[table].items():
            walk.row(schema, key, row)
        for check in schema.checks:
            walk.report.errors.extend(check(walk.lookup))
    report = walk.report
    report.warnings.extend(e for e in report.errors if e.warning)
    report.errors[:] = [e for e in report.errors if not e.warning]
    return report


# Leaf checks are pure (a leaf's answer depends on the value only) and the schema's leaves live as long
# as the process, so their answers for strings are kept across passes: keys, profile names and the
# values of a row that a write leaves alone repeat from one validation to the next. Bounded: emptied
# when it reaches MEMO_LIMIT entries.
MEMO_LIMIT = 50_000
_MEMO: dict[tuple[Leaf, str], str | None] = {}  # keyed by the leaf itself: no id reused by another


class RowWalk:
    """One validation pass: the lookup and the report being filled (leaf answers: ``_MEMO``)."""

    def __init__(self, lookup: Lookup, partial: bool) -> None:
        self.lookup, self.partial = lookup, partial
        self.report = ValidationReport()

    def check(self, leaf: Leaf, value: Value) -> str | None:
        """``leaf.check(value)``, memoised for strings."""
        if isinstance(value, list):
            return leaf.check(value)
        memo_key = (leaf, value)
        try:
            return _MEMO[memo_key]
        except KeyError:
            if len(_MEMO) >= MEMO_LIMIT:
                _MEMO.clear()
            found = _MEMO[memo_key] = leaf.check(value)
            return found

    def row(self, schema: TableSchema, key: str, row: Row) -> None:
        errors = self.report.errors
        parts = tuple(key.split(KEY_SEPARATOR))
        shape = schema.shape_for(parts)
        if shape is None:
            errors.append(ConfigError(schema.name, key, None, None, f"key must be {schema.describe_keys()}"))
            return
        for part, text in zip(shape.parts, parts, strict=True):
            errors.extend(self._key_part(schema.name, key, part, text))
        errors.extend(self._fields(schema.name, key, shape, row))
        for check in shape.checks:
            errors.extend(check(self.lookup, key, parts, row))

    def _key_part(self, table: str, key: str, part: KeyPart, text: str) -> Iterator[ConfigError]:
        if text in part.literals:
            return
        reason = self.check(part.leaf, text)
        if reason is not None:
            yield ConfigError(table, key, None, None, f"key part '{part.name}' = '{text}': {reason}")
        elif part.ref is not None:
            for missing in self._dangling(part.ref, part.leaf.items(text)):
                yield ConfigError(table, key, None, None, _references(part.ref, missing), _soft(part.ref))

    def _fields(self, table: str, key: str, shape: KeyShape, row: Row) -> Iterator[ConfigError]:
        rules = field_rules(shape.model)
        map_model = shape.model if issubclass(shape.model, MapRow) else None
        for name, value in row.items():
            rule = rules.get(name)
            if rule is not None:
                yield from self._value(table, key, name, value, rule.leaf, rule.ref)
            elif map_model is not None:
                yield from self._map_entry(table, key, map_model, name, value)
            else:
                self.report.unknown_fields.append((table, key, name))
        for rule in rules.values():
            if rule.required and rule.name not in row:
                yield ConfigError(table, key, None, None, f"missing mandatory field '{rule.name}'")

    def _value(
        self, table: str, key: str, name: str, value: Value, leaf: Leaf, target: Ref | None
    ) -> Iterator[ConfigError]:
        reason = self.check(leaf, value)
        if reason is not None:
            yield ConfigError(table, key, name, display(value), reason)
        elif target is not None:
            for missing in self._dangling(target, leaf.items(value)):
                yield ConfigError(table, key, name, display(value), _references(target, missing), _soft(target))

    def _map_entry(
        self, table: str, key: str, model: type[MapRow], name: str, value: Value
    ) -> Iterator[ConfigError]:
        reason = self.check(model.MAP_KEY, name)
        if reason is not None:
            yield ConfigError(table, key, name, display(value), f"field name {reason}")
            return
        yield from self._value(table, key, name, value, model.MAP_VALUE, None)
        if model.MAP_KEY_REF is not None:
            for missing in self._dangling(model.MAP_KEY_REF, [name]):
                ref_ = model.MAP_KEY_REF
                yield ConfigError(table, key, name, display(value), _references(ref_, missing), _soft(ref_))

    def _dangling(self, target: Ref, names: list[str]) -> Iterator[str]:
        """The names (legacy ``[TABLE|name]`` spelling stripped) that are not rows of the target tables."""
        if self.partial and not any(self.lookup.present(table) for table in target.tables):
            return
        for name in names:
            if name in target.allow:
                continue
            bare = strip_brackets(name, target.tables)
            if not self.lookup.exists(target.tables, bare):
                yield bare


def malformed(config: Config) -> Iterator[ConfigError]:
    """Structural errors: tables and rows that are not dicts, values that are not strings or string lists."""
    for table, rows in config.items():
        if not isinstance(rows, dict):
            yield ConfigError(table, "", None, None, "the table must be a mapping of keys to rows")
            continue
        for key, row in rows.items():
            if not isinstance(row, dict):
                yield ConfigError(table, key, None, None, "the row must be a mapping of fields to values")
                continue
            for name, value in row.items():
                if not _is_value(value):
                    reason = "must be a string or a list of strings"
                    yield ConfigError(table, key, name, repr(value), reason)


def case_hints(unknown: Iterable[str]) -> list[ConfigError]:
    """A warning for each unknown table named like a modelled one in another case (``port``): it is
    a table of its own, kept and not acted on; table names are case-exact."""
    return [ConfigError(table, "", None, None, f"table names are case-exact: this is another table than {twin} "
                        "(kept, not acted on)", warning=True) for table in unknown if (twin := case_twin(table))]


def _is_value(value: object) -> bool:
    if isinstance(value, list):
        return all(isinstance(item, str) for item in value)
    return isinstance(value, str)


def _soft(target: Ref) -> bool:
    """A dangling reference is an error only when it names a port; any other object (a VLAN, a
    profile, a scheduler, a map) is a warning, because SONiC's daemons wait for it (NEED_RETRY)."""
    return CFG_PORT_TABLE_NAME not in target.tables


def _references(target: Ref, missing: str) -> str:
    return f"references {target.noun} '{missing}', which is not in {target.targets()}"
