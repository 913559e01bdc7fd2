"""Behaviour of the simulated ASIC beyond generic validation: the switch's built-in objects, the
sub-objects a port comes with, speed and lane checks, read-only attributes, and link state.

Model: a port's link (oper status) is up exactly when it is admin up and its carrier is up
(``syncd_sim.links``: a port without a lab's carrier row has a live link partner). Queues:
``queues_per_port`` unicast queues; a scheduler tree of one root group with one leaf group per queue
(the queue's parent).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from nos.sai import status as st
from nos.sai.types import ObjectType as T
from nos.sai.values import parse_list, sai_list
from syncd_sim import buffers
from syncd_sim.links import DOWN, UP, Carriers, oper_status, port_name
from syncd_sim.objects import Hooks, ObjectStore, Outcome, SaiObject, fail
from syncd_sim.platform import Platform

__all__ = ["DOWN", "OWNED", "UP", "AsicBehaviour", "Defaults", "Inherited"]

FEC_MODES = ("SAI_PORT_FEC_MODE_NONE", "SAI_PORT_FEC_MODE_RS", "SAI_PORT_FEC_MODE_FC")


@dataclass
class Defaults:
    """Ids of the switch's built-in objects."""

    switch: str = ""
    cpu_port: str = ""
    default_vr: str = ""
    default_vlan: str = ""
    default_bridge: str = ""


# A port's sub-objects: the attribute naming their port, and the attributes the ASIC itself sets on them.
OWNED: dict[T, tuple[str, frozenset[str]]] = {
    T.QUEUE: ("SAI_QUEUE_ATTR_PORT", frozenset({"SAI_QUEUE_ATTR_TYPE", "SAI_QUEUE_ATTR_INDEX", "SAI_QUEUE_ATTR_PORT",
                                                "SAI_QUEUE_ATTR_PARENT_SCHEDULER_NODE"})),
    T.INGRESS_PRIORITY_GROUP: ("SAI_INGRESS_PRIORITY_GROUP_ATTR_PORT", frozenset({
        "SAI_INGRESS_PRIORITY_GROUP_ATTR_PORT", "SAI_INGRESS_PRIORITY_GROUP_ATTR_INDEX"})),
    T.SCHEDULER_GROUP: ("SAI_SCHEDULER_GROUP_ATTR_PORT_ID", frozenset({
        "SAI_SCHEDULER_GROUP_ATTR_PORT_ID", "SAI_SCHEDULER_GROUP_ATTR_LEVEL", "SAI_SCHEDULER_GROUP_ATTR_MAX_CHILDS",
        "SAI_SCHEDULER_GROUP_ATTR_PARENT_NODE"})),
}
LANES = "SAI_PORT_ATTR_HW_LANE_LIST"


@dataclass
class Inherited:
    """What a temporary view (INIT_VIEW on a running ASIC) takes over from the current one: the built-in
    objects as they are, and each port's queues, priority groups and scheduler groups (as the ASIC made
    them, without what clients set on them), given to the new view's port on the same lanes."""

    defaults: Defaults
    builtins: list[SaiObject]
    children: dict[str, tuple[str, list[SaiObject]]]  # lanes -> (the port's id, its sub-objects)

    @classmethod
    def of(cls, store: ObjectStore, defaults: Defaults) -> Inherited:
        builtins = [SaiObject(o.object_type, o.object_id, dict(o.attrs), builtin=True)
                    for o in store.objects.values() if o.builtin and o.object_type is not T.SWITCH]
        children = {}
        for port in store.of_type(T.PORT).values():
            if not port.builtin and LANES in port.attrs:
                children[port.attrs[LANES]] = (port.object_id, store.owned_by(port.object_id))
        return cls(defaults, builtins, children)

    def take_children(self, port: SaiObject) -> list[SaiObject] | None:
        """The sub-objects of the current port on ``port``'s lanes, now ``port``'s (once per lanes)."""
        found = self.children.pop(port.attrs.get(LANES, ""), None)
        if found is None:
            return None
        old, subs = found
        out = []
        for sub in subs:
            internal = OWNED[sub.object_type][1] if sub.object_type in OWNED else frozenset(sub.attrs)
            attrs = {k: (port.object_id if v == old else v) for k, v in sub.attrs.items() if k in internal}
            out.append(SaiObject(sub.object_type, sub.object_id, attrs, owner=port.object_id))
        return out


@dataclass
class AsicBehaviour(Hooks):
    platform: Platform
    defaults: Defaults = field(default_factory=Defaults)
    oper: dict[str, str] = field(default_factory=dict)          # port oid -> oper status
    oper_changes: list[tuple[str, str]] = field(default_factory=list)  # (port oid, status) to notify
    carriers: Carriers = field(default_factory=Carriers)       # the lab's carrier rows (shared by views)
    names: dict[str, str] = field(default_factory=dict)         # port oid -> netdev name (its host interface)
    inherited: Inherited | None = None  # set in a temporary view: the ASIC's own objects keep their ids

    # -- create ----------------------------------------------------------------------------------
    def check_create(self, store: ObjectStore, obj: SaiObject) -> Outcome | None:
        if obj.object_type is T.SWITCH and obj.attrs.get("SAI_SWITCH_ATTR_INIT_SWITCH") != "true":
            return fail(st.INVALID_PARAMETER, "SAI_SWITCH_ATTR_INIT_SWITCH must be true")
        if obj.object_type is T.PORT:
            return self._check_port(store, obj, obj.attrs["SAI_PORT_ATTR_SPEED"])
        if obj.object_type is T.BUFFER_PROFILE:
            problem = buffers.profile_create_problem(obj.attrs) or _profile_pool_problem(store, obj.attrs)
            return fail(st.INVALID_ATTR_VALUE, problem) if problem else None
        if obj.object_type is T.BUFFER_POOL:
            problem = buffers.pool_problem(obj.attrs, self.platform.mmu_size_bytes)
            return fail(st.INVALID_ATTR_VALUE, problem) if problem else None
        return None

    def _check_port(self, store: ObjectStore, obj: SaiObject, speed: str) -> Outcome | None:
        lanes = parse_list(obj.attrs["SAI_PORT_ATTR_HW_LANE_LIST"])
        if not lanes:
            return fail(st.INVALID_ATTR_VALUE, "SAI_PORT_ATTR_HW_LANE_LIST is empty")
        for other in store.of_type(T.PORT).values():
            if other.object_id == obj.object_id or "SAI_PORT_ATTR_HW_LANE_LIST" not in other.attrs:
                continue
            shared = set(lanes) & set(parse_list(other.attrs["SAI_PORT_ATTR_HW_LANE_LIST"]))
            if shared:
                used = ",".join(sorted(shared))
                return fail(st.INVALID_PARAMETER, f"lanes {used} are used by port {other.object_id}")
        if int(speed) not in self.platform.supported_speeds(len(lanes)):
            supported = ",".join(map(str, self.platform.supported_speeds(len(lanes))))
            return fail(st.INVALID_ATTR_VALUE, f"speed {speed} is not supported on {len(lanes)} lane(s): {supported}")
        return None

    def after_create(self, store: ObjectStore, obj: SaiObject) -> list[SaiObject]:
        if obj.object_type is T.SWITCH:
            return self._switch_builtins(store, obj)
        if obj.object_type is T.PORT:
            self.name_by_lanes(obj)
            self._set_oper(obj.object_id, obj.attrs.get("SAI_PORT_ATTR_ADMIN_STATE") == "true", initial=True)
            inherited = self.inherited.take_children(obj) if self.inherited is not None else None
            return inherited if inherited is not None else self._port_children(store, obj.object_id)
        if obj.object_type is T.HOSTIF:
            self._name_port(store, obj)
        return []

    def _name_port(self, store: ObjectStore, hostif: SaiObject) -> None:
        """A NETDEV host interface names its port: the carrier row of that name now applies to it."""
        found = port_name(hostif.attrs)
        port = store.find(T.PORT, found[0]) if found is not None else None
        if found is None or port is None or port.builtin:
            return
        self.names[port.object_id] = found[1]
        self._set_oper(port.object_id, _admin_up(port))

    def name_by_lanes(self, port: SaiObject) -> None:
        """Until its host interface names it, a port is known by the name the SKU gives its first lane."""
        lanes = [int(x) for x in parse_list(port.attrs.get(LANES, "")) if x.isdigit()]
        name = self.platform.lane_names.get(min(lanes)) if lanes else None
        if name is not None:
            self.names.setdefault(port.object_id, name)

    def carrier_changed(self, store: ObjectStore, name: str) -> bool:
        """The carrier of ``name`` changed (``carriers`` already says so): recompute the oper status of the
        port so named, if there is one (else the row waits for it); returns whether an oper status changed."""
        before = len(self.oper_changes)
        for oid in [oid for oid, named in self.names.items() if named == name]:
            port = store.find(T.PORT, oid)
            if port is not None:
                self._set_oper(oid, _admin_up(port))
        return len(self.oper_changes) > before

    def link_status(self, port: SaiObject) -> str:
        """The oper status ``port`` has now (admin state and its carrier)."""
        return oper_status(_admin_up(port), self.carriers.up(self.names.get(port.object_id)))

    def _switch_builtins(self, store: ObjectStore, switch: SaiObject) -> list[SaiObject]:
        if self.inherited is not None:
            self.defaults = replace(self.inherited.defaults, switch=switch.object_id)
            return [SaiObject(o.object_type, o.object_id, dict(o.attrs), builtin=True)
                    for o in self.inherited.builtins]
        cpu, vr, vlan, bridge = (store.alloc(t, 1)[0] for t in (T.PORT, T.VIRTUAL_ROUTER, T.VLAN, T.BRIDGE))
        self.defaults = Defaults(switch.object_id, cpu, vr, vlan, bridge)
        return [
            SaiObject(T.PORT, cpu, {}, builtin=True),
            SaiObject(T.VIRTUAL_ROUTER, vr, {}, builtin=True),
            SaiObject(T.VLAN, vlan, {"SAI_VLAN_ATTR_VLAN_ID": "1"}, builtin=True),
            SaiObject(T.BRIDGE, bridge, {"SAI_BRIDGE_ATTR_TYPE": "SAI_BRIDGE_TYPE_1Q"}, builtin=True),
        ]

    def _port_children(self, store: ObjectStore, port: str) -> list[SaiObject]:
        n_q, n_pg = self.platform.queues_per_port, self.platform.priority_groups_per_port
        queues = store.alloc(T.QUEUE, n_q)
        pgs = store.alloc(T.INGRESS_PRIORITY_GROUP, n_pg)
        root, *leaves = store.alloc(T.SCHEDULER_GROUP, n_q + 1)
        out = [SaiObject(T.SCHEDULER_GROUP, root, {
            "SAI_SCHEDULER_GROUP_ATTR_PORT_ID": port, "SAI_SCHEDULER_GROUP_ATTR_LEVEL": "0",
            "SAI_SCHEDULER_GROUP_ATTR_MAX_CHILDS": str(n_q), "SAI_SCHEDULER_GROUP_ATTR_PARENT_NODE": port,
        }, owner=port)]
        for i, (queue, leaf) in enumerate(zip(queues, leaves, strict=True)):
            out.append(SaiObject(T.SCHEDULER_GROUP, leaf, {
                "SAI_SCHEDULER_GROUP_ATTR_PORT_ID": port, "SAI_SCHEDULER_GROUP_ATTR_LEVEL": "1",
                "SAI_SCHEDULER_GROUP_ATTR_MAX_CHILDS": "1", "SAI_SCHEDULER_GROUP_ATTR_PARENT_NODE": root,
            }, owner=port))
            out.append(SaiObject(T.QUEUE, queue, {
                "SAI_QUEUE_ATTR_TYPE": "SAI_QUEUE_TYPE_UNICAST", "SAI_QUEUE_ATTR_INDEX": str(i),
                "SAI_QUEUE_ATTR_PORT": port, "SAI_QUEUE_ATTR_PARENT_SCHEDULER_NODE": leaf,
            }, owner=port))
        for i, pg in enumerate(pgs):
            out.append(SaiObject(T.INGRESS_PRIORITY_GROUP, pg, {
                "SAI_INGRESS_PRIORITY_GROUP_ATTR_PORT": port, "SAI_INGRESS_PRIORITY_GROUP_ATTR_INDEX": str(i),
            }, owner=port))
        return out

    # -- set -------------------------------------------------------------------------------------
    def check_set(self, store: ObjectStore, obj: SaiObject, attr: str, value: str) -> Outcome | None:
        if obj.object_type is T.PORT and attr == "SAI_PORT_ATTR_SPEED" and not obj.builtin:
            return self._check_port(store, obj, value)
        if obj.object_type is T.BUFFER_PROFILE:
            problem = _profile_pool_problem(store, {**obj.attrs, attr: value})
            return fail(st.INVALID_ATTR_VALUE, problem) if problem else None
        return None

    def after_set(self, store: ObjectStore, obj: SaiObject, attr: str, value: str) -> None:
        if obj.object_type is T.PORT and attr == "SAI_PORT_ATTR_ADMIN_STATE":
            self._set_oper(obj.object_id, value == "true")

    def _set_oper(self, port: str, admin_up: bool, initial: bool = False) -> None:
        new = oper_status(admin_up, self.carriers.up(self.names.get(port)))
        old = self.oper.get(port)
        self.oper[port] = new
        if new != old and not (initial and new == DOWN):
            self.oper_changes.append((port, new))

    def forget_port(self, port: str) -> None:
        self.oper.pop(port, None)
        self.names.pop(port, None)

    # -- read-only attributes --------------------------------------------------------------------
    def read_only(self, store: ObjectStore, obj: SaiObject, attr: str) -> str | None:
        getter = _READ_ONLY.get(attr)
        return getter(self, store, obj) if getter else None


def _admin_up(port: SaiObject) -> bool:
    return port.attrs.get("SAI_PORT_ATTR_ADMIN_STATE") == "true"


def _profile_pool_problem(store: ObjectStore, attrs: dict[str, str]) -> str | None:
    pool = store.find(T.BUFFER_POOL, attrs.get("SAI_BUFFER_PROFILE_ATTR_POOL_ID", ""))
    return buffers.profile_pool_problem(attrs, pool.attrs) if pool is not None else None


def _children(store: ObjectStore, owner: str, kind: T) -> list[str]:
    return [o.object_id for o in store.owned_by(owner) if o.object_type is kind]


def _queues(store: ObjectStore, port: str) -> list[str]:
    found = [o for o in store.owned_by(port) if o.object_type is T.QUEUE]
    return [o.object_id for o in sorted(found, key=lambda o: int(o.attrs["SAI_QUEUE_ATTR_INDEX"]))]


def _pgs(store: ObjectStore, port: str) -> list[str]:
    found = [o for o in store.owned_by(port) if o.object_type is T.INGRESS_PRIORITY_GROUP]
    return [o.object_id for o in sorted(found, key=lambda o: int(o.attrs["SAI_INGRESS_PRIORITY_GROUP_ATTR_INDEX"]))]


def _sched_children(store: ObjectStore, group: SaiObject) -> list[str]:
    """Scheduler groups, then queues, whose parent is ``group``. A port's hierarchy is created with the
    port (owned by it), so only the port's objects are looked at, not every port's (orchagent reads the
    child list of every group at start: 128 ports x 10 groups x 4,000 objects was a second of syncd)."""
    port = group.attrs.get("SAI_SCHEDULER_GROUP_ATTR_PORT_ID", "")
    candidates = store.owned_by(port) if port and group.owner == port else [
        o for kind in (T.SCHEDULER_GROUP, T.QUEUE) for o in store.of_type(kind).values()]
    return [o.object_id for kind in (T.SCHEDULER_GROUP, T.QUEUE) for o in candidates if o.object_type is kind
            and o.attrs.get("SAI_SCHEDULER_GROUP_ATTR_PARENT_NODE", o.attrs.get("SAI_QUEUE_ATTR_PARENT_SCHEDULER_NODE"))
            == group.object_id]


def _lanes(obj: SaiObject) -> int:
    return len(parse_list(obj.attrs.get("SAI_PORT_ATTR_HW_LANE_LIST", "0:null")))


def _members(store: ObjectStore, kind: T, attr: str, owner: str) -> str:
    return sai_list(o.object_id for o in store.of_type(kind).values() if o.attrs.get(attr) == owner)


ReadOnly = Callable[[AsicBehaviour, ObjectStore, SaiObject], str]
_READ_ONLY: dict[str, ReadOnly] = {
    "SAI_SWITCH_ATTR_CPU_PORT": lambda b, s, o: b.defaults.cpu_port,
    "SAI_SWITCH_ATTR_DEFAULT_VIRTUAL_ROUTER_ID": lambda b, s, o: b.defaults.default_vr,
    "SAI_SWITCH_ATTR_DEFAULT_VLAN_ID": lambda b, s, o: b.defaults.default_vlan,
    "SAI_SWITCH_ATTR_DEFAULT_1Q_BRIDGE_ID": lambda b, s, o: b.defaults.default_bridge,
    "SAI_SWITCH_ATTR_PORT_NUMBER": lambda b, s, o: str(len(_front_ports(b, s))),
    "SAI_SWITCH_ATTR_PORT_LIST": lambda b, s, o: sai_list(_front_ports(b, s)),
    "SAI_SWITCH_ATTR_NUMBER_OF_ECMP_GROUPS": lambda b, s, o: str(b.platform.ecmp_groups),
    "SAI_SWITCH_ATTR_TOTAL_BUFFER_SIZE": lambda b, s, o: str(b.platform.mmu_size_bytes // 1024),
    "SAI_SWITCH_ATTR_MAX_NUMBER_OF_FORWARDING_CLASSES": lambda b, s, o: str(b.platform.max_forwarding_classes),
    "SAI_SWITCH_ATTR_NUMBER_OF_QUEUES": lambda b, s, o: str(b.platform.queues_per_port),
    "SAI_PORT_ATTR_OPER_STATUS": lambda b, s, o: b.oper.get(o.object_id, DOWN),
    "SAI_PORT_ATTR_TYPE": lambda b, s, o: "SAI_PORT_TYPE_CPU" if o.builtin else "SAI_PORT_TYPE_LOGICAL",
    "SAI_PORT_ATTR_SUPPORTED_SPEED": lambda b, s, o: sai_list(b.platform.supported_speeds(_lanes(o))),
    "SAI_PORT_ATTR_SUPPORTED_FEC_MODE": lambda b, s, o: sai_list(FEC_MODES),
    "SAI_PORT_ATTR_QOS_NUMBER_OF_QUEUES": lambda b, s, o: str(len(_queues(s, o.object_id))),
    "SAI_PORT_ATTR_QOS_QUEUE_LIST": lambda b, s, o: sai_list(_queues(s, o.object_id)),
    "SAI_PORT_ATTR_NUMBER_OF_INGRESS_PRIORITY_GROUPS": lambda b, s, o: str(len(_pgs(s, o.object_id))),
    "SAI_PORT_ATTR_INGRESS_PRIORITY_GROUP_LIST": lambda b, s, o: sai_list(_pgs(s, o.object_id)),
    "SAI_PORT_ATTR_QOS_NUMBER_OF_SCHEDULER_GROUPS":
        lambda b, s, o: str(len(_children(s, o.object_id, T.SCHEDULER_GROUP))),
    "SAI_PORT_ATTR_QOS_SCHEDULER_GROUP_LIST": lambda b, s, o: sai_list(_children(s, o.object_id, T.SCHEDULER_GROUP)),
    "SAI_PORT_ATTR_QOS_MAXIMUM_HEADROOM_SIZE": lambda b, s, o: str(b.platform.max_headroom_size),
    "SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST": lambda b, s, o: sai_list(_sched_children(s, o)),
    "SAI_SCHEDULER_GROUP_ATTR_CHILD_COUNT": lambda b, s, o: str(len(_sched_children(s, o))),
    "SAI_LAG_ATTR_PORT_LIST": lambda b, s, o: sai_list(
        m.attrs["SAI_LAG_MEMBER_ATTR_PORT_ID"] for m in s.of_type(T.LAG_MEMBER).values()
        if m.attrs.get("SAI_LAG_MEMBER_ATTR_LAG_ID") == o.object_id),
    "SAI_VLAN_ATTR_MEMBER_LIST":
        lambda b, s, o: _members(s, T.VLAN_MEMBER, "SAI_VLAN_MEMBER_ATTR_VLAN_ID", o.object_id),
    "SAI_NEXT_HOP_GROUP_ATTR_NEXT_HOP_MEMBER_LIST": lambda b, s, o: _members(
        s, T.NEXT_HOP_GROUP_MEMBER, "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID", o.object_id),
    "SAI_QUEUE_ATTR_PAUSE_STATUS": lambda b, s, o: "false",
    "SAI_BUFFER_POOL_ATTR_SHARED_SIZE": lambda b, s, o: o.attrs.get("SAI_BUFFER_POOL_ATTR_SIZE", "0"),
}


def _front_ports(behaviour: AsicBehaviour, store: ObjectStore) -> list[str]:
    return [p for p in store.of_type(T.PORT) if p != behaviour.defaults.cpu_port]


