"""gNMI Set -> one CONFIG_DB transaction (pure planning, one IO call at the end).

A SetRequest is processed as the spec orders it (deletes, then replaces, then updates, each list in
request order) into one edit of the config_db.json document, which ``nos.config.transaction.commit``
validates as a whole and applies atomically: everything or nothing (reference ecosystem.md 1.1).

* delete: removes the DB's whole config, a table, a row (a glob key element removes every matching
  row) or a field; deleting something that does not exist is not an error.
* replace: the DB root replaces the whole configuration, a table replaces the table (rows not given
  are removed), a row replaces the row (fields not given are removed), a field sets the field.
  Replacing a row with ``{}`` or anything with null is refused, as the spec says.
* update: merges: fields are set, rows and tables created as needed, nothing is removed.

Writes take native paths (origin ``sonic-db``) into CONFIG_DB. The switch's daemons own the other
databases, so Set on APPL_DB, STATE_DB, ... is refused (sonic-gnmi writes APPL_DB for DASH; this
switch has no DASH), and so is any write of the switch's own ``NOS_*`` tables (``nos.api.internal``),
named or changed by a whole-DB replace or delete: PERMISSION_DENIED in the message, nothing applied.
Several elements after the table are a row key when the value is an object
(``/CONFIG_DB/localhost/VLAN_MEMBER/Vlan100/Ethernet0`` = row ``Vlan100|Ethernet0``), else the last
one is the field. Table names are case-exact (``/port`` is a table ``port``, never ``PORT``). Tables
without a model are kept, as ``config load`` keeps them; values are checked
by the same whole-configuration validation. Failures raise :class:`SetFailed` (status ABORTED) naming
the operation, its path, the specific code (INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED,
PERMISSION_DENIED) and the reason,
except a value past the input limits (nested deeper than 64 levels: status INVALID_ARGUMENT, the
request unread; larger than gRPC's 4 MiB message limit: RESOURCE_EXHAUSTED from grpc itself).
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from nos.api import internal
from nos.api.gnmi.encoding import ValueTooDeep, decode
from nos.api.gnmi.errors import GnmiError, InvalidArgument, PermissionDenied, Unimplemented
from nos.api.gnmi.paths import Address, addresses, from_proto, has_wildcard
from nos.config.errors import ConfigError, ConfigFileError, ConfigValidationError
from nos.config.files import parse_config
from nos.config.transaction import Rows, TxResult, commit, private_rows
from nos.db.configdb import LIST_SUFFIX, NULL_FIELD, Config, ConfigConflict, ConfigDBConnector, Row
from nos.db.errors import DbError, WrongTypeError
from nos.schema.dbconfig import CONFIG_DB
from nos.schema.tables import table_name_problem

Kind = Literal["delete", "replace", "update"]
SEPARATOR = "|"
SHOWN_ERRORS = 5


class SetFailed(GnmiError):
    """Raised when a SetRequest is refused; nothing was applied. The status is ABORTED; the message
    names the failing operation with its own code (INVALID_ARGUMENT, NOT_FOUND, ...)."""

    code = "ABORTED"


@dataclass(frozen=True)
class SetOp:
    """One operation of a SetRequest, its target in the config_db.json document and its value."""

    kind: Kind
    text: str
    path: Any                       # the request's Path, echoed in the UpdateResult
    table: str | None               # None: the whole configuration
    key: str | None = None          # None: the whole table (or, for a delete, ``parts`` decide)
    field: str | None = None
    parts: tuple[str, ...] = ()     # delete only: the elements after the table, resolved on the document
    value: Any = None

    def covers(self, table: str, key: str) -> bool:
        if self.table is None:
            return True
        if self.table != table:
            return False
        if self.key is not None:
            return self.key == key
        if self.parts:
            joined = SEPARATOR.join(self.parts)
            return key in (joined, SEPARATOR.join(self.parts[:-1])) or fnmatch.fnmatchcase(key, joined)
        return True


def fail(op: SetOp, error: GnmiError) -> SetFailed:
    return SetFailed(f"{op.kind} {op.text}: {error.code}: {error.message}; nothing applied")


# ---- planning (pure) ------------------------------------------------------------------------------

def plan(request: Any, databases: Collection[str]) -> list[SetOp]:
    """The operations of a SetRequest, checked and with normalised values (raises SetFailed)."""
    prefix = from_proto(request.prefix)
    listed: list[tuple[Kind, Any, Any]] = [("delete", p, None) for p in request.delete]
    listed += [("replace", u.path, u.val if u.HasField("val") else None) for u in request.replace]
    listed += [("update", u.path, u.val if u.HasField("val") else None) for u in request.update]
    if not listed:
        return []
    paths = [from_proto(p) for _, p, _ in listed]
    try:
        found = addresses(prefix, paths, databases)
    except GnmiError as error:
        raise SetFailed(f"{error.code}: {error.message}; nothing applied") from None
    ops = []
    for (kind, proto, val), address in zip(listed, found, strict=True):
        ops.append(_op(kind, proto, val, address))
    return ops


def _op(kind: Kind, proto: Any, val: Any, address: Address) -> SetOp:
    draft = SetOp(kind, address.text, proto, address.table)
    try:
        _writable(address)
        if kind == "delete":
            return SetOp(kind, address.text, proto, address.table, address.keyed,
                         address.parts[0] if address.keyed and address.parts else None,
                         () if address.keyed else address.parts)
        if val is None:
            raise InvalidArgument(f"the {kind} has no value")
        return _valued(draft, address, decode(val, address.text))
    except ValueTooDeep as error:  # a request that cannot be read: INVALID_ARGUMENT, not a refused transaction
        raise InvalidArgument(f"{kind} {error.message}; nothing applied") from None
    except GnmiError as error:
        raise fail(draft, error) from None


def _writable(address: Address) -> None:
    if address.scheme != "native":
        raise Unimplemented("Set takes native paths: origin sonic-db, /CONFIG_DB/localhost/<TABLE>/<KEY>/<field> "
                            f"(target {address.db} paths are read-only)")
    if address.db != CONFIG_DB:
        raise Unimplemented(f"{address.db} is written by the switch's daemons; Set writes CONFIG_DB only")
    if address.table is not None and has_wildcard(address.table):
        raise InvalidArgument("a table name cannot be a wildcard")
    if address.table is not None and internal.is_internal(address.table):
        raise PermissionDenied(internal.refusal(address.table).removesuffix("; nothing applied"))
    if address.table is not None and (problem := table_name_problem(address.table)) is not None:
        raise InvalidArgument(f"table name '{address.table}': {problem}")


def _valued(draft: SetOp, address: Address, value: object) -> SetOp:
    if value is None:
        raise InvalidArgument("null is not a value (delete the path instead)")
    table, parts = address.table, address.parts
    if any(has_wildcard(p) for p in parts) or (address.keyed and has_wildcard(address.keyed)):
        raise InvalidArgument("wildcards are for delete only")
    if table is None:
        return _with(draft, value=_config(value))
    if address.keyed is not None:
        key, field = address.keyed, parts[0] if parts else None
    elif not parts:
        return _with(draft, value=_table(table, value))
    elif isinstance(value, dict):
        key, field = SEPARATOR.join(parts), None
    elif len(parts) == 1:
        raise InvalidArgument(f"the value of row '{table}|{parts[0]}' is an object of fields, not {_kind(value)}")
    else:
        key, field = SEPARATOR.join(parts[:-1]), parts[-1]
    if field is None:
        row = _row(table, key, value)
        if draft.kind == "replace" and not row:
            raise InvalidArgument(f"replacing row '{table}|{key}' with {{}} would empty it: delete it, or update "
                                  "with {} to create a row without fields")
        return _with(draft, key=key, value=row)
    return _with(draft, key=key, field=field, value=_field(table, key, field, value))


def _field(table: str, key: str, field: str, value: object) -> object:
    if isinstance(value, str) and not field.endswith(LIST_SUFFIX) and field != NULL_FIELD:
        return value  # already what normalising it gives
    return _row(table, key, {field: value})[field]


def _with(op: SetOp, **changes: Any) -> SetOp:
    return dataclasses.replace(op, **changes)


def _config(value: object) -> Config:
    if not isinstance(value, dict):
        raise InvalidArgument(f"the configuration is an object of tables, not {_kind(value)}")
    try:
        return parse_config(value, "value")
    except ConfigFileError as error:
        raise InvalidArgument(_file_error(error)) from None


def _table(table: str, value: object) -> dict[str, Row]:
    if not isinstance(value, dict):
        raise InvalidArgument(f"the value of table '{table}' is an object of rows, not {_kind(value)}")
    return _config({table: value}).get(table, {})


def _row(table: str, key: str, value: object) -> Row:
    if not isinstance(value, dict):
        raise InvalidArgument(f"the value of row '{table}|{key}' is an object of fields, not {_kind(value)}")
    if any(v is None for v in value.values()):
        raise InvalidArgument(f"row '{table}|{key}': null is not a field value")
    return _config({table: {key: value}})[table][key]


def _file_error(error: ConfigFileError) -> str:
    text = str(error)
    return text.split(": ", 1)[1] if text.startswith("value: ") else text


_KINDS: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}


def _kind(value: object) -> str:
    return _KINDS.get(type(value), f"a {type(value).__name__}")


# ---- the edit (pure) ------------------------------------------------------------------------------

def apply_ops(document: Config, ops: Sequence[SetOp]) -> Config:
    """``document`` (a private copy) after every operation, in order."""
    for op in ops:
        if op.kind == "delete":
            _delete(document, op)
        elif op.kind == "replace":
            _replace(document, op)
        else:
            _update(document, op)
    return document


def _delete(doc: Config, op: SetOp) -> None:
    if op.table is None:
        doc.clear()
        return
    rows = doc.get(op.table)
    if rows is None:
        return
    if op.key is not None:
        _drop(rows, op.key, op.field)
    elif not op.parts:
        del doc[op.table]
    elif len(op.parts) == 1 and has_wildcard(op.parts[0]):
        for key in [k for k in rows if fnmatch.fnmatchcase(k, op.parts[0])]:
            del rows[key]
    elif SEPARATOR.join(op.parts) in rows:
        del rows[SEPARATOR.join(op.parts)]
    elif len(op.parts) > 1:
        _drop(rows, SEPARATOR.join(op.parts[:-1]), op.parts[-1])


def _drop(rows: dict[str, Row], key: str, field: str | None) -> None:
    if field is None:
        rows.pop(key, None)
    elif key in rows:
        rows[key].pop(field, None)


def _replace(doc: Config, op: SetOp) -> None:
    if op.table is None:
        doc.clear()
        doc.update(op.value)
    elif op.key is None:
        doc[op.table] = dict(op.value)
    elif op.field is None:
        doc.setdefault(op.table, {})[op.key] = dict(op.value)
    else:
        doc.setdefault(op.table, {}).setdefault(op.key, {})[op.field] = op.value


def _update(doc: Config, op: SetOp) -> None:
    if op.table is None:
        for table, rows in op.value.items():
            _merge_rows(doc.setdefault(table, {}), rows)
    elif op.key is None:
        _merge_rows(doc.setdefault(op.table, {}), op.value)
    elif op.field is None:
        doc.setdefault(op.table, {}).setdefault(op.key, {}).update(op.value)
    else:
        doc.setdefault(op.table, {}).setdefault(op.key, {})[op.field] = op.value


def _merge_rows(rows: dict[str, Row], new: dict[str, Row]) -> None:
    for key, fields in new.items():
        rows.setdefault(key, {}).update(fields)


# ---- the transaction (IO) -------------------------------------------------------------------------

def run(cdb: ConfigDBConnector, ops: Sequence[SetOp]) -> TxResult | None:
    """Apply the operations as one CONFIG_DB transaction (None for an empty request)."""
    if not ops:
        return None
    rows = touched_rows(ops)
    # tables=(): the build copies only the rows the operations touch (a one-field Set copies one row); a
    # root operation that would change a NOS_* table (replace or delete of the whole DB) is refused
    build = internal.guarded(lambda document: apply_ops(private_rows(document, rows), ops),
                             lambda table: _internal_refused(table, ops))
    try:
        return commit(cdb, build, tables=(), rows=rows)
    except ConfigValidationError as error:
        raise SetFailed(blame(error.errors, ops)) from None
    except ConfigConflict as error:
        raise SetFailed(f"{error}") from None
    except WrongTypeError as error:  # bad data in Redis, not a database that is down
        raise SetFailed(f"FAILED_PRECONDITION: {error}; nothing applied") from None
    except DbError as error:
        raise SetFailed(f"UNAVAILABLE: the switch's database is not answering: {error}; nothing applied") from None


def _internal_refused(table: str, ops: Sequence[SetOp]) -> SetFailed:
    op = next((op for op in ops if op.table is None), ops[0])
    return fail(op, PermissionDenied(internal.refusal(table).removesuffix("; nothing applied")))


def touched_rows(ops: Sequence[SetOp]) -> Rows | None:
    """The rows ``apply_ops`` may modify: table -> row keys (None: the whole table); None: everything."""
    rows: Rows = {}
    for op in ops:
        if op.table is None:
            return None
        if op.key is None:
            rows[op.table] = None
        else:
            keys = rows.setdefault(op.table, set())
            if keys is not None:
                keys.add(op.key)
    return rows


def blame(errors: Sequence[ConfigError], ops: Sequence[SetOp]) -> str:
    """The validation errors, attributed to the operation that made each row what it is."""
    first = errors[0]
    op = _culprit(first, ops)
    listed = "; ".join(str(e) for e in errors[:SHOWN_ERRORS])
    more = f" (and {len(errors) - SHOWN_ERRORS} more)" if len(errors) > SHOWN_ERRORS else ""
    return f"{op.kind} {op.text}: INVALID_ARGUMENT: {listed}{more}; nothing applied"


def _culprit(error: ConfigError, ops: Sequence[SetOp]) -> SetOp:
    covering = [op for op in ops if op.covers(error.table, error.key)]
    if covering:
        return covering[-1]
    named = [op for op in ops if op.key and f"'{op.key}'" in error.reason]
    named += [op for op in ops if op.parts and f"'{op.parts[-1]}'" in error.reason]
    return named[-1] if named else ops[0]


__all__ = ["SetFailed", "SetOp", "apply_ops", "blame", "plan", "run"]
