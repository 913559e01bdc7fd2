"""ASIC_DB compared up to object ids: two switches given the same intent hold the same objects.

Object ids differ between switches (and after an APPLY_VIEW), so each object is named by what it is:
its type and attributes, with every object id in them replaced by the name of the object it refers to,
refined in rounds (a queue is "queue 3 of the port on lanes 8-11"); an object that only its members
tell apart (a next-hop group, a LAG) is named by its members too. ``normal_form`` is the multiset of
(type, key, attributes) with ids replaced by names; two ASIC_DBs with equal normal forms hold the same
objects, referring to each other the same way.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping

OID = re.compile(r"oid:0x[0-9a-fA-F]+")
PREFIX = "ASIC_STATE:"
ROUNDS = 8
# Attributes the ASIC sets by itself or that change with traffic: not part of what was asked for.
IGNORED = frozenset({"SAI_HOSTIF_ATTR_OPER_STATUS"})
# An attribute set to its SAI default is the same state as one never set: orchagent sets these on the
# way out of a membership (a port leaving its last VLAN strips tags again), a rebuilt view never sets them.
DEFAULTS = frozenset({("SAI_HOSTIF_ATTR_VLAN_TAG", "SAI_HOSTIF_VLAN_TAG_STRIP")})
Row = tuple[str, str, tuple[tuple[str, str], ...]]  # type, id, attributes


def parse(rows: Mapping[str, Mapping[str, str]], skip_learnt: bool = True) -> list[Row]:
    out = []
    for key, fields in rows.items():
        if not key.startswith(PREFIX):
            continue
        kind, _, object_id = key[len(PREFIX):].partition(":")
        attrs = tuple(sorted((f, v) for f, v in fields.items()
                             if f not in IGNORED and f != "NULL" and (f, v) not in DEFAULTS))
        if skip_learnt and kind == "SAI_OBJECT_TYPE_FDB_ENTRY" and ("SAI_FDB_ENTRY_ATTR_TYPE",
                                                                    "SAI_FDB_ENTRY_TYPE_DYNAMIC") in attrs:
            continue
        out.append((kind, object_id, attrs))
    return out


def _digest(*parts: object) -> str:
    return hashlib.sha1(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def _named(text: str, names: Mapping[str, str]) -> str:
    return OID.sub(lambda m: names.get(m.group(0), "null" if m.group(0) == "oid:0x0" else "?"), text)


def names_of(objects: list[Row]) -> dict[str, str]:
    """object id -> a name that says what the object is (equal names: indistinguishable objects)."""
    oids = [(kind, oid, attrs) for kind, oid, attrs in objects if oid.startswith("oid:")]
    names = {oid: _digest(kind, [(f, v) for f, v in attrs if "oid:" not in v]) for kind, oid, attrs in oids}
    referrers: dict[str, list[tuple[str, str, tuple[tuple[str, str], ...]]]] = {}
    for kind, _, attrs in objects:
        for field, value in attrs:
            for target in OID.findall(value):
                referrers.setdefault(target, []).append((kind, field, attrs))
    for _ in range(ROUNDS):
        new = {}
        for kind, oid, attrs in oids:
            forward = [(f, _named(v, names)) for f, v in attrs]
            backward = sorted((k, f, [(g, _named(v, names)) for g, v in others if g != f])
                              for k, f, others in referrers.get(oid, ()))
            new[oid] = _digest(kind, forward, backward)
        if len(set(new.values())) == len(set(names.values())):
            names = new
            break
        names = new
    return names


def normal_form(rows: Mapping[str, Mapping[str, str]], skip_learnt: bool = True) -> Counter[str]:
    objects = parse(rows, skip_learnt)
    names = names_of(objects)
    return Counter(json.dumps([kind, _named(object_id, names), [(f, _named(v, names)) for f, v in attrs]])
                   for kind, object_id, attrs in objects)


def differences(a: Counter[str], b: Counter[str], limit: int = 10) -> list[str]:
    """What one normal form has that the other lacks (for an assertion message): first the objects whose
    own values differ (ids left out: a difference deep down renames everything above it), then the rest."""
    def flat(form: Counter[str]) -> Counter[str]:
        out: Counter[str] = Counter()
        for item, n in form.items():
            kind, _, attrs = json.loads(item)
            out[json.dumps([kind, [(f, v) for f, v in attrs if not re.fullmatch(r"[0-9a-f]{16}", v)]])] += n
        return out
    lines = []
    for (label, x, y) in (("first", a, b), ("second", b, a)):
        only = flat(x) - flat(y)
        lines += [f"values only in {label}: {k}" for k in list(only)[:limit]]
    only_a, only_b = a - b, b - a
    lines += [f"only in first ({sum(only_a.values())}): {k}" for k in list(only_a)[:limit]]
    return lines + [f"only in second ({sum(only_b.values())}): {k}" for k in list(only_b)[:limit]]


def read_asic(client: object) -> dict[str, dict[str, str]]:
    """Every ASIC_STATE hash of a switch (a redis-py client on ASIC_DB, decoding)."""
    keys = list(client.scan_iter(PREFIX + "*", count=2000))  # type: ignore[attr-defined]
    pipe = client.pipeline(transaction=False)  # type: ignore[attr-defined]
    for key in keys:
        pipe.hgetall(key)
    return dict(zip(keys, pipe.execute(), strict=True))
