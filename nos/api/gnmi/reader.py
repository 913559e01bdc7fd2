"""Reading what a gNMI path selects: entries (one Redis hash, or one field of it) and their values.

An :class:`Entry` is the unit of everything the server sends: it knows the Redis hash (and field) it
reads, where its value sits inside the answer for the whole path (``label``: ``()`` for the value
itself, ``("Ethernet0",)`` for one row of a table), and its own full path (what an ON_CHANGE update
for it alone is sent as). Reads are pipelined; CONFIG_DB rows read as config_db.json rows (the
``NULL`` placeholder dropped, ``field@`` lists split), other databases as Redis stores them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from nos.api.gnmi.errors import GnmiError, Unavailable
from nos.api.gnmi.paths import Elem
from nos.db.configdb import LIST_SUFFIX, raw_to_typed
from nos.db.connector import Databases
from nos.db.errors import DbError, WrongTypeError, map_redis_errors
from nos.schema.dbconfig import CONFIG_DB

Label = tuple[str, ...]


@dataclass(frozen=True)
class Entry:
    """One hash (or one field of it) that a path selects."""

    db: str
    hash: str
    field: str | None
    label: Label
    path: tuple[Elem, ...]


class Reader:
    """Redis reads for the selections, over the switch's databases (thread-safe: redis-py pools)."""

    def __init__(self, dbs: Databases) -> None:
        self.dbs = dbs
        self.names = tuple(dbs.config.databases)
        for name in self.names:
            dbs[name]  # noqa: B018 - create every connector now, not concurrently from RPC threads

    def separator(self, db: str) -> str:
        return self.dbs[db].separator

    def client(self, db: str) -> Any:
        return self.dbs[db].client

    def keys(self, db: str, pattern: str) -> list[str]:
        with db_errors(f"keys {db} {pattern}"):
            return sorted(cast(list[str], self.client(db).keys(pattern)))

    def existing(self, db: str, probes: Sequence[tuple[str, str | None]]) -> list[bool]:
        """For each (hash, field): does the hash (or that field of it) exist."""
        with db_errors(f"probe {db}"):
            pipe = self.client(db).pipeline(transaction=False)
            for name, field in probes:
                if field is None:
                    pipe.exists(name)
                else:
                    pipe.hexists(name, field)
                    pipe.hexists(name, field + LIST_SUFFIX)
            replies = iter(pipe.execute(raise_on_error=False))
        found = []
        for _name, field in probes:
            if field is None:
                found.append(next(replies) == 1)
            else:
                plain, listed = next(replies), next(replies)
                found.append(plain is True or listed is True)
        return found

    def read(self, entries: Iterable[Entry]) -> dict[Entry, object]:
        """The current value of every entry that exists (absent entries are left out)."""
        by_db: dict[str, list[Entry]] = {}
        for entry in entries:
            by_db.setdefault(entry.db, []).append(entry)
        values: dict[Entry, object] = {}
        for db, group in by_db.items():
            values.update(self._read_db(db, group))
        return values

    def _read_db(self, db: str, entries: list[Entry]) -> dict[Entry, object]:
        config = db == CONFIG_DB
        with db_errors(f"read {db}"):
            pipe = self.client(db).pipeline(transaction=False)
            for entry in entries:
                if entry.field is None:
                    pipe.hgetall(entry.hash)
                elif config:
                    pipe.hmget(entry.hash, [entry.field, entry.field + LIST_SUFFIX])
                else:
                    pipe.hget(entry.hash, entry.field)
            replies = pipe.execute(raise_on_error=False)
        out: dict[Entry, object] = {}
        for entry, reply in zip(entries, replies, strict=True):
            value = _value(entry, reply, config)
            if value is not None:
                out[entry] = value
        return out


def _value(entry: Entry, reply: object, config: bool) -> object:
    if isinstance(reply, Exception):
        return None  # not a hash (WRONGTYPE): nothing a path can select
    if entry.field is None:
        row = cast(Mapping[str, str], reply)
        if not row:
            return None
        return raw_to_typed(row) if config else dict(row)
    if config:
        plain, listed = cast(list[str | None], reply)
        if plain is not None:
            return plain
        return listed.split(",") if listed else ([] if listed is not None else None)
    return reply


def aggregate(values: Mapping[Entry, object]) -> object:
    """The values of a path's entries as one JSON value, nested by label."""
    out: dict[str, Any] = {}
    for entry, value in sorted(values.items(), key=lambda item: item[0].label):
        if not entry.label:
            return value
        node = out
        for part in entry.label[:-1]:
            node = node.setdefault(part, {})
        node[entry.label[-1]] = value
    return out


@contextlib.contextmanager
def db_errors(what: str) -> Iterator[None]:
    """``map_redis_errors``, with the database being down answered as UNAVAILABLE."""
    try:
        with map_redis_errors(what):
            yield
    except WrongTypeError as error:  # bad data in Redis, not a database that is down
        raise GnmiError(str(error), "FAILED_PRECONDITION") from error
    except DbError as error:
        raise Unavailable(f"the switch's database is not answering: {error}") from error


__all__ = ["Entry", "Label", "Reader", "aggregate", "db_errors"]
