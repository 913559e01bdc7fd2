"""Table: plain hashes ``<TABLE><sep><key>``, swss-common's ``Table`` (no pub/sub of its own).

Readers of CONFIG_DB and STATE_DB learn about changes through keyspace notifications
(``SubscriberStateTable``); a plain Table write publishes nothing itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import cast

from nos.db.connector import DBConnector
from nos.db.errors import map_redis_errors


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
        """The row's fields, or None when the row does not exist."""
        with map_redis_errors(f"get {self.key_name(key)}"):
            fields = cast(dict[str, str], self.db.client.hgetall(self.key_name(key)))
        return fields or None

    def hget(self, key: str, field: str) -> str | None:
        with map_redis_errors(f"hget {self.key_name(key)} {field}"):
            value = cast(str | None, self.db.client.hget(self.key_name(key), field))
        return value

    def set(self, key: str, fields: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        """HSET the fields into the row (other fields stay, as in swss-common)."""
        mapping = dict(fields.items() if isinstance(fields, Mapping) else fields)
        if not mapping:
            return
        with map_redis_errors(f"set {self.key_name(key)}"):
            self.db.client.hset(self.key_name(key), mapping=mapping)

    def hdel(self, key: str, *fields: str) -> None:
        if fields:
            with map_redis_errors(f"hdel {self.key_name(key)}"):
                self.db.client.hdel(self.key_name(key), *fields)

    def delete(self, key: str) -> None:
        with map_redis_errors(f"del {self.key_name(key)}"):
            self.db.client.delete(self.key_name(key))

    def keys(self) -> list[str]:
        """Every row key of the table (the part after ``<TABLE><sep>``)."""
        with map_redis_errors(f"keys {self.prefix}*"):
            names = cast(list[str], self.db.client.keys(_glob_escape(self.prefix) + "*"))
        cut = len(self.prefix)
        return sorted(name[cut:] for name in names)

    def get_all(self) -> dict[str, dict[str, str]]:
        """Every row, read in one pipeline."""
        keys = self.keys()
        with map_redis_errors(f"dump {self.name}"):
            pipe = self.db.client.pipeline(transaction=False)
            for key in keys:
                pipe.hgetall(self.prefix + key)
            rows = pipe.execute()
        return {key: row for key, row in zip(keys, rows, strict=True) if row}


def _glob_escape(text: str) -> str:
    """Escape Redis glob metacharacters so a table name matches literally."""
    out = []
    for ch in text:
        if ch in "*?[]\\":
            out.append("\\")
        out.append(ch)
    return "".join(out)
