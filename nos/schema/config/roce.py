"""Row models for the RoCE intent (not SONiC's tables: ours): ``ROCE|global`` and ``NOS_ROCE_SAVED``.

``ROCE|global`` is the whole intent, one row; every field is optional and falls back to the chosen
profile (``nos.intent.roce.profiles``). Fields:

* ``enabled`` true|false (default true; false, or deleting the row, turns the intent off)
* ``mode`` lossless|lossy, ``profile`` nvidia|sonic
* ``roce_dscp`` DSCPs ("26", "3,4"), ``roce_priority`` their priorities (one for all, or one per DSCP)
* ``cnp_dscp``, ``cnp_tc``: the congestion notifications' DSCP and traffic class (made strict)
* ``cable_length`` ("5m"; a length of the SKU's pg_profile_lookup.ini; default: each port's current one)
* ``ecn_min``, ``ecn_max`` (bytes), ``ecn_probability`` (percent)
* ``pfcwd`` on|off, ``pfcwd_detection_ms``, ``pfcwd_restoration_ms``, ``pfcwd_action`` drop|forward|alert
* ``roce_weight``, ``lossy_weight``: DWRR weights of the RoCE queues and of the other data queues
* ``ports``: ``all`` (default) or a comma-separated list of ports

``NOS_ROCE_SAVED|<TABLE>`` holds, for every row the expansion owns, the row as it was before the intent
first touched it: field ``<key>`` = the row as JSON, or ``null`` when there was none. Turning the intent
off writes those rows back (``nos.intent.roce.saved``). It lives in CONFIG_DB so that ``config save``
keeps it with the intent it belongs to.

Leaf types are checked here; the cross-field rules (one priority per DSCP, CNP apart from RoCE, ECN min
<= max, ...) are ``nos.intent.roce.model``'s, run through :func:`check_intent` so that ``config load``,
REST and gNMI refuse the same rows the intent manager would.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Annotated, Any, ClassVar, Literal

from nos.schema.config import (
    U32,
    Bool,
    Choice,
    ConfigError,
    Csv,
    Int,
    KeyPart,
    KeyShape,
    Leaf,
    Lookup,
    MapRow,
    Match,
    Row,
    RowModel,
    TableSchema,
    Text,
    UInt,
    field_rules,
    ref,
)
from nos.schema.tables import CFG_PORT_TABLE_NAME, CFG_ROCE_SAVED_TABLE_NAME, CFG_ROCE_TABLE_NAME

ROCE_KEY = "global"
ALL_PORTS = "all"

DSCP_LIST = Csv(Int(0, 63, canonical=True), what="a comma-separated list of DSCPs 0..63")
PRIORITY_LIST = Csv(Int(0, 7, canonical=True), what="a comma-separated list of priorities 0..7")
CABLE = Match(r"[1-9][0-9]*m", "a cable length in metres such as 5m")
PORTS = Csv(Text(1), what="'all' or a comma-separated list of ports")


class RoceRow(RowModel):
    """``ROCE|global``: the RoCE intent (see the module docstring)."""

    enabled: Annotated[bool | None, Bool()] = None
    mode: Annotated[str | None, Choice("lossless", "lossy")] = None
    profile: Annotated[str | None, Choice("nvidia", "sonic")] = None
    roce_dscp: Annotated[list[int] | None, DSCP_LIST] = None
    roce_priority: Annotated[list[int] | None, PRIORITY_LIST] = None
    cnp_dscp: Annotated[int | None, Int(0, 63, canonical=True)] = None
    cnp_tc: Annotated[int | None, Int(0, 7, canonical=True)] = None
    cable_length: Annotated[str | None, CABLE] = None
    ecn_min: Annotated[int | None, UInt(U32)] = None
    ecn_max: Annotated[int | None, UInt(U32)] = None
    ecn_probability: Annotated[int | None, Int(0, 100)] = None
    pfcwd: Annotated[str | None, Choice("on", "off")] = None
    pfcwd_detection_ms: Annotated[int | None, Int(100, 5000)] = None
    pfcwd_restoration_ms: Annotated[int | None, Int(100, 60000)] = None
    pfcwd_action: Annotated[str | None, Choice("drop", "forward", "alert")] = None
    roce_weight: Annotated[int | None, Int(1, 100)] = None
    lossy_weight: Annotated[int | None, Int(1, 100)] = None
    ports: Annotated[list[str] | None, PORTS, ref(CFG_PORT_TABLE_NAME, noun="port", allow=(ALL_PORTS,))] = None


class SavedRow(Leaf):
    """A saved row: a JSON object of string (or list of strings) fields, or ``null``."""

    def __init__(self) -> None:
        super().__init__("a row as JSON (an object of strings) or null")

    def accepts(self, text: str) -> bool:
        return parse_saved_row(text) is not False

    def convert(self, text: str) -> Any:
        return parse_saved_row(text)


def parse_saved_row(text: str) -> dict[str, Any] | None | Literal[False]:
    """The row a ``NOS_ROCE_SAVED`` field holds (None: there was none), or False when it is not one."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        return False
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, str | list) for v in value.values()):
        return False
    return value


class RoceSavedRow(MapRow):
    """``NOS_ROCE_SAVED|<TABLE>``: ``<key>`` -> the pre-intent row as JSON (``null``: there was none)."""

    MAP_KEY: ClassVar[Leaf] = Text(1)
    MAP_VALUE: ClassVar[Leaf] = SavedRow()


def check_intent(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
    """The intent model's cross-field rules on ``ROCE|global`` (leaf types are checked already), and,
    in a whole configuration (one that names its SKU and has ports), what the switch cannot do: the
    expansion's refusals (a cable length without headroom row, a port without speed)."""
    # the intent builds on this schema: imported here, when a ROCE row is checked
    from nos.intent.roce.expand import expand
    from nos.intent.roce.facts import facts_for, hwsku_of
    from nos.intent.roce.model import IntentError, resolve

    rules = field_rules(RoceRow)
    typed = {name for name, value in row.items() if name in rules and rules[name].leaf.check(value) is not None}
    config = lookup.config
    try:
        intent = resolve(row)
        if intent.enabled and hwsku_of(config) and config.get(CFG_PORT_TABLE_NAME):
            expand(intent, config, facts_for(config))
    except IntentError as exc:
        yield from (error for error in exc.errors if error.field not in typed)  # those are reported already


ROCE = TableSchema(
    CFG_ROCE_TABLE_NAME,
    (KeyShape((KeyPart("name", Choice(ROCE_KEY)),), RoceRow, (check_intent,), literal=ROCE_KEY),),
)
ROCE_SAVED = TableSchema(
    CFG_ROCE_SAVED_TABLE_NAME, (KeyShape((KeyPart("table", Text(1)),), RoceSavedRow),)
)

SCHEMAS = (ROCE, ROCE_SAVED)
__all__ = ["ALL_PORTS", "CFG_ROCE_SAVED_TABLE_NAME", "CFG_ROCE_TABLE_NAME", "ROCE", "ROCE_KEY", "ROCE_SAVED", "SCHEMAS",
           "RoceRow", "RoceSavedRow", "check_intent", "parse_saved_row"]
