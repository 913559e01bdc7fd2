"""The sairedis client: the only writer of ASIC_DB requests.

OIDs are allocated here, as sairedis's VirtualObjectIdManager does (``INCR VIDCOUNTER``, taken in
blocks). Requests go on ``ASIC_STATE_KEY_VALUE_OP_QUEUE`` (ops ``Screate``/``Sset``/``Dremove``/
``Sget``/``Sbulkcreate``/...), and in synchronous mode each is answered on GETRESPONSE with the SAI
status. ``apply`` sends a plan's operations together and reads the answers in order; when one
fails, the objects this plan created are removed again (best effort) and the failure is returned.
``bulk_many`` sends bulk requests and waits; ``bulk_send`` / ``bulk_collect`` split that in two so that
a caller prepares its next requests while syncd works on the previous ones. Answers arrive in request
order, so requests made in between (``apply`` from another orch) find theirs after the ones owed.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from nos.db.connector import Databases
from nos.db.keyops import FieldValues
from nos.db.queue_table import ConsumerTable, ProducerTable, QueuedOp
from nos.sai import status as st
from nos.sai.keys import object_key
from nos.sai.ops import OpKind, SaiOp
from nos.sai.types import ObjectType, make_oid, switch_oid
from nos.schema.dbconfig import ASIC_DB
from nos.schema.tables import ASIC_GETRESPONSE_TABLE, ASIC_STATE_TABLE

log = logging.getLogger(__name__)

VIDCOUNTER = "VIDCOUNTER"
CONSUMES = ((ASIC_DB, ASIC_GETRESPONSE_TABLE),)
PRODUCES = ((ASIC_DB, ASIC_STATE_TABLE), (ASIC_DB, VIDCOUNTER))
OID_BLOCK = 64
RESPONSE_TIMEOUT_S = 60.0
NULL_ENTRY = (("NULL", "NULL"),)
BulkEntry = tuple[str, FieldValues | str]  # object id, attributes (or already joined "a=v|b=w")
BulkRequest = tuple[OpKind, ObjectType, Sequence[BulkEntry]]


class SaiTimeout(RuntimeError):
    """Raised when syncd does not answer a request within the response timeout (is syncd running?)."""


@dataclass(frozen=True)
class ApplyResult:
    status: str
    failed: SaiOp | None = None
    reason: str = ""
    values: tuple[dict[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == st.SUCCESS


class SaiRedis:
    """Synchronous sairedis over ASIC_DB."""

    def __init__(self, dbs: Databases, timeout: float = RESPONSE_TIMEOUT_S) -> None:
        self.asic = dbs[ASIC_DB]
        self.timeout = timeout
        self.switch_id = switch_oid(0)
        self.requests = ProducerTable(self.asic, ASIC_STATE_TABLE)
        self.responses = ConsumerTable(self.asic, ASIC_GETRESPONSE_TABLE, pop_batch_size=1024)
        self._free: dict[ObjectType, list[int]] = {}
        self._answers: list[QueuedOp] = []  # read from GETRESPONSE, not handed out yet (in order)
        self._inflight: deque[tuple[Sequence[BulkRequest], int]] = deque()
        self._owed = 0  # answers that belong to bulk requests sent but not collected (they come first)

    # -- ids --------------------------------------------------------------------------------------
    def alloc(self, object_type: ObjectType) -> str:
        """A new OID of this type (indices from the shared VIDCOUNTER, taken in blocks)."""
        free = self._free.setdefault(object_type, [])
        if not free:
            last = int(self.asic.client.incrby(VIDCOUNTER, OID_BLOCK))
            free.extend(range(last, last - OID_BLOCK, -1))
        return make_oid(object_type, free.pop())

    # -- the wire ---------------------------------------------------------------------------------
    def _send(self, ops: Sequence[tuple[str, str, FieldValues]]) -> None:
        self.requests.send(ops)

    def _await(self, count: int, skip: int = 0) -> list[QueuedOp]:
        """``count`` responses, in order, after the first ``skip`` ones (kept for whoever owns them)."""
        need = skip + count
        deadline = time.monotonic() + self.timeout
        while len(self._answers) < need:
            left = deadline - time.monotonic()
            if left <= 0:
                missing = need - len(self._answers)
                raise SaiTimeout(f"no answer from syncd within {self.timeout:.0f}s ({missing} missing)")
            self._answers += self.responses.wait(min(left, 1.0))
        got = self._answers[skip:need]
        del self._answers[skip:need]
        return got

    @staticmethod
    def _wire(op: SaiOp) -> tuple[str, str, FieldValues]:
        fvs = op.attrs if (op.attrs or op.kind is not OpKind.CREATE) else NULL_ENTRY
        return (object_key(op.object_type, op.object_id), op.kind.value, fvs)

    # -- requests ---------------------------------------------------------------------------------
    def apply(self, ops: Sequence[SaiOp]) -> ApplyResult:
        """Send ``ops`` in order and check every answer; undo this plan's creates on a failure."""
        if not ops:
            return ApplyResult(st.SUCCESS)
        self._send([self._wire(op) for op in ops])
        answers = self._await(len(ops), skip=self._owed)
        for i, (op, answer) in enumerate(zip(ops, answers, strict=True)):
            if answer.key != st.SUCCESS:
                reason = dict(answer.fvs).get("reason", "")
                log.error("sai.refused op=%s type=%s id=%s status=%s reason=%s", op.kind.value,
                          op.object_type.sai_name, op.object_id[:120], answer.key, reason)
                self._undo([o for o, a in zip(ops[:i], answers[:i], strict=True) if a.key == st.SUCCESS])
                return ApplyResult(answer.key, op, reason)
        return ApplyResult(st.SUCCESS, values=tuple(dict(a.fvs) for a in answers))

    def _undo(self, done: Sequence[SaiOp]) -> None:
        undo = [SaiOp.remove(op.object_type, op.object_id) for op in reversed(done) if op.kind is OpKind.CREATE]
        if undo:
            self._send([self._wire(op) for op in undo])
            for op, answer in zip(undo, self._await(len(undo), skip=self._owed), strict=True):
                if answer.key != st.SUCCESS:
                    log.error("sai.undo_failed type=%s id=%s status=%s",
                              op.object_type.sai_name, op.object_id, answer.key)

    def get(self, object_type: ObjectType, object_id: str, *names: str) -> dict[str, str]:
        """Attribute values; raises SaiError when the ASIC refuses."""
        result = self.apply([SaiOp.get(object_type, object_id, *names)])
        if not result.ok:
            raise SaiError(f"get {object_type.sai_name}:{object_id} {names}: {result.status} {result.reason}")
        return result.values[0]

    def notify_syncd(self, what: str) -> None:
        """INIT_VIEW / APPLY_VIEW (sairedis ``notify`` with SAI_REDIS_SWITCH_ATTR_NOTIFY_SYNCD)."""
        key = object_key(ObjectType.SWITCH, "oid:0x0")
        self._send([(key, "notify", (("SAI_REDIS_SWITCH_ATTR_NOTIFY_SYNCD", what),))])
        answer = self._await(1, skip=self._owed)[0]
        if answer.key != st.SUCCESS:
            raise SaiError(f"notify {what}: {answer.key}")

    def bulk(self, kind: OpKind, object_type: ObjectType, entries: Sequence[BulkEntry]) -> list[str]:
        """bulkcreate/bulkset/bulkremove of one object type; returns each object's status."""
        return self.bulk_many([(kind, object_type, entries)])[0]

    def bulk_many(self, requests: Sequence[BulkRequest]) -> list[list[str]]:
        """Several bulk requests sent together (syncd runs them in order); each one's statuses."""
        wire = self._bulk_wire(requests)
        if wire:
            self._send(wire)
        answers = iter(self._await(len(wire), skip=self._owed) if wire else ())
        return [self._statuses(kind, object_type, entries, next(answers)) if entries else []
                for kind, object_type, entries in requests]

    @staticmethod
    def _bulk_wire(requests: Sequence[BulkRequest]) -> list[tuple[str, str, FieldValues]]:
        wire = []
        for kind, object_type, entries in requests:
            if entries:
                fvs = tuple((oid, attrs if isinstance(attrs, str) else "|".join(map("=".join, attrs)))
                            for oid, attrs in entries)
                wire.append((object_key(object_type, str(len(entries))), f"bulk{kind.value}", fvs))
        return wire

    def bulk_send(self, requests: Sequence[BulkRequest]) -> None:
        """Send bulk requests without waiting: ``bulk_collect`` reads their answers later, in order
        (so that the caller prepares the next requests while syncd works). Other requests may be
        made meanwhile: their answers are told apart by position."""
        wire = self._bulk_wire(requests)
        if wire:
            self._send(wire)
        self._inflight.append((requests, len(wire)))
        self._owed += len(wire)

    def bulk_collect(self) -> list[list[str]]:
        """The statuses of the oldest ``bulk_send`` not collected yet."""
        requests, count = self._inflight.popleft()
        answers = iter(self._await(count) if count else ())
        self._owed -= count
        return [self._statuses(kind, object_type, entries, next(answers)) if entries else []
                for kind, object_type, entries in requests]

    @staticmethod
    def _statuses(kind: OpKind, object_type: ObjectType, entries: Sequence[BulkEntry], answer: QueuedOp) -> list[str]:
        statuses = [code for code, _ in answer.fvs]
        if len(statuses) != len(entries):
            raise SaiError(f"bulk {kind.value} {object_type.sai_name}: {len(statuses)} answers for {len(entries)}")
        if answer.key != st.SUCCESS:
            for (object_id, _), (code, reason) in zip(entries, answer.fvs, strict=True):
                if code != st.SUCCESS:
                    log.error("sai.refused op=bulk%s type=%s id=%s status=%s reason=%s", kind.value,
                              object_type.sai_name, object_id[:120], code, reason)
        return statuses


class SaiError(RuntimeError):
    """Raised when a request that must succeed (a get of a built-in object) is refused."""
