"""Row models for link aggregation: PORTCHANNEL and PORTCHANNEL_MEMBER, and the one-LAG-per-port check.

YANG: sonic-portchannel.yang. ``members`` is the legacy ``members@`` list some older files still carry;
it is checked like a member row (each item must be a port).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

from nos.schema.config import (
    ADMIN_STATUS,
    KEY_SEPARATOR,
    MAC,
    PORTCHANNEL_NAME,
    SWITCHPORT_MODE,
    TPID,
    AnyOf,
    Bool,
    Choice,
    ConfigError,
    Int,
    KeyPart,
    KeyShape,
    ListOf,
    Lookup,
    RowModel,
    TableSchema,
    Text,
    ref,
    single,
)
from nos.schema.tables import CFG_LAG_MEMBER_TABLE_NAME, CFG_LAG_TABLE_NAME, CFG_PORT_TABLE_NAME

PORT_REF = ref(CFG_PORT_TABLE_NAME, noun="port")
LAG_REF = ref(CFG_LAG_TABLE_NAME, noun="portchannel")


class PortChannelRow(RowModel):
    """``PORTCHANNEL|PortChannel<N>``."""

    admin_status: Annotated[str, ADMIN_STATUS]
    mtu: Annotated[int | None, Int(1, 9216)] = None
    min_links: Annotated[int | None, Int(1, 1024)] = None
    mode: Annotated[str | None, SWITCHPORT_MODE] = None
    description: Annotated[str | None, Text(1, 255)] = None
    lacp_key: Annotated[str | None, AnyOf(Choice("auto"), Int(1, 65535))] = None
    tpid: Annotated[str | None, TPID] = None
    fallback: Annotated[bool | None, Bool(capitalised=True)] = None
    fast_rate: Annotated[bool | None, Bool(capitalised=True)] = None
    system_mac: Annotated[str | None, MAC] = None
    members: Annotated[list[str] | None, ListOf(Text(1)), PORT_REF] = None


class PortChannelMemberRow(RowModel):
    """``PORTCHANNEL_MEMBER|PortChannel<N>|<port>``: no fields."""


def check_one_lag_per_port(lookup: Lookup) -> Iterable[ConfigError]:
    """A port may be a member of one PORTCHANNEL only."""
    first_lag: dict[str, str] = {}
    for key in sorted(lookup.rows(CFG_LAG_MEMBER_TABLE_NAME)):
        lag, sep, port = key.partition(KEY_SEPARATOR)
        if not sep:
            continue
        first = first_lag.setdefault(port, lag)
        if first != lag:
            reason = f"port '{port}' is already a member of '{first}'; a port can be in one portchannel only"
            yield ConfigError(CFG_LAG_MEMBER_TABLE_NAME, key, None, None, reason)


PORTCHANNEL = single(CFG_LAG_TABLE_NAME, PortChannelRow, PORTCHANNEL_NAME)
PORTCHANNEL_MEMBER = TableSchema(
    CFG_LAG_MEMBER_TABLE_NAME,
    (
        KeyShape(
            (KeyPart("name", PORTCHANNEL_NAME, LAG_REF), KeyPart("port", Text(1), PORT_REF)),
            PortChannelMemberRow,
        ),
    ),
    (check_one_lag_per_port,),
)

SCHEMAS = (PORTCHANNEL, PORTCHANNEL_MEMBER)
