"""CONFIG_DB row models: the leaf types, the row-model bases and the table shapes they hang on.

One declaration serves two readers. Each feature module (``port.py``, ``vlan.py``, ...) declares one
pydantic row model per table (or per key shape) whose fields are ``Annotated[<python type>, <Leaf>,
<Ref>]``, and a :class:`TableSchema` saying how the table's keys are built:

* pydantic runs the :class:`Leaf` (through ``__get_pydantic_core_schema__``), so
  ``PortRow.model_validate(row)`` turns CONFIG_DB strings into typed values and refuses what
  SONiC's YANG refuses;
* ``nos.config.validate`` reads the same Leaf and :class:`Ref` objects once (:func:`field_rules`)
  and checks thousands of rows field by field without building model instances.

Facts (ranges, enums, patterns, mandatory leaves, leafrefs) come from SONiC's YANG models
(sonic-buildimage ``src/sonic-yang-models/yang-models``); where a module departs from the YANG, the
declaration says why. Nothing here imports from ``nos.config``; the table registry lives in
``nos.schema.config.registry``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, model_validator
from pydantic_core import CoreSchema, core_schema

Value = str | list[str]
"""A CONFIG_DB field value: a string, or a list for ``@`` list fields."""
Row = dict[str, Value]
"""One row: field -> value (``{}`` for a field-less row)."""
Config = dict[str, dict[str, Row]]
"""A whole configuration, table -> key -> row, the config_db.json layout."""

KEY_SEPARATOR = "|"


@dataclass(frozen=True)
class ConfigError:
    """One thing wrong with a configuration, located by table, key and (when it is a field) field.

    ``warning`` marks a problem that does not refuse the configuration: a dangling reference to an
    object other than a port (SONiC's daemons wait for it: NEED_RETRY) or a port the ASIC will refuse.
    """

    table: str
    key: str
    field: str | None
    value: str | None
    reason: str
    warning: bool = False

    def __str__(self) -> str:
        where = f"{self.table}{KEY_SEPARATOR}{self.key}" if self.key else self.table
        if self.field is None:
            return f"{where}: {self.reason}"
        return f"{where}: field '{self.field}' = '{self.value}': {self.reason}"


def display(value: Value) -> str:
    """A value as one string, for messages (lists are shown comma-joined)."""
    return ",".join(value) if isinstance(value, list) else value


# ---- leaf types --------------------------------------------------------------------------------


class Leaf:
    """A YANG leaf type over CONFIG_DB strings: says whether a value is valid and converts it."""

    def __init__(self, expect: str) -> None:
        self.expect = expect  # completes "must be ..."

    def accepts(self, text: str) -> bool:
        raise NotImplementedError

    def convert(self, text: str) -> Any:
        return text

    def items(self, value: Value) -> list[str]:
        """The names a reference on this leaf points at (one, or one per list item)."""
        return value if isinstance(value, list) else [value]

    def check(self, value: Value) -> str | None:
        """None if the value is valid, else the reason (``must be ...``)."""
        if isinstance(value, list):
            return "must be a single value, not a list"
        return None if self.accepts(value) else f"must be {self.expect}"

    def to_python(self, value: Value) -> Any:
        return self.convert(value) if isinstance(value, str) else value

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_before_validator_function(self._coerce, handler(source))

    def _coerce(self, value: Any) -> Any:
        if not _is_raw(value):
            return value  # already typed (a model built in code): the handler validates it
        reason = self.check(value)
        if reason is not None:
            raise ValueError(reason)
        return self.to_python(value)


def _is_raw(value: Any) -> bool:
    """A CONFIG_DB value (a string, or a non-empty list of strings) rather than an already typed one."""
    if isinstance(value, list):
        return bool(value) and all(isinstance(item, str) for item in value)
    return isinstance(value, str)


class Int(Leaf):
    """An integer in ``lo..hi`` (YANG intN/uintN with an optional range)."""

    _RE = re.compile(r"[+-]?[0-9]+")
    _CANONICAL = re.compile(r"-?(0|[1-9][0-9]*)")

    def __init__(self, lo: int, hi: int | None = None, *, canonical: bool = False) -> None:
        bounds = f"in {lo}..{hi}" if hi is not None else f">= {lo}"
        super().__init__(f"an integer {bounds}")
        self.lo, self.hi = lo, hi
        self._re = self._CANONICAL if canonical else self._RE

    def accepts(self, text: str) -> bool:
        if self._re.fullmatch(text) is None:
            return False
        number = int(text)
        return number >= self.lo and (self.hi is None or number <= self.hi)

    def convert(self, text: str) -> int:
        return int(text)


def UInt(hi: int | None = None) -> Int:  # noqa: N802 - reads like the YANG type it stands for
    """A non-negative integer (YANG uintN), optionally bounded above."""
    return Int(0, hi)


U8, U16, U32, U64 = 255, 65535, 4294967295, 18446744073709551615


class Choice(Leaf):
    """One of a fixed set of strings (YANG enumeration, or a pattern of alternatives)."""

    def __init__(self, *options: str) -> None:
        super().__init__("one of " + ", ".join(options))
        self.options = frozenset(options)

    def accepts(self, text: str) -> bool:
        return text in self.options


class Match(Leaf):
    """A string matching a regular expression, anchored at both ends as YANG patterns are."""

    def __init__(self, pattern: str, expect: str) -> None:
        super().__init__(expect)
        self._re = re.compile(pattern)

    def accepts(self, text: str) -> bool:
        return self._re.fullmatch(text) is not None


class Text(Leaf):
    """Any string, optionally with a length range (YANG string { length lo..hi })."""

    def __init__(self, lo: int = 0, hi: int | None = None) -> None:
        expect = f"a string of {lo}..{hi} characters" if hi is not None else f"a string of >= {lo} characters"
        super().__init__(expect)
        self.lo, self.hi = lo, hi

    def accepts(self, text: str) -> bool:
        return len(text) >= self.lo and (self.hi is None or len(text) <= self.hi)


class Bool(Leaf):
    """A boolean spelled as SONiC spells it: ``true``/``false`` (YANG boolean), optionally capitalised
    too (sonic-types ``boolean_type``)."""

    def __init__(self, *, capitalised: bool = False) -> None:
        words = ("true", "false", "True", "False") if capitalised else ("true", "false")
        super().__init__("one of " + ", ".join(words))
        self.words = frozenset(words)

    def accepts(self, text: str) -> bool:
        return text in self.words

    def convert(self, text: str) -> bool:
        return text.lower() == "true"


class Ip(Leaf):
    """An IP address, or with ``prefix`` an address/length (host bits allowed, as on interfaces)."""

    def __init__(self, version: int | None = None, *, prefix: bool = False) -> None:
        family = {None: "IP", 4: "IPv4", 6: "IPv6"}[version]
        super().__init__(f"an {family} prefix (address/length)" if prefix else f"an {family} address")
        self.version, self.prefix = version, prefix

    def accepts(self, text: str) -> bool:
        try:
            ip: (
                ipaddress.IPv4Interface
                | ipaddress.IPv6Interface
                | ipaddress.IPv4Address
                | ipaddress.IPv6Address
            )
            if self.prefix:
                if "/" not in text:
                    return False
                ip = ipaddress.ip_interface(text)
            else:
                ip = ipaddress.ip_address(text)
        except ValueError:
            return False
        return self.version is None or ip.version == self.version


class Csv(Leaf):
    """Several values in one string, comma-separated (``lanes`` "0,1,2,3", ``pfc_enable`` "3,4")."""

    def __init__(self, item: Leaf, *, empty: bool = False, what: str | None = None) -> None:
        super().__init__(what or f"a comma-separated list of {_plural(item.expect)}")
        self.item, self.empty = item, empty

    def accepts(self, text: str) -> bool:
        if text == "":
            return self.empty
        return all(self.item.accepts(part) for part in text.split(","))

    def items(self, value: Value) -> list[str]:
        if isinstance(value, list):
            return value
        return value.split(",") if value else []

    def convert(self, text: str) -> list[Any]:
        return [self.item.convert(part) for part in self.items(text)]


class ListOf(Csv):
    """A YANG leaf-list: an ``@`` list field, or (as SONiC tools also write it) a comma-joined string."""

    def check(self, value: Value) -> str | None:
        if isinstance(value, list):
            bad = [item for item in value if not self.item.accepts(item)]
            return f"must be a list of {_plural(self.item.expect)}; bad item '{bad[0]}'" if bad else None
        return super().check(value)

    def to_python(self, value: Value) -> Any:
        return [self.item.convert(item) for item in self.items(value)]


class AnyOf(Leaf):
    """A YANG union: valid if any member type accepts the value; converts with the first that does."""

    def __init__(self, *members: Leaf) -> None:
        super().__init__(" or ".join(member.expect for member in members))
        self.members = members

    def accepts(self, text: str) -> bool:
        return any(member.accepts(text) for member in self.members)

    def convert(self, text: str) -> Any:
        return next(member.convert(text) for member in self.members if member.accepts(text))


class IndexRange(Leaf):
    """A queue or PG index ``N`` or range ``N-M`` (``3-4``) with ``lo <= N <= M <= hi``."""

    _RE = re.compile(r"([0-9]+)(?:-([0-9]+))?")

    def __init__(self, lo: int, hi: int | None, what: str) -> None:
        bounds = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        super().__init__(f"a {what} index or range N or N-M, with N <= M in {bounds}")
        self.lo, self.hi = lo, hi

    def accepts(self, text: str) -> bool:
        found = self._RE.fullmatch(text)
        if found is None:
            return False
        first = int(found.group(1))
        last = int(found.group(2)) if found.group(2) is not None else first
        return self.lo <= first <= last and (self.hi is None or last <= self.hi)

    def convert(self, text: str) -> tuple[int, int]:
        first, _, last = text.partition("-")
        return int(first), int(last or first)


_PLURALS = (("integer", "integers"), ("string", "strings"), ("address", "addresses"))


def _plural(expect: str) -> str:
    """``an integer in 0..7`` -> ``integers in 0..7`` (for messages about lists)."""
    for article in ("an ", "a "):
        if expect.startswith(article):
            noun = expect[len(article) :]
            for singular, plural in _PLURALS:
                if singular in noun:
                    return noun.replace(singular, plural, 1)
            return noun
    return expect


# Leaves shared by several feature modules.
ADMIN_STATUS = Choice("up", "down")  # sonic-types admin_status
ON_OFF = Choice("on", "off")
ENABLE_DISABLE = Choice("enable", "disable")  # sonic-types mode-status
ENABLED_DISABLED = Choice("enabled", "disabled")  # sonic-types admin_mode
MAC = Match(r"[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}", "a MAC address xx:xx:xx:xx:xx:xx")
TPID = Choice("0x8100", "0x9100", "0x9200", "0x88a8", "0x88A8")  # sonic-types tpid_type
SWITCHPORT_MODE = Choice("routed", "access", "trunk")  # sonic-types switchport_mode
LOOPBACK_ACTION = Choice("drop", "forward")  # sonic-types loopback_action
NAME = Text(1)
# QoS map / cable-length / lossless-parameter list names (YANG pattern, 1..32 characters).
OBJECT_NAME = Match(r"[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}", "a name of 1..32 letters, digits, '-' or '_'")
PORTCHANNEL_NAME = Match(r"PortChannel[0-9]{1,4}", "PortChannel<N> with N of 1..4 digits")
VLAN_NAME = Match(
    r"Vlan(409[0-4]|40[0-8][0-9]|[1-3][0-9]{3}|[1-9][0-9]{2}|[1-9][0-9]|[2-9])", "Vlan<id>, id in 2..4094"
)
# VXLAN_TUNNEL_MAP.vlan and MCLAG_UNIQUE_IP use the older, looser pattern (Vlan0..Vlan4094).
VLAN_NAME_LOOSE = Match(r"Vlan([0-9]{1,3}|[1-3][0-9]{3}|40[0-8][0-9]|409[0-4])", "Vlan<id>, id in 0..4094")
ASIC_NAME = Match(r"[Aa][Ss][Ii][Cc][0-9]{1,2}", "asic<N>")  # sonic-types asic_name
VRF_NAME = Match(r"Vrf[a-zA-Z0-9_-]{1,12}", "Vrf<name> of at most 15 characters")
IP_PREFIX = Ip(prefix=True)


# ---- references --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """Leafref metadata: the value (each item, for lists) names a row of one of ``tables``.

    ``allow`` lists values that are not references (BUFFER_PG ``profile`` "NULL"). SONiC's old
    ``[TABLE|name]`` spelling is accepted for the same target tables (see ``strip_brackets``).
    """

    tables: tuple[str, ...]
    noun: str
    allow: frozenset[str] = frozenset()

    def targets(self) -> str:
        return " or ".join(self.tables)


def ref(*tables: str, noun: str, allow: Iterable[str] = ()) -> Ref:
    return Ref(tuple(tables), noun, frozenset(allow))


def strip_brackets(item: str, tables: tuple[str, ...]) -> str:
    """``[SCHEDULER|scheduler.0]`` -> ``scheduler.0`` when the bracket names one of ``tables``.

    The legacy reference syntax still appears in sonic-utilities' mock CONFIG_DB (QUEUE.scheduler);
    current orchagent rejects it (orch.cpp ``parseReference``), so accepting it here only keeps such
    files loadable.
    """
    if len(item) > 2 and item[0] == "[" and item[-1] == "]":
        table, sep, name = item[1:-1].partition(KEY_SEPARATOR)
        if sep and table in tables:
            return name
    return item


# ---- row models ---------------------------------------------------------------------------------


class RowModel(BaseModel):
    """Base of every CONFIG_DB row model: immutable, CONFIG_DB field names as aliases, unknown fields
    kept (SONiC keeps fields it does not know; validation reports them)."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)


class MapRow(RowModel):
    """A row whose field names are data: QoS maps (``"46": "5"``), CABLE_LENGTH (``"Ethernet0": "5m"``).

    Subclasses set ``MAP_KEY``/``MAP_VALUE`` (and ``MAP_KEY_REF`` when the field names are references).
    """

    MAP_KEY: ClassVar[Leaf]
    MAP_VALUE: ClassVar[Leaf]
    MAP_KEY_REF: ClassVar[Ref | None] = None

    @model_validator(mode="before")
    @classmethod
    def _check_entries(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            for name, value in data.items():
                for leaf, text, what in ((cls.MAP_KEY, name, "name"), (cls.MAP_VALUE, value, "value")):
                    reason = leaf.check(text)
                    if reason is not None:
                        raise ValueError(f"field {what} '{display(text)}': {reason}")
        return data

    def mapping(self) -> dict[Any, Any]:
        """The entries converted, e.g. ``{46: 5}`` for a DSCP_TO_TC_MAP row."""
        extra = self.__pydantic_extra__ or {}
        return {self.MAP_KEY.convert(k): self.MAP_VALUE.to_python(v) for k, v in extra.items()}


@dataclass(frozen=True)
class FieldRule:
    """What validation needs to know about one declared field, read once from a row model."""

    name: str
    leaf: Leaf
    ref: Ref | None
    required: bool


ANY_TEXT = Text()  # the leaf of a field declared without one: any single string


@cache
def field_rules(model: type[RowModel]) -> Mapping[str, FieldRule]:
    """The model's fields by CONFIG_DB name, with their leaf type, reference and mandatory flag."""
    rules: dict[str, FieldRule] = {}
    for attr, info in model.model_fields.items():
        name = info.alias or attr
        leaf = next((m for m in info.metadata if isinstance(m, Leaf)), ANY_TEXT)
        target = next((m for m in info.metadata if isinstance(m, Ref)), None)
        rules[name] = FieldRule(name, leaf, target, info.is_required())
    return rules


# ---- keys and tables ----------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyPart:
    """One ``|``-separated part of a key: its type, what it references, and literal values (``CPU``,
    ``global``) that are neither type-checked nor references."""

    name: str
    leaf: Leaf
    ref: Ref | None = None
    literals: frozenset[str] = frozenset()


class Lookup:
    """Read access to the whole configuration for references and cross-row checks (key sets cached)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._keys: dict[str, frozenset[str]] = {}

    def keys(self, table: str) -> frozenset[str]:
        known = self._keys.get(table)
        if known is None:
            known = self._keys[table] = frozenset(self.config.get(table, {}))
        return known

    def rows(self, table: str) -> dict[str, Row]:
        return self.config.get(table, {})

    def exists(self, tables: tuple[str, ...], name: str) -> bool:
        return any(name in self.keys(table) for table in tables)

    def present(self, table: str) -> bool:
        return table in self.config


RowCheck = Callable[[Lookup, str, tuple[str, ...], Row], Iterable[ConfigError]]
"""A cross-field (or cross-table) check on one row: (lookup, key, key parts, row) -> errors."""
TableCheck = Callable[[Lookup], Iterable[ConfigError]]
"""A check over a whole table (or several): lookup -> errors."""


@dataclass(frozen=True)
class KeyShape:
    """One way a table's keys are built (``Ethernet0`` or ``Ethernet0|10.0.0.0/31``), with its row model.

    ``literal`` restricts the shape to one exact key (PFC_WD ``GLOBAL``).
    """

    parts: tuple[KeyPart, ...]
    model: type[RowModel]
    checks: tuple[RowCheck, ...] = ()
    literal: str | None = None

    def matches(self, parts: tuple[str, ...]) -> bool:
        if len(parts) != len(self.parts):
            return False
        return self.literal is None or parts[0] == self.literal

    def describe(self) -> str:
        return self.literal or KEY_SEPARATOR.join(f"<{part.name}>" for part in self.parts)


@dataclass(frozen=True)
class TableSchema:
    """A CONFIG_DB table: its name, its key shapes (tried in order) and its whole-table checks."""

    name: str
    shapes: tuple[KeyShape, ...]
    checks: tuple[TableCheck, ...] = ()

    def shape_for(self, parts: tuple[str, ...]) -> KeyShape | None:
        return next((shape for shape in self.shapes if shape.matches(parts)), None)

    def describe_keys(self) -> str:
        return " or ".join(shape.describe() for shape in self.shapes)


def single(
    name: str,
    model: type[RowModel],
    leaf: Leaf = NAME,
    *,
    key_ref: Ref | None = None,
    checks: tuple[TableCheck, ...] = (),
) -> TableSchema:
    """A table keyed by one name (the common case)."""
    return TableSchema(name, (KeyShape((KeyPart("name", leaf, key_ref),), model),), checks)


def max_rows(table: str, limit: int) -> TableCheck:
    """A table check: YANG ``max-elements`` (VXLAN_TUNNEL 2, VXLAN_EVPN_NVO 1, MCLAG_DOMAIN 1)."""

    def check(lookup: Lookup) -> Iterable[ConfigError]:
        count = len(lookup.rows(table))
        if count > limit:
            yield ConfigError(table, "", None, None, f"has {count} rows; at most {limit} allowed")

    return check
