"""Table: plain hashes ``<TABLE><sep><key>``, swss-common's ``Table`` (no pub/sub of its own).

Readers of CONFIG_DB and STATE_DB learn about changes through keyspace notifications
(``SubscriberStateTable``); a plain Table write publishes nothing itself.

A key of the table that is not a hash is not a row: ``get``, ``hget`` and ``get_all`` skip it and
report it (``nos.db.baddata``); ``read`` raises ``WrongTypeError`` for it (a caller that must tell
"absent" from "unreadable", as a REST GET of the row); ``set``, a writer's own row, replaces it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, cast

from nos.db.baddata import BadKey, not_text_reason, unreadable
from nos.db.connector import DBConnector
from nos.db.errors import DbProtocolError, WrongTypeError, is_wrong_type, map_redis_errors

log = logging.getLogger(__name__)


class Table:
    """Rows of one table in one DB."""

    def __init__(self, db: DBConnector, table_name: str) -> None:
        self.db = db
        self.name = table_name
        self.separator = db.separator
        self.prefix = f"{table_name}{db.separator}"

    def key_name(self, key: str) -> str:
        """The Redis key of a row; an empty key names the table's own hash (name maps)."""
        return self.name if key == "" else self.prefix + key

    def get(self, key: str) -> dict[str, str] | None:
        """The row's fields, or None when the row does not exist or is not a hash (then reported)."""
        try:
            return self.read(key)
        except WrongTypeError:
            self.db.report_wrong_types(self.name, [key])
            return None

    def read(self, key: str) -> dict[str, str] | None:
        """The row's fields, or None when the row does not exist; ``WrongTypeError`` (its message as
        ``nos show errors`` gives it) when the key is not a hash."""
        try:
            with map_redis_errors(f"get {self.key_name(key)}"):
                fields = cast(dict[str, str], self.db.client.hgetall(self.key_name(key)))
        except WrongTypeError as error:
            bad = self.db.wrong_types(self.name, [key])
            raise WrongTypeError(bad[0].reason if bad else str(error)) from error
        if self.db.bad_keys.reported:
            self.db.bad_keys.good(self.db.name, self.name, key)
        return fields or None

    def hget(self, key: str, field: str) -> str | None:
        """One field of the row; None when it has no such field, or the key is not a hash (reported)."""
        try:
            with map_redis_errors(f"hget {self.key_name(key)} {field}"):
                value = cast(str | None, self.db.client.hget(self.key_name(key), field))
        except WrongTypeError:
            self.db.report_wrong_types(self.name, [key])
            return None
        return value

    def set(self, key: str, fields: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        """HSET the fields into the row (other fields stay, as in swss-common). A key of another type
        in its place is replaced by the row (it holds no fields to keep), and that is logged."""
        mapping = dict(fields.items() if isinstance(fields, Mapping) else fields)
        if not mapping:
            return
        name = self.key_name(key)
        try:
            with map_redis_errors(f"set {name}"):
                self.db.client.hset(name, mapping=mapping)
        except WrongTypeError:
            log.warning("db.bad_key.replaced db=%s key=%s reason=not a hash: replaced by the row written",
                        self.db.name, name)
            with map_redis_errors(f"replace {name}"):
                pipe = self.db.client.pipeline(transaction=True)
                pipe.delete(name)
                pipe.hset(name, mapping=mapping)
                pipe.execute()

    def hdel(self, key: str, *fields: str) -> None:
        """Delete fields of the row (nothing when the key is not a hash: reported)."""
        if fields:
            try:
                with map_redis_errors(f"hdel {self.key_name(key)}"):
                    self.db.client.hdel(self.key_name(key), *fields)
            except WrongTypeError:
                self.db.report_wrong_types(self.name, [key])

    def delete(self, key: str) -> None:
        with map_redis_errors(f"del {self.key_name(key)}"):
            self.db.client.delete(self.key_name(key))

    def delete_many(self, keys: Iterable[str]) -> None:
        """Delete these rows with one DEL (nothing to send when there are none)."""
        names = [self.key_name(key) for key in keys]
        if names:
            with map_redis_errors(f"del {len(names)} keys of {self.name}"):
                self.db.client.delete(*names)

    def keys(self) -> list[str]:
        """Every row key of the table (the part after ``<TABLE><sep>``)."""
        with map_redis_errors(f"keys {self.prefix}*"):
            names = cast(list[str], self.db.client.keys(_glob_escape(self.prefix) + "*"))
        cut = len(self.prefix)
        return sorted(name[cut:] for name in names)

    def get_all(self) -> dict[str, dict[str, str]]:
        """Every row, read in one pipeline; keys that are not rows are left out and reported."""
        return self.get_many(self.keys())

    def get_many(self, keys: list[str]) -> dict[str, dict[str, str]]:
        """These rows, read in one pipeline; keys that are not rows are left out and reported."""
        rows, bad = self._read_checked(keys)
        for entry in bad:
            self.db.bad_keys.report(entry)
        if self.db.bad_keys.reported:
            for key in rows:
                self.db.bad_keys.good(self.db.name, self.name, key)
        return rows

    def get_all_checked(self) -> tuple[dict[str, dict[str, str]], list[BadKey]]:
        """Every row, and the keys of the table that are not rows (not a hash, not UTF-8 text)."""
        return self._read_checked(self.keys())

    def _read_checked(self, keys: list[str]) -> tuple[dict[str, dict[str, str]], list[BadKey]]:
        with map_redis_errors(f"dump {self.name}"):
            pipe = self.db.client.pipeline(transaction=False)
            for key in keys:
                pipe.hgetall(self.prefix + key)
            replies = pipe.execute(raise_on_error=False)
        rows: dict[str, dict[str, str]] = {}
        wrong: list[str] = []
        bad: list[BadKey] = []
        for key, reply in zip(keys, replies, strict=True):
            if isinstance(reply, dict):
                if reply:
                    rows[key] = reply
                elif unreadable(key, reply):
                    bad.append(BadKey(self.db.name, self.name, key, not_text_reason(self.db.name, self.prefix + key)))
            elif is_wrong_type(reply):
                wrong.append(key)
            else:
                raise DbProtocolError(f"dump {self.name}: {self.prefix + key}: {reply}")
        if wrong:
            bad += self.db.wrong_types(self.name, wrong)
        return rows, bad


def _glob_escape(text: str) -> str:
    """Escape Redis glob metacharacters so a table name matches literally."""
    out = []
    for ch in text:
        if ch in "*?[]\\":
            out.append("\\")
        out.append(ch)
    return "".join(out)


def hash_replies(replies: list[object]) -> list[dict[str, str]]:
    """A pipeline's HGETALL replies (``execute(raise_on_error=False)``) with a key that is not a hash
    (garbage: WRONGTYPE) read as no row, so that one bad key fails no listing; any other error raises."""
    out = []
    for reply in replies:
        if isinstance(reply, Exception) and not is_wrong_type(reply):
            raise DbProtocolError(f"read: {reply}")
        out.append(cast(dict[str, str], reply) if isinstance(reply, dict) else {})
    return out


def write_hashes(db: DBConnector, sets: Mapping[str, Mapping[str, str]],
                 deletes: Mapping[str, Iterable[str]] | None = None) -> None:
    """HSET fields into, and HDEL fields from, several whole hashes (COUNTERS_DB name maps: a writer's
    own hashes) in one round trip. A hash that is another type (garbage written by hand) would fail every
    write: it is replaced by the fields written (deleted, when only deleted from), and that is logged."""
    names = [name for name, fields in sets.items() if fields]
    gone = [(name, list(fields)) for name, fields in (deletes or {}).items()]
    gone = [(name, fields) for name, fields in gone if fields]
    if not names and not gone:
        return
    with map_redis_errors(f"write {len(names) + len(gone)} hashes"):
        pipe = db.client.pipeline(transaction=False)
        for name in names:
            pipe.hset(name, mapping=cast(Any, dict(sets[name])))
        for name, fields in gone:
            pipe.hdel(name, *fields)
        replies = pipe.execute(raise_on_error=False)
        wrong = [name for name, reply in zip([*names, *(n for n, _ in gone)], replies, strict=True)
                 if is_wrong_type(reply)]
        others = [reply for reply in replies if isinstance(reply, Exception) and not is_wrong_type(reply)]
        if others:
            raise DbProtocolError(f"write hashes: {others[0]}")
        if wrong:
            for name in dict.fromkeys(wrong):
                log.warning("db.bad_key.replaced db=%s key=%s reason=not a hash: replaced by the fields written",
                            db.name, name)
                pipe.delete(name)
                if name in sets and sets[name]:
                    pipe.hset(name, mapping=cast(Any, dict(sets[name])))
            pipe.execute()
