"""The sairedis client: the only writer of ASIC_DB requests.

OIDs are allocated here, as sairedis's VirtualObjectIdManager does (``INCR VIDCOUNTER``, taken in
blocks). Requests go on ``ASIC_STATE_KEY_VALUE_OP_QUEUE`` (ops ``Screate``/``Sset``/``Dremove``/
``Sget``/``Sbulkcreate``/...), and in synchronous mode each is answered on GETRESPONSE with the SAI
status. ``apply`` sends a plan's operations together and reads the answers in order; when one
fails, the objects this plan created are removed again (best effort) and the failure is returned.
"""

from __future__ import annotations

import logging
import time
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
OID_BLOCK = 64
RESPONSE_TIMEOUT_S = 60.0
NULL_ENTRY = (("NULL", "NULL"),)


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
        self._pending: list[QueuedOp] = []

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

    def _await(self, count: int) -> list[QueuedOp]:
        """The next ``count`` responses, in order."""
        deadline = time.monotonic() + self.timeout
        while len(self._pending) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                missing = count - len(self._pending)
                raise SaiTimeout(f"no answer from syncd within {self.timeout:.0f}s ({missing} missing)")
            self._pending += self.responses.wait(min(left, 1.0))
        got, self._pending = self._pending[:count], self._pending[count:]
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
        answers = self._await(len(ops))
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
            for op, answer in zip(undo, self._await(len(undo)), strict=True):
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
        answer = self._await(1)[0]
        if answer.key != st.SUCCESS:
            raise SaiError(f"notify {what}: {answer.key}")

    def bulk(self, kind: OpKind, object_type: ObjectType, entries: Sequence[tuple[str, FieldValues]]) -> list[str]:
        """bulkcreate/bulkset/bulkremove of one object type; returns each object's status."""
        if not entries:
            return []
        fvs = tuple((object_id, "|".join(f"{a}={v}" for a, v in attrs)) for object_id, attrs in entries)
        key = object_key(object_type, str(len(entries)))
        self._send([(key, f"bulk{kind.value}", fvs)])
        answer = self._await(1)[0]
        statuses = [code for code, _ in answer.fvs]
        if len(statuses) != len(entries):
            raise SaiError(f"bulk {kind.value} {object_type.sai_name}: {len(statuses)} answers for {len(entries)}")
        for (object_id, _), (code, reason) in zip(entries, answer.fvs, strict=True):
            if code != st.SUCCESS:
                log.error("sai.refused op=bulk%s type=%s id=%s status=%s reason=%s", kind.value,
                          object_type.sai_name, object_id[:120], code, reason)
        return statuses


class SaiError(RuntimeError):
    """Raised when a request that must succeed (a get of a built-in object) is refused."""
