"""NotificationProducer / NotificationConsumer: plain pub/sub channels carrying ``[op, data, f, v, ...]``.

The payload is a compact JSON array of strings, as swss-common's ``JSon::buildJson`` writes it.
A message that is not one (not JSON, not an array of an even number of strings) is dropped and
reported (``nos.db.baddata``: ``<DB>:<channel>:(message)``), until the channel's next good message.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nos.db.baddata import BadKey, shown
from nos.db.connector import DBConnector
from nos.db.errors import map_redis_errors
from nos.db.keyops import FieldValues, as_fvs
from nos.db.subscription import Message, Subscription

log = logging.getLogger(__name__)

MALFORMED_KEY = "(message)"  # the key a malformed message is reported under


@dataclass(frozen=True, slots=True)
class Notification:
    """One received notification."""

    op: str
    data: str
    fvs: FieldValues = ()


def encode_notification(op: str, data: str, fvs: FieldValues = ()) -> str:
    flat = [op, data]
    for field, value in fvs:
        flat += [field, value]
    return json.dumps(flat, separators=(",", ":"))


def decode_notification(payload: str) -> Notification:
    """Parse a payload; raises ValueError when it is not a JSON array of an even number of strings."""
    try:
        items = json.loads(payload)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than the parser goes
        raise ValueError(f"not JSON ({type(exc).__name__}): {shown(payload)}") from None
    if not isinstance(items, list) or len(items) < 2 or len(items) % 2 or not all(isinstance(i, str) for i in items):
        raise ValueError(f"not a notification payload ([op, data, field, value, ...] strings): {shown(payload)}")
    return Notification(items[0], items[1], tuple(zip(items[2::2], items[3::2], strict=True)))


def report_bad_notification(db: DBConnector, channel: str, op: str, reason: str) -> None:
    """A well-formed notification whose data its listener cannot use (``<DB>:<channel>:<op>``, cleared
    by ``notification_ok`` when a later one of that op is good); the listener goes on."""
    db.bad_keys.report(BadKey(db.name, channel, op, f"dropped: {reason}"))


def notification_ok(db: DBConnector, channel: str, op: str) -> None:
    if db.bad_keys.reported:
        db.bad_keys.good(db.name, channel, op)


class NotificationProducer:
    """Publishes notifications on one channel."""

    def __init__(self, db: DBConnector, channel: str) -> None:
        self.db = db
        self.channel = channel

    def send(self, op: str, data: str, fvs: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> int:
        """Publish; returns the number of subscribers that received it."""
        with map_redis_errors(f"notify {self.channel}"):
            return int(self.db.client.publish(self.channel, encode_notification(op, data, as_fvs(fvs))))


class NotificationConsumer:
    """Receives notifications of one channel (optionally only some ops); a selectable."""

    def __init__(self, db: DBConnector, channel: str, ops: Iterable[str] | None = None) -> None:
        self.db = db
        self.channel = channel
        self.ops = frozenset(ops) if ops is not None else None
        self._queue: list[Notification] = []
        self._sub = Subscription(db)
        self._sub.subscribe(channels=[channel])

    def fileno(self) -> int:
        return self._sub.fileno()

    def read_messages(self) -> None:
        self._ingest(self._sub.drain())

    def _ingest(self, messages: list[Message]) -> None:
        bad_keys = self.db.bad_keys
        for msg in messages:
            try:
                note = decode_notification(msg.data)
            except ValueError as exc:
                bad_keys.report(BadKey(self.db.name, self.channel, MALFORMED_KEY, f"dropped: {exc}"))
                continue
            if bad_keys.reported:
                bad_keys.good(self.db.name, self.channel, MALFORMED_KEY)
            if self.ops is None or note.op in self.ops:
                self._queue.append(note)

    def has_work(self) -> bool:
        return bool(self._queue)

    def pops(self) -> list[Notification]:
        out, self._queue = self._queue, []
        return out

    def wait(self, timeout: float) -> list[Notification]:
        """Block up to ``timeout`` seconds until notifications (of the wanted ops) are queued."""
        deadline = time.monotonic() + timeout
        while not self._queue:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._ingest(self._sub.wait(left))
        return self.pops()

    def close(self) -> None:
        self._sub.close()
