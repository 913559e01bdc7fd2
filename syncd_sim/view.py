"""Comparing the ASIC's current view with the one a restarted client rebuilt (pure): what syncd does
between INIT_VIEW and APPLY_VIEW (sonic-sairedis ``syncd/ComparisonLogic.cpp``, in the small).

A restarted orchagent re-creates every object it wants, with new object ids, into a temporary view
while the current view keeps forwarding. At APPLY_VIEW the temporary view becomes the ASIC's, and
``compare`` says which of its objects are objects the ASIC already had: those keep their hardware
state (counters, link state, learnt MACs), the rest is new, and what the current view had beyond it is
gone. As on SONiC after a warm start, the surviving objects take the ids the client gave them (the
client holds those); only the ASIC's own objects (the switch's built-in objects, a port's queues,
priority groups and scheduler groups, which the temporary view inherits) keep their ids.

Matching, in order: the same id in both views (built-in and inherited objects); ports by their lanes;
then, type by type in dependency order, an object whose identity (its key attributes, create-only or
mandatory, with the object ids in them translated through what is matched so far; an entry's key) is
the same as exactly one unmatched object of the other view. A LAG or next-hop group has no identity of
its own: its members make it (the members' identities, less the group). Whatever does not match is
removed and created, which gives the same result with less of the hardware's state kept.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nos.sai.keys import asic_state_key
from nos.sai.meta import object_meta
from nos.sai.types import ENTRY_TYPES
from nos.sai.types import ObjectType as T
from syncd_sim.objects import NULL_FIELDS, Change, ObjectStore, SaiObject

OID = re.compile(r"oid:0x[0-9a-fA-F]+")
NULL_OID = "oid:0x0"
LANES = "SAI_PORT_ATTR_HW_LANE_LIST"
# group type -> (member type, the member attribute naming its group)
GROUPS: dict[T, tuple[T, str]] = {
    T.LAG: (T.LAG_MEMBER, "SAI_LAG_MEMBER_ATTR_LAG_ID"),
    T.NEXT_HOP_GROUP: (T.NEXT_HOP_GROUP_MEMBER, "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID"),
}
# Dependency order: an object's references come before it (types not listed are matched after, in rounds).
ORDER = (T.HOSTIF, T.PORT_SERDES, T.VIRTUAL_ROUTER, T.QOS_MAP, T.SCHEDULER, T.WRED, T.BUFFER_POOL,
         T.BUFFER_PROFILE, T.VLAN, T.LAG, T.LAG_MEMBER, T.BRIDGE, T.BRIDGE_PORT, T.VLAN_MEMBER,
         T.ROUTER_INTERFACE, T.NEIGHBOR_ENTRY, T.NEXT_HOP, T.NEXT_HOP_GROUP, T.NEXT_HOP_GROUP_MEMBER,
         T.ROUTE_ENTRY, T.FDB_ENTRY)
FDB_TYPE, FDB_DYNAMIC = "SAI_FDB_ENTRY_ATTR_TYPE", "SAI_FDB_ENTRY_TYPE_DYNAMIC"

Identity = tuple[object, ...]


@dataclass
class Comparison:
    """``matched``: current object id -> the id of the same object in the new view."""

    matched: dict[str, str]

    @property
    def renamed(self) -> dict[str, str]:
        return {old: new for old, new in self.matched.items() if old != new}


def translate(text: str, mapping: Mapping[str, str]) -> str | None:
    """``text`` with every object id replaced by its match; None when one has none (yet)."""
    if "oid:" not in text:
        return text
    missing = False

    def swap(found: re.Match[str]) -> str:
        nonlocal missing
        oid = found.group(0)
        if oid == NULL_OID:
            return oid
        new = mapping.get(oid)
        if new is None:
            missing = True
            return oid
        return new

    out = OID.sub(swap, text)
    return None if missing else out


class _Identities:
    """The identity of objects of one view, with ids translated by ``mapping`` (identity if empty)."""

    def __init__(self, store: ObjectStore, mapping: Mapping[str, str] | None) -> None:
        self.store = store
        self.mapping = mapping
        self.members: dict[T, dict[str, list[SaiObject]]] = {}
        for group, (member_type, attr) in GROUPS.items():
            by_group: dict[str, list[SaiObject]] = defaultdict(list)
            for member in store.of_type(member_type).values():
                by_group[member.attrs.get(attr, "")].append(member)
            self.members[group] = by_group

    def _text(self, text: str) -> str | None:
        return text if self.mapping is None else translate(text, self.mapping)

    def of(self, obj: SaiObject) -> Identity | None:
        """None while an object id in it has no match."""
        own = self._attrs(obj, _key_attrs(obj))
        if own is None:
            return None
        key = self._text(obj.object_id) if obj.object_type in ENTRY_TYPES else ""
        if key is None:
            return None
        if obj.object_type not in GROUPS:
            return (key, own)
        attr = GROUPS[obj.object_type][1]
        members = []
        for member in self.members[obj.object_type].get(obj.object_id, []):
            found = self._attrs(member, [n for n in _key_attrs(member) if n != attr])
            if found is None:
                return None
            members.append(found)
        return (key, own, tuple(sorted(members)))

    def _attrs(self, obj: SaiObject, names: Iterable[str]) -> tuple[tuple[str, str], ...] | None:
        out = []
        for name in names:
            value = self._text(obj.attrs[name])
            if value is None:
                return None
            out.append((name, value))
        return tuple(out)


def _key_attrs(obj: SaiObject) -> list[str]:
    """The attributes that say which object this is: create-only or mandatory ones, else all of them."""
    meta = object_meta(obj.object_type)
    if meta is None:
        return sorted(obj.attrs)
    keys = sorted(n for n in obj.attrs if (m := meta.attrs.get(n)) is not None and (m.create_only or m.mandatory))
    return keys or sorted(obj.attrs)


def compare(current: ObjectStore, new: ObjectStore) -> Comparison:
    """Which objects of ``current`` are the same as objects of ``new`` (see the module docstring)."""
    matched: dict[str, str] = {}
    taken: set[str] = set()
    for obj in current.objects.values():
        if new.find(obj.object_type, obj.object_id) is not None:  # ids are never reused: the same object
            matched[obj.object_id] = obj.object_id
            taken.add(obj.object_id)
    by_lanes = {p.attrs.get(LANES): p.object_id for p in new.of_type(T.PORT).values()
                if p.object_id not in taken and LANES in p.attrs}
    for port in current.of_type(T.PORT).values():
        found = by_lanes.get(port.attrs.get(LANES)) if port.object_id not in matched else None
        if found is not None:
            matched[port.object_id] = found
            taken.add(found)
    mine, theirs = _Identities(current, matched), _Identities(new, None)
    ordered = [kind for kind in ORDER if current.of_type(kind)]
    rest = [kind for kind in current.by_type if kind not in ORDER and kind is not T.PORT]
    for kind in ordered:
        _match_type(mine, theirs, kind, matched, taken)
    progress = True
    while progress:  # what the order did not settle: rounds until nothing more matches
        before = len(matched)
        for kind in rest + ordered:
            _match_type(mine, theirs, kind, matched, taken)
        progress = len(matched) > before
    return Comparison(matched)


def _match_type(mine: _Identities, theirs: _Identities, kind: T, matched: dict[str, str], taken: set[str]) -> None:
    waiting = [o for o in mine.store.of_type(kind).values() if o.object_id not in matched]
    if not waiting:
        return
    new = theirs.store
    candidates: dict[Identity, list[str]] = defaultdict(list)
    for obj in new.of_type(kind).values():
        if obj.object_id not in taken:
            identity = theirs.of(obj)
            if identity is not None:
                candidates[identity].append(obj.object_id)
    for obj in waiting:
        identity = mine.of(obj)
        found = candidates.get(identity) if identity is not None else None
        if found:
            other = found.pop()
            matched[obj.object_id] = other
            taken.add(other)


def learnt_entries(current: ObjectStore, new: ObjectStore, matched: Mapping[str, str]) -> list[SaiObject]:
    """The MACs the ASIC learnt itself (dynamic FDB entries the new view lacks), in the new view's ids;
    those whose VLAN or bridge port did not survive are left out (they will be learnt again)."""
    out = []
    for entry in current.of_type(T.FDB_ENTRY).values():
        if entry.attrs.get(FDB_TYPE) != FDB_DYNAMIC or entry.object_id in matched:
            continue
        key = translate(entry.object_id, matched)
        attrs = {name: translate(value, matched) for name, value in entry.attrs.items()}
        if key is None or None in attrs.values() or new.find(T.FDB_ENTRY, key) is not None:
            continue
        out.append(SaiObject(T.FDB_ENTRY, key, {k: v for k, v in attrs.items() if v is not None}))
    return out


def changes(before: ObjectStore, after: ObjectStore) -> list[Change]:
    """The ASIC_STATE writes that turn ``before``'s rows into ``after``'s: gone objects deleted, new or
    changed ones written whole (deleted first when an attribute went away), unchanged ones left alone."""
    out = [Change(asic_state_key(o.object_type, o.object_id), None) for o in before.objects.values()
           if after.find(o.object_type, o.object_id) is None]
    for obj in after.objects.values():
        fields = obj.attrs or NULL_FIELDS
        old = before.find(obj.object_type, obj.object_id)
        key = asic_state_key(obj.object_type, obj.object_id)
        if old is not None:
            previous = old.attrs or NULL_FIELDS
            if previous == fields:
                continue
            if not previous.keys() <= fields.keys():
                out.append(Change(key, None))
        out.append(Change(key, dict(fields)))
    return out
