"""SONiC's flex counter groups as data, and the pure parsing of their CONFIG_DB rows.

A group is what syncd polls together at one interval: which object kinds, which SAI stats, the
default poll interval, whether reading clears (watermarks) and whether the watermark plugin copies
the values into the USER/PERIODIC/PERSISTENT tables. Facts from sonic-swss: group keys and internal
names (orchagent/flexcounterorch.cpp ``flexCounterGroupMap``), stat lists and default intervals
(orchagent/portsorch.cpp ``port_stat_ids`` ... ``*_POLLING_INTERVAL_MS``, ``StatsMode::READ_AND_CLEAR``
for the watermark groups; intfsorch.cpp for RIF; bufferorch.cpp for buffer pools; orchdaemon.cpp
``PFC_WD_POLL_MSECS`` and the Mellanox/VS PFC watchdog lists), defaults as sonic-utilities
``counterpoll show`` prints them.

Configuration (CONFIG_DB ``FLEX_COUNTER_TABLE|<key>``): a group is polled only while its
``FLEX_COUNTER_STATUS`` is ``enable`` (a missing row or field means disabled, as on SONiC where
flexcounterorch only ever enables on an explicit ``enable``); ``POLL_INTERVAL`` in ms overrides the
default. flexcounterorch ignores DEL of a row, and so does this switch (the last setting stays).

Approximations, documented where they differ from SONiC:
* syncd_sim reads FLEX_COUNTER_TABLE itself; on SONiC flexcounterorch relays it to syncd (through
  ASIC_STATE or FLEX_COUNTER_DB) together with per-object counter lists. The counter writer lists the
  same group and per-object rows in FLEX_COUNTER_DB (``syncd_sim.counters``), for the tools that read
  them. Here every object of the group's kinds is polled (SONiC: every object orchagent registered,
  which is the same set for ports, queues and PGs unless ``create_only_config_db_buffers`` is set).
* PFCWD: SONiC polls only the ports and queues the PFC watchdog watches (lossless priorities of
  ports with a ``PFC_WD`` row), with the Mellanox/VS list (port ``PFC_<n>_RX_PAUSE_DURATION_US`` and
  ``PFC_<n>_RX_PKTS``, queue ``PACKETS`` and ``CURR_OCCUPANCY_BYTES``). Here the group polls the port
  part for every port (the pause durations, for ``show`` and /metrics); the queues orchagent's PFC
  watchdog registers in FLEX_COUNTER_DB are read by the detection (``syncd_sim.pfcwd``) at each poll.
  ``SAI_PORT_STAT_PFC_<n>_TX_PAUSE_DURATION_US`` is ours (SAI has it, SONiC does not poll it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nos.sai.types import ObjectType as T
from syncd_sim import stats as s

ENABLE, DISABLE = "enable", "disable"
STATUS_FIELD = "FLEX_COUNTER_STATUS"
INTERVAL_FIELD = "POLL_INTERVAL"
MIN_INTERVAL_MS = 100          # the YANG model's lower bound (sonic-flex_counter.yang)
MAX_INTERVAL_MS = (1 << 32) - 1
# Fields flexcounterorch reads that change nothing in a simulation (or that it ignores today).
QUIET_FIELDS = frozenset({"FLEX_COUNTER_DELAY_STATUS", "BULK_CHUNK_SIZE", "BULK_CHUNK_SIZE_PER_PREFIX", "NULL"})


@dataclass(frozen=True)
class CounterGroup:
    """One flex counter group: what is polled together, and how."""

    key: str                                   # FLEX_COUNTER_TABLE key
    name: str                                  # SONiC's internal group name
    parts: tuple[tuple[T, tuple[str, ...]], ...]  # (object kind, its stats) polled by this group
    default_interval_ms: int
    read_and_clear: bool = False               # STATS_MODE_READ_AND_CLEAR
    watermark: bool = False                    # the watermark Lua plugin runs after each poll


GROUPS: tuple[CounterGroup, ...] = (
    CounterGroup("PORT", "PORT_STAT_COUNTER", ((T.PORT, s.PORT_STATS),), 1000),
    CounterGroup("PORT_BUFFER_DROP", "PORT_BUFFER_DROP_STAT", ((T.PORT, s.PORT_BUFFER_DROP_STATS),), 60000),
    CounterGroup("QUEUE", "QUEUE_STAT_COUNTER", ((T.QUEUE, s.QUEUE_STATS),), 10000),
    CounterGroup("QUEUE_WATERMARK", "QUEUE_WATERMARK_STAT_COUNTER", ((T.QUEUE, s.QUEUE_WATERMARK_STATS),), 60000,
                 read_and_clear=True, watermark=True),
    CounterGroup("PG_WATERMARK", "PG_WATERMARK_STAT_COUNTER",
                 ((T.INGRESS_PRIORITY_GROUP, s.PG_WATERMARK_STATS),), 60000, read_and_clear=True, watermark=True),
    CounterGroup("PG_DROP", "PG_DROP_STAT_COUNTER", ((T.INGRESS_PRIORITY_GROUP, s.PG_DROP_STATS),), 10000),
    CounterGroup("RIF", "RIF_STAT_COUNTER", ((T.ROUTER_INTERFACE, s.RIF_STATS),), 1000),
    CounterGroup("WRED_ECN_PORT", "WRED_ECN_PORT_STAT_COUNTER", ((T.PORT, s.PORT_WRED_STATS),), 1000),
    CounterGroup("WRED_ECN_QUEUE", "WRED_ECN_QUEUE_STAT_COUNTER", ((T.QUEUE, s.QUEUE_WRED_STATS),), 10000),
    CounterGroup("BUFFER_POOL_WATERMARK", "BUFFER_POOL_WATERMARK_STAT_COUNTER",
                 ((T.BUFFER_POOL, s.BUFFER_POOL_WATERMARK_STATS),), 60000, read_and_clear=True, watermark=True),
    CounterGroup("PFCWD", "PFC_WD", ((T.PORT, (*s.PFC_RX_PAUSE_US, *s.PFC_RX_PKTS, *s.PFC_TX_PAUSE_US)),), 100),
)
GROUPS_BY_KEY: dict[str, CounterGroup] = {g.key: g for g in GROUPS}
# flexCounterGroupMap keys this switch accepts but does not poll (no such objects or rates yet).
NOT_MODELLED = frozenset({"PORT_RATES", "RIF_RATES", "DEBUG_COUNTER", "ACL", "TUNNEL", "FLOW_CNT_TRAP",
                          "FLOW_CNT_ROUTE", "MACSEC_SA", "MACSEC_SA_ATTR", "MACSEC_FLOW", "ENI", "HA_SET",
                          "SRV6", "ICMP_SESSION", "SWITCH", "PHY"})


@dataclass(frozen=True)
class GroupSetting:
    """What one FLEX_COUNTER_TABLE row says (None: the row does not set it)."""

    enabled: bool | None = None
    interval_ms: int | None = None


def parse_group_row(key: str, fields: Mapping[str, str]) -> tuple[GroupSetting, list[str]]:
    """The setting of one row and the problems found in it (bad fields are left out of the setting).

    Raises KeyError when ``key`` is not a group of ``GROUPS``."""
    GROUPS_BY_KEY[key]
    problems: list[str] = []
    enabled: bool | None = None
    interval: int | None = None
    for name, value in fields.items():
        if name == STATUS_FIELD:
            if value in (ENABLE, DISABLE):
                enabled = value == ENABLE
            else:
                problems.append(f"{STATUS_FIELD}={value!r}: must be {ENABLE} or {DISABLE}")
        elif name == INTERVAL_FIELD:
            interval = _interval(value, problems)
        elif name not in QUIET_FIELDS:
            problems.append(f"{name}: not a flex counter field")
    return GroupSetting(enabled, interval), problems


def _interval(value: str, problems: list[str]) -> int | None:
    try:
        interval = int(value)
    except ValueError:
        problems.append(f"{INTERVAL_FIELD}={value!r}: not an integer")
        return None
    if not MIN_INTERVAL_MS <= interval <= MAX_INTERVAL_MS:
        problems.append(f"{INTERVAL_FIELD}={interval}: must be {MIN_INTERVAL_MS}..{MAX_INTERVAL_MS} ms")
        return None
    return interval
