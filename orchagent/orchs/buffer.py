"""BufferOrch: APPL_DB buffer tables -> SAI buffer pools, profiles and their bindings (swss
orchagent/bufferorch.cpp).

* ``BUFFER_POOL_TABLE`` -> BUFFER_POOL (type and mode are create-only: changing them on an existing pool is
  refused); the pool's id is published in COUNTERS_DB ``COUNTERS_BUFFER_POOL_NAME_MAP`` (the counters
  writer polls it). Removing a pool still used by a profile waits.
* ``BUFFER_PROFILE_TABLE`` -> BUFFER_PROFILE (field mapping in ``buffer_fields``); a profile whose pool
  does not exist yet waits (NEED_RETRY, reported as a retry with the reason); a later SET changes the
  attributes that differ on the same object. Removing a profile still bound waits.
* ``BUFFER_PG_TABLE:<ports>:<lo-hi>`` -> ``SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE`` on each PG;
  ``BUFFER_QUEUE_TABLE`` -> ``SAI_QUEUE_ATTR_BUFFER_PROFILE_ID`` on each queue; a delete sets the null
  object id. Each bound key holds a reference on its ports, so a port is removed only after its PG and
  queue configuration is gone (portsorch's ref count, PORT-016). A new binding waits while APPL_DB
  PORT_TABLE wants its port gone or on other lanes (an atomic breakout deletes and re-adds the buffer
  rows of a port it re-creates under the same name).
* ``BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST_TABLE:<port>`` -> ``SAI_PORT_ATTR_QOS_INGRESS/EGRESS_BUFFER_
  PROFILE_LIST``; a delete sets the empty list.
* At start, STATE_DB ``BUFFER_MAX_PARAM_TABLE|global`` {mmu_size} = ``SAI_SWITCH_ATTR_TOTAL_BUFFER_SIZE``
  x 1024 (BufferOrch::initBufferConstants; the per-port maxima are PortOrch's).

Bad values (a non-numeric size, an unknown pool type, a bad key) are INVALID with table, key and field
named; a refusal by the ASIC is FAILED.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from nos.daemon.task import Result
from nos.db import Table
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from nos.sai.types import NULL_OID
from nos.sai.types import ObjectType as T
from nos.sai.values import parse_list, sai_list
from nos.schema import tables as tbl
from nos.schema.dbconfig import APPL_DB, COUNTERS_DB, STATE_DB
from orchagent.core.deps import OrchDeps
from orchagent.core.planned import Planned, run_planned
from orchagent.core.registry import Kind
from orchagent.orchs.buffer_fields import (
    POOL_ID,
    POOL_MODE,
    POOL_SIZE,
    POOL_TYPE,
    BadBufferField,
    parse_binding_key,
    parse_pool,
    parse_profile,
    parse_profile_list,
    ref_name,
)

log = logging.getLogger(__name__)

POOLS, PROFILES = tbl.APP_BUFFER_POOL_TABLE_NAME, tbl.APP_BUFFER_PROFILE_TABLE_NAME
PGS, QUEUES = tbl.APP_BUFFER_PG_TABLE_NAME, tbl.APP_BUFFER_QUEUE_TABLE_NAME
INGRESS_LISTS = tbl.APP_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME
EGRESS_LISTS = tbl.APP_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME
# binding table -> (SAI object type, the port's list attribute, the object's profile attribute)
BINDINGS = {
    PGS: (T.INGRESS_PRIORITY_GROUP, "SAI_PORT_ATTR_INGRESS_PRIORITY_GROUP_LIST",
          "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE"),
    QUEUES: (T.QUEUE, "SAI_PORT_ATTR_QOS_QUEUE_LIST", "SAI_QUEUE_ATTR_BUFFER_PROFILE_ID"),
}
LISTS = {INGRESS_LISTS: "SAI_PORT_ATTR_QOS_INGRESS_BUFFER_PROFILE_LIST",
         EGRESS_LISTS: "SAI_PORT_ATTR_QOS_EGRESS_BUFFER_PROFILE_LIST"}
CREATE_ONLY = (POOL_TYPE, POOL_MODE)
LANES = "SAI_PORT_ATTR_HW_LANE_LIST"


@dataclass
class BufferObject:
    """A pool or profile orchagent created: its id, programmed attributes and users."""

    name: str
    oid: str
    attrs: dict[str, str]
    pool: str = ""  # profiles: the pool's name
    refs: int = 0


@dataclass(frozen=True)
class Bound:
    """What one PG/queue key or profile list holds: ports (referenced) and profiles (referenced)."""

    ports: tuple[str, ...]
    profiles: tuple[str, ...]


class BufferOrch:
    CONSUMES = tuple((APPL_DB, table) for table in (POOLS, PROFILES, PGS, QUEUES, INGRESS_LISTS, EGRESS_LISTS))
    PRODUCES = ((COUNTERS_DB, tbl.COUNTERS_BUFFER_POOL_NAME_MAP), (STATE_DB, tbl.STATE_BUFFER_MAXIMUM_VALUE_TABLE))

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.sai = deps.sai
        self.pools: dict[str, BufferObject] = {}
        self.profiles: dict[str, BufferObject] = {}
        self.bound: dict[tuple[str, str], Bound] = {}
        self.port_lists: dict[tuple[str, str], list[str]] = {}  # (port oid, list attr) -> object ids
        self.counters = deps.dbs[COUNTERS_DB].client
        self.appl_ports = Table(deps.dbs[APPL_DB], tbl.APP_PORT_TABLE_NAME)  # read only: lanes wanted
        self._publish_mmu_size(Table(deps.dbs[STATE_DB], tbl.STATE_BUFFER_MAXIMUM_VALUE_TABLE))

    def _publish_mmu_size(self, table: Table) -> None:
        values = self.sai.get(T.SWITCH, self.deps.switch.switch_id, "SAI_SWITCH_ATTR_TOTAL_BUFFER_SIZE")
        table.set("global", {"mmu_size": str(int(values["SAI_SWITCH_ATTR_TOTAL_BUFFER_SIZE"]) * 1024)})

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        try:
            if table == POOLS:
                return self._pool_del(task.key) if task.is_del else self._pool_set(task.key, task.fields)
            if table == PROFILES:
                return self._profile_del(task.key) if task.is_del else self._profile_set(task.key, task.fields)
            if table in BINDINGS:
                return self._unbind(table, task.key) if task.is_del else self._bind(table, task.key, task.fields)
            return self._list_del(table, task.key) if task.is_del else self._list_set(table, task.key, task.fields)
        except BadBufferField as exc:
            return Result.invalid(f"{table}:{task.key} {exc}")

    # -- pools ------------------------------------------------------------------------------------
    def _pool_set(self, name: str, fields: dict[str, str]) -> Result:
        entry = parse_pool(name, fields)
        attrs = dict(entry.attrs)
        pool = self.pools.get(name)
        if pool is None:
            if POOL_SIZE not in attrs:
                raise BadBufferField("field size: missing (a new pool needs its size)")
            oid = self.sai.alloc(T.BUFFER_POOL)
            failed = self._apply([SaiOp.create(T.BUFFER_POOL, oid, *entry.attrs)])
            if failed:
                return failed
            self.pools[name] = BufferObject(name, oid, attrs)
            self.counters.hset(tbl.COUNTERS_BUFFER_POOL_NAME_MAP, name, oid)
            log.info("orch.buffer.pool_created pool=%s oid=%s", name, oid)
            return Result.success()
        for attr in CREATE_ONLY:
            if attr in attrs and attrs[attr] != pool.attrs.get(attr):
                field = "type" if attr == POOL_TYPE else "mode"
                raise BadBufferField(f"field {field}: cannot be changed on an existing pool")
        return self._update(T.BUFFER_POOL, pool, attrs)

    def _pool_del(self, name: str) -> Result:
        pool = self.pools.get(name)
        if pool is None:
            return Result.ignored(f"buffer pool {name} does not exist")
        if pool.refs:
            return Result.retry(f"buffer pool {name} is still used by {pool.refs} profile(s)")
        failed = self._apply([SaiOp.remove(T.BUFFER_POOL, pool.oid)])
        if failed:
            return failed
        del self.pools[name]
        self.counters.hdel(tbl.COUNTERS_BUFFER_POOL_NAME_MAP, name)
        return Result.success()

    # -- profiles ---------------------------------------------------------------------------------
    def _profile_set(self, name: str, fields: dict[str, str]) -> Result:
        entry = parse_profile(name, fields)
        pool = self.pools.get(entry.pool)
        if pool is None:
            return Result.retry(f"buffer pool {entry.pool} of profile {name} does not exist")
        attrs = {POOL_ID: pool.oid, **dict(entry.attrs)}
        profile = self.profiles.get(name)
        if profile is None:
            oid = self.sai.alloc(T.BUFFER_PROFILE)
            failed = self._apply([SaiOp.create(T.BUFFER_PROFILE, oid, *attrs.items())])
            if failed:
                return failed
            self.profiles[name] = BufferObject(name, oid, attrs, pool=entry.pool)
            pool.refs += 1
            return Result.success()
        result = self._update(T.BUFFER_PROFILE, profile, attrs)
        if result.done and not result.rejected and profile.pool != entry.pool:
            self.pools[profile.pool].refs -= 1
            pool.refs += 1
            profile.pool = entry.pool
        return result

    def _profile_del(self, name: str) -> Result:
        profile = self.profiles.get(name)
        if profile is None:
            return Result.ignored(f"buffer profile {name} does not exist")
        if profile.refs:
            return Result.retry(f"buffer profile {name} is still used by {profile.refs} PG/queue/port binding(s)")
        failed = self._apply([SaiOp.remove(T.BUFFER_PROFILE, profile.oid)])
        if failed:
            return failed
        del self.profiles[name]
        self.pools[profile.pool].refs -= 1
        return Result.success()

    def _update(self, object_type: T, obj: BufferObject, attrs: dict[str, str]) -> Result:
        changed = [(a, v) for a, v in attrs.items() if obj.attrs.get(a) != v]
        failed = self._apply([SaiOp.set(object_type, obj.oid, a, v) for a, v in changed])
        if failed:
            return failed
        obj.attrs.update(changed)
        return Result.success() if changed else Result.ignored("unchanged")

    # -- PG and queue bindings --------------------------------------------------------------------
    def handle_batch(self, table: str, tasks: list[KeyOpFieldsValues]) -> list[Result]:
        """A pop's tasks: the bindings' profile sets planned and sent together (``run_planned``), with
        the ports' PG/queue lists and lanes read in one round first; every other table one by one."""
        if table not in BINDINGS:
            return [self.handle(table, task) for task in tasks]
        self._prefetch(BINDINGS[table][1], tasks)
        return run_planned(self.sai, tasks, lambda task: self._plan_bind(table, task),
                           lambda task: self.handle(table, task))

    def _plan_bind(self, table: str, task: KeyOpFieldsValues) -> Result | Planned | None:
        if task.is_del:
            return None
        try:
            return self._bind_plan(table, task.key, task.fields)
        except BadBufferField as exc:
            return Result.invalid(f"{table}:{task.key} {exc}")

    def _prefetch(self, list_attr: str, tasks: list[KeyOpFieldsValues]) -> None:
        """The PG or queue list and the lanes of every port the tasks bind that is not read yet: one round."""
        oids: set[str] = set()
        for task in tasks:
            try:
                ports = parse_binding_key(task.key).ports if not task.is_del else ()
            except BadBufferField:
                continue
            for port in ports:
                entry = self.deps.registry.get(port)
                if entry is not None and entry.kind is Kind.PORT and entry.oid and \
                        ((entry.oid, list_attr) not in self.port_lists or (entry.oid, LANES) not in self.port_lists):
                    oids.add(entry.oid)
        wanted = sorted(oids)
        for oid, result in zip(wanted, self.sai.apply_many([[SaiOp.get(T.PORT, o, list_attr, LANES)] for o in wanted]),
                               strict=True):
            if result.ok:
                self.port_lists[(oid, list_attr)] = parse_list(result.values[0][list_attr])
                self.port_lists[(oid, LANES)] = parse_list(result.values[0][LANES])

    def _bind(self, table: str, key: str, fields: dict[str, str]) -> Result:
        planned = self._bind_plan(table, key, fields)
        if isinstance(planned, Result):
            return planned
        return self._apply(planned.ops) or planned.done()

    def _bind_plan(self, table: str, key: str, fields: dict[str, str]) -> Result | Planned:
        if "profile" not in fields:
            raise BadBufferField("field profile: missing")
        name = ref_name(fields["profile"])
        profile = self.profiles.get(name)
        if profile is None:
            return Result.retry(f"buffer profile {name} does not exist")
        binding = parse_binding_key(key)
        object_type, list_attr, attr = BINDINGS[table]
        ops: list[SaiOp] = []
        for port in binding.ports:
            objects, waiting = self._port_objects(port, list_attr, binding=True)
            if waiting:
                return Result.retry(waiting)
            if binding.indexes[-1] >= len(objects):
                raise BadBufferField(f"index {binding.indexes[-1]} is beyond the {len(objects)} of port {port}")
            ops += [SaiOp.set(object_type, objects[i], attr, profile.oid) for i in binding.indexes]

        def done() -> Result:
            self._hold(table, key, Bound(binding.ports, (name,)))
            return Result.success()
        return Planned(ops, done)

    def _unbind(self, table: str, key: str) -> Result:
        held = self.bound.get((table, key))
        if held is None:
            return Result.ignored(f"{key} is not bound")
        binding = parse_binding_key(key)
        object_type, list_attr, attr = BINDINGS[table]
        ops: list[SaiOp] = []
        for port in binding.ports:
            objects, waiting = self._port_objects(port, list_attr)
            if not waiting:
                kept = self._covered(table, port, key)  # re-bound by another key (|3-4 -> |3 and |4-6)
                ops += [SaiOp.set(object_type, objects[i], attr, NULL_OID) for i in binding.indexes
                        if i < len(objects) and i not in kept]
        failed = self._apply(ops)
        if failed:
            return failed
        self._hold(table, key, None)
        return Result.success()

    def _covered(self, table: str, port: str, other_than: str) -> set[int]:
        """The indexes of ``port`` that keys of ``table`` other than ``other_than`` hold bound now."""
        covered: set[int] = set()
        for (bound_table, key), held in self.bound.items():
            if bound_table == table and key != other_than and port in held.ports:
                covered.update(parse_binding_key(key).indexes)
        return covered

    def _port_objects(self, port: str, list_attr: str, binding: bool = False) -> tuple[list[str], str]:
        """A port's PGs or queues (read from the ASIC once per port object), or why it must wait. A new
        binding also waits while APPL_DB PORT_TABLE wants the port gone or on other lanes (a breakout
        re-creating a port of the same name: binding the old object would hold it forever)."""
        entry = self.deps.registry.get(port)
        if entry is None or entry.kind is not Kind.PORT or not entry.oid:
            return [], f"port {port} does not exist"
        if binding and self._lanes(entry.oid) != (self.appl_ports.hget(port, "lanes") or "").split(","):
            return [], f"port {port} is being removed or re-created"
        cached = self.port_lists.get((entry.oid, list_attr))
        if cached is None:
            cached = parse_list(self.sai.get(T.PORT, entry.oid, list_attr)[list_attr])
            self.port_lists[(entry.oid, list_attr)] = cached
        return cached, ""

    def _lanes(self, oid: str) -> list[str]:
        cached = self.port_lists.get((oid, LANES))
        if cached is None:
            cached = self.port_lists[(oid, LANES)] = parse_list(self.sai.get(T.PORT, oid, LANES)[LANES])
        return cached

    def _hold(self, table: str, key: str, new: Bound | None) -> None:
        """Move references from what ``key`` held to ``new`` (ports only for PG/queue keys)."""
        old = self.bound.pop((table, key), None)
        registry = self.deps.registry
        for name in new.profiles if new else ():
            self.profiles[name].refs += 1
        for port in new.ports if new else ():
            registry.ref(port)
        if old is not None:
            for name in old.profiles:
                self.profiles[name].refs -= 1
            for port in old.ports:
                registry.unref(port)
        if new is not None:
            self.bound[(table, key)] = new

    # -- per-port profile lists -------------------------------------------------------------------
    def _list_set(self, table: str, port: str, fields: dict[str, str]) -> Result:
        names = parse_profile_list(fields.get("profile_list", ""))
        missing = [n for n in names if n not in self.profiles]
        if missing:
            return Result.retry(f"buffer profile(s) {', '.join(missing)} do not exist")
        entry = self.deps.registry.get(port)
        if entry is None or entry.kind is not Kind.PORT:
            return Result.retry(f"port {port} does not exist")
        value = sai_list(self.profiles[n].oid for n in names)
        failed = self._apply([SaiOp.set(T.PORT, entry.oid, LISTS[table], value)])
        if failed:
            return failed
        self._hold(table, port, Bound((), tuple(names)))
        return Result.success()

    def _list_del(self, table: str, port: str) -> Result:
        if (table, port) not in self.bound:
            return Result.ignored(f"{port} has no profile list")
        entry = self.deps.registry.get(port)
        if entry is not None and entry.oid:
            failed = self._apply([SaiOp.set(T.PORT, entry.oid, LISTS[table], sai_list([]))])
            if failed:
                return failed
        self._hold(table, port, None)
        return Result.success()

    def _apply(self, ops: list[SaiOp]) -> Result | None:
        result = self.sai.apply(ops)
        return None if result.ok else Result.failed(f"{result.status} {result.reason}")


ORCH = BufferOrch
PRIORITY = 20
