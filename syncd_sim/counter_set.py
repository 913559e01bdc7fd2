"""The counter-set hook for tests and labs (pure parsing and applying; the writer does the IO).

SONiC's virtual switch has all-zero counters and users ask for a way to set them
(sonic-sairedis#310, SONiC#1398). Here a client publishes on the COUNTERS_DB channel
``NOS_COUNTER_SET_REQUEST`` a swss-common notification ``[op, object, stat, value, ...]``:

* ``op``: ``set`` (the counter becomes ``value``) or ``add`` (``value`` is added; may be negative);
* ``object``: a name from the COUNTERS_DB name maps (``Ethernet0``, ``Ethernet0:3`` for a queue or
  PG, a RIF's interface name, a buffer pool name) or an object id ``oid:0x...``;
* then one or more ``stat, value`` pairs with SAI stat names. The stat's prefix says which kind of
  object is meant (``SAI_PORT_STAT_``, ``SAI_QUEUE_STAT_``, ``SAI_INGRESS_PRIORITY_GROUP_STAT_``,
  ``SAI_ROUTER_INTERFACE_STAT_``, ``SAI_BUFFER_POOL_STAT_``), so ``Ethernet0:3`` with a queue stat
  is queue 3 and with a PG stat is PG 3.

A request is applied as a whole or not at all. The ASIC's counters change at once; COUNTERS_DB
shows them at the next poll of each enabled group that polls the stat (a watermark is clear-on-read:
it shows once, then the USER/PERIODIC/PERSISTENT tables keep its maximum). Example::

    PUBLISH NOS_COUNTER_SET_REQUEST '["set","Ethernet0","SAI_PORT_STAT_IF_IN_OCTETS","1000"]'
    PUBLISH NOS_COUNTER_SET_REQUEST '["add","Ethernet0:3","SAI_QUEUE_STAT_PACKETS","5"]'

(on redis-cli: ``-n 2``; from Python: ``nos.db.NotificationProducer(dbs["COUNTERS_DB"],
"NOS_COUNTER_SET_REQUEST").send("set", "Ethernet0", [("SAI_PORT_STAT_IF_IN_OCTETS", "1000")])``).
A refused request is logged and reported in STATE_DB
``NOS_REJECTED_TABLE|COUNTERS_DB:NOS_COUNTER_SET_REQUEST:<object>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nos.db.keyops import FieldValues
from nos.sai.types import OID_PREFIX
from nos.sai.types import ObjectType as T
from syncd_sim.errors import BadCounterRequest
from syncd_sim.stats import U64_MAX, AsicStats, kind_of_stat

SET_REQUEST_CHANNEL = "NOS_COUNTER_SET_REQUEST"  # COUNTERS_DB
OPS = ("set", "add")


@dataclass(frozen=True)
class CounterChange:
    kind: T
    stat: str
    value: int


@dataclass(frozen=True)
class SetRequest:
    """A parsed request: the object (name or oid) and the changes, by the kind each stat belongs to."""

    op: str
    target: str
    changes: tuple[CounterChange, ...]

    @property
    def kinds(self) -> set[T]:
        return {change.kind for change in self.changes}

    @property
    def by_oid(self) -> bool:
        return self.target.startswith(OID_PREFIX)


def parse_set_request(op: str, target: str, fvs: FieldValues) -> SetRequest:
    """Raises BadCounterRequest (the message says why)."""
    if op not in OPS:
        raise BadCounterRequest(f"unknown op {op!r} (use {' or '.join(OPS)})")
    if not target:
        raise BadCounterRequest("no object named")
    if not fvs:
        raise BadCounterRequest("no stat given")
    changes = []
    for stat, text in fvs:
        kind = kind_of_stat(stat)
        if kind is None:
            raise BadCounterRequest(f"{stat}: not a stat this ASIC keeps")
        try:
            value = int(text, 10)
        except ValueError:
            raise BadCounterRequest(f"{stat}={text!r}: not an integer") from None
        if op == "set" and not 0 <= value <= U64_MAX:
            raise BadCounterRequest(f"{stat}={value}: must be 0..{U64_MAX}")
        changes.append(CounterChange(kind, stat, value))
    return SetRequest(op, target, tuple(changes))


def apply_set_request(stats: AsicStats, request: SetRequest, oids: Mapping[T, str]) -> None:
    """Apply to the ASIC's counters, all or nothing; ``oids`` is the resolved object per kind.

    Raises BadCounterRequest when an object is not in the ASIC or a result leaves 0..2^64-1."""
    planned: list[tuple[T, str, str, int]] = []
    pending: dict[tuple[str, str], int] = {}
    for change in request.changes:
        oid = oids.get(change.kind)
        table = stats.table(change.kind)
        if oid is None or oid not in table.rows:
            raise BadCounterRequest(f"{request.target}: no such {change.kind.sai_name} in the ASIC")
        current = pending.get((oid, change.stat), table.get(oid, change.stat))
        value = change.value if request.op == "set" else current + change.value
        if not 0 <= value <= U64_MAX:
            raise BadCounterRequest(f"{change.stat}: {current} + {change.value} leaves 0..{U64_MAX}")
        pending[(oid, change.stat)] = value
        planned.append((change.kind, oid, change.stat, value))
    for kind, oid, stat, value in planned:
        stats.table(kind).set(oid, stat, value)
