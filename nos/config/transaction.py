"""CONFIG_DB transactions: one REST PATCH, one gNMI SetRequest, one ``config apply-patch`` or
``config rollback`` is all or nothing.

A transaction reads CONFIG_DB and its generation (``ConfigDBConnector.snapshot``), builds the whole
target document from it (pure), validates that document as ``config load`` does, plans the row
changes and applies them in one Lua script that checks the generation first. If another transaction
committed in between, the target is built again on the new state (a bounded number of times); a
target that fails validation changes nothing and the error names table, key, field and reason.
A server's cached connector lets the first attempt plan on the cache's copy with no round trip when
that copy is known to be current; the generation check still decides (see ``commit``).

JSON Patch (RFC 6902) is applied by ``jsonpatch`` to the config_db.json document: paths are
``/<TABLE>/<key>/<field>``, and a ``/`` inside a key is written ``~1`` (RFC 6901), as in
``/INTERFACE/Ethernet0|10.0.0.0~131``. Values are normalised like a config_db.json file (numbers and
booleans become strings).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
import jsonpointer

from nos.config.errors import ConfigFileError, ConfigValidationError
from nos.config.files import is_normal_row, parse_config
from nos.config.validate import case_hints
from nos.config.validate_change import validate_change
from nos.db.configdb import Config, ConfigConflict, ConfigDBConnector, Row, RowChange

ATTEMPTS = 5  # builds on a fresh snapshot after a conflict before giving up
PATCH_OPS = ("add", "remove", "replace", "move", "copy", "test")


class PatchError(ValueError):
    """A JSON Patch that cannot be applied: which operation, on which path, and why."""

    def __init__(self, index: int | None, op: str, path: str, reason: str) -> None:
        self.index, self.op, self.path, self.reason = index, op, path, reason
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"operation {self.index} ({self.op} {self.path})" if self.index is not None else "patch"
        return f"{where}: {self.reason}"


@dataclass
class TxResult:
    """What a transaction planned, and whether it was applied (not on a dry run or a no-op)."""

    changes: list[RowChange]
    applied: bool
    generation: int
    not_acted_on: list[str] = field(default_factory=list)
    unknown_fields: list[tuple[str, str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_patch(self, before: Config) -> list[dict[str, object]]:
        """The changes as a JSON Patch against ``before`` (what a dry run reports)."""
        ops: list[dict[str, object]] = []
        for change in self.changes:
            path = f"/{_escape(change.table)}/{_escape(change.key)}"
            if change.mode == "delete":
                ops.append({"op": "remove", "path": path})
            else:
                op = "replace" if change.key in before.get(change.table, {}) else "add"
                ops.append({"op": op, "path": path, "value": change.row or {}})
        return ops


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


# ---- pure: documents ------------------------------------------------------------------------------

Rows = dict[str, set[str] | None]  # table -> row keys (None: the whole table), as ``patch_rows`` gives them


def plan_changes(current: Config, target: Config, rows: Rows | None = None) -> list[RowChange]:
    """Row changes that turn ``current`` into ``target`` (identical rows are left alone; a table
    that is the very same object in both, as private copies share untouched tables, is skipped).

    ``rows`` (table -> row keys, None: the whole table) names the only rows that can differ, as
    ``patch_rows`` gives them for a patch: then only those are compared (one row of a 128-row table,
    not 128). A target that differs in a table ``rows`` does not name is planned in full anyway."""
    if rows is not None and all(target.get(t) is current.get(t) for t in target.keys() | current.keys()
                                if t not in rows):
        return _plan_rows(current, target, rows)
    changes: list[RowChange] = []
    for table, new in sorted(target.items()):
        now = current.get(table, {})
        if new is now:
            continue
        # rows a patch left alone are the very same objects: the identity test settles most of them
        differ = [key for key, row in new.items() if (old := now.get(key)) is not row and old != row]
        changes += [RowChange(table, key, "replace", new[key]) for key in sorted(differ)]
    for table, old_rows in sorted(current.items()):
        kept = target.get(table, {})
        if old_rows is not kept:
            changes += [RowChange(table, key, "delete") for key in sorted(old_rows.keys() - kept.keys())]
    return changes


def _plan_rows(current: Config, target: Config, rows: Rows) -> list[RowChange]:
    """``plan_changes`` when only ``rows`` can differ (same order: replaces, then deletes, by table and key)."""
    replaced: list[RowChange] = []
    deleted: list[RowChange] = []
    for table in sorted(rows):
        old, new = current.get(table, {}), target.get(table, {})
        if old is new:
            continue
        keys = rows[table]
        for key in sorted(old.keys() | new.keys() if keys is None else keys):
            row = new.get(key)
            if row is None:
                if key in old:
                    deleted.append(RowChange(table, key, "delete"))
            elif row is not old.get(key) and row != old.get(key):
                replaced.append(RowChange(table, key, "replace", row))
    return replaced + deleted


def private_copy(config: Config, tables: Iterable[str] | None = None) -> Config:
    """A copy of ``config`` that may be modified in ``tables`` (all of it when None); the other
    tables are shared with ``config`` and must be left alone."""
    if tables is None:
        return {table: {key: _row(row) for key, row in rows.items()} for table, rows in config.items()}
    out = dict(config)
    for table in tables:
        if table in config:
            out[table] = {key: _row(row) for key, row in config[table].items()}
    return out


def private_rows(config: Config, rows: Rows | None) -> Config:
    """A copy of ``config`` that may be modified in the given rows (table -> row keys, None: the whole
    table; None: everything). Tables and rows not named are shared with ``config``: a one-field patch
    copies one row, not its 128-row table."""
    if rows is None:
        return private_copy(config)
    out = dict(config)
    for table, keys in rows.items():
        if table not in config:
            continue
        if keys is None:
            out[table] = {key: _row(row) for key, row in config[table].items()}
            continue
        copied = dict(config[table])
        for key in keys:
            if key in copied:
                copied[key] = _row(copied[key])
        out[table] = copied
    return out


def _row(row: Row) -> Row:
    return {name: list(value) if isinstance(value, list) else value for name, value in row.items()}


def normalise(document: object, source: str = "patch") -> Config:
    """A JSON document as a Config (scalars to strings, empty tables dropped); ConfigFileError names
    the table, key and field of anything not shaped like config_db.json."""
    config = parse_config(document, source)
    return {table: rows for table, rows in config.items() if rows}


@dataclass(frozen=True)
class JsonPatch:
    """An RFC 6902 patch and the rows it can modify (``patch_rows``, found once for its application,
    its row copies and the transaction's plan)."""

    operations: Sequence[Mapping[str, object]]
    rows: Rows | None

    @classmethod
    def of(cls, operations: Sequence[Mapping[str, object]]) -> JsonPatch:
        if not isinstance(operations, Sequence) or isinstance(operations, str | bytes):
            raise PatchError(None, "", "", "a JSON Patch is a list of operations")
        return cls(operations, patch_rows(operations))

    def apply(self, config: Config) -> Config:
        """``config`` with the patch applied (pure; ``config`` is not changed)."""
        document: object = private_rows(config, self.rows)
        for index, operation in enumerate(self.operations):
            op, path = _check_operation(index, operation)
            if _set_field(document, op, path, operation):
                continue
            try:
                document = jsonpatch.JsonPatch([dict(operation)]).apply(document, in_place=True)
            except jsonpatch.JsonPatchTestFailed as exc:
                raise PatchError(index, op, path, f"test failed: {exc}") from None
            except (jsonpatch.JsonPatchConflict, jsonpatch.InvalidJsonPatch, jsonpointer.JsonPointerException) as exc:
                raise PatchError(index, op, path, _reason(exc, document, path)) from None
        try:
            return _normalise_touched(config, document, self.rows)
        except ConfigFileError as exc:
            raise PatchError(None, "", "", f"the result is not a configuration: {_located(exc)}") from None


def _set_field(document: object, op: str, path: str, operation: Mapping[str, object]) -> bool:
    """Apply an add, replace or remove of one field of an existing row (``/TABLE/key/field``, nothing
    escaped), the usual one-field change, as RFC 6902 defines it for an object member; False, with
    the document untouched, for anything else, which ``jsonpatch`` applies (and refuses, with its
    reason: a replace or remove of a missing field). ``jsonpatch`` builds a pointer and an operation
    object per operation, a third of the patch's cost for a one-field change."""
    if op not in ("add", "replace", "remove") or "~" in path:
        return False
    parts = path.split("/")
    if len(parts) != 4 or not isinstance(document, dict):
        return False
    rows = document.get(parts[1])
    row = rows.get(parts[2]) if isinstance(rows, dict) else None
    if not isinstance(row, dict) or (op != "add" and parts[3] not in row):
        return False
    if op == "remove":
        del row[parts[3]]
    else:  # a copy, as jsonpatch inserts: the document shares nothing mutable with the request
        value = operation["value"]
        row[parts[3]] = value if isinstance(value, str) else copy.deepcopy(value)
    return True


def apply_json_patch(config: Config, operations: Sequence[Mapping[str, object]]) -> Config:
    """``config`` with an RFC 6902 patch applied (pure; ``config`` is not changed)."""
    return JsonPatch.of(operations).apply(config)


def _normalise_touched(before: Config, document: object, rows: Rows | None) -> Config:
    """``normalise`` what a patch touched (``rows``); the rows it left alone came from ``before`` and
    are already normal (a 128-row table is not re-normalised for one field)."""
    if rows is None or not isinstance(document, dict):
        return normalise(document)
    out: dict[str, Any] = {}
    for name, value in document.items():
        keys = rows.get(name, set()) if name in rows else None
        if name not in rows:
            out[name] = value  # untouched: shared with ``before``
        elif keys is None or name not in before or not isinstance(value, dict):
            out.update(normalise({name: value}))  # a new or wholly rewritten table
        else:  # ``value`` is the patch's private copy of the table (``private_rows``): changed in place
            odd = {k: value[k] for k in keys if k in value and not is_normal_row(value[k])}
            if odd:
                value.update(normalise({name: odd}).get(name, {}))
            out[name] = value
    return {table: body for table, body in out.items() if body}


def patch_rows(operations: Sequence[Mapping[str, object]]) -> Rows | None:
    """Table -> the rows a patch can modify (None: the whole table); None when it touches the root."""
    found: Rows = {}
    for operation in operations:
        if not isinstance(operation, Mapping):
            continue
        for pointer in (operation.get("path"), operation.get("from")):
            if not isinstance(pointer, str):
                continue
            parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")]
            if len(parts) < 2 or parts[0] != "":
                return None
            if len(parts) == 2 or found.get(parts[1], set()) is None:
                found[parts[1]] = None
            else:
                found.setdefault(parts[1], set()).add(parts[2])  # type: ignore[union-attr]
    return found


def _check_operation(index: int, operation: object) -> tuple[str, str]:
    if not isinstance(operation, Mapping):
        raise PatchError(index, "", "", "an operation is an object with 'op' and 'path'")
    op, path = operation.get("op"), operation.get("path")
    if op not in PATCH_OPS:
        raise PatchError(index, str(op), str(path), f"'op' must be one of {', '.join(PATCH_OPS)}")
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise PatchError(index, str(op), str(path), "'path' must be a JSON pointer such as /PORT/Ethernet0/mtu")
    if op in ("add", "replace", "test") and "value" not in operation:
        raise PatchError(index, str(op), path, f"'{op}' needs a 'value'")
    if op in ("move", "copy") and not isinstance(operation.get("from"), str):
        raise PatchError(index, str(op), path, f"'{op}' needs a 'from' pointer")
    return str(op), path


def _reason(exc: Exception, document: object, path: str) -> str:
    """Why an operation failed, naming the table, row or field the path lacks."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]
    node = document
    for depth, part in enumerate(parts[:3]):
        if not isinstance(node, dict) or part not in node:
            if depth == 0:
                return f"no table '{part}' (add the table itself first, with its rows as the value)"
            if depth == 1:
                return f"no row '{parts[0]}|{part}'"
            return f"row '{parts[0]}|{parts[1]}' has no field '{part}'"
        node = node[part]
    return str(exc)


def _located(exc: ConfigFileError) -> str:
    text = str(exc)
    return text.split(": ", 1)[1] if ": " in text else text


# ---- against CONFIG_DB ----------------------------------------------------------------------------

Build = Callable[[Config], Config]


def commit(cdb: ConfigDBConnector, build: Build, *, dry_run: bool = False, tables: Iterable[str] | None = None,
           mentioned: Callable[[Config], Iterable[str]] | None = None,
           rows: Rows | None = None) -> TxResult:
    """Build the target from the current CONFIG_DB, validate the change, apply it atomically.

    ``build`` gets a private copy of the current document and returns the whole target; with
    ``tables`` it may modify only those tables (the others are shared with the snapshot, which is
    what makes a small change cheap). Raises ``PatchError`` / ``ConfigValidationError`` (nothing
    applied) or ``ConfigConflict`` when the database kept changing under it ``ATTEMPTS`` times.
    ``mentioned`` picks the tables whose not-acted-on notes are reported (default: those changed).
    ``rows`` names the only rows ``build`` can change, if known (see ``plan_changes``).

    With a cached connector the first attempt may plan on the cache's copy without a round trip
    (``ConfigDBConnector.recent_snapshot``): the apply's generation check covers it. A build error,
    a validation error or a no-op found on that copy is not reported: it is planned again on a
    confirmed snapshot (``snapshot``), and only what that one finds is. ``build`` may so run twice."""
    wanted = None if tables is None else set(tables)
    # A copy known to be current needs no round trip (ConfigDBConnector.recent_snapshot); the apply's
    # generation check makes that safe. Anything but a clean apply on it is done again on a snapshot.
    guess = None if dry_run else cdb.recent_snapshot()
    attempts = ATTEMPTS + (guess is not None)
    for _ in range(attempts):
        guessed, guess = guess, None
        current, generation = guessed if guessed is not None else cdb.snapshot()
        try:
            target = {table: rows for table, rows in build(private_copy(current, wanted)).items() if rows}
        except Exception:
            if guessed is None:
                raise
            continue  # refused on an unconfirmed copy: build again on a confirmed snapshot
        changes = plan_changes(current, target, rows)
        report = validate_change(current, target, [(c.table, c.key) for c in changes])
        if guessed is not None and not (report.ok and changes):
            continue  # refused, or nothing to do, on a copy not confirmed: confirm on a snapshot
        if not report.ok:
            raise ConfigValidationError(report.errors)
        touched = set(mentioned(target) if mentioned else (c.table for c in changes))
        unknown = sorted(t for t in report.unknown_tables if t in touched)
        result = TxResult(changes, False, generation, unknown, [u for u in report.unknown_fields if u[0] in touched],
                          [str(w) for w in [*report.warnings, *case_hints(unknown)] if w.table in touched])
        if dry_run or not changes:
            return result
        try:
            cdb.apply(changes, expect_generation=generation, result=target)
        except ConfigConflict:
            continue
        result.applied, result.generation = True, generation + 1
        return result
    raise ConfigConflict(f"CONFIG_DB kept changing: gave up after {ATTEMPTS} attempts; nothing applied")


def apply_patch(cdb: ConfigDBConnector, operations: Sequence[Mapping[str, object]], *,
                dry_run: bool = False) -> TxResult:
    """``config apply-patch``: an RFC 6902 patch on the running configuration, all or nothing."""
    patch = JsonPatch.of(operations)  # copies what it modifies itself: nothing for commit to copy
    return commit(cdb, patch.apply, dry_run=dry_run, tables=(), rows=patch.rows)


def replace_config(cdb: ConfigDBConnector, target: Config, *, dry_run: bool = False) -> TxResult:
    """Make CONFIG_DB equal ``target`` (``config reload`` / ``config rollback``), all or nothing."""
    return commit(cdb, lambda _current: private_copy(target), dry_run=dry_run, tables=(), mentioned=lambda t: t)


__all__ = ["ATTEMPTS", "JsonPatch", "PatchError", "Rows", "TxResult", "apply_json_patch", "apply_patch", "commit",
           "normalise", "plan_changes", "replace_config"]
