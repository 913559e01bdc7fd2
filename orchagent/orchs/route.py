"""RouteOrch: APPL_DB ROUTE_TABLE -> SAI route entries (swss orchagent/routeorch.cpp). What a row
means is decided in ``route_plan``; the shared ECMP groups live in ``route_groups``.

* At start the default routes 0.0.0.0/0 and ::/0 drop (STATE_DB ``ROUTE_TABLE|<prefix>`` state
  ``na``), and fe80::/10 plus the switch's EUI-64 link-local address go to the CPU. A real default
  route is a SET on them (state ``ok``); deleting it makes them drop again (state ``na``).
* A route with ``fallback_to_default_route`` true makes a group that takes the default route's next hops
  once all its own are down (``route_groups``).
* Unresolved next hops are requested in APPL_DB NEIGH_RESOLVE_TABLE and the route waits (NEED_RETRY);
  meanwhile a route with at least one usable next hop goes through it (SONiC's temporary route).

Routes are handled in bulk (``handle_batch``, ``POP_BATCH`` keys a pop). A batch is planned and sent
``CHUNK`` routes at a time, each chunk as one pipelined set of bulk requests: the groups of new
next-hop sets and their members, then bulk remove, bulk create and bulk set of routes (the order of
SONiC's route bulker), so syncd applies one chunk while the next is planned. When the batch is full
(more routes are probably queued) its answers are not waited for: the tasks stay pending ("in flight",
``Result.held_by_handler``: the consumer does not hand them over again until ``take_settled`` names
their keys) and get their results when they are handed over again, after a later pop. Up to
``MAX_FLIGHT`` chunks (two pops) stay in flight: batch N+1 is planned and sent before batch N's answers
are read (``settle``), so that syncd always has a batch queued while orchagent pops, plans and commits.
A pop that holds a key still in flight (a route changed again before its answer was read) settles
everything first, so that every plan starts from the committed state of its own route. Everything a
route will use (next hops, RIFs, groups, VRFs) is referenced when it is planned, so that no other orch
removes it meanwhile; a refusal undoes that. A route that has to wait
is "parked" with the L3 state version (``L3State.version``) and not planned again until that changes,
so that thousands of waiting routes cost a dictionary lookup per retry instead of a re-plan.
"""

from __future__ import annotations

import gc
import ipaddress
import logging
from dataclasses import dataclass, field

from nos.daemon.task import Result, TaskStatus
from nos.db import ProducerStateTable, Table
from nos.db.keyops import FieldValues, KeyOpFieldsValues
from nos.db.producer_state import key_set_name
from nos.sai import status as st
from nos.sai.ops import OpKind, SaiOp
from nos.sai.types import ObjectType as T
from nos.schema.dbconfig import APPL_DB, STATE_DB
from nos.schema.tables import APP_NEIGH_RESOLVE_TABLE_NAME, APP_ROUTE_TABLE_NAME
from orchagent.core.deps import OrchDeps
from orchagent.core.events import NextHopChanged
from orchagent.core.l3 import InvalidEntry, NamedGroup, NextHop, NhKey
from orchagent.orchs import route_plan as rp
from orchagent.orchs.route_groups import Member, RouteGroup, RouteGroups
from orchagent.orchs.route_plan import DROP, EXCLUDED, Hops, Target, Via

log = logging.getLogger(__name__)

STATE_ROUTE_TABLE_NAME = "ROUTE_TABLE"  # swss-common schema.h STATE_ROUTE_TABLE_NAME (not yet in nos.schema)
CONSUMES = ((APPL_DB, APP_ROUTE_TABLE_NAME),)
PRODUCES = ((STATE_DB, STATE_ROUTE_TABLE_NAME), (APPL_DB, APP_NEIGH_RESOLVE_TABLE_NAME))
# How much route work is in hand at once bounds how long anything else waits behind a route load: a
# change to a port is popped at orchagent's next loop turn (after the pop under way is planned and sent)
# and its SAI request is queued at syncd behind every route chunk in flight. With pops of 1024 and 2048
# routes in flight, a one-field PATCH waited 50-360 ms in APPL_DB and 20-300 ms more in syncd's queue
# while 10,000 routes churned (issue 19's soak), and each pop held Redis for ~10-35 ms.
POP_BATCH = 256           # keys per pop (swss-common's default is 128, its maximum 1024)
CHUNK = 128               # routes per set of bulk requests
MAX_FLIGHT = 2 * POP_BATCH // CHUNK  # chunks sent and not settled (two pops' worth: 512 routes)
FREEZE_EVERY = 4096      # routes added between gc.freeze() calls
TARGET_CACHE = 65536      # parsed next-hop fields kept (routes share few distinct next-hop sets)
RESOLVE_FIELDS = {"mac": "00:00:00:00:00:00"}
FALLBACK_FIELD = "fallback_to_default_route"  # the group made for this route may fall back to the default route
IN_FLIGHT = Result.held_by_handler("sent to the ASIC, answer not read yet")
RouteKey = tuple[str, str]  # (virtual router, prefix)


@dataclass(frozen=True, slots=True)
class Installed:
    """A route in the ASIC: its target, the id it points at and its VRF name (shared by the routes
    that point at the same thing: 100k routes hold ~1k of these)."""

    target: Target
    oid: str
    vrf: str


@dataclass(slots=True)
class Pending:
    """A route operation sent to the ASIC, committed when its answer is read."""

    task: KeyOpFieldsValues
    rkey: RouteKey
    entry: str
    new: Installed | None           # None: removed
    attrs: rp.Attrs = ()
    after: Result | None = None     # the task's result on success (NEED_RETRY for a stand-in)
    default: bool = False           # the default route of the default VRF (STATE_DB state)
    removing: bool = False          # a delete (the default route drops again instead)
    version: int = 0                # the L3 state version it was planned on


@dataclass
class Chunk:
    """One set of bulk requests: new groups and members first, then routes."""

    groups: list[tuple[RouteGroup, list[Member]]] = field(default_factory=list)
    removes: list[Pending] = field(default_factory=list)
    creates: list[Pending] = field(default_factory=list)
    sets: list[Pending] = field(default_factory=list)


class RouteOrch:
    """ROUTE_TABLE -> ROUTE_ENTRY; also the ``RouteView`` its decisions read."""

    CONSUMES = CONSUMES
    PRODUCES = PRODUCES
    POP_BATCH = {APP_ROUTE_TABLE_NAME: POP_BATCH}

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.l3 = deps.l3
        self.sai = deps.sai
        self.switch_id = deps.switch.switch_id
        self.routes: dict[RouteKey, Installed] = {}
        self.groups = RouteGroups(deps)
        self.targets: dict[tuple[bool, FieldValues], Target] = {}
        self.shared: dict[tuple[int, str, str], Installed] = {}
        self.flight: list[Chunk] = []
        self.flight_tasks: dict[str, KeyOpFieldsValues] = {}
        self.finished: dict[str, tuple[KeyOpFieldsValues, Result]] = {}
        self.settled_keys: list[str] = []  # keys of tasks given a verdict during the last handle_batch
        self.parked: dict[str, tuple[KeyOpFieldsValues, int, Result]] = {}  # waiting tasks (see _park)
        self.defaults: dict[str, bool] = {}
        self._frozen = 0  # routes when the heap was last frozen (see settle)
        self.appl = deps.dbs[APPL_DB].client
        self.state = Table(deps.dbs[STATE_DB], STATE_ROUTE_TABLE_NAME)
        self.resolve = ProducerStateTable(deps.dbs[APPL_DB], APP_NEIGH_RESOLVE_TABLE_NAME)
        deps.bus.subscribe(NextHopChanged, self.groups.on_next_hop)
        self.groups.default_next_hops = self._default_next_hops
        self._install_defaults()

    def _default_next_hops(self, v4: bool) -> list[NhKey]:
        """The next hops the default route of a family forwards over now (routeorch's
        v4/v6_active_default_route_nhops): its next hop, or its group's installed members."""
        installed = self.routes.get((self.deps.switch.default_vr, "0.0.0.0/0" if v4 else "::/0"))
        if installed is None:
            return []
        target = installed.target
        if target.via is Via.NEXT_HOP:
            return [target.hops[0].key]
        if target.via is Via.GROUP and target.hops in self.groups.groups:
            return list(self.groups.groups[target.hops].members)
        return []

    def _install_defaults(self) -> None:
        switch = self.deps.switch
        ops = []
        for prefix in ("0.0.0.0/0", "::/0"):
            self.state.set(prefix, {"state": "na"})
            ops.append(SaiOp.create(T.ROUTE_ENTRY, rp.entry_id(prefix, switch.default_vr, self.switch_id),
                                    *rp.DROP_ATTRS))
            self.routes[(switch.default_vr, prefix)] = Installed(DROP, "", "")
        for prefix in ("fe80::/10", f"{link_local(switch.src_mac)}/128"):
            ops.append(SaiOp.create(T.ROUTE_ENTRY, rp.entry_id(prefix, switch.default_vr, self.switch_id),
                                    rp.FORWARD, (rp.RA + "NEXT_HOP_ID", switch.cpu_port)))
        result = self.sai.apply(ops)
        if not result.ok:
            log.error("orch.route.defaults_failed status=%s reason=%s", result.status, result.reason)

    # -- RouteView -----------------------------------------------------------------------------
    def next_hop(self, key: NhKey) -> NextHop | None:
        return self.l3.next_hops.get(key)

    def rif(self, alias: str) -> str:
        return self.l3.rif_of(alias)

    def group(self, hops: Hops) -> str:
        return self.groups.oid(hops)

    def named(self, index: str) -> NamedGroup | None:
        return self.l3.named_groups.get(index)

    def is_interface_subnet(self, prefix: str, alias: str) -> bool:
        return self.l3.is_interface_subnet(prefix, alias)

    def can_add_group(self) -> bool:
        return self.groups.can_add()

    # -- tasks ---------------------------------------------------------------------------------
    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        return self.handle_batch(table, [task])[0]

    def handle_batch(self, table: str, tasks: list[KeyOpFieldsValues]) -> list[Result]:
        self.settled_keys = []  # the consumer took the previous call's (take_settled)
        immediate: dict[int, Result] = {}
        work = []
        for task in tasks:
            if self._waiting(task):
                continue
            parked = self.parked.get(task.key)
            if parked is not None and parked[0] is task and parked[1] == self.l3.version:
                immediate[id(task)] = parked[2]  # still waiting: nothing it depends on changed
            else:
                work.append(task)
        if self.flight and (any(task.key in self.flight_tasks for task in work)
                            or not work and not self._more_input()):
            self.settle()
        for start in range(0, len(work), CHUNK):
            chunk = Chunk()
            for task in work[start:start + CHUNK]:
                self.finished.pop(task.key, None)
                result = self._plan(task, chunk)
                if result is None:
                    self.flight_tasks[task.key] = task
                else:
                    immediate[id(task)] = result
                    self._park(task, result, self.l3.version)
            self._send(chunk)
        if 0 < len(work) < POP_BATCH:  # not a full pop: nothing more is likely queued, finish now
            self.settle()
        elif len(self.flight) > MAX_FLIGHT:  # syncd has this batch queued: read the oldest answers meanwhile
            self.settle(len(self.flight) - MAX_FLIGHT)
        return [self._result(task, immediate) for task in tasks]

    def take_settled(self, table: str) -> list[str]:
        """Keys whose task got its verdict during the last ``handle_batch`` call: the consumer hands
        the ones it was told were IN_FLIGHT (held) again, to collect that verdict (drained)."""
        keys, self.settled_keys = self.settled_keys, []
        return keys

    def _park(self, task: KeyOpFieldsValues, result: Result, version: int) -> None:
        """Remember a task that must wait, with the L3 state version it was decided on."""
        if result.status is TaskStatus.NEED_RETRY:
            self.parked[task.key] = (task, version, result)
        else:
            self.parked.pop(task.key, None)

    def _waiting(self, task: KeyOpFieldsValues) -> bool:
        """Whether ``task`` was sent already (its answer is in flight or read)."""
        done = self.finished.get(task.key)
        return self.flight_tasks.get(task.key) is task or (done is not None and done[0] is task)

    def _more_input(self) -> bool:
        return bool(self.appl.scard(key_set_name(APP_ROUTE_TABLE_NAME)))

    def _result(self, task: KeyOpFieldsValues, immediate: dict[int, Result]) -> Result:
        found = immediate.get(id(task))
        if found is not None:
            return found
        done = self.finished.get(task.key)
        if done is not None and done[0] is task:
            del self.finished[task.key]
            return done[1]
        return IN_FLIGHT

    def _plan(self, task: KeyOpFieldsValues, chunk: Chunk) -> Result | None:
        try:
            vrf, prefix, v4 = rp.parse_key(task.key)
            target = self._target(task.fvs, v4) if task.is_set else EXCLUDED
        except InvalidEntry as exc:
            return Result.invalid(str(exc))
        vr = self.deps.switch.default_vr if not vrf else (self.l3.vrfs[vrf].oid if vrf in self.l3.vrfs else "")
        if not vr:
            return Result.retry(f"VRF {vrf} does not exist yet")
        rkey = (vr, prefix)
        current = self.routes.get(rkey)
        default = not vrf and prefix in rp.DEFAULT_PREFIXES
        entry = rp.entry_id(prefix, vr, self.switch_id)
        if target is EXCLUDED:  # a delete, or a route over a management / loopback interface
            return self._plan_remove(Pending(task, rkey, entry, None, default=default, removing=True), current, chunk)
        group = self.groups.groups.get(target.hops) if target.via is Via.GROUP else None
        decision = rp.Decision(target, group.oid) if group is not None else rp.decide(target, prefix, self)
        if decision.resolve:
            self._request_resolve(decision.resolve)
        if decision.result is not None and not decision.temp:
            return decision.result
        after = decision.result or (Result.retry("uses a temporary next hop group") if decision.temp else None)
        if current is not None and _unchanged(current, decision, target):
            return after or Result.success()
        oid = decision.oid
        if decision.new_group:
            fallback = dict(task.fvs).get(FALLBACK_FIELD) == "true"
            group, members = self.groups.plan(decision.target.hops, fallback)
            chunk.groups.append((group, members))
            oid = group.oid
        new = self._installed(decision.target, oid, vrf)
        self._ref(new, +1)
        version = self.l3.version
        if current is None:
            chunk.creates.append(Pending(task, rkey, entry, new, rp.create_attrs(new.target, oid), after, default,
                                         version=version))
        else:
            attrs = tuple(rp.set_attrs(current.target, new.target, oid, default))
            chunk.sets.append(Pending(task, rkey, entry, new, attrs, after, default, version=version))
        return None

    def _installed(self, target: Target, oid: str, vrf: str) -> Installed:
        """The shared Installed for a target (by identity: targets come from the parse cache, and a
        cached Installed keeps its target alive, so the id is not reused)."""
        key = (id(target), oid, vrf)
        found = self.shared.get(key)
        if found is None:
            if len(self.shared) >= TARGET_CACHE:
                self.shared.clear()
            found = self.shared[key] = Installed(target, oid, vrf)
        return found

    @staticmethod
    def _plan_remove(pending: Pending, current: Installed | None, chunk: Chunk) -> Result | None:
        if current is None:
            return Result.ignored("no such route")
        if pending.default:  # never removed: it drops again
            pending.new, pending.attrs = Installed(DROP, "", ""), tuple(rp.default_drop_attrs())
            chunk.sets.append(pending)
        else:
            chunk.removes.append(pending)
        return None

    def _target(self, fvs: FieldValues, v4: bool) -> Target:
        """The parsed next-hop fields, cached by their exact text (routes share few next-hop sets)."""
        target = self.targets.get((v4, fvs))
        if target is None:
            fields = dict(fvs)
            fields.pop("protocol", None)
            target = rp.parse_target(fields, v4)
            if len(self.targets) >= TARGET_CACHE:
                self.targets.clear()
            self.targets[(v4, fvs)] = target
        return target

    def _request_resolve(self, keys: tuple[NhKey, ...]) -> None:
        for key in keys:
            if key not in self.l3.resolve_requests:
                self.l3.resolve_requests.add(key)
                self.resolve.set(f"{key[1]}:{key[0]}", RESOLVE_FIELDS)

    # -- sending and committing ----------------------------------------------------------------
    def _send(self, chunk: Chunk) -> None:
        self.sai.bulk_send([
            (OpKind.CREATE, T.NEXT_HOP_GROUP, [(g.oid, rp.group_attrs(g.ordered)) for g, _ in chunk.groups]),
            (OpKind.CREATE, T.NEXT_HOP_GROUP_MEMBER, [(oid, attrs) for _, ms in chunk.groups for _, oid, attrs in ms]),
            (OpKind.REMOVE, T.ROUTE_ENTRY, [(p.entry, ()) for p in chunk.removes]),
            (OpKind.CREATE, T.ROUTE_ENTRY, [(p.entry, p.attrs) for p in chunk.creates]),
            (OpKind.SET, T.ROUTE_ENTRY, [(p.entry, (attr,)) for p in chunk.sets for attr in p.attrs]),
        ])
        self.flight.append(chunk)

    def settle(self, chunks: int | None = None) -> None:
        """Read the answers of the oldest ``chunks`` sent (all by default) and commit them."""
        done = self.flight if chunks is None else self.flight[:chunks]
        self.flight = [] if chunks is None else self.flight[chunks:]
        answers = [self.sai.bulk_collect() for _ in done]
        for chunk, codes in zip(done, answers, strict=True):
            self._commit_chunk(chunk, codes)
        if not self.flight:
            self.flight_tasks.clear()
        else:
            for chunk in done:
                for pending in (*chunk.removes, *chunk.creates, *chunk.sets):
                    self.flight_tasks.pop(pending.task.key, None)
        self.groups.collect()
        for prefix, installed in self.defaults.items():
            self.state.set(prefix, {"state": "ok" if installed else "na"})  # routeorch updateDefRouteState
        self.defaults.clear()
        if len(self.routes) - self._frozen >= FREEZE_EVERY:
            # Long-lived route state would make every full cyclic-GC pass walk it (100 ms pauses at
            # 100k routes); it holds no cycles, so it is moved out of the collector's sight.
            gc.freeze()
            self._frozen = len(self.routes)

    def _commit_chunk(self, chunk: Chunk, codes: list[list[str]]) -> None:
        group_codes, member_codes, removed, created, set_codes = codes
        members = iter(member_codes)
        for (group, planned), code in zip(chunk.groups, group_codes, strict=True):
            self.groups.confirm(group, code, [(key, next(members)) for key, _, _ in planned])
        for pending, code in zip(chunk.removes, removed, strict=True):
            self._commit(pending, code)
        for pending, code in zip(chunk.creates, created, strict=True):
            self._commit(pending, code)
        codes_iter = iter(set_codes)
        for pending in chunk.sets:
            failures = [c for c in (next(codes_iter) for _ in pending.attrs) if c != st.SUCCESS]
            self._commit(pending, failures[0] if failures else st.SUCCESS)

    def _commit(self, pending: Pending, code: str) -> None:
        if code != st.SUCCESS:
            if pending.new is not None:
                self._ref(pending.new, -1)
            self.finished[pending.task.key] = (pending.task, Result.failed(f"{code} for route {pending.rkey[1]}"))
            self.settled_keys.append(pending.task.key)
            self.parked.pop(pending.task.key, None)
            return
        old = self.routes.pop(pending.rkey, None)
        if old is not None:
            self._ref(old, -1)
        if pending.new is not None:
            self.routes[pending.rkey] = pending.new
        if pending.default:
            self.defaults[pending.rkey[1]] = not pending.removing
        result = pending.after or Result.success()
        self.finished[pending.task.key] = (pending.task, result)
        self.settled_keys.append(pending.task.key)
        self._park(pending.task, result, pending.version)

    def _ref(self, route: Installed, delta: int) -> None:
        """Count a route's use of what it points at (and of its VRF)."""
        target = route.target
        if target.via is Via.NEXT_HOP:
            nh = self.l3.next_hops.get(target.hops[0].key)
            if nh is not None:
                nh.refs += delta
        elif target.via is Via.RIF:
            intf = self.l3.intfs.get(target.hops[0].alias)
            if intf is not None:
                intf.refs += delta
        elif target.via is Via.GROUP:
            self.groups.ref(target.hops, delta)
        elif target.via is Via.NAMED and target.index in self.l3.named_groups:
            self.l3.named_groups[target.index].refs += delta
        if route.vrf and route.vrf in self.l3.vrfs:
            self.l3.vrfs[route.vrf].refs += delta


def _unchanged(current: Installed, decision: rp.Decision, target: Target) -> bool:
    """The route already points where it should (or, waiting for its group, at a stand-in of it)."""
    if decision.new_group:
        return False
    if current.target == decision.target and current.oid == decision.oid:
        return True
    return (decision.temp and decision.target.via is Via.NEXT_HOP and current.target.via is Via.NEXT_HOP
            and current.target.hops[0].key in {hop.key for hop in target.hops})


def link_local(mac: str) -> str:
    """The EUI-64 IPv6 link-local address the kernel derives from the router MAC (routeorch)."""
    octets = [int(part, 16) for part in mac.split(":")]
    octets[0] ^= 0x02
    eui = octets[:3] + [0xFF, 0xFE] + octets[3:]
    return str(ipaddress.IPv6Address(bytes([0xFE, 0x80] + [0] * 6 + eui)))


ORCH = RouteOrch
PRIORITY = 50
