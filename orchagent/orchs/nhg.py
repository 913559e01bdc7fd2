"""NhgOrch: APPL_DB NEXTHOP_GROUP_TABLE -> next hop groups that routes name with ``nexthop_group``
(swss orchagent/nhgorch.cpp).

* ``NEXTHOP_GROUP_TABLE:<index>`` {nexthop, ifname[, weight]}: one next hop makes no SAI group (the
  group's id is that next hop's, or the RIF's for an interface next hop); several make a
  NEXT_HOP_GROUP (DYNAMIC_UNORDERED_ECMP) with a member per resolved next hop over an up interface
  (WEIGHT when weights are given). Unresolved next hops are requested in NEIGH_RESOLVE_TABLE and the
  task waits: a new group is not created until all of them are resolved (nhgorch drops a group whose
  sync fails); an existing group's new members join as they resolve. A SET with other next hops
  updates the members.
* {nexthop_group: <index>,<index>,...}: a recursive group: one SAI group, even for one path, with a
  member for each next hop of every referenced group that exists; missing ones keep the task pending
  and join when they appear. Depth 1 only: a recursive (or temporary) member group makes the row
  invalid. A group with both kinds of fields is invalid.
* Capacity: when the ASIC's next hop groups (shared with RouteOrch) are used up, a new group is a
  temporary one through a single resolved next hop, promoted on a later retry.
* DEL waits while routes use the group. Members over a down interface are withdrawn and restored on
  ``NextHopChanged``, as RouteOrch's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from nos.daemon.task import Result
from nos.db import ProducerStateTable
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.schema.dbconfig import APPL_DB
from nos.schema.tables import APP_NEIGH_RESOLVE_TABLE_NAME, APP_NEXTHOP_GROUP_TABLE_NAME
from orchagent.core.deps import OrchDeps
from orchagent.core.events import NextHopChanged
from orchagent.core.l3 import InvalidEntry, NamedGroup, NhKey
from orchagent.orchs import route_plan as rp
from orchagent.orchs.route_plan import Hop, Hops

log = logging.getLogger(__name__)

CONSUMES = ((APPL_DB, APP_NEXTHOP_GROUP_TABLE_NAME),)
PRODUCES = ((APPL_DB, APP_NEIGH_RESOLVE_TABLE_NAME),)
RESOLVE_FIELDS = {"mac": "00:00:00:00:00:00"}


@dataclass(frozen=True)
class NhgEntry:
    """A parsed NEXTHOP_GROUP_TABLE row: next hops, or the groups a recursive group is made of."""

    index: str
    hops: Hops = ()
    members: tuple[str, ...] = ()
    weights: tuple[int, ...] = ()

    @property
    def recursive(self) -> bool:
        return bool(self.members)


def parse(key: str, fvs: tuple[tuple[str, str], ...]) -> NhgEntry:
    """Raises InvalidEntry for mixed or malformed fields."""
    fields = dict(fvs)
    for unsupported in ("mpls_nh", "seg_src"):
        if fields.get(unsupported, "") not in ("", "na"):
            raise InvalidEntry(f"{unsupported} groups are not supported")
    ips = [i for i in fields.get("nexthop", "").split(",") if i]
    aliases = [a for a in fields.get("ifname", "").split(",") if a]
    weights = [w for w in fields.get("weight", "").split(",") if w]
    if not all(w.isdecimal() for w in weights):
        raise InvalidEntry(f"weight {fields['weight']!r} is not a list of numbers")
    members = tuple(m for m in fields.get("nexthop_group", "").split(",") if m)
    if members:
        if ips or aliases:
            raise InvalidEntry("a group cannot have both nexthop_group and nexthop/ifname")
        return NhgEntry(key, members=members, weights=tuple(map(int, weights)))
    if not ips or len(ips) != len(aliases):
        raise InvalidEntry("nexthop and ifname must be lists of the same, non-zero length")
    return NhgEntry(key, rp.hops_target(ips, aliases, weights, ":" not in ips[0]).hops)


def recursive_hops(entry: NhgEntry, groups: dict[str, NhgState]) -> tuple[Hops, list[str]]:
    """The next hops of a recursive group's existing members, and the members still missing.

    Raises InvalidEntry when a member is itself recursive or temporary (nesting depth 1 only)."""
    hops: list[Hop] = []
    missing = []
    for index in entry.members:
        member = groups.get(index)
        if member is None:
            missing.append(index)
        elif member.recursive or member.temp:
            raise InvalidEntry(f"member group {index} is recursive or temporary")
        else:
            hops += member.hops
    if len(entry.weights) == len(hops):
        hops = [Hop(h.ip, h.alias, w) for h, w in zip(hops, entry.weights, strict=True)]
    found: dict[NhKey, Hop] = {}
    for hop in hops:
        found.setdefault(hop.key, hop)
    return tuple(sorted(found.values(), key=rp.hop_order)), missing


@dataclass
class NhgState:
    """What NhgOrch programmed for one index."""

    index: str
    hops: Hops
    recursive: bool
    oid: str = ""
    sai_group: bool = False
    temp: bool = False
    members: dict[NhKey, str] = field(default_factory=dict)


class NhgOrch:
    """NEXTHOP_GROUP_TABLE -> NEXT_HOP_GROUP (+ members); groups land in ``deps.l3.named_groups``."""

    CONSUMES = CONSUMES
    PRODUCES = PRODUCES

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.l3 = deps.l3
        self.sai = deps.sai
        self.groups: dict[str, NhgState] = {}
        self.resolve = ProducerStateTable(deps.dbs[APPL_DB], APP_NEIGH_RESOLVE_TABLE_NAME)
        deps.bus.subscribe(NextHopChanged, self.on_next_hop)

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            return self._remove(task.key)
        try:
            entry = parse(task.key, task.fvs)
            hops, missing = recursive_hops(entry, self.groups) if entry.recursive else (entry.hops, [])
        except InvalidEntry as exc:
            return Result.invalid(str(exc))
        if not hops:
            return Result.retry(f"member groups {', '.join(missing)} do not exist yet")
        current = self.groups.get(entry.index)
        if current is not None and not self._reusable(current, hops, entry.recursive):
            if self.l3.named_groups[entry.index].refs and not current.temp:
                return Result.retry(f"group {entry.index} would change its id while routes use it")
            problem = self._release(current)
            if problem:
                return Result.failed(problem)
            current = None
        if current is None:
            current = NhgState(entry.index, hops, entry.recursive)
            problem = self._create(current)
        else:
            problem = self._update(current, hops)
        if problem:
            return Result.retry(problem) if problem.startswith("waiting") else Result.failed(problem)
        if missing:
            return Result.retry(f"member groups {', '.join(missing)} do not exist yet")
        return Result.retry("temporary group until the ASIC has room") if current.temp else Result.success()

    @staticmethod
    def _reusable(state: NhgState, hops: Hops, recursive: bool) -> bool:
        """Whether an update keeps the group's id (a SAI group staying one)."""
        return state.sai_group and not state.temp and recursive == state.recursive and (recursive or len(hops) > 1)

    # -- creating / updating -------------------------------------------------------------------
    def _create(self, state: NhgState) -> str:
        """Program a new group; "" when done, "waiting ..." to retry, else the failure."""
        if not state.recursive and len(state.hops) == 1:
            return self._single(state, state.hops[0])
        unresolved = [h for h in state.hops if h.key not in self.l3.next_hops]
        if unresolved and not state.recursive:
            # nhgorch's sync() fails when a member's next hop does not exist and drops the new group
            # again: no SAI group until every next hop is resolved
            self._request_resolve(unresolved)
            return f"waiting for next hops {', '.join(f'{h.ip}@{h.alias}' for h in unresolved)}"
        if self.l3.nhg_count() >= self.deps.switch.ecmp_groups:
            usable = [h for h in state.hops if h.key in self.l3.next_hops]
            if not usable:
                self._request_resolve(state.hops)
                return "waiting: no free next hop group and no resolved next hop"
            state.temp = True
            return self._single(state, usable[0])
        oid = self.sai.alloc(T.NEXT_HOP_GROUP)
        result = self.sai.apply([SaiOp.create(T.NEXT_HOP_GROUP, oid, *rp.group_attrs(False))])
        if not result.ok:
            return f"{result.status} {result.reason}"
        state.oid, state.sai_group = oid, True
        self.l3.named_sai_groups += 1
        self._publish(state)
        return self._sync_members(state)

    def _single(self, state: NhgState, hop: Hop) -> str:
        if hop.is_intf:
            intf = self.l3.intfs.get(hop.alias)
            if intf is None or not intf.oid:
                return f"waiting for a RIF on {hop.alias}"
            state.oid = intf.oid
            intf.refs += 1
        else:
            nh = self.l3.next_hops.get(hop.key)
            if nh is None:
                self._request_resolve((hop,))
                return f"waiting for next hop {hop.ip}@{hop.alias}"
            state.oid = nh.oid
            nh.refs += 1
        state.members = {hop.key: ""}
        self._publish(state)
        return ""

    def _update(self, state: NhgState, hops: Hops) -> str:
        wanted = {h.key: h for h in hops}
        ops = [SaiOp.remove(T.NEXT_HOP_GROUP_MEMBER, oid) for key, oid in state.members.items() if key not in wanted]
        old = {h.key: h for h in state.hops}
        ops += [SaiOp.set(T.NEXT_HOP_GROUP_MEMBER, state.members[k], rp.MA + "WEIGHT", str(h.weight))
                for k, h in wanted.items() if k in state.members and h.weight and h.weight != old[k].weight]
        result = self.sai.apply(ops)
        if not result.ok:
            return f"{result.status} {result.reason}"
        for key in [k for k in state.members if k not in wanted]:
            del state.members[key]
            self.l3.next_hops[key].refs -= 1
        state.hops = hops
        return self._sync_members(state)

    def _sync_members(self, state: NhgState) -> str:
        """Add a member for every resolved, up next hop that has none (nhgorch syncMembers)."""
        unresolved = [h for h in state.hops if h.key not in self.l3.next_hops]
        todo = [(h, self.l3.next_hops[h.key]) for h in state.hops
                if h.key in self.l3.next_hops and h.key not in state.members and self.l3.next_hops[h.key].up]
        ops = []
        for hop, nh in todo:
            ops.append(SaiOp.create(T.NEXT_HOP_GROUP_MEMBER, self.sai.alloc(T.NEXT_HOP_GROUP_MEMBER),
                                    *rp.member_attrs(state.oid, nh.oid, hop.weight)))
        result = self.sai.apply(ops)
        if not result.ok:
            return f"{result.status} {result.reason}"
        for (hop, nh), op in zip(todo, ops, strict=True):
            state.members[hop.key] = op.object_id
            nh.refs += 1
        if unresolved:
            self._request_resolve(unresolved)
            return f"waiting for next hops {', '.join(f'{h.ip}@{h.alias}' for h in unresolved)}"
        return ""

    def _publish(self, state: NhgState) -> None:
        self.groups[state.index] = state
        self.l3.changed()
        named = self.l3.named_groups.get(state.index)
        refs = named.refs if named else 0
        self.l3.named_groups[state.index] = NamedGroup(state.index, state.oid, state.recursive, state.temp, refs)

    def _request_resolve(self, hops: list[Hop] | Hops) -> None:
        for hop in hops:
            if not hop.is_intf and hop.key not in self.l3.resolve_requests:
                self.l3.resolve_requests.add(hop.key)
                self.resolve.set(f"{hop.alias}:{hop.ip}", RESOLVE_FIELDS)

    # -- removing ------------------------------------------------------------------------------
    def _remove(self, index: str) -> Result:
        state = self.groups.get(index)
        if state is None:
            return Result.ignored(f"no group {index}")
        if self.l3.named_groups[index].refs:
            return Result.retry(f"group {index} is used by {self.l3.named_groups[index].refs} route(s)")
        problem = self._release(state)
        if problem:
            return Result.failed(problem)
        del self.groups[index]
        del self.l3.named_groups[index]
        self.l3.changed()
        return Result.success()

    def _release(self, state: NhgState) -> str:
        """Remove what a group holds in the ASIC; returns the failure or ""."""
        if not state.sai_group:
            for key in state.members:
                target = self.l3.next_hops.get(key)
                if target is not None and key[0] not in rp.ZERO_IPS:
                    target.refs -= 1
                elif key[1] in self.l3.intfs:
                    self.l3.intfs[key[1]].refs -= 1
            return ""
        ops = [SaiOp.remove(T.NEXT_HOP_GROUP_MEMBER, oid) for oid in state.members.values()]
        result = self.sai.apply([*ops, SaiOp.remove(T.NEXT_HOP_GROUP, state.oid)])
        if not result.ok:
            return f"{result.status} {result.reason}"
        for key in state.members:
            self.l3.next_hops[key].refs -= 1
        self.l3.named_sai_groups -= 1
        self.l3.changed()  # a next hop group is free again
        return ""

    # -- events --------------------------------------------------------------------------------
    def on_next_hop(self, event: NextHopChanged) -> None:
        """Withdraw or restore members over an interface that went down or up (nhgorch (in)validateNextHop)."""
        key = (event.ip, event.ifname)
        for state in self.groups.values():
            if not state.sai_group or key not in {h.key for h in state.hops}:
                continue
            if event.oid:
                self._sync_members(state)
            elif key in state.members:
                if self.sai.apply([SaiOp.remove(T.NEXT_HOP_GROUP_MEMBER, state.members[key])]).ok:
                    del state.members[key]
                    self.l3.next_hops[key].refs -= 1


ORCH = NhgOrch
PRIORITY = 40
