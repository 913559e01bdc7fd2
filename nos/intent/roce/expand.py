"""The RoCE expansion (pure): a resolved intent, the current CONFIG_DB and the SKU facts in, the rows the
intent wants out, as ``{(table, key): row}`` with ``None`` for a row that must not exist.

Switch-level rows (named ``ROCE``/``roce.*``, beside SONiC's ``AZURE`` objects, which stay as they are):
``DSCP_TO_TC_MAP|ROCE`` (RoCE DSCPs -> their priorities, CNP DSCP -> CNP TC, the profile's other
entries), ``TC_TO_QUEUE_MAP|ROCE`` and ``MAP_PFC_PRIORITY_TO_QUEUE|ROCE`` (identity),
``TC_TO_PRIORITY_GROUP_MAP|ROCE`` (lossless priorities -> the PG of the same number, the rest -> 0),
``SCHEDULER|roce.roce`` (DWRR roce_weight), ``|roce.default`` (DWRR lossy_weight), ``|roce.cnp`` (STRICT),
``WRED_PROFILE|ROCE`` (ECN on all colours, ecn_min..ecn_max at ecn_probability), ``PORT_QOS_MAP|global``
(the switch's DSCP map, when the intent covers every port); lossless only: ``BUFFER_PROFILE|
pg_lossless_<speed>_<cable>_profile`` exactly as SONiC's traditional buffermgrd derives it from
pg_profile_lookup.ini, and ``PFC_WD|GLOBAL`` POLL_INTERVAL (when the watchdog is on).

Per port, the intent owns every row of PORT_QOS_MAP, QUEUE, BUFFER_PG, BUFFER_QUEUE and PFC_WD keyed by
it (rows keyed by a port list that names it are split) and its CABLE_LENGTH field (lossless):
``PORT_QOS_MAP|<p>`` the four ROCE maps, ``pfc_enable`` and ``pfcwd_sw_enable`` = the RoCE priorities
(lossless; the latter with the watchdog on), other fields kept; ``QUEUE|<p>|<q>`` for queues 0..6 (and
any RoCE/CNP queue above): scheduler by role, WRED on the RoCE queues; ``BUFFER_PG|<p>|0`` lossy and
``|<RoCE PG range>`` the lossless profile; ``BUFFER_QUEUE|<p>|<range>`` egress_lossless_profile on the
RoCE queues (lossless), egress_lossy_profile on the rest; ``PFC_WD|<p>`` (lossless, watchdog on).

In SONiC's dynamic buffer model (DEVICE_METADATA ``buffer_model`` dynamic) a lossless PG's profile is
``NULL`` and no BUFFER_PROFILE is written: the dynamic buffer manager computes the headroom.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from nos.intent.roce.facts import RoceFacts
from nos.intent.roce.model import IntentError, RoceIntent
from nos.platform.breakout import port_number
from nos.schema import tables as t
from nos.schema.config import Config as Document
from nos.schema.config import ConfigError, Row
from nos.schema.config.roce import CFG_ROCE_TABLE_NAME, ROCE_KEY

Desired = dict[tuple[str, str], Row | None]

NAME = "ROCE"
SCHED_ROCE, SCHED_DEFAULT, SCHED_CNP = "roce.roce", "roce.default", "roce.cnp"
WRED = "ROCE"
INGRESS_LOSSLESS_POOL = "ingress_lossless_pool"
INGRESS_LOSSY_PROFILE = "ingress_lossy_profile"
EGRESS_LOSSY_PROFILE = "egress_lossy_profile"
EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
CABLE_ROW = "AZURE"
GLOBAL_QOS_KEY = "global"
PFCWD_GLOBAL_KEY = "GLOBAL"
POLL_INTERVAL = "POLL_INTERVAL"
DEFAULT_POLL_MS = 200
DYNAMIC_PROFILE = "NULL"  # BUFFER_PG profile in the dynamic model: "compute it"
NUM_DSCP, NUM_TC, CONFIGURED_QUEUES = 64, 8, 7  # SONiC configures queues 0..6
COLORS = ("green", "yellow", "red")
SEP = "|"
OWNED_PORT_TABLES = (
    t.CFG_PORT_QOS_MAP_TABLE_NAME,
    t.CFG_QUEUE_TABLE_NAME,
    t.CFG_BUFFER_PG_TABLE_NAME,
    t.CFG_BUFFER_QUEUE_TABLE_NAME,
    t.CFG_PFC_WD_TABLE_NAME,
)
MANAGED_QOS_FIELDS = ("dscp_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map", "pfc_enable",
                      "pfcwd_sw_enable")


def _refuse(field: str, value: str | None, reason: str) -> IntentError:
    return IntentError([ConfigError(CFG_ROCE_TABLE_NAME, ROCE_KEY, field, value, reason)])


def csv(values: Iterable[int]) -> str:
    return ",".join(str(v) for v in values)


def ranges(values: Iterable[int]) -> list[str]:
    """Contiguous runs as SONiC keys them: [3, 4, 6] -> ["3-4", "6"]."""
    out: list[list[int]] = []
    for value in sorted(set(values)):
        if out and value == out[-1][-1] + 1:
            out[-1].append(value)
        else:
            out.append([value])
    return [f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in out]


def managed_ports(intent: RoceIntent, config: Document) -> list[str]:
    """The ports the intent covers (every PORT row, or its list; each must exist)."""
    ports = config.get(t.CFG_PORT_TABLE_NAME, {})
    if intent.ports is None:
        return sorted(ports, key=_port_order)
    missing = [p for p in intent.ports if p not in ports]
    if missing:
        raise _refuse("ports", ",".join(intent.ports), f"no such port: {', '.join(missing)}")
    return sorted(set(intent.ports), key=_port_order)


def _port_order(name: str) -> tuple[int, str]:
    try:
        return port_number(name), name
    except ValueError:
        return 1 << 30, name


def queues(intent: RoceIntent) -> list[int]:
    return sorted(set(range(CONFIGURED_QUEUES)) | set(intent.priorities) | {intent.cnp_tc})


# ---- switch-level rows --------------------------------------------------------------------------------

def maps(intent: RoceIntent) -> Desired:
    profile = intent.profile_data
    dscp = {d: profile.dscp_to_tc.get(d, profile.dscp_default_tc) for d in range(NUM_DSCP)}
    dscp.update(intent.dscp_priorities())
    dscp[intent.cnp_dscp] = intent.cnp_tc
    lossless = intent.priorities if intent.lossless else ()
    tc_to_pg = {tc: profile.tc_to_pg.get(tc, 0) for tc in range(NUM_TC)}
    tc_to_pg.update({tc: tc for tc in lossless})
    identity = {str(tc): str(tc) for tc in range(NUM_TC)}
    return {
        (t.CFG_DSCP_TO_TC_MAP_TABLE_NAME, NAME): {str(k): str(v) for k, v in dscp.items()},
        (t.CFG_TC_TO_QUEUE_MAP_TABLE_NAME, NAME): dict(identity),
        (t.CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME, NAME): {str(k): str(v) for k, v in tc_to_pg.items()},
        (t.CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME, NAME): dict(identity),
    }


def schedulers_and_wred(intent: RoceIntent) -> Desired:
    wred: Row = {"ecn": "ecn_all"}
    for color in COLORS:
        wred[f"wred_{color}_enable"] = "true"
        wred[f"{color}_min_threshold"] = str(intent.ecn_min)
        wred[f"{color}_max_threshold"] = str(intent.ecn_max)
        wred[f"{color}_drop_probability"] = str(intent.ecn_probability)
    return {
        (t.CFG_SCHEDULER_TABLE_NAME, SCHED_ROCE): {"type": "DWRR", "weight": str(intent.roce_weight)},
        (t.CFG_SCHEDULER_TABLE_NAME, SCHED_DEFAULT): {"type": "DWRR", "weight": str(intent.lossy_weight)},
        (t.CFG_SCHEDULER_TABLE_NAME, SCHED_CNP): {"type": "STRICT"},
        (t.CFG_WRED_PROFILE_TABLE_NAME, WRED): wred,
    }


def profile_name(speed: int, cable: str) -> str:
    """buffermgrd's name for a lossless PG profile (traditional model)."""
    return f"pg_lossless_{speed}_{cable}_profile"


def headroom_profile(config: Document, facts: RoceFacts, speed: int, cable: str) -> Row:
    """The BUFFER_PROFILE row buffermgrd writes for (speed, cable) from pg_profile_lookup.ini."""
    found = facts.headroom(speed, cable)
    if found is None:
        offered = ", ".join(facts.cables(speed)) or "none"
        raise _refuse("cable_length", cable, f"the SKU ({facts.hwsku or 'unknown'}) has no pg_profile_lookup.ini "
                                             f"row for {speed} Mb/s at {cable}; lengths offered: {offered}")
    pool = config.get(t.CFG_BUFFER_POOL_TABLE_NAME, {}).get(INGRESS_LOSSLESS_POOL, {})
    mode = pool.get("mode") or "dynamic"
    row: Row = {"pool": INGRESS_LOSSLESS_POOL, "xon": found.xon, "xoff": found.xoff, "size": found.size,
                f"{mode}_th": found.threshold}
    if found.xon_offset is not None:
        row["xon_offset"] = found.xon_offset
    return row


def switch_rows(intent: RoceIntent, config: Document) -> Desired:
    desired = {**maps(intent), **schedulers_and_wred(intent)}
    if intent.ports is None:
        now = config.get(t.CFG_PORT_QOS_MAP_TABLE_NAME, {}).get(GLOBAL_QOS_KEY, {})
        desired[(t.CFG_PORT_QOS_MAP_TABLE_NAME, GLOBAL_QOS_KEY)] = {**now, "dscp_to_tc_map": NAME}
    if intent.lossless and intent.pfcwd:
        now = config.get(t.CFG_PFC_WD_TABLE_NAME, {}).get(PFCWD_GLOBAL_KEY, {})
        limit = min(intent.pfcwd_detection_ms, intent.pfcwd_restoration_ms)
        poll = now.get(POLL_INTERVAL)
        if not (isinstance(poll, str) and poll.isdecimal() and int(poll) <= limit):
            poll = str(min(DEFAULT_POLL_MS, limit))
        desired[(t.CFG_PFC_WD_TABLE_NAME, PFCWD_GLOBAL_KEY)] = {**now, POLL_INTERVAL: poll}
    return desired


# ---- per-port rows -------------------------------------------------------------------------------------

def released(config: Document, ports: set[str], owned: Iterable[tuple[str, str]] = ()) -> Desired:
    """Every owned per-port row of the ports removed (those in ``config`` and those the intent removed
    before, ``owned``); a port-list key keeps its other ports."""
    desired: Desired = {(table, key): None for table, key in owned
                        if table in OWNED_PORT_TABLES and key.partition(SEP)[0] in ports}
    for table in OWNED_PORT_TABLES:
        for key, row in config.get(table, {}).items():
            first, sep, rest = key.partition(SEP)
            names = first.split(",")
            if not ports.intersection(names):
                continue
            desired[(table, key)] = None
            keep = [n for n in names if n not in ports]
            if keep:
                desired[(table, ",".join(keep) + sep + rest)] = row
    return desired


def port_qos(intent: RoceIntent, config: Document, port: str) -> Row:
    now = config.get(t.CFG_PORT_QOS_MAP_TABLE_NAME, {}).get(port, {})
    row: Row = {k: v for k, v in now.items() if k not in MANAGED_QOS_FIELDS}
    row.update({"dscp_to_tc_map": NAME, "tc_to_queue_map": NAME, "tc_to_pg_map": NAME, "pfc_to_queue_map": NAME})
    if intent.lossless:
        row["pfc_enable"] = csv(intent.priorities)
        if intent.pfcwd:
            row["pfcwd_sw_enable"] = csv(intent.priorities)
    return row


def queue_rows(intent: RoceIntent, port: str) -> Iterator[tuple[tuple[str, str], Row]]:
    for queue in queues(intent):
        if queue in intent.priorities:
            row: Row = {"scheduler": SCHED_ROCE, "wred_profile": WRED}
        elif queue == intent.cnp_tc:
            row = {"scheduler": SCHED_CNP}
        else:
            row = {"scheduler": SCHED_DEFAULT}
        yield (t.CFG_QUEUE_TABLE_NAME, f"{port}{SEP}{queue}"), row


def buffer_queue_rows(intent: RoceIntent, port: str) -> Iterator[tuple[tuple[str, str], Row]]:
    lossless = set(intent.priorities) if intent.lossless else set()
    every = queues(intent)
    for profile, members in ((EGRESS_LOSSLESS_PROFILE, [q for q in every if q in lossless]),
                             (EGRESS_LOSSY_PROFILE, [q for q in every if q not in lossless])):
        for run in ranges(members):
            yield (t.CFG_BUFFER_QUEUE_TABLE_NAME, f"{port}{SEP}{run}"), {"profile": profile}


def port_speed(config: Document, port: str) -> int:
    speed = config.get(t.CFG_PORT_TABLE_NAME, {}).get(port, {}).get("speed")
    if not (isinstance(speed, str) and speed.isdecimal()):
        raise _refuse("ports", port, f"PORT|{port} has no speed; its lossless headroom cannot be chosen")
    return int(speed)


def cable_row_name(config: Document) -> str:
    return min(config.get(t.CFG_PORT_CABLE_LEN_TABLE_NAME, {}) or [CABLE_ROW])


def port_cable(intent: RoceIntent, config: Document, facts: RoceFacts, port: str) -> str:
    if intent.cable_length is not None:
        return intent.cable_length
    current = config.get(t.CFG_PORT_CABLE_LEN_TABLE_NAME, {}).get(cable_row_name(config), {}).get(port)
    return current if isinstance(current, str) and current != "0m" else facts.default_cable


def dynamic_model(config: Document) -> bool:
    """Whether the switch runs SONiC's dynamic buffer model (DEVICE_METADATA|localhost buffer_model)."""
    return config.get(t.CFG_DEVICE_METADATA_TABLE_NAME, {}).get("localhost", {}).get("buffer_model") == "dynamic"


def lossless_rows(intent: RoceIntent, config: Document, facts: RoceFacts, ports: list[str]) -> Desired:
    """Headroom profiles, lossless PGs, cable lengths and watchdogs of the ports (lossless mode). In the
    dynamic buffer model a lossless PG's profile is ``NULL``: the buffer manager computes it."""
    desired: Desired = {}
    cable_key = cable_row_name(config)
    cables: Row = dict(config.get(t.CFG_PORT_CABLE_LEN_TABLE_NAME, {}).get(cable_key, {}))
    dynamic = dynamic_model(config)
    for port in ports:
        cable = port_cable(intent, config, facts, port)
        name = DYNAMIC_PROFILE
        if not dynamic:
            speed = port_speed(config, port)
            name = profile_name(speed, cable)
            desired[(t.CFG_BUFFER_PROFILE_TABLE_NAME, name)] = headroom_profile(config, facts, speed, cable)
        for run in ranges(intent.priorities):
            desired[(t.CFG_BUFFER_PG_TABLE_NAME, f"{port}{SEP}{run}")] = {"profile": name}
        cables[port] = cable
        if intent.pfcwd:
            desired[(t.CFG_PFC_WD_TABLE_NAME, port)] = {
                "action": intent.pfcwd_action, "detection_time": str(intent.pfcwd_detection_ms),
                "restoration_time": str(intent.pfcwd_restoration_ms)}
    desired[(t.CFG_PORT_CABLE_LEN_TABLE_NAME, cable_key)] = cables
    return desired


def expand(intent: RoceIntent, config: Document, facts: RoceFacts,
           owned: Iterable[tuple[str, str]] = ()) -> Desired:
    """Every row the intent wants (``None``: must not exist); ``owned`` are the rows it owned before (the
    saved ones). Raises IntentError for what the switch cannot do (a port that does not exist or has no
    speed, a cable length the SKU has no headroom for)."""
    ports = managed_ports(intent, config)
    desired = released(config, set(ports), owned)
    desired.update(switch_rows(intent, config))
    for port in ports:
        desired[(t.CFG_PORT_QOS_MAP_TABLE_NAME, port)] = port_qos(intent, config, port)
        desired.update(queue_rows(intent, port))
        desired.update(buffer_queue_rows(intent, port))
        desired[(t.CFG_BUFFER_PG_TABLE_NAME, f"{port}{SEP}0")] = {"profile": INGRESS_LOSSY_PROFILE}
    if intent.lossless and ports:
        desired.update(lossless_rows(intent, config, facts, ports))
    return desired


__all__ = ["Desired", "OWNED_PORT_TABLES", "expand", "profile_name", "ranges"]
