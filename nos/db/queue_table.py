"""ProducerTable / ConsumerTable: swss-common's ordered operation queue (used for ASIC_STATE and
GETRESPONSE in ASIC_DB).

For table ``T`` in DB ``n``: the list ``T_KEY_VALUE_OP_QUEUE`` holds triples (key, JSON value
``[f1,v1,...]``, op) pushed at the head; the consumer takes the oldest from the tail, in order.
Each batch of writes is announced with ``G`` on ``T_CHANNEL@n``. Ops carry a prefix: ``S`` for
set-like operations (``Screate``, ``Sset``, ``Sbulkcreate``, ``Sgetresponse`` ...), ``D`` for
delete-like ones (``Dremove``, ``Dbulkremove``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from nos.db.connector import DBConnector
from nos.db.errors import DbProtocolError, map_redis_errors
from nos.db.keyops import FieldValues
from nos.db.lua import lua
from nos.db.producer_state import UPDATE_PAYLOAD, channel_name
from nos.db.subscription import Subscription

DELETE_OPS = frozenset({"remove", "bulkremove", "DEL"})


def queue_name(table: str) -> str:
    return f"{table}_KEY_VALUE_OP_QUEUE"


def encode_values(fvs: FieldValues) -> str:
    flat: list[str] = []
    for field, value in fvs:
        flat += [field, value]
    return json.dumps(flat, separators=(",", ":"))


def prefixed(op: str) -> str:
    return ("D" if op in DELETE_OPS else "S") + op


@dataclass(frozen=True, slots=True)
class QueuedOp:
    """One popped operation (op without its S/D prefix). ``error`` says why an entry could not be read
    (its value is not a ``[field, value, ...]`` JSON list, or it was not a whole operation at all): such
    an entry has no fields, and its consumer reports it instead of acting on it."""

    key: str
    op: str
    fvs: FieldValues
    error: str = ""


class ProducerTable:
    """Appends operations; ``send`` pushes several in one atomic script with one publish."""

    def __init__(self, db: DBConnector, table_name: str) -> None:
        self.db = db
        self.queue = queue_name(table_name)
        self.channel = channel_name(table_name, db.id)
        self._push = db.script("producer_table", lua("producer_table"))

    def send(self, ops: Sequence[tuple[str, str, FieldValues]]) -> None:
        """Push (key, op, fvs) operations in order."""
        args: list[str] = [UPDATE_PAYLOAD]
        for key, op, fvs in ops:
            args += [key, encode_values(fvs), prefixed(op)]
        if len(args) > 1:
            with map_redis_errors(f"producer {self.queue}"):
                self._push(keys=[self.queue, self.channel], args=args)


class ConsumerTable:
    """Pops operations in order; a selectable (its channel wakes a Select).

    With ``inflight`` (a list's name), every pop also copies what it took into that list, in the same
    script: a consumer that dies before it finished a batch finds it again with ``recover`` after a
    restart. The consumer deletes the list when the batch is done (syncd_sim does it in the script that
    writes the batch's results, so a batch is either wholly done or found again)."""

    def __init__(self, db: DBConnector, table_name: str, pop_batch_size: int = 128,
                 inflight: str | None = None) -> None:
        self.db = db
        self.queue = queue_name(table_name)
        self.channel = channel_name(table_name, db.id)
        self.pop_batch_size = pop_batch_size
        self.inflight = inflight
        self._keys = [self.queue] if inflight is None else [self.queue, inflight]
        self._pops = db.script("consumer_table_pops", lua("consumer_table_pops"))
        self._sub = Subscription(db)
        self._sub.subscribe(channels=[self.channel])
        with map_redis_errors(f"consumer {self.queue}"):
            self._work = int(db.client.llen(self.queue)) > 0

    def fileno(self) -> int:
        return self._sub.fileno()

    def read_messages(self) -> None:
        if self._sub.drain():
            self._work = True

    def has_work(self) -> bool:
        return self._work

    def pops(self) -> list[QueuedOp]:
        with map_redis_errors(f"consumer {self.queue} pops"):
            flat = self._pops(keys=self._keys, args=[str(self.pop_batch_size)])
        out = decode_triples(flat)
        self._work = len(out) >= self.pop_batch_size
        return out

    def recover(self) -> list[QueuedOp]:
        """What a predecessor popped into the in-flight list and did not finish (oldest first)."""
        if self.inflight is None:
            return []
        with map_redis_errors(f"consumer {self.queue} recover"):
            return decode_triples(cast(list[str], self.db.client.lrange(self.inflight, 0, -1)))

    def wait(self, timeout: float) -> list[QueuedOp]:
        """Pop, waiting up to ``timeout`` seconds for something to arrive (callers without a Select)."""
        got = self.pops()
        if got:
            return got
        if self._sub.wait(timeout):
            return self.pops()
        return []

    def close(self) -> None:
        self._sub.close()


def decode_triples(flat: Sequence[str]) -> list[QueuedOp]:
    """Flat (key, prefixed op, JSON value) triples as the pop script returns them -> operations; an
    entry that cannot be read becomes a ``QueuedOp`` with its ``error`` (never an exception)."""
    out = []
    for i in range(0, len(flat) - 2, 3):
        key, op, value = flat[i], flat[i + 1], flat[i + 2]
        if not op:
            out.append(QueuedOp("", "", (), f"not an operation: {value[:120]!r}"))
            continue
        try:
            fvs = decode_values(value, key)
        except DbProtocolError as exc:
            out.append(QueuedOp(key, op[1:], (), str(exc)))
            continue
        out.append(QueuedOp(key, op[1:], fvs))
    return out


def decode_values(value: str, key: str) -> FieldValues:
    try:
        flat = json.loads(value)
    except ValueError as exc:
        raise DbProtocolError(f"operation on {key!r}: value is not JSON: {value[:200]!r}") from exc
    if not isinstance(flat, list) or len(flat) % 2 or not all(isinstance(item, str) for item in flat):
        raise DbProtocolError(f"operation on {key!r}: value is not a [field, value, ...] list of strings")
    return tuple(zip(flat[0::2], flat[1::2], strict=True))
