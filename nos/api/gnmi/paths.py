"""gNMI paths -> addresses in the switch's databases (pure: no Redis here).

Two schemes name database data, as in sonic-gnmi (reference ecosystem.md 1.4):

* native, origin ``sonic-db`` (``sonic_db`` accepted; on the prefix or on each path):
  ``/<DB>/localhost/<TABLE>/<KEY>[/<KEY2>...]/<field>``. A key may also be given as a key map on the
  table element (``/CONFIG_DB/localhost/INTERFACE[key=Ethernet0|10.0.0.0/31]``), which is the way to
  write a key holding ``/``. Read for every DB, write for CONFIG_DB.
* legacy, ``prefix.target`` = a DB name: ``TABLE[/KEY[/KEY2]][/FIELD]`` (read and subscribe only).

Without any origin or DB target, a path starting ``/<DB>/localhost`` is taken as native (lenient:
clients that forget the origin still work). Several origins in one request -> UNIMPLEMENTED.

Elements after the table are resolved against Redis later (sonic-gnmi's EXISTS/HEXISTS probing):
``[K1, K2]`` is the row ``K1<sep>K2`` if it exists, else field ``K2`` of row ``K1``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pygnmi.spec.v080 import gnmi_pb2

from nos.api.gnmi.errors import InvalidArgument, NotFound, Unimplemented

NATIVE_ORIGINS = ("sonic-db", "sonic_db")
INSTANCE = "localhost"
LEGACY_MAX_PARTS = 3  # TABLE/K1/K2/FIELD: at most three elements after the table
WILDCARDS = "*?["

Scheme = Literal["native", "legacy"]


@dataclass(frozen=True)
class Elem:
    """One path element: a name and its key map (sorted pairs)."""

    name: str
    keys: tuple[tuple[str, str], ...] = ()

    def text(self) -> str:
        return self.name + "".join(f"[{k}={_escape_key(v)}]" for k, v in self.keys)


def _escape_key(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


@dataclass(frozen=True)
class GPath:
    """A gNMI path as plain data."""

    origin: str = ""
    elems: tuple[Elem, ...] = ()
    target: str = ""

    def text(self) -> str:
        body = "/" + "/".join(e.text() for e in self.elems)
        return f"{self.origin}:{body}" if self.origin else body


def from_proto(path: Any) -> GPath:
    """A ``gnmi_pb2.Path`` as a GPath (the deprecated string ``element`` form is accepted too)."""
    if path.elem:
        elems = tuple(Elem(e.name, tuple(sorted(e.key.items()))) for e in path.elem)
    else:
        elems = tuple(Elem(name) for name in path.element)
    return GPath(path.origin, elems, path.target)


def to_proto(path: GPath) -> Any:
    return gnmi_pb2.Path(origin=path.origin, target=path.target,
                         elem=[gnmi_pb2.PathElem(name=e.name, key=dict(e.keys)) for e in path.elems])


@dataclass(frozen=True)
class Address:
    """Where one request path points, before Redis decides between key and field."""

    scheme: Scheme
    db: str
    table: str | None            # None: the whole database (native /<DB>/localhost)
    parts: tuple[str, ...]       # the elements after the table
    keyed: str | None            # the row key, when given as a key map on the table element
    full: tuple[Elem, ...]       # prefix elements + path elements
    text: str                    # the path as the client wrote it, for messages

    @property
    def lead(self) -> int:
        """How many elements of ``full`` come before the table (DB and instance for native paths)."""
        return 2 if self.scheme == "native" else 0


def _origin(origin: str) -> str:
    return "sonic-db" if origin in NATIVE_ORIGINS else origin


def scheme_of(prefix: GPath, paths: Sequence[GPath], databases: Collection[str]) -> tuple[Scheme, str]:
    """The scheme of a whole request and, for legacy requests, the target DB."""
    origins = {_origin(p.origin) for p in paths if p.origin}
    if prefix.origin:
        origins.add(_origin(prefix.origin))
    if len(origins) > 1:
        raise Unimplemented(f"origin conflict: one request mixes origins {', '.join(sorted(origins))}")
    origin = next(iter(origins), "")
    if origin == "sonic-db":
        return "native", ""
    if origin:
        raise Unimplemented(f"origin '{origin}' is not served: use origin sonic-db "
                            "(/<DB>/localhost/<TABLE>/...) or prefix target = a DB name (CONFIG_DB, ...)")
    if prefix.target:
        if prefix.target not in databases:
            raise NotFound(f"unknown target '{prefix.target}': the target names a database "
                           f"({', '.join(sorted(databases))})")
        return "legacy", prefix.target
    first = [(prefix.elems + p.elems)[:2] for p in paths]
    if first and all(len(e) == 2 and e[0].name in databases and e[1].name == INSTANCE for e in first):
        return "native", ""
    raise InvalidArgument("a path needs origin sonic-db (/<DB>/localhost/<TABLE>/...) or prefix target = "
                          "a DB name with the path TABLE[/KEY][/FIELD]")


def addresses(prefix: GPath, paths: Sequence[GPath], databases: Collection[str]) -> list[Address]:
    """Every path of a request as an Address (all in one scheme; native paths share one DB)."""
    scheme, target = scheme_of(prefix, paths, databases)
    out = [address(scheme, target, prefix, path, databases) for path in paths]
    if scheme == "native" and len({a.db for a in out}) > 1:
        raise Unimplemented(f"target conflict: one request names databases {', '.join(sorted({a.db for a in out}))}")
    return out


def address(scheme: Scheme, target: str, prefix: GPath, path: GPath, databases: Collection[str]) -> Address:
    full = prefix.elems + path.elems
    text = _display(prefix, path)
    if scheme == "native":
        if len(full) < 2:
            raise InvalidArgument(f"{text}: a sonic-db path starts with /<DB>/localhost")
        db, instance = full[0].name, full[1].name
        if db not in databases:
            raise NotFound(f"{text}: unknown database '{db}' (known: {', '.join(sorted(databases))})")
        if instance != INSTANCE:
            raise NotFound(f"{text}: unknown instance '{instance}': this switch has one, '{INSTANCE}'")
        return _split(scheme, db, full, 2, text)
    if not full:
        raise InvalidArgument(f"{text}: with target {target} the path names at least a table: TABLE[/KEY][/FIELD]")
    found = _split(scheme, target, full, 0, text)
    if len(found.parts) > LEGACY_MAX_PARTS:
        raise InvalidArgument(f"{text}: too many elements for target {target}: TABLE[/KEY[/KEY2]][/FIELD]")
    return found


def _split(scheme: Scheme, db: str, full: tuple[Elem, ...], lead: int, text: str) -> Address:
    if any(e.keys for e in full[:lead]):
        raise InvalidArgument(f"{text}: key maps go on the table element (TABLE[key=...]), not on DB or instance")
    if len(full) == lead:
        return Address(scheme, db, None, (), None, full, text)
    table, rest = full[lead], full[lead + 1:]
    if any(e.keys for e in rest):
        raise InvalidArgument(f"{text}: a key map belongs on the table element, as {table.name}[key=<row key>]")
    parts = tuple(e.name for e in rest)
    if any(not p for p in (table.name, *parts)):
        raise InvalidArgument(f"{text}: an element has an empty name")
    keyed = None
    if table.keys:
        if len(table.keys) > 1:
            raise InvalidArgument(f"{text}: give the row key as one key, e.g. {table.name}[key=Vlan100|Ethernet0]")
        keyed = table.keys[0][1]
        if len(parts) > 1:
            raise InvalidArgument(f"{text}: after {table.name}[key=...] only a field may follow")
    return Address(scheme, db, table.name, parts, keyed, full, text)


def _display(prefix: GPath, path: GPath) -> str:
    origin = path.origin or prefix.origin
    body = "/" + "/".join(e.text() for e in prefix.elems + path.elems)
    head = f"{origin}:" if origin else (f"[{prefix.target}]" if prefix.target else "")
    return head + body


def has_wildcard(text: str) -> bool:
    return any(ch in text for ch in WILDCARDS)


def join_key(parts: Iterable[str], separator: str) -> str:
    return separator.join(parts)


__all__ = ["Address", "Elem", "GPath", "INSTANCE", "NATIVE_ORIGINS", "address", "addresses", "from_proto",
           "has_wildcard", "join_key", "scheme_of", "to_proto"]
