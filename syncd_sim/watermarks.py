"""Watermark tables in COUNTERS_DB: ``USER_WATERMARKS:<oid>``, ``PERIODIC_WATERMARKS:<oid>``,
``PERSISTENT_WATERMARKS:<oid>``, as SONiC keeps them.

Who does what on SONiC (sonic-swss):
* syncd's flex counter thread polls the watermark stats with clear-on-read
  (``STATS_MODE_READ_AND_CLEAR``: each value is the peak since the previous poll), writes them to
  ``COUNTERS:<oid>``, then runs the plugin (watermark_queue.lua / watermark_pg.lua /
  watermark_bufferpool.lua) that raises the same field in all three tables to
  ``max(table value, new value)`` (the new value when the table has none).
* WatermarkOrch (orchagent/watermarkorch.cpp) sets the PERIODIC field to ``0`` for every PG, queue
  and buffer pool every ``WATERMARK_TABLE|TELEMETRY_INTERVAL`` ``interval`` seconds (default 120;
  a new interval applies from the next expiry; the timer runs while QUEUE_WATERMARK or
  PG_WATERMARK polling is enabled), and sets the USER or PERSISTENT field to ``0`` on an APPL_DB
  ``WATERMARK_CLEAR_REQUEST`` notification (op ``USER``/``PERSISTENT``, data ``PG_HEADROOM``,
  ``PG_SHARED``, ``Q_SHARED_UNI``, ``Q_SHARED_MULTI``, ``Q_SHARED_ALL``, ``BUFFER_POOL``,
  ``HEADROOM_POOL``), which is what ``sonic-clear watermark`` / ``watermarkstat -c`` send.

Here both halves run in syncd_sim's counter writer (there is no watermark orch yet; it already knows
every queue, PG and pool). The plugin only visits objects whose new value is non-zero or that are
polled for the first time: ``max(x, 0) == x``, so the tables end up exactly as SONiC's.
Values travel as JSON strings and are compared as decimal strings (length, then text) in Lua, so
64-bit values keep their precision (Lua numbers are doubles).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from nos.sai.types import ObjectType as T
from syncd_sim import stats as s

USER_WATERMARKS = "USER_WATERMARKS"
PERIODIC_WATERMARKS = "PERIODIC_WATERMARKS"
PERSISTENT_WATERMARKS = "PERSISTENT_WATERMARKS"
WATERMARK_TABLES = (USER_WATERMARKS, PERIODIC_WATERMARKS, PERSISTENT_WATERMARKS)
CLEAR_REQUEST_CHANNEL = "WATERMARK_CLEAR_REQUEST"  # APPL_DB
TELEMETRY_INTERVAL_KEY = "TELEMETRY_INTERVAL"      # CONFIG_DB WATERMARK_TABLE key, field ``interval`` (s)
INTERVAL_FIELD = "interval"
DEFAULT_TELEMETRY_INTERVAL_S = 120
PERIODIC_GROUPS = ("QUEUE_WATERMARK", "PG_WATERMARK")  # the periodic clear runs while one is enabled

UNICAST, MULTICAST, ALL = "SAI_QUEUE_TYPE_UNICAST", "SAI_QUEUE_TYPE_MULTICAST", "SAI_QUEUE_TYPE_ALL"
_PG_HEADROOM, _PG_SHARED = s.PG_WATERMARK_STATS
_POOL, _HEADROOM_POOL = s.BUFFER_POOL_WATERMARK_STATS
_Q_SHARED = s.QUEUE_WATERMARK_STATS[0]


@dataclass(frozen=True)
class WatermarkField:
    """One watermark field of one kind of object (queues: of one queue type, or any when None)."""

    kind: T
    stat: str
    queue_type: str | None = None


CLEAR_TARGETS: dict[str, WatermarkField] = {
    "PG_HEADROOM": WatermarkField(T.INGRESS_PRIORITY_GROUP, _PG_HEADROOM),
    "PG_SHARED": WatermarkField(T.INGRESS_PRIORITY_GROUP, _PG_SHARED),
    "Q_SHARED_UNI": WatermarkField(T.QUEUE, _Q_SHARED, UNICAST),
    "Q_SHARED_MULTI": WatermarkField(T.QUEUE, _Q_SHARED, MULTICAST),
    "Q_SHARED_ALL": WatermarkField(T.QUEUE, _Q_SHARED, ALL),
    "BUFFER_POOL": WatermarkField(T.BUFFER_POOL, _POOL),
    "HEADROOM_POOL": WatermarkField(T.BUFFER_POOL, _HEADROOM_POOL),
}
CLEAR_TABLES = {"USER": USER_WATERMARKS, "PERSISTENT": PERSISTENT_WATERMARKS}
# What the telemetry timer zeroes in PERIODIC_WATERMARKS (every queue type).
PERIODIC_FIELDS = (
    WatermarkField(T.INGRESS_PRIORITY_GROUP, _PG_HEADROOM), WatermarkField(T.INGRESS_PRIORITY_GROUP, _PG_SHARED),
    WatermarkField(T.QUEUE, _Q_SHARED), WatermarkField(T.BUFFER_POOL, _POOL),
    WatermarkField(T.BUFFER_POOL, _HEADROOM_POOL),
)

# ARGV[1]: JSON {oid: {stat: value}}; each value raises the stat in all three tables.
RAISE_WATERMARKS = """
local tables = {'USER_WATERMARKS:', 'PERIODIC_WATERMARKS:', 'PERSISTENT_WATERMARKS:'}
local function larger(a, b)
    if #a ~= #b then return #a > #b end
    return a > b
end
for oid, stats in pairs(cjson.decode(ARGV[1])) do
    for stat, value in pairs(stats) do
        for _, t in ipairs(tables) do
            local old = redis.call('HGET', t .. oid, stat)
            if not old or larger(value, old) then
                redis.call('HSET', t .. oid, stat, value)
            end
        end
    end
end
return 0
"""


def plan_clear(op: str, data: str) -> tuple[str, WatermarkField]:
    """(table, field) a WATERMARK_CLEAR_REQUEST clears; raises ValueError for unknown op or data."""
    table = CLEAR_TABLES.get(op)
    if table is None:
        raise ValueError(f"unknown watermark clear request op {op!r} (USER or PERSISTENT)")
    target = CLEAR_TARGETS.get(data)
    if target is None:
        raise ValueError(f"unknown watermark clear request data {data!r} ({', '.join(CLEAR_TARGETS)})")
    return table, target


def parse_telemetry_interval(value: str) -> int:
    """Seconds (1..2^32-1); raises ValueError."""
    interval = int(value)
    if not 1 <= interval <= (1 << 32) - 1:
        raise ValueError(f"{INTERVAL_FIELD}={interval}: must be 1..4294967295 seconds")
    return interval


def raise_args(records: list[tuple[str, tuple[str, ...], tuple[int, ...]]]) -> list[str]:
    """ARGV of RAISE_WATERMARKS for (oid, stat names, values) records (values as decimal strings)."""
    data = {oid: {name: str(value) for name, value in zip(names, values, strict=True)}
            for oid, names, values in records}
    return [json.dumps(data, separators=(",", ":"))]


@dataclass
class PeriodicClear:
    """WatermarkOrch's telemetry timer: when PERIODIC_WATERMARKS is next zeroed (None: not running)."""

    interval_s: int = DEFAULT_TELEMETRY_INTERVAL_S
    due: float | None = None
    _next_interval: int | None = None

    def set_interval(self, seconds: int) -> None:
        """As WatermarkOrch: the running period ends on the old interval, the next ones use this."""
        if self.due is None:
            self.interval_s = seconds
        else:
            self._next_interval = seconds

    def update(self, running: bool, now: float) -> None:
        """Start the timer when watermark polling becomes enabled (it stops at its next expiry)."""
        if running and self.due is None:
            self.due = now + self.interval_s

    def expired(self, running: bool, now: float) -> bool:
        """True when the periodic tables are to be zeroed now; re-arms (or stops) the timer."""
        if self.due is None or now < self.due:
            return False
        if self._next_interval is not None:
            self.interval_s, self._next_interval = self._next_interval, None
        self.due = now + self.interval_s if running else None
        return True
