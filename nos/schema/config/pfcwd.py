"""Row models for the PFC watchdog: PFC_WD per port and PFC_WD|GLOBAL.

YANG: sonic-pfcwd.yang. Per-port leaves are refused on GLOBAL and ``POLL_INTERVAL`` on ports (the YANG
``must`` statements), which the two key shapes express; a port's detection and restoration times may not
be shorter than the global poll interval. ``BIG_RED_SWITCH`` (GLOBAL) is not in the YANG but is written
by the ``pfcwd`` CLI and read by PfcWdOrch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

from nos.schema.config import (
    Choice,
    ConfigError,
    Int,
    KeyPart,
    KeyShape,
    Lookup,
    Match,
    RowModel,
    TableSchema,
    Text,
    ref,
)
from nos.schema.tables import CFG_PFC_WD_TABLE_NAME, CFG_PORT_TABLE_NAME

GLOBAL_KEY = "GLOBAL"
ENABLE_DISABLE = Choice("enable", "disable")


class PfcWdRow(RowModel):
    """``PFC_WD|<port>``: watchdog settings for one port (times in ms)."""

    action: Annotated[str | None, Choice("drop", "forward", "alert")] = None
    detection_time: Annotated[int | None, Int(100, 5000)] = None
    restoration_time: Annotated[int | None, Int(100, 60000)] = None
    pfc_stat_history: Annotated[str | None, ENABLE_DISABLE] = None


class PfcWdGlobalRow(RowModel):
    """``PFC_WD|GLOBAL``: the poll interval (ms) and the big red switch."""

    POLL_INTERVAL: Annotated[int | None, Int(100, 1000)] = None
    BIG_RED_SWITCH: Annotated[str | None, ENABLE_DISABLE] = None


def check_against_poll_interval(lookup: Lookup) -> Iterable[ConfigError]:
    """detection_time and restoration_time must be >= GLOBAL POLL_INTERVAL (YANG ``must``)."""
    rows = lookup.rows(CFG_PFC_WD_TABLE_NAME)
    poll = rows.get(GLOBAL_KEY, {}).get("POLL_INTERVAL")
    if not isinstance(poll, str) or not poll.isdecimal():
        return
    for key, row in sorted(rows.items()):
        for field in ("detection_time", "restoration_time"):
            value = row.get(field) if key != GLOBAL_KEY else None
            if isinstance(value, str) and value.isdecimal() and int(value) < int(poll):
                reason = f"must be >= the GLOBAL POLL_INTERVAL ({poll} ms)"
                yield ConfigError(CFG_PFC_WD_TABLE_NAME, key, field, value, reason)


PFC_WD = TableSchema(
    CFG_PFC_WD_TABLE_NAME,
    (
        KeyShape((KeyPart("ifname", Match(GLOBAL_KEY, GLOBAL_KEY)),), PfcWdGlobalRow, literal=GLOBAL_KEY),
        KeyShape((KeyPart("ifname", Text(1), ref(CFG_PORT_TABLE_NAME, noun="port")),), PfcWdRow),
    ),
    (check_against_poll_interval,),
)

SCHEMAS = (PFC_WD,)
