"""What syncd_sim writes for one batch of requests, in one script: the ASIC_STATE changes, its own state
hash, the answers on GETRESPONSE and the end of the in-flight copy of the batch.

One script makes a batch all or nothing for a kill of syncd_sim: either its objects are in ASIC_STATE,
its answers are queued and the in-flight list is gone, or none of it happened and the restarted syncd
finds the batch in the in-flight list and does it again (``ConsumerTable(inflight=...)``). A SIGKILL
cannot land inside a script.

Redis serves nobody while a script runs (and redis-py gives up reading after a few seconds), so a
batch of more than ``CHUNK`` changes (an APPLY_VIEW writes the whole new view) is written in several
calls: only the last queues the answers and ends the in-flight list. A kill between them leaves part
of the changes written and the request in flight; the restarted syncd_sim does it again (an APPLY_VIEW
is then answered ``lost``, and the client's restart compares its new view with what was written).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from nos.db.keyops import FieldValues
from nos.db.queue_table import encode_values, prefixed
from syncd_sim.objects import Change

# KEYS[1] the in-flight list, KEYS[2] GETRESPONSE_KEY_VALUE_OP_QUEUE, KEYS[3] its channel.
# ARGV[1] '1' for a batch's last call (the in-flight list is deleted), ARGV[2] the number of change records,
# then the records: key, n, n field/value pairs (n = 0: DEL the key), in order; then the answers as
# (key, JSON value, op) triples, LPUSHed in order as ProducerTable does, and one PUBLISH 'G' if any.
COMMIT = """
local records = tonumber(ARGV[2])
local i = 3
for _ = 1, records do
    local n = tonumber(ARGV[i + 1])
    if n == 0 then
        redis.call('DEL', ARGV[i])
    else
        redis.call('HSET', ARGV[i], unpack(ARGV, i + 2, i + 1 + 2 * n))
    end
    i = i + 2 + 2 * n
end
local answers = 0
while i <= #ARGV do
    redis.call('LPUSH', KEYS[2], ARGV[i], ARGV[i + 1], ARGV[i + 2])
    i = i + 3
    answers = answers + 1
end
if ARGV[1] == '1' then
    redis.call('DEL', KEYS[1])
end
if answers > 0 then
    redis.call('PUBLISH', KEYS[3], 'G')
end
return answers
"""
UNPACK_LIMIT = 3000  # fields of one HSET above this are written in several records (Lua's unpack limit)
CHUNK = 4096  # changes per call


def commit_calls(changes: Sequence[Change], answers: Sequence[tuple[str, str, FieldValues]]) -> list[list[str]]:
    """The script's ARGV of each call for ``changes`` (in order) and ``answers`` (with the last)."""
    starts = range(0, max(len(changes), 1), CHUNK)
    return [commit_args(changes[start:start + CHUNK], answers if start == starts[-1] else (), start == starts[-1])
            for start in starts]


def commit_args(changes: Iterable[Change], answers: Sequence[tuple[str, str, FieldValues]],
                last: bool = True) -> list[str]:
    """The script's ARGV for ``changes`` (in order) and ``answers``."""
    records: list[str] = []
    count = 0
    for change in changes:
        if change.fields is None:
            records += (change.key, "0")
            count += 1
            continue
        items = list(change.fields.items())
        for start in range(0, len(items), UNPACK_LIMIT // 2):
            part = items[start:start + UNPACK_LIMIT // 2]
            records += (change.key, str(len(part)))
            for item in part:
                records += item
            count += 1
    out = ["1" if last else "0", str(count), *records]
    for key, op, fvs in answers:
        out += (key, encode_values(fvs), prefixed(op))
    return out
