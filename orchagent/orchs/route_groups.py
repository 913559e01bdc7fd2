"""The ECMP groups of RouteOrch: one NEXT_HOP_GROUP per distinct next-hop set, shared by every
route over that set (routeorch.cpp addNextHopGroup / removeNextHopGroup / (in)validnexthopinNextHopGroup).

A group is DYNAMIC_UNORDERED_ECMP, or DYNAMIC_ORDERED_ECMP with SEQUENCE_ID 1..n in next-hop order
(SONiC's sorted ``NextHopGroupKey``) when ordered ECMP is on; members carry WEIGHT only when weights
were given. Members are made only for next hops whose interface is up; ``on_next_hop`` withdraws and
restores them as interfaces go down and up. Groups count against the ASIC's capacity (shared with
NhgOrch) and are removed once no route uses them.

Fallback to the default route (ROUTE_TABLE ``fallback_to_default_route`` true on the route that made
the group): when the last member of such a group is withdrawn, the group gets a member (GROUP_ID and
NEXT_HOP_ID only) for each active next hop of the default route of that family, and stays so
("swapped": its own next hops coming back do not change it, nor do later link events) until the group
is removed (routeorch addDefaultRouteNexthopsInNextHopGroup / is_default_route_nh_swap).

Accounting is optimistic: a group (and its members) is entered when it is planned, so that routes
planned after it share it and other orchs see its next hops in use; ``settle`` corrects it with the
ASIC's answers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from nos.sai import status as st
from nos.sai.ops import OpKind, SaiOp
from nos.sai.types import ObjectType as T
from orchagent.core.deps import OrchDeps
from orchagent.core.events import NextHopChanged
from orchagent.core.l3 import NhKey
from orchagent.orchs import route_plan as rp
from orchagent.orchs.route_plan import Hops

log = logging.getLogger(__name__)

Member = tuple[NhKey, str, rp.Attrs]  # next hop, member id, create attributes


@dataclass
class RouteGroup:
    """A next hop group owned by RouteOrch."""

    hops: Hops
    oid: str
    ordered: bool
    members: dict[NhKey, str] = field(default_factory=dict)  # next hop -> member id
    refs: int = 0
    fallback: bool = False  # eligible for the default route's next hops when all members are down
    swapped: dict[NhKey, str] = field(default_factory=dict)  # default route next hop -> member id


class RouteGroups:
    """RouteOrch's groups by next-hop set."""

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.l3 = deps.l3
        self.sai = deps.sai
        self.groups: dict[Hops, RouteGroup] = {}
        self.by_nh: dict[NhKey, set[Hops]] = {}
        self.idle: set[Hops] = set()
        # the default route's active next hops by family (True = IPv4); set by RouteOrch
        self.default_next_hops: Callable[[bool], list[NhKey]] = lambda v4: []

    def oid(self, hops: Hops) -> str:
        found = self.groups.get(hops)
        return found.oid if found else ""

    def can_add(self) -> bool:
        return self.l3.nhg_count() < self.deps.switch.ecmp_groups

    def ref(self, hops: Hops, delta: int) -> None:
        group = self.groups.get(hops)
        if group is not None:
            group.refs += delta
            if not group.refs:
                self.idle.add(hops)

    # -- creating ------------------------------------------------------------------------------
    def plan(self, hops: Hops, fallback: bool = False) -> tuple[RouteGroup, list[Member]]:
        """A new group for ``hops`` and its members, entered now (to be created before its routes)."""
        group = RouteGroup(hops, self.sai.alloc(T.NEXT_HOP_GROUP), self.deps.switch.ordered_ecmp, fallback=fallback)
        members = self.missing_members(group)
        group.members = {key: oid for key, oid, _ in members}
        self.groups[hops] = group
        self.idle.add(hops)
        self.l3.route_groups += 1
        for hop in hops:
            self.by_nh.setdefault(hop.key, set()).add(hops)
            self.l3.next_hops[hop.key].refs += 1
        return group, members

    def missing_members(self, group: RouteGroup) -> list[Member]:
        """Members for the group's usable next hops that have none yet."""
        out = []
        for sequence, hop in enumerate(group.hops, 1):
            nh = self.l3.next_hops.get(hop.key)
            if nh is not None and nh.up and hop.key not in group.members:
                out.append((hop.key, self.sai.alloc(T.NEXT_HOP_GROUP_MEMBER),
                            rp.member_attrs(group.oid, nh.oid, hop.weight, sequence if group.ordered else 0)))
        return out

    def confirm(self, group: RouteGroup, code: str, members: list[tuple[NhKey, str]]) -> None:
        """The ASIC's answers for a planned group and its members: undo what failed."""
        for key, member_code in members:
            if member_code != st.SUCCESS:
                group.members.pop(key, None)
        if code == st.SUCCESS:
            log.info("orch.route.group_created nhg=%s next_hops=%s", group.oid,
                     ",".join(f"{h.ip}@{h.alias}" for h in group.hops))
        else:
            self._forget(group)

    def _forget(self, group: RouteGroup) -> None:
        if self.groups.get(group.hops) is not group:
            return
        del self.groups[group.hops]
        self.l3.route_groups -= 1
        self.l3.changed()  # room for a waiting route's group
        for hop in group.hops:
            self.by_nh[hop.key].discard(group.hops)
            if hop.key in self.l3.next_hops:
                self.l3.next_hops[hop.key].refs -= 1
        for key in group.swapped:
            if key in self.l3.next_hops:
                self.l3.next_hops[key].refs -= 1

    # -- removing ------------------------------------------------------------------------------
    def collect(self) -> None:
        """Remove the groups no route uses any more (members first, then the groups)."""
        idle = [self.groups[h] for h in self.idle if h in self.groups and not self.groups[h].refs]
        self.idle.clear()
        if not idle:
            return
        _, group_codes = self.sai.bulk_many([
            (OpKind.REMOVE, T.NEXT_HOP_GROUP_MEMBER,
             [(oid, ()) for g in idle for oid in (*g.members.values(), *g.swapped.values())]),
            (OpKind.REMOVE, T.NEXT_HOP_GROUP, [(g.oid, ()) for g in idle]),
        ])
        for group, code in zip(idle, group_codes, strict=True):
            if code == st.SUCCESS:
                self._forget(group)
            else:
                log.error("orch.route.group_remove_failed nhg=%s status=%s", group.oid, code)

    # -- interface up / down -------------------------------------------------------------------
    def on_next_hop(self, event: NextHopChanged) -> None:
        """A next hop became (un)usable: withdraw or restore its members."""
        key = (event.ip, event.ifname)
        ops: list[SaiOp] = []
        changes: list[tuple[RouteGroup, str]] = []
        groups = (self.groups[h] for h in sorted(self.by_nh.get(key, ()), key=lambda h: self.groups[h].oid))
        for group in (g for g in groups if not g.swapped):  # a swapped group keeps the default's next hops
            if not event.oid and key in group.members:
                ops.append(SaiOp.remove(T.NEXT_HOP_GROUP_MEMBER, group.members[key]))
                changes.append((group, ""))
            elif event.oid:
                for nh_key, oid, attrs in self.missing_members(group):
                    if nh_key == key:
                        ops.append(SaiOp.create(T.NEXT_HOP_GROUP_MEMBER, oid, *attrs))
                        changes.append((group, oid))
        result = self.sai.apply(ops)
        if not result.ok:
            log.error("orch.route.member_update_failed ip=%s intf=%s status=%s", event.ip, event.ifname, result.status)
            return
        for group, oid in changes:
            if oid:
                group.members[key] = oid
            else:
                del group.members[key]
                if not group.members and group.fallback:
                    self._swap_to_default(group, ":" not in event.ip)

    def _swap_to_default(self, group: RouteGroup, v4: bool) -> None:
        """The group's last member went: give it the default route's next hops instead."""
        todo = [(key, self.l3.next_hops[key]) for key in self.default_next_hops(v4) if key in self.l3.next_hops]
        ops = [SaiOp.create(T.NEXT_HOP_GROUP_MEMBER, self.sai.alloc(T.NEXT_HOP_GROUP_MEMBER),
                            *rp.member_attrs(group.oid, nh.oid)) for _, nh in todo]
        if not ops:
            return
        result = self.sai.apply(ops)
        if not result.ok:
            log.error("orch.route.fallback_failed nhg=%s status=%s", group.oid, result.status)
            return
        for (key, nh), op in zip(todo, ops, strict=True):
            group.swapped[key] = op.object_id
            nh.refs += 1
        log.info("orch.route.fallback_to_default nhg=%s next_hops=%s", group.oid,
                 ",".join(f"{ip}@{alias}" for ip, alias in group.swapped))
