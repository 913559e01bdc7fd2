"""What APPL_DB asks of the ASIC, counted: the routes, interface addresses and ports it holds or has
queued (the IO half of ``nos.runtime.convergence``).

Redis has no count of keys by prefix, so APPL_DB is walked once with SCAN (2,000 keys a call: each call
holds Redis ~0.5 ms, so a route load is not stalled; ~0.1 s for 100,000 routes). Both the rows a
consumer has taken (``ROUTE_TABLE:<key>``) and those still queued (``_ROUTE_TABLE:<key>``, with the
key in ``ROUTE_TABLE_KEY_SET``) count; a queued delete (``ROUTE_TABLE_DEL_SET``) does not. The key and
delete sets are read before the walk (see ``TableKeys.wanted``).

Which ROUTE_TABLE rows are no ASIC route is routeorch's decision (``orchagent/orchs/route_plan.py``:
a route over eth0, docker0, lo or a Loopback is removed from the ASIC; a single interface route over
``unknown``, ``tun0`` or a Vrf device, for a non-global prefix, or a full-length prefix that is an
interface's own /32 or /128 address, is skipped). ``nos`` may not import orchagent, so
``is_asic_route`` restates those rules; a unit test holds it to orchagent's. The rows are read for
that only when the counts do not add up with nothing in flight (``read_route_rows``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import cast

from nos.db.connector import DBConnector
from nos.db.errors import map_redis_errors
from nos.db.producer_state import del_set_name, key_set_name
from nos.schema.tables import APP_INTF_TABLE_NAME, APP_PORT_TABLE_NAME, APP_ROUTE_TABLE_NAME

SCAN_COUNT = 2000  # keys a SCAN call visits: ~0.5 ms of Redis each
READ_BATCH = 2000
EXCLUDED_IFNAMES = frozenset({"eth0", "docker0", "lo"})
SKIPPED_IFNAMES = frozenset({"unknown", "tun0"})
INTF_SKIPPED = frozenset({"eth0", "docker0"})  # intfsorch: not routed by the ASIC (no ip2me)
LOOPBACK_PREFIX = "Loopback"
VRF_PREFIX = "Vrf"
DEFAULT_PREFIXES = frozenset({"0.0.0.0/0", "::/0"})
TABLES = (APP_ROUTE_TABLE_NAME, APP_INTF_TABLE_NAME, APP_PORT_TABLE_NAME)


@dataclass
class TableKeys:
    """The keys of one APPL_DB producer-state table: taken by the consumer (``T:k``), queued with
    fields (``_T:k``), and the queue's key and delete sets as read before the walk."""

    taken: set[str] = field(default_factory=set)
    queued: set[str] = field(default_factory=set)
    pending: set[str] = field(default_factory=set)   # T_KEY_SET
    deletes: set[str] = field(default_factory=set)   # T_DEL_SET

    @property
    def wanted(self) -> set[str]:
        """Keys APPL_DB asks for once the queue is consumed. The sets are read before the walk, so a
        key the consumer moves from ``_T:k`` to ``T:k`` while SCAN passes (and so may see in neither)
        is still counted; only what is written during the walk may be missed."""
        sets = self.pending - self.deletes
        return (self.taken | self.queued | sets) - (self.deletes - self.queued)


def sort_names(names: list[str], keys: dict[str, TableKeys]) -> None:
    """File APPL_DB key names under their tables (pure; other tables' names are ignored)."""
    taken = {table: found.taken for table, found in keys.items()}
    queued = {f"_{table}": found.queued for table, found in keys.items()}
    for name in names:
        table, sep, key = name.partition(":")
        found = taken.get(table) if sep else None
        if found is None:
            found = queued.get(table) if sep else None
            if found is None:
                continue
        found.add(key)


def scan_tables(appl: DBConnector, tables: Iterable[str] = TABLES) -> dict[str, TableKeys]:
    """One SCAN pass over APPL_DB: the keys of ``tables``, with their queued deletes."""
    keys = {table: TableKeys() for table in tables}
    client = appl.client
    with map_redis_errors("scan APPL_DB"):
        pipe = client.pipeline(transaction=False)
        for table in keys:
            pipe.smembers(key_set_name(table))
            pipe.smembers(del_set_name(table))
        sets = pipe.execute()
        for i, found in enumerate(keys.values()):
            found.pending, found.deletes = cast(set[str], sets[2 * i]), cast(set[str], sets[2 * i + 1])
        cursor = 0
        while True:
            cursor, names = cast(tuple[int, list[str]], client.scan(cursor, count=SCAN_COUNT))
            sort_names(names, keys)
            if not cursor:
                break
    return keys


def read_route_rows(appl: DBConnector, keys: Iterable[str]) -> dict[str, dict[str, str]]:
    """The fields of ROUTE_TABLE rows (taken, else queued), a pipelined batch at a time."""
    out: dict[str, dict[str, str]] = {}
    names = list(keys)
    with map_redis_errors("read APPL_DB ROUTE_TABLE"):
        for start in range(0, len(names), READ_BATCH):
            pipe = appl.client.pipeline(transaction=False)
            chunk = names[start:start + READ_BATCH]
            for key in chunk:
                pipe.hgetall(f"{APP_ROUTE_TABLE_NAME}:{key}")
                pipe.hgetall(f"_{APP_ROUTE_TABLE_NAME}:{key}")
            replies = pipe.execute()
            for i, key in enumerate(chunk):
                out[key] = replies[2 * i] or replies[2 * i + 1]
    return out


# -- pure: which rows are ASIC routes --------------------------------------------------------------
def route_prefix(key: str) -> tuple[str, str]:
    """``[<Vrf>:]<prefix>`` -> (vrf or "", prefix as written)."""
    if key.startswith(VRF_PREFIX):
        vrf, _, prefix = key.partition(":")
        return vrf, prefix
    return "", key


def is_default_route(key: str) -> bool:
    """The default VRF's default routes: routeorch sets the entries it made at start, it adds none."""
    vrf, prefix = route_prefix(key)
    return not vrf and prefix in DEFAULT_PREFIXES


def _network(prefix: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(prefix, strict=False)
    except ValueError:
        return None


def _zero(hop: str) -> str:
    """"" for the interface itself (no address, 0.0.0.0 or ::), else the address."""
    try:
        return "" if not hop or ipaddress.ip_address(hop).is_unspecified else hop
    except ValueError:
        return hop


def _own_address(network: ipaddress.IPv4Network | ipaddress.IPv6Network, alias: str,
                 addresses: Mapping[str, set[str]]) -> bool:
    if network.prefixlen != network.max_prefixlen:
        return False
    return any(_network(address) == network for address in addresses.get(alias, ()))


def is_asic_route(key: str, fields: Mapping[str, str], addresses: Mapping[str, set[str]]) -> bool:
    """Whether routeorch makes a ROUTE_ENTRY of this ROUTE_TABLE row (``addresses``: interface ->
    its INTF_TABLE addresses). An invalid row counts as an ASIC route: routeorch refuses it, and
    refused rows are counted apart."""
    aliases = [a for a in fields.get("ifname", "").split(",") if a]
    if fields.get("nexthop_group"):
        return True
    if any(a in EXCLUDED_IFNAMES or a.startswith(LOOPBACK_PREFIX) for a in aliases):
        return False
    text = fields.get("nexthop", "")
    hops = ((text.split(",") if text else []) + [""] * len(aliases))[:len(aliases)]
    pairs = {(_zero(hop), alias) for hop, alias in zip(hops, aliases, strict=True)}
    if fields.get("blackhole") == "true" or len(pairs) != 1:
        return True
    (hop, alias), = pairs
    if hop:
        return True
    network = _network(route_prefix(key)[1])
    if alias in SKIPPED_IFNAMES or alias.startswith(VRF_PREFIX) or network is None:
        return network is None
    address = network.network_address
    if address.is_link_local or address.is_multicast or address.is_loopback:
        return False
    return not _own_address(network, alias, addresses)


def interface_addresses(intf_keys: Iterable[str]) -> dict[str, set[str]]:
    """INTF_TABLE ``<if>:<address>`` keys by interface (pure; keys without an address are skipped)."""
    out: dict[str, set[str]] = {}
    for key in intf_keys:
        alias, sep, address = key.partition(":")
        if sep and address:
            out.setdefault(alias, set()).add(address)
    return out


def ip2me_count(addresses: Mapping[str, set[str]]) -> int:
    """ROUTE_ENTRY objects intfsorch makes for interface addresses: one per address (not on eth0/docker0)."""
    return sum(len(found) for alias, found in addresses.items() if alias not in INTF_SKIPPED)
