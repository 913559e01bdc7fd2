"""The pending-task merge rule of SONiC's orchagent (``ConsumerBase::addToSyncInternal``), pure.

Per key at most two tasks are pending, in the order DEL then SET:
* an incoming DEL replaces everything pending for the key;
* an incoming SET merges field by field into a pending SET (new value wins, the field moves to
  the end), or is kept after a pending lone DEL.
"""

from __future__ import annotations

from collections.abc import Iterable

from nos.db.keyops import DEL_COMMAND, SET_COMMAND, KeyOpFieldsValues

PendingForKey = tuple[KeyOpFieldsValues, ...]


def merge_task(pending: PendingForKey, incoming: KeyOpFieldsValues) -> PendingForKey:
    """The pending tasks of one key after ``incoming`` arrives."""
    if incoming.op == DEL_COMMAND:
        return (incoming,)
    if incoming.op != SET_COMMAND:
        raise ValueError(f"unknown op {incoming.op!r} for key {incoming.key!r}")
    if not pending:
        return (incoming,)
    last = pending[-1]
    if last.op == DEL_COMMAND:
        return (*pending, incoming)
    new_fields = dict(incoming.fvs)
    merged = tuple((f, v) for f, v in last.fvs if f not in new_fields) + incoming.fvs
    return (*pending[:-1], KeyOpFieldsValues(last.key, SET_COMMAND, merged))


def merge_into(pending: dict[str, PendingForKey], incoming: Iterable[KeyOpFieldsValues]) -> None:
    """Merge a popped batch into a key -> pending-tasks map (insertion order = arrival order)."""
    get = pending.get
    for task in incoming:
        current = get(task.key)
        pending[task.key] = (task,) if current is None else merge_task(current, task)
