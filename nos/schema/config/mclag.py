"""Row models for MC-LAG: MCLAG_DOMAIN, MCLAG_INTERFACE and MCLAG_UNIQUE_IP.

YANG: sonic-mclag.yang. One domain at most (id 1..4095); keepalive 1..60 s and session timeout
1..3600 s (defaults 1 and 30) with keepalive x 3 <= session timeout; the peer link is a port or a
portchannel; MCLAG interfaces are portchannels of an existing domain, never its peer link (iccpd
refuses a peer link that is also an MC-LAG member: the peer link carries the pair's own traffic);
unique-IP VLANs need a domain.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

from nos.schema.config import (
    PORTCHANNEL_NAME,
    VLAN_NAME_LOOSE,
    Choice,
    ConfigError,
    Int,
    Ip,
    KeyPart,
    KeyShape,
    Lookup,
    Row,
    RowModel,
    TableSchema,
    Text,
    max_rows,
    ref,
    single,
)
from nos.schema.tables import (
    CFG_LAG_TABLE_NAME,
    CFG_MCLAG_INTF_TABLE_NAME,
    CFG_MCLAG_TABLE_NAME,
    CFG_MCLAG_UNIQUE_IP_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
)

DOMAIN_ID = Int(1, 4095)
KEEPALIVE = Int(1, 60)
SESSION_TIMEOUT = Int(1, 3600)
DEFAULT_KEEPALIVE, DEFAULT_SESSION_TIMEOUT = 1, 30


class MclagDomainRow(RowModel):
    """``MCLAG_DOMAIN|<domain id>``."""

    source_ip: Annotated[str | None, Ip(4)] = None
    peer_ip: Annotated[str | None, Ip(4)] = None
    peer_link: Annotated[
        str | None, Text(1), ref(CFG_PORT_TABLE_NAME, CFG_LAG_TABLE_NAME, noun="peer link interface")
    ] = None
    keepalive_interval: Annotated[int | None, KEEPALIVE] = None
    session_timeout: Annotated[int | None, SESSION_TIMEOUT] = None


class MclagInterfaceRow(RowModel):
    """``MCLAG_INTERFACE|<domain id>|PortChannel<N>``."""

    if_type: str | None = None


class MclagUniqueIpRow(RowModel):
    """``MCLAG_UNIQUE_IP|Vlan<id>``."""

    unique_ip: Annotated[str | None, Choice("enable")] = None


def _seconds(row: Row, field: str, default: int, leaf: Int) -> int | None:
    value = row.get(field)
    if value is None:
        return default
    return int(value) if isinstance(value, str) and leaf.accepts(value) else None


def check_timers(lookup: Lookup, key: str, parts: tuple[str, ...], row: Row) -> Iterable[ConfigError]:
    """keepalive_interval x 3 must not exceed session_timeout (defaults apply when absent)."""
    keepalive = _seconds(row, "keepalive_interval", DEFAULT_KEEPALIVE, KEEPALIVE)
    timeout = _seconds(row, "session_timeout", DEFAULT_SESSION_TIMEOUT, SESSION_TIMEOUT)
    if keepalive is not None and timeout is not None and keepalive * 3 > timeout:
        reason = f"must be >= 3 x keepalive_interval ({keepalive} s)"
        yield ConfigError(CFG_MCLAG_TABLE_NAME, key, "session_timeout", str(timeout), reason)


def check_unique_ip_needs_domain(lookup: Lookup) -> Iterable[ConfigError]:
    """MCLAG_UNIQUE_IP rows need an MCLAG domain (YANG ``must``)."""
    if lookup.rows(CFG_MCLAG_TABLE_NAME):
        return
    for key in sorted(lookup.rows(CFG_MCLAG_UNIQUE_IP_TABLE_NAME)):
        yield ConfigError(CFG_MCLAG_UNIQUE_IP_TABLE_NAME, key, None, None, "needs an MCLAG_DOMAIN")


def check_peer_link_not_member(lookup: Lookup) -> Iterable[ConfigError]:
    """An MCLAG_INTERFACE may not be its domain's peer link."""
    domains = lookup.rows(CFG_MCLAG_TABLE_NAME)
    for key in sorted(lookup.rows(CFG_MCLAG_INTF_TABLE_NAME)):
        domain, _, name = key.partition("|")
        peer_link = (domains.get(domain) or {}).get("peer_link")
        if name and name == peer_link:
            yield ConfigError(CFG_MCLAG_INTF_TABLE_NAME, key, None, None,
                              f"{name} is the peer_link of MCLAG_DOMAIN|{domain}: a peer link cannot be a member")


MCLAG_DOMAIN = TableSchema(
    CFG_MCLAG_TABLE_NAME,
    (KeyShape((KeyPart("domain_id", DOMAIN_ID),), MclagDomainRow, (check_timers,)),),
    (max_rows(CFG_MCLAG_TABLE_NAME, 1),),
)
MCLAG_INTERFACE = TableSchema(
    CFG_MCLAG_INTF_TABLE_NAME,
    (
        KeyShape(
            (
                KeyPart("domain_id", DOMAIN_ID, ref(CFG_MCLAG_TABLE_NAME, noun="MCLAG domain")),
                KeyPart("if_name", PORTCHANNEL_NAME, ref(CFG_LAG_TABLE_NAME, noun="portchannel")),
            ),
            MclagInterfaceRow,
        ),
    ),
    (check_peer_link_not_member,),
)
MCLAG_UNIQUE_IP = single(
    CFG_MCLAG_UNIQUE_IP_TABLE_NAME, MclagUniqueIpRow, VLAN_NAME_LOOSE, checks=(check_unique_ip_needs_domain,)
)

SCHEMAS = (MCLAG_DOMAIN, MCLAG_INTERFACE, MCLAG_UNIQUE_IP)
