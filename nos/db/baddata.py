"""Keys a reader could not take as what their table holds, and where they are reported.

The rules every reader of the layer follows (bad data in Redis never kills a daemon):

* A key of the wrong Redis type (a string, list, set... where a row's hash is expected; a string where
  a transport's key set is expected) is skipped, never raised: to a reader it is not a row. A key
  that is not UTF-8 text reads with U+FFFD in place of its bad bytes (every connection decodes with
  ``errors="replace"``), so it cannot be read back; it is skipped the same way.
* Each such key is told to the process's ``BadKeys`` (one per ``Databases``, shared by its
  connectors), which logs it once (a warning in a daemon, info elsewhere) and hands it to a publisher:
  a daemon's ``StateDbReporter`` writes
  STATE_DB ``NOS_REJECTED_TABLE|<DB>:<TABLE>:<key>``, which ``nos show errors`` lists. A reader that
  next reads the key as a good row, or sees it deleted, clears the report.
* A writer that owns a row (a daemon's STATE_DB or APPL_DB output) replaces a wrong-type key with the
  row it writes, as the garbage holds nothing a row could keep (``Table.set``); it logs that.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Protocol

from nos.db.errors import DbError

log = logging.getLogger(__name__)

REPLACEMENT = "\ufffd"  # what a byte that is not UTF-8 decodes to
MAX_SHOWN = 200         # characters of a key or value quoted in a reason

_ARTICLES = {"string": "a string", "list": "a list", "set": "a set", "zset": "a sorted set",
             "hash": "a hash", "stream": "a stream", "none": "gone"}


@dataclass(frozen=True, slots=True)
class BadKey:
    """One key a reader skipped: where it is (DB, table, key within the table) and why."""

    db: str
    table: str
    key: str
    reason: str


def shown(text: str) -> str:
    """A key or value quoted in a reason: at most ``MAX_SHOWN`` characters, control characters escaped."""
    cut = text[:MAX_SHOWN]
    quoted = cut if cut.isprintable() else cut.encode("unicode_escape").decode("ascii")
    return quoted + (f"... ({len(text)} characters)" if len(text) > MAX_SHOWN else "")


def wrong_type_reason(db: str, redis_key: str, actual: str, expected: str = "hash") -> str:
    """``WRONGTYPE: CONFIG_DB PORT|Ethernet24 is a string, expected a hash``."""
    return f"WRONGTYPE: {db} {shown(redis_key)} is {_ARTICLES.get(actual, actual)}, expected {_ARTICLES[expected]}"


def not_text_reason(db: str, redis_key: str) -> str:
    return (f"NOT UTF-8: {db} {shown(redis_key)} is not UTF-8 text (bad bytes shown as U+FFFD); "
            f"it cannot be read: delete it")


def unreadable(key: str, row: object) -> bool:
    """Whether a key read as no row is one that cannot be read back: not UTF-8 text."""
    return not row and REPLACEMENT in key


class Publisher(Protocol):
    """Where reported keys become visible (a daemon's StateDbReporter)."""

    def bad_key(self, bad: BadKey) -> None: ...
    def bad_key_cleared(self, db: str, table: str, key: str) -> None: ...


class BadKeys:
    """The bad keys this process has reported and not yet seen fixed (thread-safe: API servers read
    from a thread pool). ``good`` is called for every key a reader reads well, so its no-report case
    is one attribute test."""

    def __init__(self, publisher: Publisher | None = None) -> None:
        self.publisher = publisher
        self.reported: dict[tuple[str, str, str], str] = {}
        self._lock = threading.Lock()

    def report(self, bad: BadKey) -> None:
        """Log ``bad`` (once, until its reason changes) and publish it."""
        ident = (bad.db, bad.table, bad.key)
        with self._lock:
            if self.reported.get(ident) == bad.reason:
                return
            self.reported[ident] = bad.reason
        # a warning where it is published (a daemon); a reader without a publisher (the CLI, an API server)
        # says it its own way (an error naming the key, a warning on stderr), so its log has it at info
        level = logging.WARNING if self.publisher is not None else logging.INFO
        log.log(level, "db.bad_key db=%s table=%s key=%s reason=%s", bad.db, bad.table, shown(bad.key), bad.reason)
        if self.publisher is not None:
            try:
                self.publisher.bad_key(bad)
            except DbError as error:  # the report itself could not be written: the log has it
                log.warning("db.bad_key.unpublished key=%s error=%s", shown(bad.key), error)

    def good(self, db: str, table: str, key: str) -> None:
        """The key was read as a good row, or seen deleted: clear its report if there is one."""
        if not self.reported:
            return
        with self._lock:
            if self.reported.pop((db, table, key), None) is None:
                return
        log.info("db.bad_key.cleared db=%s table=%s key=%s", db, table, shown(key))
        if self.publisher is not None:
            try:
                self.publisher.bad_key_cleared(db, table, key)
            except DbError as error:
                log.warning("db.bad_key.uncleared key=%s error=%s", shown(key), error)

    def count(self) -> int:
        return len(self.reported)


__all__ = ["BadKey", "BadKeys", "Publisher", "not_text_reason", "shown", "unreadable", "wrong_type_reason"]
