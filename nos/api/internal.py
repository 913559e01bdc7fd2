"""The switch's own tables (``NOS_*``, ``nos.schema.tables.INTERNAL_PREFIX``): readable through REST and
gNMI, written only by the switch itself.

CONFIG_DB holds one today, ``NOS_ROCE_SAVED`` (the rows the RoCE intent replaced, which turning the
intent off puts back); a client that wrote it could make ``intents/roce`` DELETE "restore" rows of its
choosing. The intent's own routes (REST ``intents/roce``, ``nos config roce``) change it as part of
their expansion; a raw write (REST ``config/``, gNMI Set) that would change any ``NOS_*`` table, by
naming it or as a side effect (a whole-document replace or delete), is refused whole, naming the table.

The check compares the internal tables of the document before and after the write's edit. Edits
share what they do not change with the snapshot (``nos.config.transaction.commit``), so an untouched
table is the very same object and costs one identity test.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from nos.db.configdb import Config
from nos.schema.tables import CFG_ROCE_SAVED_TABLE_NAME, INTERNAL_PREFIX

Build = Callable[[Config], Config]

_KEPT_BY = {CFG_ROCE_SAVED_TABLE_NAME: "the RoCE intent keeps it: intents/roce, nos config roce"}


class InternalTableWrite(Exception):
    """A write through an API would change the switch's own table ``table``."""

    def __init__(self, table: str) -> None:
        self.table = table
        super().__init__(refusal(table))


def is_internal(table: str) -> bool:
    return table.startswith(INTERNAL_PREFIX)


def refusal(table: str) -> str:
    """Why a write of ``table`` is refused, and who does write it."""
    kept = _KEPT_BY.get(table, "the switch writes it itself")
    return (f"table {table} is internal to the switch: {INTERNAL_PREFIX}* tables may be read but not written "
            f"through the API ({kept}); nothing applied")


def named_in_patch(operations: Sequence[Mapping[str, object]]) -> str | None:
    """The first internal table an RFC 6902 patch writes by name (the ``path`` of an add, remove,
    replace, move or copy; the ``from`` of a move), if any; ``test`` and a copy's ``from`` only read."""
    for operation in operations:
        pointers = [operation.get("path")] if operation.get("op") != "test" else []
        if operation.get("op") == "move":
            pointers.append(operation.get("from"))
        for pointer in pointers:
            if isinstance(pointer, str) and pointer.startswith("/"):
                table = pointer[1:].split("/", 1)[0].replace("~1", "/").replace("~0", "~")
                if is_internal(table):
                    return table
    return None


def changed_internal(before: Config, after: Config) -> str | None:
    """The first internal table (by name) whose rows differ between the two documents, if any."""
    prefix = INTERNAL_PREFIX
    names = [name for name in before if name.startswith(prefix)] + [name for name in after if name.startswith(prefix)]
    for name in sorted(set(names)) if names else ():
        old, new = before.get(name) or {}, after.get(name) or {}
        if old is not new and old != new:
            return name
    return None


def guarded(build: Build, refuse: Callable[[str], Exception] = InternalTableWrite) -> Build:
    """``build`` that raises ``refuse(table)`` when its result changes an internal table."""
    prefix = INTERNAL_PREFIX

    def checked(current: Config) -> Config:
        before = {name: rows for name, rows in current.items() if name.startswith(prefix)}
        target = build(current)
        table = changed_internal(before, target)
        if table is not None:
            raise refuse(table)
        return target

    return checked


__all__ = ["InternalTableWrite", "changed_internal", "guarded", "is_internal", "named_in_patch",
           "refusal"]
