"""The PFC watchdog's data, pure: CONFIG_DB rows parsed, what registration writes, and the queue's
watchdog counters (swss orchagent/pfcwdorch.cpp ``createEntry``/``registerInWdDb``,
pfcactionhandler.cpp ``initWdCounters``/``initCounters``/``commitCounters``).

* ``PFC_WD|<port>``: ``action`` drop|forward|alert (default drop), ``detection_time`` 100..5000 ms
  (required), ``restoration_time`` 100..60000 ms (optional: without it a drop/forward storm is never
  restored by time), ``pfc_stat_history`` enable|disable (default disable; registration writes it to the
  queue's ``PFC_STAT_HISTORY`` either way, as registerInWdDb). Any other field makes the row invalid.
* ``PFC_WD|GLOBAL``: ``POLL_INTERVAL`` (ms), ``BIG_RED_SWITCH`` enable|disable.
* ``PORT_QOS_MAP|<port>[,<port>...]``: ``pfc_enable`` and ``pfcwd_sw_enable`` ("3,4"). The watched
  priorities are ``pfcwd_sw_enable`` only, as in current SONiC (qosorch hands that bitmask to the
  watchdog unconditionally; a row without it watches nothing; db_migrator copied ``pfc_enable`` into
  it once, for configs older than the field).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from orchagent.core.l3 import InvalidEntry

ACTIONS = ("drop", "forward", "alert")
DETECTION_MS = (100, 5000)
RESTORATION_MS = (100, 60000)
ENABLE_DISABLE = ("enable", "disable")
OPERATIONAL, STORMED = "operational", "stormed"
PRIORITIES = range(8)
QUIET_FIELDS = frozenset({"NULL"})
# The VS/Mellanox lists (swss orchagent/orchdaemon.cpp), port part filtered to the lossless priorities.
QUEUE_COUNTER_IDS = "SAI_QUEUE_STAT_PACKETS,SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES"


@dataclass(frozen=True)
class WdConfig:
    """One port's watchdog settings."""

    detection_ms: int
    restoration_ms: int = 0          # 0: none
    action: str = "drop"
    stat_history: str = "disable"


def _ms(name: str, value: str, bounds: tuple[int, int]) -> int:
    low, high = bounds
    if not value.isdecimal() or not low <= int(value) <= high:
        raise InvalidEntry(f"{name}={value!r}: must be {low}..{high} ms")
    return int(value)


def parse_port_row(fields_: Mapping[str, str]) -> WdConfig:
    """Raises InvalidEntry (unknown field, bad value, no detection_time)."""
    detection, restoration, action, history = 0, 0, "drop", "disable"
    for name, value in fields_.items():
        if name == "detection_time":
            detection = _ms(name, value, DETECTION_MS)
        elif name == "restoration_time":
            restoration = _ms(name, value, RESTORATION_MS)
        elif name == "action":
            if value not in ACTIONS:
                raise InvalidEntry(f"action={value!r}: must be one of {', '.join(ACTIONS)}")
            action = value
        elif name == "pfc_stat_history":
            if value not in ENABLE_DISABLE:
                raise InvalidEntry(f"pfc_stat_history={value!r}: must be enable or disable")
            history = value
        elif name not in QUIET_FIELDS:
            raise InvalidEntry(f"unknown field {name!r}")
    if not detection:
        raise InvalidEntry("detection_time missing")
    return WdConfig(detection, restoration, action, history)


@dataclass(frozen=True)
class GlobalConfig:
    """``PFC_WD|GLOBAL`` (None: not set, or refused)."""

    poll_interval_ms: int | None = None
    big_red_switch: bool | None = None


def parse_global(fields_: Mapping[str, str]) -> tuple[GlobalConfig, list[str]]:
    """The settings and the problems (a bad field is left out, the others still apply)."""
    poll: int | None = None
    brs: bool | None = None
    problems = []
    for name, value in fields_.items():
        if name == "POLL_INTERVAL":
            if value.isdecimal() and int(value) > 0:
                poll = int(value)
            else:
                problems.append(f"POLL_INTERVAL={value!r}: not a positive number of ms")
        elif name == "BIG_RED_SWITCH":
            if value in ENABLE_DISABLE:
                brs = value == "enable"
            else:
                problems.append(f"BIG_RED_SWITCH={value!r}: must be enable or disable")
        elif name not in QUIET_FIELDS:
            problems.append(f"unknown field {name!r}")
    return GlobalConfig(poll, brs), problems


def parse_priorities(text: str) -> int:
    """``"3,4"`` -> 0b11000; raises InvalidEntry."""
    mask = 0
    for item in filter(None, (part.strip() for part in text.split(","))):
        if not item.isdecimal() or int(item) not in PRIORITIES:
            raise InvalidEntry(f"{item!r} is not a priority 0..7")
        mask |= 1 << int(item)
    return mask


@dataclass(frozen=True)
class QosMasks:
    """A port's PFC-enabled priorities and the ones the watchdog watches (bitmasks)."""

    pfc: int = 0
    watch: int = 0


def parse_qos_row(fields_: Mapping[str, str]) -> QosMasks:
    """Raises InvalidEntry for a bad priority list."""
    pfc = parse_priorities(fields_.get("pfc_enable", ""))
    watch = parse_priorities(fields_.get("pfcwd_sw_enable", ""))
    return QosMasks(pfc, watch)


def priorities_of(mask: int) -> list[int]:
    return [p for p in PRIORITIES if mask & (1 << p)]


def queue_fields(cfg: WdConfig) -> dict[str, str]:
    """What registration writes on the queue's COUNTERS hash (times in µs)."""
    out = {"PFC_WD_DETECTION_TIME": str(cfg.detection_ms * 1000),
           "PFC_WD_RESTORATION_TIME": str(cfg.restoration_ms * 1000) if cfg.restoration_ms else "",
           "PFC_WD_ACTION": cfg.action, "PFC_STAT_HISTORY": cfg.stat_history}
    return out


UNREGISTER_FIELDS = ("PFC_WD_DETECTION_TIME", "PFC_WD_RESTORATION_TIME", "PFC_WD_ACTION", "PFC_WD_STATUS")


def port_counter_ids(mask: int) -> str:
    stats = ("RX_PAUSE_DURATION_US", "RX_PKTS")
    return ",".join(f"SAI_PORT_STAT_PFC_{p}_{s}" for s in stats for p in priorities_of(mask))


# -- the watchdog's counters on a queue ------------------------------------------------------------
@dataclass(frozen=True)
class HwStats:
    """What the handler counts from: queue tx ok/dropped, PG (same index) rx ok/dropped."""

    tx: int = 0
    tx_drop: int = 0
    rx: int = 0
    rx_drop: int = 0


STAT_FIELDS = {
    "detected": "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "restored": "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED",
    "tx": "PFC_WD_QUEUE_STATS_TX_PACKETS", "tx_drop": "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS",
    "rx": "PFC_WD_QUEUE_STATS_RX_PACKETS", "rx_drop": "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS",
    "tx_last": "PFC_WD_QUEUE_STATS_TX_PACKETS_LAST", "tx_drop_last": "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS_LAST",
    "rx_last": "PFC_WD_QUEUE_STATS_RX_PACKETS_LAST", "rx_drop_last": "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS_LAST",
}


@dataclass(frozen=True)
class WdStats:
    """``PFC_WD_QUEUE_STATS_*`` and ``PFC_WD_STATUS`` of one queue."""

    detected: int = 0
    restored: int = 0
    tx: int = 0
    tx_drop: int = 0
    rx: int = 0
    rx_drop: int = 0
    tx_last: int = 0
    tx_drop_last: int = 0
    rx_last: int = 0
    rx_drop_last: int = 0
    operational: bool = True

    @classmethod
    def from_fields(cls, values: Mapping[str, str]) -> WdStats:
        """Unparseable numbers count as 0 (a user may have written anything there)."""
        numbers = {name: int(values[f]) if values.get(f, "").isdecimal() else 0 for name, f in STAT_FIELDS.items()}
        return cls(**numbers, operational=values.get("PFC_WD_STATUS", OPERATIONAL) == OPERATIONAL)

    def to_fields(self) -> dict[str, str]:
        out = {STAT_FIELDS[f.name]: str(getattr(self, f.name)) for f in fields(self) if f.name in STAT_FIELDS}
        out["PFC_WD_STATUS"] = OPERATIONAL if self.operational else STORMED
        return out

    def registered(self) -> dict[str, str]:
        """initWdCounters: the storm counts as they are, status operational."""
        return {STAT_FIELDS["detected"]: str(self.detected), STAT_FIELDS["restored"]: str(self.restored),
                "PFC_WD_STATUS": OPERATIONAL}


def on_storm(stats: WdStats) -> WdStats:
    """initCounters: a new storm counts once (not a storm replayed after a restart) and clears *_LAST."""
    if stats.detected > stats.restored:
        return replace(stats, operational=False)
    return replace(stats, detected=stats.detected + 1, operational=False,
                   tx_last=0, tx_drop_last=0, rx_last=0, rx_drop_last=0)


def on_commit(stats: WdStats, base: HwStats, now: HwStats, periodic: bool) -> WdStats:
    """commitCounters: what the queue did since ``base``; the end of the storm unless ``periodic``."""
    d_tx, d_txd = now.tx - base.tx, now.tx_drop - base.tx_drop
    d_rx, d_rxd = now.rx - base.rx, now.rx_drop - base.rx_drop
    return replace(stats, restored=stats.restored + (0 if periodic else 1), operational=not periodic,
                   tx=stats.tx + d_tx, tx_drop=stats.tx_drop + d_txd, rx=stats.rx + d_rx, rx_drop=stats.rx_drop + d_rxd,
                   tx_last=stats.tx_last + d_tx, tx_drop_last=stats.tx_drop_last + d_txd,
                   rx_last=stats.rx_last + d_rx, rx_drop_last=stats.rx_drop_last + d_rxd)
