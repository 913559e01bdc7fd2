"""The sairedis client: the only writer of ASIC_DB requests.

OIDs are allocated here, as sairedis's VirtualObjectIdManager does (``INCR VIDCOUNTER``, taken in
blocks). Requests go on ``ASIC_STATE_KEY_VALUE_OP_QUEUE`` (ops ``Screate``/``Sset``/``Dremove``/
``Sget``/``Sbulkcreate``/...), and in synchronous mode each is answered on GETRESPONSE with the SAI
status. ``apply`` sends a plan's operations together and waits for their answers; when one fails,
the objects this plan created are removed again (best effort) and the failure is returned.
``bulk_many`` sends bulk requests and waits; ``bulk_send`` / ``bulk_collect`` split that in two so that
a caller prepares its next requests while syncd works on the previous ones.

Answers are matched to requests by number, never by arrival (``nos.sai.session``): the client opens a
session first (``begin``), each request it sends gets the next number, and an answer is taken only when
it carries this session's token and the number of a request still waiting; anything else on
GETRESPONSE (a predecessor's answers) is dropped. A request not answered within the timeout (syncd
gone for good), or a session syncd says it lost, is ``DaemonFatal``: orchagent exits and its restart
reconciles, rather than going on with a view of the ASIC it can no longer trust.
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nos.daemon.errors import DaemonFatal
from nos.db.connector import Databases
from nos.db.keyops import FieldValues
from nos.db.queue_table import ConsumerTable, ProducerTable, QueuedOp
from nos.sai import status as st
from nos.sai.keys import object_key
from nos.sai.ops import OpKind, SaiOp
from nos.sai.session import LOST, SESSION_ATTR, split_tag
from nos.sai.types import ObjectType, make_oid, switch_oid
from nos.schema.dbconfig import ASIC_DB
from nos.schema.tables import ASIC_GETRESPONSE_TABLE, ASIC_STATE_TABLE

log = logging.getLogger(__name__)

VIDCOUNTER = "VIDCOUNTER"
CONSUMES = ((ASIC_DB, ASIC_GETRESPONSE_TABLE),)
PRODUCES = ((ASIC_DB, ASIC_STATE_TABLE), (ASIC_DB, VIDCOUNTER))
OID_BLOCK = 64
RESPONSE_TIMEOUT_S = 60.0
WAIT_LOG_S = 5.0  # a wait this long is logged (syncd restarting?), and again every as long
NULL_ENTRY = (("NULL", "NULL"),)
BulkEntry = tuple[str, FieldValues | str]  # object id, attributes (or already joined "a=v|b=w")
BulkRequest = tuple[OpKind, ObjectType, Sequence[BulkEntry]]


class SaiTimeout(DaemonFatal):
    """Raised when syncd does not answer a request within the response timeout (is syncd running?)."""


class SessionLost(DaemonFatal):
    """Raised when syncd answers that it lost this session's state (it was restarted during INIT_VIEW)."""


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
        self.session = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._started = False
        self._sent = 0  # requests sent in this session: the next one is number _sent + 1
        self._answers: dict[int, QueuedOp] = {}  # answers read, by request number, not handed out yet
        self._inflight: deque[tuple[Sequence[BulkRequest], range]] = deque()
        self.discarded = 0  # answers read that were not this session's (a predecessor's)
        self.on_wait: Callable[[float], None] | None = None  # called about once a second while waiting

    # -- ids --------------------------------------------------------------------------------------
    def alloc(self, object_type: ObjectType) -> str:
        """A new OID of this type (indices from the shared VIDCOUNTER, taken in blocks)."""
        free = self._free.setdefault(object_type, [])
        if not free:
            last = int(self.asic.client.incrby(VIDCOUNTER, OID_BLOCK))
            free.extend(range(last, last - OID_BLOCK, -1))
        return make_oid(object_type, free.pop())

    # -- the wire ---------------------------------------------------------------------------------
    def begin(self) -> None:
        """Open this process's session: from here on, answers are told apart by request number, and
        whatever is still queued for a predecessor is dropped (done at the first request if not before)."""
        self._started = True
        self.requests.send([(object_key(ObjectType.SWITCH, "oid:0x0"), "notify", ((SESSION_ATTR, self.session),))])
        self._sent = 0
        self._await(range(0, 1))
        if self.discarded:
            log.warning("sai.session.begin session=%s discarded=%d (answers meant for a predecessor)",
                        self.session, self.discarded)

    def _send(self, ops: Sequence[tuple[str, str, FieldValues]]) -> range:
        """Send ``ops`` in order; the numbers their answers will carry."""
        if not self._started:
            self.begin()
        self.requests.send(ops)
        first = self._sent + 1
        self._sent += len(ops)
        return range(first, self._sent + 1)

    def _await(self, numbers: range) -> list[QueuedOp]:
        """The answers to requests ``numbers``, in request order (others read meanwhile are kept)."""
        start = time.monotonic()
        deadline, next_log = start + self.timeout, start + WAIT_LOG_S
        while any(n not in self._answers for n in numbers):
            now = time.monotonic()
            if now >= deadline:
                missing = sum(n not in self._answers for n in numbers)
                raise SaiTimeout(f"no answer from syncd within {self.timeout:.0f}s ({missing} missing)")
            if now >= next_log:
                log.warning("sai.waiting answers=%d for=%.0fs (is syncd restarting?)", len(numbers), now - start)
                next_log = now + WAIT_LOG_S
            if self.on_wait is not None and now - start >= 1.0:
                self.on_wait(now - start)
            self._take(self.responses.wait(min(deadline - now, 1.0)))
        return [self._answers.pop(n) for n in numbers]

    def _take(self, answers: Sequence[QueuedOp]) -> None:
        """File this session's answers by number; drop the rest."""
        for answer in answers:
            fvs, session, number = split_tag(answer.fvs)
            if session != self.session or number is None:
                self.discarded += 1
                continue
            if number == LOST:
                raise SessionLost(f"syncd lost session {self.session} (it restarted during INIT_VIEW)")
            self._answers[number] = QueuedOp(answer.key, answer.op, fvs, answer.error)

    @staticmethod
    def _wire(op: SaiOp) -> tuple[str, str, FieldValues]:
        fvs = op.attrs if (op.attrs or op.kind is not OpKind.CREATE) else NULL_ENTRY
        return (object_key(op.object_type, op.object_id), op.kind.value, fvs)

    # -- requests ---------------------------------------------------------------------------------
    def apply(self, ops: Sequence[SaiOp]) -> ApplyResult:
        """Send ``ops`` in order and check every answer; undo this plan's creates on a failure."""
        if not ops:
            return ApplyResult(st.SUCCESS)
        return self._judge(ops, self._await(self._send([self._wire(op) for op in ops])))

    def apply_many(self, plans: Sequence[Sequence[SaiOp]]) -> list[ApplyResult]:
        """Several plans sent together, in order, and one wait for all their answers: each plan's result
        as ``apply`` gives it (a failed plan's creates are undone; the other plans are not touched)."""
        flat = [op for ops in plans for op in ops]
        answers = self._await(self._send([self._wire(op) for op in flat])) if flat else []
        results, at = [], 0
        for ops in plans:
            results.append(self._judge(ops, answers[at:at + len(ops)]) if ops else ApplyResult(st.SUCCESS))
            at += len(ops)
        return results

    def _judge(self, ops: Sequence[SaiOp], answers: Sequence[QueuedOp]) -> ApplyResult:
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
            for op, answer in zip(undo, self._await(self._send([self._wire(op) for op in undo])), strict=True):
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
        answer = self._await(self._send([(key, "notify", (("SAI_REDIS_SWITCH_ATTR_NOTIFY_SYNCD", what),))]))[0]
        if answer.key != st.SUCCESS:
            raise SaiError(f"notify {what}: {answer.key}")

    def bulk(self, kind: OpKind, object_type: ObjectType, entries: Sequence[BulkEntry]) -> list[str]:
        """bulkcreate/bulkset/bulkremove of one object type; returns each object's status."""
        return self.bulk_many([(kind, object_type, entries)])[0]

    def bulk_many(self, requests: Sequence[BulkRequest]) -> list[list[str]]:
        """Several bulk requests sent together (syncd runs them in order); each one's statuses."""
        wire = self._bulk_wire(requests)
        answers = iter(self._await(self._send(wire)) if wire else ())
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
        made meanwhile: every answer carries its request's number."""
        wire = self._bulk_wire(requests)
        self._inflight.append((requests, self._send(wire) if wire else range(0)))

    def bulk_collect(self) -> list[list[str]]:
        """The statuses of the oldest ``bulk_send`` not collected yet."""
        requests, numbers = self._inflight.popleft()
        answers = iter(self._await(numbers))
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
