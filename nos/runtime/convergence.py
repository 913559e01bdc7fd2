"""Does the ASIC hold what APPL_DB asks for, and what is still on its way there?

The backlog is what waits in each hop: per APPL_DB table the keys queued for orchagent
(``SCARD <TABLE>_KEY_SET`` + ``_DEL_SET``), the operations queued for syncd_sim
(``ASIC_STATE_KEY_VALUE_OP_QUEUE``) and its answers not yet read by orchagent (``GETRESPONSE``:
``LLEN / 3``, each operation is three list items), and each daemon's ``pending`` (tasks it holds:
waiting for a dependency, or sent and not yet answered; as of its last heartbeat, at most 1 s old).

The ASIC side is read from ASIC_DB, never from names other daemons publish:

* ports: every port APPL_DB asks for (PORT_TABLE, taken or queued) is an ASIC port object with the
  same lanes (``SAI_PORT_ATTR_HW_LANE_LIST``; COUNTERS_PORT_NAME_MAP only says which object to look
  at), or was refused (STATE_DB ``NOS_REJECTED_TABLE|APPL_DB:PORT_TABLE:<port>``); and the ASIC has no
  other port objects but the CPU port (syncd_sim's ``NOS_SYNCD_OBJECT_COUNTS``);
* routes: syncd_sim's ROUTE_ENTRY count equals what routeorch makes of APPL_DB: the 4 entries it
  creates at start (0.0.0.0/0 and ::/0 dropping, fe80::/10 and the switch's link-local /128 to the CPU),
  one ip2me entry per interface address (INTF_TABLE), plus one per ROUTE_TABLE route, less the refused
  ones (``NOS_REJECTED_TABLE|APPL_DB:ROUTE_TABLE:*``), the default VRF's default routes (they set the
  start entries) and the rows that are no ASIC route (``census.is_asic_route``; counted only when the
  rest does not add up with nothing in flight). The comparison is of counts: exact when nothing is
  in flight, it cannot tell one missing route plus one stray route from none of either.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import cast

from nos.daemon.reporting import rejected_key
from nos.db.connector import Databases
from nos.db.errors import map_redis_errors
from nos.db.producer_state import del_set_name, key_set_name
from nos.db.queue_table import queue_name
from nos.runtime import census
from nos.runtime.readiness import Check
from nos.schema import tables
from nos.schema.dbconfig import APPL_DB, ASIC_DB, COUNTERS_DB, STATE_DB
from nos.schema.tables import (
    APP_INTF_TABLE_NAME,
    APP_PORT_TABLE_NAME,
    APP_ROUTE_TABLE_NAME,
    ASIC_GETRESPONSE_TABLE,
    ASIC_STATE_TABLE,
    COUNTERS_PORT_NAME_MAP,
    PORT_CONFIG_DONE_KEY,
    PORT_INIT_DONE_KEY,
    STATE_NOS_REJECTED_TABLE_NAME,
)

COUNTS_HASH = "NOS_SYNCD_OBJECT_COUNTS"  # syncd_sim's ASIC objects per type (ASIC_DB)
START_ROUTES = 4   # routeorch's own entries at start: 0.0.0.0/0, ::/0, fe80::/10, the link-local /128
CPU_PORTS = 1
PORT_SPECIAL = frozenset({PORT_CONFIG_DONE_KEY, PORT_INIT_DONE_KEY})
LANES = "SAI_PORT_ATTR_HW_LANE_LIST"
# Every APPL_DB producer-state table of nos.schema (a name without a queue costs an SCARD of nothing).
APPL_TABLES = tuple(sorted({value for name, value in vars(tables).items()
                            if name.startswith("APP_") and name.endswith("_NAME") and isinstance(value, str)}))


@dataclass(frozen=True)
class Backlog:
    """Entries waiting in each hop."""

    appl: dict[str, int] = field(default_factory=dict)      # APPL_DB table -> queued keys (non-zero only)
    asic_requests: int = 0
    asic_answers: int = 0
    daemons: dict[str, int] = field(default_factory=dict)   # daemon -> pending tasks (non-zero only)

    @property
    def total(self) -> int:
        return sum(self.appl.values()) + self.asic_requests + self.asic_answers + sum(self.daemons.values())

    def describe(self) -> str:
        parts = [f"{n:,} in APPL_DB {t}" for t, n in sorted(self.appl.items())]
        if self.asic_requests:
            parts.append(f"{self.asic_requests:,} ASIC requests queued for syncd")
        if self.asic_answers:
            parts.append(f"{self.asic_answers:,} ASIC answers not yet read by orchagent")
        parts += [f"{n:,} pending in {d}" for d, n in sorted(self.daemons.items())]
        return ", ".join(parts) or "nothing waiting"


def read_backlog(dbs: Databases, rows: Mapping[str, Mapping[str, str]], daemons: list[str]) -> Backlog:
    appl = dbs[APPL_DB].client
    with map_redis_errors("read the backlog"):
        pipe = appl.pipeline(transaction=False)
        for table in APPL_TABLES:
            pipe.scard(key_set_name(table))
            pipe.scard(del_set_name(table))
        sizes = pipe.execute()
        asic = dbs[ASIC_DB].client.pipeline(transaction=False)
        asic.llen(queue_name(ASIC_STATE_TABLE))
        asic.llen(queue_name(ASIC_GETRESPONSE_TABLE))
        requests, answers = asic.execute()
    waiting = {t: sizes[2 * i] + sizes[2 * i + 1] for i, t in enumerate(APPL_TABLES) if sizes[2 * i] + sizes[2 * i + 1]}
    pending = {d: int(rows.get(d, {}).get("pending", "0") or 0) for d in daemons}
    return Backlog(waiting, requests // 3, answers // 3, {d: n for d, n in pending.items() if n})


# -- routes ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RouteFigures:
    asic: int            # ROUTE_ENTRY objects in the ASIC
    wanted: int          # ROUTE_TABLE routes APPL_DB asks for (taken or queued)
    queued: int          # of them (and deletes) still queued for orchagent (KEY_SET + DEL_SET)
    refused: int         # refused ROUTE_TABLE keys
    defaults: int        # the default VRF's default routes among them (no entries of their own)
    ip2me: int           # interface addresses (an entry each, not from ROUTE_TABLE)
    not_asic: int = 0    # routes that are no ASIC route (0 until counted)

    @property
    def expected(self) -> int:
        return START_ROUTES + self.ip2me + self.wanted - self.refused - self.defaults - self.not_asic


def judge_routes(f: RouteFigures, backlog: Backlog) -> Check:
    """The routes check (pure): the counts agree and no route waits for orchagent (what else is in
    flight is the "pipeline" check's); failing with ``waiting`` while anything is in flight."""
    ok = f.asic == f.expected and not f.queued
    detail = f"routes: {f.asic:,} of {f.expected:,} in the ASIC"
    if f.queued:
        detail += f", {f.queued:,} waiting in APPL_DB ROUTE_TABLE"
    extra = [f"{f.refused:,} refused (nos show errors)"] if f.refused else []
    extra += [f"{f.not_asic:,} not ASIC routes (via a management or loopback interface, or not global)"] \
        if f.not_asic else []
    if extra:
        detail += f" ({'; '.join(extra)})"
    if not ok and not f.queued and backlog.total:
        detail += f"; in flight: {backlog.describe()}"
    elif not ok and not backlog.total:
        detail += ", nothing in flight: " + ("routes missing from the ASIC" if f.asic < f.expected
                                             else "the ASIC has routes APPL_DB does not ask for")
    return Check("routes", ok, detail, waiting=bool(backlog.total))


def read_route_figures(dbs: Databases, keys: Mapping[str, census.TableKeys], refused: set[str], asic: int,
                       count_not_asic: bool) -> RouteFigures:
    routes, intfs = keys[APP_ROUTE_TABLE_NAME], keys[APP_INTF_TABLE_NAME]
    wanted = routes.wanted
    addresses = census.interface_addresses(
        k for k in intfs.wanted if rejected_key(APPL_DB, APP_INTF_TABLE_NAME, k) not in refused)
    route_refused = {k for k in wanted if rejected_key(APPL_DB, APP_ROUTE_TABLE_NAME, k) in refused}
    figures = RouteFigures(
        asic=asic, wanted=len(wanted), queued=len(routes.pending | routes.deletes), refused=len(route_refused),
        defaults=sum(1 for k in wanted - route_refused if census.is_default_route(k)),
        ip2me=census.ip2me_count(addresses))
    if not count_not_asic or figures.asic >= figures.expected:
        return figures
    candidates = [k for k in wanted - route_refused if not census.is_default_route(k)]
    rows = census.read_route_rows(dbs[APPL_DB], candidates)
    not_asic = sum(1 for k, fields in rows.items() if not census.is_asic_route(k, fields, addresses))
    return RouteFigures(**{**figures.__dict__, "not_asic": not_asic})


# -- ports -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PortFigures:
    wanted: int                  # ports APPL_DB asks for
    in_asic: int                 # of them: an ASIC port with their lanes
    refused: int                 # of them: refused
    missing: list[str]           # the others (first few)
    asic_ports: int              # ASIC port objects but the CPU port
    init_done: bool


def judge_ports(f: PortFigures, backlog: Backlog) -> Check:
    ok = not f.missing and f.asic_ports == f.in_asic and f.init_done
    detail = f"{f.in_asic} of {f.wanted} APPL_DB ports in the ASIC with their lanes"
    if f.refused:
        detail += f", {f.refused} refused (nos redis-cli -n 6 keys 'NOS_REJECTED_TABLE|*')"
    if f.missing:
        detail += f", missing: {', '.join(f.missing[:5])}{' ...' if len(f.missing) > 5 else ''}"
    if f.asic_ports != f.in_asic:
        detail += f", {f.asic_ports} port objects in the ASIC"
    detail += ", PortInitDone" if f.init_done else ", PortInitDone not yet written"
    return Check("asic ports", ok, detail, waiting=bool(backlog.total) or not f.init_done)


def read_port_figures(dbs: Databases, ports: census.TableKeys, refused: set[str], asic_ports: int) -> PortFigures:
    names = sorted(ports.wanted - PORT_SPECIAL)
    appl, asic = dbs[APPL_DB].client, dbs[ASIC_DB].client
    with map_redis_errors("read ports"):
        pipe = appl.pipeline(transaction=False)
        for name in names:
            pipe.hget(f"{APP_PORT_TABLE_NAME}:{name}", "lanes")
            pipe.hget(f"_{APP_PORT_TABLE_NAME}:{name}", "lanes")
        lanes = pipe.execute()
        oids = cast(list[str | None], dbs[COUNTERS_DB].client.hmget(COUNTERS_PORT_NAME_MAP, names) if names else [])
        pipe = asic.pipeline(transaction=False)
        for oid in oids:
            pipe.hget(f"{ASIC_STATE_TABLE}:SAI_OBJECT_TYPE_PORT:{oid}", LANES)
        asic_lanes = pipe.execute()
        init_done = port_init_done(dbs)
    in_asic, refused_n, missing = 0, 0, []
    for i, name in enumerate(names):
        want = lanes[2 * i + 1] or lanes[2 * i]  # a queued change carries the lanes the port will have
        if oids[i] and asic_lanes[i] and want and same_lanes(asic_lanes[i], want):
            in_asic += 1
        elif rejected_key(APPL_DB, APP_PORT_TABLE_NAME, name) in refused:
            refused_n += 1
        else:
            missing.append(name)
    return PortFigures(len(names), in_asic, refused_n, missing, asic_ports, init_done)


def port_init_done(dbs: Databases) -> bool:
    """APPL_DB PORT_TABLE:PortInitDone is written (or still queued): orchagent created every port."""
    appl = dbs[APPL_DB].client
    with map_redis_errors("read PortInitDone"):
        return any(appl.exists(f"{p}{APP_PORT_TABLE_NAME}:{PORT_INIT_DONE_KEY}") for p in ("", "_"))


def same_lanes(sai_list: str, lanes: str) -> bool:
    """SAI's ``n:a,b`` list against APPL_DB's ``a,b`` (pure)."""
    _, _, values = sai_list.partition(":")
    return [v.strip() for v in values.split(",")] == [v.strip() for v in lanes.split(",")]


# -- all of it ---------------------------------------------------------------------------------------
def refused_keys(dbs: Databases) -> set[str]:
    """STATE_DB NOS_REJECTED_TABLE keys (without the table name): small, one SCAN."""
    state = dbs[STATE_DB]
    prefix = f"{STATE_NOS_REJECTED_TABLE_NAME}{state.separator}"
    with map_redis_errors("read NOS_REJECTED_TABLE"):
        names = cast(Iterator[str], state.client.scan_iter(match=f"{prefix}*", count=census.SCAN_COUNT))
        return {name[len(prefix):] for name in names}


def object_counts(dbs: Databases) -> dict[str, int]:
    with map_redis_errors(f"read {COUNTS_HASH}"):
        raw = cast(dict[str, str], dbs[ASIC_DB].client.hgetall(COUNTS_HASH))
    return {name.removeprefix("SAI_OBJECT_TYPE_"): int(n) for name, n in raw.items()}


def ports_check(dbs: Databases, quick: bool = False) -> Check:
    """The ports check alone (what ``nos up`` waits for). ``quick``: before PortInitDone the check
    cannot pass, and says only that, without reading every port's lanes in APPL_DB and ASIC_DB (about
    520 replies a round for 128 ports; the boot's readiness rounds ask it ten times a second)."""
    if quick and not port_init_done(dbs):
        return Check("asic ports", False, "PortInitDone not yet written", waiting=True)
    keys = census.scan_tables(dbs[APPL_DB], (APP_PORT_TABLE_NAME,))
    ports = max(object_counts(dbs).get("PORT", 0) - CPU_PORTS, 0)
    return judge_ports(read_port_figures(dbs, keys[APP_PORT_TABLE_NAME], refused_keys(dbs), ports), Backlog())


def asic_checks(dbs: Databases, backlog: Backlog) -> tuple[list[Check], dict[str, object]]:
    """The ports and routes checks, and their figures for ``--json``."""
    keys = census.scan_tables(dbs[APPL_DB])
    refused = refused_keys(dbs)
    counts = object_counts(dbs)
    ports = read_port_figures(dbs, keys[APP_PORT_TABLE_NAME], refused, max(counts.get("PORT", 0) - CPU_PORTS, 0))
    routes = read_route_figures(dbs, keys, refused, counts.get("ROUTE_ENTRY", 0), count_not_asic=not backlog.total)
    figures: dict[str, object] = {"ports": ports.__dict__, "routes": {**routes.__dict__, "expected": routes.expected},
                                  "asic_objects": counts}
    return [judge_ports(ports, backlog), judge_routes(routes, backlog)], figures
