"""The simulated ASIC's object store: SAI objects by type and id, validated as a SAI implementation
validates requests, with reference counts so that an object in use cannot be removed.

Pure apart from the injected OID allocator: every operation returns a ``Outcome`` with the SAI
status and the ASIC_STATE changes to persist (``Change``), which the syncd shell writes.
Sub-objects that the ASIC creates itself (a port's queues, priority groups and scheduler groups)
are "owned": they live and die with their owner and do not pin it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from nos.sai import status as st
from nos.sai.keys import asic_state_key
from nos.sai.meta import ObjectMeta, object_meta
from nos.sai.types import NULL_OID, OID_PREFIX, ObjectType, oid_type
from nos.sai.values import VT, AttrMeta

Allocator = Callable[[ObjectType, int], list[str]]
NULL_FIELDS = {"NULL": "NULL"}


@dataclass
class SaiObject:
    object_type: ObjectType
    object_id: str
    attrs: dict[str, str]
    owner: str | None = None   # set for ASIC-created sub-objects
    builtin: bool = False      # created with the switch (CPU port, default VLAN/VR/bridge): not removable
    counted: set[str] = field(default_factory=set)  # attributes whose object references are counted
    key: dict[str, str] | None = None  # an entry object's parsed JSON key (parsed once, on create)


@dataclass(frozen=True)
class Change:
    """One ASIC_STATE write: ``fields`` None means delete the hash."""

    key: str
    fields: dict[str, str] | None


@dataclass
class Outcome:
    status: str
    reason: str = ""
    changes: list[Change] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == st.SUCCESS


def fail(status: str, reason: str) -> Outcome:
    return Outcome(status, reason)


class Hooks:
    """Object-type behaviour a SAI implementation adds to generic validation (see behaviours.py)."""

    def check_create(self, store: ObjectStore, obj: SaiObject) -> Outcome | None:
        return None

    def check_set(self, store: ObjectStore, obj: SaiObject, attr: str, value: str) -> Outcome | None:
        return None

    def after_create(self, store: ObjectStore, obj: SaiObject) -> list[SaiObject]:
        """Sub-objects the ASIC creates with ``obj``."""
        return []

    def after_set(self, store: ObjectStore, obj: SaiObject, attr: str, value: str) -> None:
        return None

    def read_only(self, store: ObjectStore, obj: SaiObject, attr: str) -> str | None:
        return None


class ObjectStore:
    """Every SAI object of one switch."""

    def __init__(self, alloc: Allocator, hooks: Hooks | None = None) -> None:
        self.alloc = alloc
        self.hooks = hooks or Hooks()
        self.objects: dict[tuple[ObjectType, str], SaiObject] = {}
        self.by_type: dict[ObjectType, dict[str, SaiObject]] = {}
        self.refs: Counter[str] = Counter()
        # indexes that keep the per-object checks O(1) with 100k+ objects (routes)
        self.oids: dict[str, SaiObject] = {}               # objects identified by an OID
        self.owned: dict[str, dict[str, SaiObject]] = {}   # owner -> its ASIC-created sub-objects
        self._mandatory: dict[ObjectType, list[str]] = {}
        self._attrs: dict[ObjectType, dict[str, tuple[AttrMeta, bool, bool]]] = {}

    # -- lookups ---------------------------------------------------------------------------------
    def find(self, object_type: ObjectType, object_id: str) -> SaiObject | None:
        return self.objects.get((object_type, object_id))

    def exists_oid(self, oid: str) -> bool:
        return oid in self.oids  # an OID's text encodes its type, so the text alone identifies it

    def of_type(self, object_type: ObjectType) -> dict[str, SaiObject]:
        return self.by_type.get(object_type, {})

    def owned_by(self, owner: str) -> list[SaiObject]:
        return list(self.owned.get(owner, {}).values())

    # -- the operations --------------------------------------------------------------------------
    def create(self, object_type: ObjectType, object_id: str, attrs: Sequence[tuple[str, str]]) -> Outcome:
        meta = object_meta(object_type)
        if meta is None:
            return fail(st.INVALID_OBJECT_TYPE, f"{object_type.sai_name} is not implemented")
        if (object_type, object_id) in self.objects:
            return fail(st.ITEM_ALREADY_EXISTS, f"{object_type.sai_name}:{object_id} already exists")
        key, problem = self._check_id(meta, object_id)
        problem = problem or self._check_attrs(meta, attrs, creating=True)
        if problem:
            return problem
        values = {k: v for k, v in attrs if k != "NULL"}
        mandatory = self._mandatory.get(object_type)
        if mandatory is None:
            mandatory = self._mandatory[object_type] = meta.mandatory()
        missing = [name for name in mandatory if name not in values]
        if missing:
            return fail(st.MANDATORY_ATTRIBUTE_MISSING, f"{object_type.sai_name}: missing {', '.join(missing)}")
        obj = SaiObject(object_type, object_id, values, key=key)
        refused = self.hooks.check_create(self, obj)
        if refused:
            return refused
        changes = [self._insert(obj, count=True)]
        for sub in self.hooks.after_create(self, obj):
            changes.append(self._insert(sub, count=False))
        return Outcome(st.SUCCESS, changes=changes)

    def set(self, object_type: ObjectType, object_id: str, attr: str, value: str) -> Outcome:
        meta = object_meta(object_type)
        obj = self.find(object_type, object_id)
        if meta is None or obj is None:
            code = st.ITEM_NOT_FOUND if meta else st.INVALID_OBJECT_TYPE
            return fail(code, f"{object_type.sai_name}:{object_id} not found")
        attr_meta = meta.attrs.get(attr)
        if attr_meta is not None and attr_meta.create_only:
            return fail(st.INVALID_ATTRIBUTE, f"{attr} is create-only")
        problem = self._check_attrs(meta, [(attr, value)], creating=False)
        if problem:
            return problem
        refused = self.hooks.check_set(self, obj, attr, value)
        if refused:
            return refused
        old = obj.attrs.get(attr)
        if old is not None and attr in obj.counted:
            self._ref(meta, attr, old, -1)
        self._ref(meta, attr, value, +1)
        obj.counted.add(attr)
        obj.attrs[attr] = value
        self.hooks.after_set(self, obj, attr, value)
        return Outcome(st.SUCCESS, changes=[Change(asic_state_key(object_type, object_id), {attr: value})])

    def remove(self, object_type: ObjectType, object_id: str) -> Outcome:
        obj = self.find(object_type, object_id)
        if obj is None:
            return fail(st.ITEM_NOT_FOUND, f"{object_type.sai_name}:{object_id} not found")
        if obj.builtin or obj.owner is not None:
            return fail(st.INVALID_PARAMETER, f"{object_type.sai_name}:{object_id} is created by the ASIC")
        subs = self.owned_by(object_id)
        users = self.refs[object_id] if obj.object_id.startswith("oid:") else 0
        if users:
            return fail(st.OBJECT_IN_USE, f"{object_type.sai_name}:{object_id} is referenced by {users} object(s)")
        busy = [s for s in subs if self.refs[s.object_id]]
        if busy:
            return fail(st.OBJECT_IN_USE, f"{busy[0].object_type.sai_name}:{busy[0].object_id} of it is in use")
        changes = [self._delete(s) for s in subs]
        changes.append(self._delete(obj))
        return Outcome(st.SUCCESS, changes=changes)

    def get(self, object_type: ObjectType, object_id: str, names: Iterable[str]) -> Outcome:
        meta = object_meta(object_type)
        obj = self.find(object_type, object_id)
        if meta is None or obj is None:
            return fail(st.ITEM_NOT_FOUND, f"{object_type.sai_name}:{object_id} not found")
        values: dict[str, str] = {}
        for name in names:
            if name not in meta.attrs:
                return fail(st.UNKNOWN_ATTRIBUTE, f"{name} is not an attribute of {object_type.sai_name}")
            value = self.hooks.read_only(self, obj, name) if meta.attrs[name].read_only else obj.attrs.get(name)
            if value is None:
                return fail(st.NOT_SUPPORTED, f"{name} has no value")
            values[name] = value
        return Outcome(st.SUCCESS, values=values)

    # -- building blocks -------------------------------------------------------------------------
    def _check_id(self, meta: ObjectMeta, object_id: str) -> tuple[dict[str, str] | None, Outcome | None]:
        """(the parsed key of an entry object, why the id is refused)."""
        if not meta.is_entry:
            if oid_type(object_id) is not meta.object_type:
                return None, fail(st.INVALID_OBJECT_ID, f"{object_id} is not a {meta.object_type.sai_name} id")
            return None, None
        key = _fast_entry_key(meta.key_fields, object_id)  # has exactly the key fields when it parses
        if key is None:
            try:
                key = json.loads(object_id)
            except ValueError:
                return None, fail(st.INVALID_PARAMETER, f"entry key is not JSON: {object_id[:120]}")
            if not isinstance(key, dict) or key.keys() != set(meta.key_fields):
                return None, fail(st.INVALID_PARAMETER, f"entry key must have {', '.join(meta.key_fields)}")
        for field_name in meta.key_refs:
            if not self.exists_oid(key[field_name]):
                return None, fail(st.INVALID_PARAMETER, f"entry key {field_name} {key[field_name]} does not exist")
        return key, None

    def _attr_table(self, meta: ObjectMeta) -> dict[str, tuple[AttrMeta, bool, bool]]:
        """name -> (metadata, read-only, holds one object id): looked up once per type."""
        table = self._attrs.get(meta.object_type)
        if table is None:
            table = self._attrs[meta.object_type] = {
                name: (attr, attr.read_only, attr.vt is VT.OID) for name, attr in meta.attrs.items()}
        return table

    def _check_attrs(self, meta: ObjectMeta, attrs: Sequence[tuple[str, str]], creating: bool) -> Outcome | None:
        table = self._attr_table(meta)
        for name, value in attrs:
            if name == "NULL":
                continue
            info = table.get(name)
            if info is None:
                return fail(st.UNKNOWN_ATTRIBUTE, f"{name} is not an attribute of {meta.object_type.sai_name}")
            attr, read_only, is_oid = info
            if read_only:
                return fail(st.INVALID_ATTRIBUTE, f"{name} is read-only")
            if is_oid:  # fast path: an existing object of an allowed type is valid
                found = self.oids.get(value)
                if found is not None and (not attr.object_types or found.object_type in attr.object_types):
                    continue
            problem = attr.problem(value)
            if problem:
                return fail(st.INVALID_ATTR_VALUE, problem)
            for target in attr.references(value):
                if not self.exists_oid(target):
                    return fail(st.INVALID_ATTR_VALUE, f"{name}={value}: object {target} does not exist")
        return None

    def _ref(self, meta: ObjectMeta, attr: str, value: str, weight: int) -> None:
        info = self._attr_table(meta).get(attr)
        if info is None:
            return
        if info[2]:  # one object id (the common case, without building a list)
            if value != NULL_OID:
                self.refs[value] += weight
            return
        for target in info[0].references(value):
            self.refs[target] += weight

    def _key_refs(self, obj: SaiObject, weight: int) -> None:
        meta = object_meta(obj.object_type)
        if meta is not None and meta.is_entry:
            key = obj.key if obj.key is not None else json.loads(obj.object_id)
            for field_name in meta.key_refs:
                if field_name != "switch_id":
                    self.refs[key[field_name]] += weight

    def _insert(self, obj: SaiObject, count: bool) -> Change:
        """Add an object; ``count`` its references (clients' objects) or not (the ASIC's own)."""
        self.objects[(obj.object_type, obj.object_id)] = obj
        self.by_type.setdefault(obj.object_type, {})[obj.object_id] = obj
        if obj.object_id.startswith(OID_PREFIX):
            self.oids[obj.object_id] = obj
        if obj.owner is not None:
            self.owned.setdefault(obj.owner, {})[obj.object_id] = obj
        meta = object_meta(obj.object_type)
        if meta is not None and count:
            for name, value in obj.attrs.items():
                self._ref(meta, name, value, +1)
            obj.counted = set(obj.attrs)
            self._key_refs(obj, +1)
        return Change(asic_state_key(obj.object_type, obj.object_id), dict(obj.attrs) or dict(NULL_FIELDS))

    def _delete(self, obj: SaiObject) -> Change:
        del self.objects[(obj.object_type, obj.object_id)]
        del self.by_type[obj.object_type][obj.object_id]
        self.oids.pop(obj.object_id, None)
        if obj.owner is not None:
            siblings = self.owned.get(obj.owner, {})
            siblings.pop(obj.object_id, None)
            if not siblings:
                self.owned.pop(obj.owner, None)
        meta = object_meta(obj.object_type)
        if meta is not None:
            for name in obj.counted:
                self._ref(meta, name, obj.attrs[name], -1)
            if obj.owner is None and not obj.builtin:
                self._key_refs(obj, -1)
        self.refs.pop(obj.object_id, None)
        return Change(asic_state_key(obj.object_type, obj.object_id), None)

    def add_builtin(self, obj: SaiObject) -> Change:
        """An object the ASIC has from the start (or a sub-object of one); references not counted."""
        return self._insert(obj, count=False)

    def restore(self, obj: SaiObject) -> None:
        """Put back an object read from ASIC_STATE (a restarted syncd): client objects' references count."""
        self._insert(obj, count=obj.owner is None and not obj.builtin)


_CANONICAL: dict[tuple[str, ...], tuple[re.Pattern[str], tuple[str, ...]]] = {}


def _fast_entry_key(fields: tuple[str, ...], object_id: str) -> dict[str, str] | None:
    """Parse the canonical form sairedis writes (compact, sorted keys, plain string values) without
    the JSON parser; None for anything else (then json.loads decides)."""
    cached = _CANONICAL.get(fields)
    if cached is None:
        names = tuple(sorted(fields))
        body = ",".join(f'"{re.escape(name)}":"([^"\\\\]*)"' for name in names)
        cached = _CANONICAL[fields] = (re.compile("\\{" + body + "\\}"), names)
    found = cached[0].fullmatch(object_id)
    return dict(zip(cached[1], found.groups(), strict=True)) if found else None
