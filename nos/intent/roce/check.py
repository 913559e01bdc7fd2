"""The lossless check (pure): for every port and RoCE priority, is the path lossless end to end?

Input: CONFIG_DB (config_db.json form), what is expected (a resolved :class:`RoceIntent`: the intent
the switch holds, or a profile's defaults), the SKU facts (pg_profile_lookup.ini) and, optionally,
APPL_DB's BUFFER_PG_TABLE and BUFFER_PROFILE_TABLE (:class:`ApplBuffers`: for PGs whose profile the
dynamic buffer model computes, ``profile`` "NULL").
Output: one :class:`Issue` per inconsistency, naming port, priority, kind, what is wrong and the fix.

The path of RoCE DSCP d with priority p on port P, as SONiC programs it: PORT_QOS_MAP|P (or |global)
dscp_to_tc_map sends d to TC p; tc_to_pg_map sends TC p to PG p, which has a BUFFER_PG profile with
headroom (xoff) for the port's speed and cable length; pfc_enable has p; tc_to_queue_map sends TC p to
queue q and pfc_to_queue_map pauses that same queue for priority p; BUFFER_QUEUE gives q a lossless
egress profile (by SONiC's naming: ``*lossless*``); QUEUE|P|q has a WRED profile with ECN marking;
PFC_WD|P watches the port (and pfcwd_sw_enable, when set, has p); the CNP DSCP goes to a queue with a
STRICT scheduler. Required headroom: the xoff of the lookup row for the port's speed and the shortest
listed cable at least as long as its own (beyond the table: :func:`required_xoff`); a profile the dynamic
model computed must have been computed for the port's current speed and cable (its name says which).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field

from nos.intent.roce.facts import RoceFacts, cable_metres
from nos.intent.roce.model import RoceIntent
from nos.schema import tables as t
from nos.schema.config import Config, Row

DSCP_MAP_MISSING = "dscp_map_missing"
DSCP_WRONG_PRIORITY = "dscp_wrong_priority"
PG_NOT_LOSSLESS = "pg_not_lossless"
QUEUE_NOT_LOSSLESS = "queue_not_lossless"
PFC_NOT_ENABLED = "pfc_not_enabled"
HEADROOM_MISSING = "headroom_missing"
HEADROOM_TOO_SMALL = "headroom_too_small"
ECN_OFF = "ecn_off"
WATCHDOG_OFF = "watchdog_off"
CNP_NOT_PRIORITISED = "cnp_not_prioritised"
KINDS = (DSCP_MAP_MISSING, DSCP_WRONG_PRIORITY, PG_NOT_LOSSLESS, QUEUE_NOT_LOSSLESS, PFC_NOT_ENABLED,
         HEADROOM_MISSING, HEADROOM_TOO_SMALL, ECN_OFF, WATCHDOG_OFF, CNP_NOT_PRIORITISED)
FIX_ALL = "nos config roce enable"
PAUSE_QUANTA = {800000: 905, 400000: 905, 200000: 453, 100000: 394, 50000: 147, 40000: 118, 25000: 80,
                10000: 67}  # IEEE 802.3 31B.3.7, as SONiC's headroom plugin uses them
LIGHT_IN_FIBRE = 1.98e8  # m/s
MTU = 9100
DYNAMIC_PROFILE = "NULL"
DYNAMIC_NAME = re.compile(r"pg_lossless_(\d+)_(\d+m)_")


@dataclass(frozen=True)
class ApplBuffers:
    """APPL_DB's BUFFER_PG_TABLE rows by key (``Ethernet0:3-4``) and BUFFER_PROFILE_TABLE rows by name."""

    pgs: Mapping[str, Row] = field(default_factory=dict)
    profiles: Mapping[str, Row] = field(default_factory=dict)


@dataclass(frozen=True)
class Issue:
    """One inconsistency: where (port, priority), what kind, what is wrong and how to fix it."""

    port: str
    priority: int | None
    kind: str
    detail: str
    fix: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def minimum_xoff(speed: int, metres: int) -> int:
    """A physical lower bound on xoff (bytes): the cable's round trip at line rate, the peer's response
    time (pause quanta x 64 bytes) and two MTUs in flight."""
    return cable_bytes(speed, metres) + PAUSE_QUANTA.get(speed, 905) * 64 + 2 * MTU


def cable_bytes(speed: int, metres: int) -> int:
    """Bytes in flight on a cable's round trip at line rate."""
    return math.ceil(2 * metres * speed * 1e6 / LIGHT_IN_FIBRE / 8)


def required_xoff(facts: RoceFacts, speed: int, cable: str) -> int:
    """The lookup row's xoff for the shortest listed cable at least this long; beyond the table, the
    longest row's plus the extra round trip (the SKU's own rule for its derived rows); at a speed the
    table lacks, :func:`minimum_xoff`."""
    metres = cable_metres(cable)
    rows = sorted((r for r in facts.lookup if r.speed == speed), key=lambda r: cable_metres(r.cable))
    longer = [r for r in rows if cable_metres(r.cable) >= metres]
    if longer:
        return int(longer[0].xoff)
    if rows:
        return int(rows[-1].xoff) + cable_bytes(speed, metres - cable_metres(rows[-1].cable))
    return minimum_xoff(speed, metres)


# ---- indexes over CONFIG_DB -----------------------------------------------------------------------------

def _indices(text: str) -> range:
    first, _, last = text.partition("-")
    if not first.isdecimal() or not (last or first).isdecimal():
        return range(0)
    return range(int(first), int(last or first) + 1)


def per_port(config: Config, table: str) -> dict[str, Row]:
    """``<ports>`` keyed rows by port (a port-list key gives its row to each port)."""
    out: dict[str, Row] = {}
    for key, row in config.get(table, {}).items():
        for port in key.split("|", 1)[0].split(","):
            out[port] = row
    return out


def per_index(config: Config, table: str) -> dict[tuple[str, int], Row]:
    """``<ports>|<index or range>`` keyed rows by (port, index)."""
    out: dict[tuple[str, int], Row] = {}
    for key, row in config.get(table, {}).items():
        ports, _, index = key.partition("|")
        for port in ports.split(","):
            for number in _indices(index):
                out[(port, number)] = row
    return out


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, str) and value.isdecimal() else None


def _csv(value: object) -> set[int]:
    if isinstance(value, list):
        value = ",".join(value)
    return {int(v) for v in value.split(",") if v.isdecimal()} if isinstance(value, str) else set()


@dataclass
class View:
    """CONFIG_DB indexed for the check."""

    config: Config
    facts: RoceFacts
    appl: ApplBuffers

    def __post_init__(self) -> None:
        appl_pgs = {key.replace(":", "|", 1): row for key, row in self.appl.pgs.items()}
        self.appl_pgs = per_index({t.CFG_BUFFER_PG_TABLE_NAME: appl_pgs}, t.CFG_BUFFER_PG_TABLE_NAME)
        self.qos = per_port(self.config, t.CFG_PORT_QOS_MAP_TABLE_NAME)
        self.pfcwd = per_port(self.config, t.CFG_PFC_WD_TABLE_NAME)
        self.queues = per_index(self.config, t.CFG_QUEUE_TABLE_NAME)
        self.pgs = per_index(self.config, t.CFG_BUFFER_PG_TABLE_NAME)
        self.buffer_queues = per_index(self.config, t.CFG_BUFFER_QUEUE_TABLE_NAME)
        cables = self.config.get(t.CFG_PORT_CABLE_LEN_TABLE_NAME, {})
        self.cables = {p: v for row in cables.values() for p, v in row.items() if isinstance(v, str)}

    def row(self, table: str, key: object) -> Row | None:
        return self.config.get(table, {}).get(key) if isinstance(key, str) else None

    def port_map(self, port: str, field: str, table: str) -> tuple[str | None, Row | None]:
        """The map a port uses for ``field`` (the switch-wide one for the DSCP map) and its row."""
        name = self.qos.get(port, {}).get(field)
        if name is None and field == "dscp_to_tc_map":
            name = self.qos.get("global", {}).get(field)
        return (name, self.row(table, name)) if isinstance(name, str) else (None, None)

    def profile(self, name: object) -> Row | None:
        if not isinstance(name, str):
            return None
        return self.row(t.CFG_BUFFER_PROFILE_TABLE_NAME, name) or self.appl.profiles.get(name)

    def pg_profile(self, port: str, pg: int) -> tuple[str | None, bool]:
        """The profile bound to a PG, and whether the dynamic model computed it (APPL_DB's binding)."""
        binding = self.pgs.get((port, pg))
        name = binding.get("profile") if binding else None
        if name != DYNAMIC_PROFILE:
            return (name if isinstance(name, str) else None), False
        computed = self.appl_pgs.get((port, pg), {}).get("profile")
        if not isinstance(computed, str):
            return None, True
        return computed.removeprefix("[BUFFER_PROFILE_TABLE:").removesuffix("]"), True


# ---- the checks -------------------------------------------------------------------------------------------

def check_dscp(view: View, port: str, intent: RoceIntent) -> Iterator[Issue]:
    name, dscp_map = view.port_map(port, "dscp_to_tc_map", t.CFG_DSCP_TO_TC_MAP_TABLE_NAME)
    if dscp_map is None:
        what = f"map {name} does not exist" if name else "no dscp_to_tc_map on the port or globally"
        yield Issue(port, None, DSCP_MAP_MISSING, what, f"set PORT_QOS_MAP|{port} dscp_to_tc_map ({FIX_ALL})")
        return
    for dscp, priority in intent.dscp_priorities().items():
        tc = _int(dscp_map.get(str(dscp)))
        if tc is None:
            yield Issue(port, priority, DSCP_MAP_MISSING, f"DSCP {dscp} is not in DSCP_TO_TC_MAP|{name}",
                        f"add \"{dscp}\": \"{priority}\" to DSCP_TO_TC_MAP|{name}")
        elif tc != priority:
            yield Issue(port, priority, DSCP_WRONG_PRIORITY,
                        f"RoCE DSCP {dscp} goes to TC {tc} in DSCP_TO_TC_MAP|{name}, not to priority {priority}",
                        f"set \"{dscp}\": \"{priority}\" in DSCP_TO_TC_MAP|{name}")


def check_pg(view: View, port: str, priority: int) -> Iterator[Issue]:
    name, tc_to_pg = view.port_map(port, "tc_to_pg_map", t.CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME)
    pg = _int(tc_to_pg.get(str(priority))) if tc_to_pg is not None else None
    if pg is None:
        yield Issue(port, priority, PG_NOT_LOSSLESS, f"TC {priority} has no priority group (tc_to_pg_map "
                    f"{name or 'not set'})", f"map TC {priority} to PG {priority} in PORT_QOS_MAP|{port} tc_to_pg_map")
        return
    if pg != priority:
        yield Issue(port, priority, PG_NOT_LOSSLESS, f"TC {priority} goes to PG {pg}; PFC for priority {priority} "
                    f"is generated by PG {priority}", f"map TC {priority} to PG {priority} in "
                    f"TC_TO_PRIORITY_GROUP_MAP|{name}")
        return
    yield from check_headroom(view, port, priority)


def check_headroom(view: View, port: str, pg: int) -> Iterator[Issue]:
    fix = f"BUFFER_PG|{port}|{pg} with the lossless profile for its speed and cable ({FIX_ALL})"
    name, dynamic = view.pg_profile(port, pg)
    profile = view.profile(name)
    xoff = _int(profile.get("xoff")) if profile else None
    if not xoff:
        if name is None:
            what = "the dynamic buffer model has computed no profile" if dynamic else "no BUFFER_PG row"
        else:
            what = f"profile {name} has no headroom (xoff)"
        yield Issue(port, pg, HEADROOM_MISSING, f"PG {pg}: {what}", fix)
        return
    speed = _int(view.config.get(t.CFG_PORT_TABLE_NAME, {}).get(port, {}).get("speed"))
    cable = view.cables.get(port)
    if speed is None or cable is None or cable_metres(cable) >= 1 << 30:
        yield Issue(port, pg, HEADROOM_MISSING, f"PG {pg}: no speed or cable length to size headroom for",
                    f"set CABLE_LENGTH for {port}")
        return
    if dynamic:
        found = DYNAMIC_NAME.match(name or "")
        if found is None or (int(found.group(1)), found.group(2)) != (speed, cable):
            yield Issue(port, pg, HEADROOM_TOO_SMALL, f"PG {pg}: profile {name} was not computed for {speed} Mb/s "
                        f"over {cable}", "wait for the dynamic buffer manager, or check it in nos show errors")
        return
    need = required_xoff(view.facts, speed, cable)
    if xoff < need:
        yield Issue(port, pg, HEADROOM_TOO_SMALL, f"PG {pg}: xoff {xoff} B < {need} B needed at {speed} Mb/s "
                    f"over {cable}", fix)


def check_queue(view: View, port: str, priority: int, intent: RoceIntent) -> Iterator[Issue]:
    name, tc_to_queue = view.port_map(port, "tc_to_queue_map", t.CFG_TC_TO_QUEUE_MAP_TABLE_NAME)
    queue = _int(tc_to_queue.get(str(priority))) if tc_to_queue is not None else None
    if queue is None:
        yield Issue(port, priority, QUEUE_NOT_LOSSLESS, f"TC {priority} has no queue (tc_to_queue_map "
                    f"{name or 'not set'})", f"set PORT_QOS_MAP|{port} tc_to_queue_map ({FIX_ALL})")
        return
    if intent.lossless:
        yield from _check_queue_lossless(view, port, priority, queue)
    yield from check_ecn(view, port, priority, queue)


def _check_queue_lossless(view: View, port: str, priority: int, queue: int) -> Iterator[Issue]:
    name, pfc_map = view.port_map(port, "pfc_to_queue_map", t.CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME)
    paused = _int(pfc_map.get(str(priority))) if pfc_map is not None else None
    if paused != queue:
        what = "no pfc_to_queue_map" if pfc_map is None else f"pause on priority {priority} stops queue {paused}"
        yield Issue(port, priority, QUEUE_NOT_LOSSLESS, f"{what}; the traffic is in queue {queue}",
                    f"map priority {priority} to queue {queue} in PORT_QOS_MAP|{port} pfc_to_queue_map")
    binding = view.buffer_queues.get((port, queue))
    profile = binding.get("profile") if binding else None
    if not (isinstance(profile, str) and "lossless" in profile):
        yield Issue(port, priority, QUEUE_NOT_LOSSLESS, f"queue {queue} has egress buffer profile {profile}",
                    f"BUFFER_QUEUE|{port}|{queue} profile egress_lossless_profile")


def check_ecn(view: View, port: str, priority: int, queue: int) -> Iterator[Issue]:
    name = view.queues.get((port, queue), {}).get("wred_profile")
    wred = view.row(t.CFG_WRED_PROFILE_TABLE_NAME, name)
    if wred is None or wred.get("ecn", "ecn_none") == "ecn_none":
        what = "no WRED profile" if wred is None else f"WRED_PROFILE|{name} does not mark ECN"
        yield Issue(port, priority, ECN_OFF, f"queue {queue}: {what}",
                    f"QUEUE|{port}|{queue} wred_profile with ecn ecn_all ({FIX_ALL})")


def check_pfc(view: View, port: str, priority: int, intent: RoceIntent) -> Iterator[Issue]:
    qos = view.qos.get(port, {})
    if priority not in _csv(qos.get("pfc_enable")):
        yield Issue(port, priority, PFC_NOT_ENABLED, f"pfc_enable is '{qos.get('pfc_enable', '')}'",
                    f"add {priority} to PORT_QOS_MAP|{port} pfc_enable")
    if not intent.pfcwd:
        return
    watched = qos.get("pfcwd_sw_enable")
    if port not in view.pfcwd:
        yield Issue(port, priority, WATCHDOG_OFF, "no PFC_WD row", f"PFC_WD|{port} ({FIX_ALL})")
    elif watched is not None and priority not in _csv(watched):
        yield Issue(port, priority, WATCHDOG_OFF, f"pfcwd_sw_enable is '{watched}'",
                    f"add {priority} to PORT_QOS_MAP|{port} pfcwd_sw_enable")


def check_cnp(view: View, port: str, intent: RoceIntent) -> Iterator[Issue]:
    fix = f"send CNP DSCP {intent.cnp_dscp} to a queue with a STRICT scheduler ({FIX_ALL})"
    _, dscp_map = view.port_map(port, "dscp_to_tc_map", t.CFG_DSCP_TO_TC_MAP_TABLE_NAME)
    _, tc_to_queue = view.port_map(port, "tc_to_queue_map", t.CFG_TC_TO_QUEUE_MAP_TABLE_NAME)
    if dscp_map is None:
        return  # reported once, as dscp_map_missing
    tc = _int(dscp_map.get(str(intent.cnp_dscp)))
    queue = _int(tc_to_queue.get(str(tc))) if tc_to_queue and tc is not None else None
    if queue is None:
        yield Issue(port, intent.cnp_tc, CNP_NOT_PRIORITISED, f"CNP DSCP {intent.cnp_dscp} reaches no queue", fix)
        return
    name = view.queues.get((port, queue), {}).get("scheduler")
    scheduler = view.row(t.CFG_SCHEDULER_TABLE_NAME, name) or {}
    if scheduler.get("type") != "STRICT":
        yield Issue(port, tc, CNP_NOT_PRIORITISED, f"CNP DSCP {intent.cnp_dscp} goes to queue {queue}, "
                    f"scheduled {scheduler.get('type', 'by default')} ({name or 'no scheduler'})", fix)


def check_port(view: View, port: str, intent: RoceIntent) -> Iterator[Issue]:
    yield from check_dscp(view, port, intent)
    for priority in intent.priorities:
        if intent.lossless:
            yield from check_pg(view, port, priority)
            yield from check_pfc(view, port, priority, intent)
        yield from check_queue(view, port, priority, intent)
    yield from check_cnp(view, port, intent)


def check(config: Config, intent: RoceIntent, facts: RoceFacts, appl: ApplBuffers | None = None) -> list[Issue]:
    """Every inconsistency on the ports the intent covers (all ports when it names none)."""
    view = View(config, facts, appl or ApplBuffers())
    ports = config.get(t.CFG_PORT_TABLE_NAME, {})
    names = [p for p in intent.ports if p in ports] if intent.ports is not None else list(ports)
    return [issue for port in sorted(names, key=_port_order) for issue in check_port(view, port, intent)]


def _port_order(name: str) -> tuple[int, str]:
    digits = name.removeprefix("Ethernet")
    return (int(digits), name) if digits.isdecimal() else (1 << 30, name)


__all__ = ["KINDS", "ApplBuffers", "Issue", "check", "minimum_xoff", "required_xoff"]
