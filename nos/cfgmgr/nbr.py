"""Static neighbour manager: SONiC's nbrmgrd plus the kernel and neighsyncd it relies on.

In SONiC, nbrmgrd (swss:cfgmgr/nbrmgr.cpp ``doSetNeighTask``) programs a CONFIG_DB ``NEIGH`` entry into
the kernel (NUD_PERMANENT with a MAC, or a resolve request without one) once STATE_DB
``INTERFACE_TABLE|<interface>`` exists; neighsyncd then reports the kernel entry as APPL_DB
``NEIGH_TABLE:<interface>:<ip>`` {neigh, family}. Here the kernel is simulated, so:

* ``NEIGH|<interface>|<ip>`` {neigh: MAC} -> ``NEIGH_TABLE:<interface>:<ip>`` {``neigh`` (lower-case, as
  the kernel prints it), ``family`` (IPv4/IPv6, from the address)}: exactly those two fields;
* ``NEIGH|<interface>|<ip>`` without ``neigh`` -> ``NEIGH_RESOLVE_TABLE:<interface>:<ip>``
  {mac: 00:00:00:00:00:00} (the resolve request, in the form NeighOrch writes it);
* both wait (NEED_RETRY) until STATE_DB ``INTERFACE_TABLE|<interface>`` exists.

nbrmgrd also consumes APPL_DB ``NEIGH_RESOLVE_TABLE`` (``doResolveNeighTask``), the requests NeighOrch
writes for next hops that have no neighbour yet: its consumer pops them, so each request stands as the
hash ``NEIGH_RESOLVE_TABLE:<interface>:<ip>`` until NeighOrch deletes it once the neighbour exists
(SONiC's tests wait for exactly that hash and for its removal). Upstream then asks the kernel to ARP /
ND for the address; the simulated kernel has no peer to ask, so a request is only recorded.

When STATE_DB ``INTERFACE_TABLE|<interface>`` disappears, the interface's neighbours are removed from
APPL_DB (in SONiC the kernel flushes them with the address and neighsyncd deletes them). They are not
re-added when the interface comes back: nbrmgrd programs a NEIGH row once, when it is written, so a
row left in CONFIG_DB from before acts again only when it is written again (a later case or test that
re-creates the interface sees no stale neighbour, and its next hops ask for resolution as on SONiC).

Deviations (stated because SONiC differs): nbrmgrd ignores NEIGH deletes ("Not yet implemented"); here a
delete removes the APPL_DB row. A ``family`` that contradicts the address is refused (nbrmgrd ignores
the field).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ConsumerStateTable, ProducerStateTable, SubscriberStateTable, Table
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    APP_NEIGH_RESOLVE_TABLE_NAME,
    APP_NEIGH_TABLE_NAME,
    CFG_NEIGH_TABLE_NAME,
    STATE_INTERFACE_TABLE_NAME,
)

CONSUMES = ((CONFIG_DB, CFG_NEIGH_TABLE_NAME), (STATE_DB, STATE_INTERFACE_TABLE_NAME),
            (APPL_DB, APP_NEIGH_RESOLVE_TABLE_NAME))   # the resolve requests: ``handle_resolve``
PRODUCES = ((APPL_DB, APP_NEIGH_TABLE_NAME), (APPL_DB, APP_NEIGH_RESOLVE_TABLE_NAME))

KEY_SEP = "|"
APPL_SEP = ":"
FAMILIES = {4: "IPv4", 6: "IPv6"}
RESOLVE_FIELDS = {"mac": "00:00:00:00:00:00"}  # NeighOrch::resolveNeighbor's placeholder
_MAC = re.compile(r"[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2}){4}")


@dataclass(frozen=True)
class Neighbour:
    """One NEIGH row: where it goes in APPL_DB and with what."""

    interface: str
    table: str
    appl_key: str
    fields: tuple[tuple[str, str], ...]


def parse_mac(text: str) -> str:
    """``00:01:02:03:04:05`` or ``00-01-...`` -> lower-case colon form; raises ValueError otherwise."""
    if _MAC.fullmatch(text) is None:
        raise ValueError(f"field 'neigh' = '{text}': must be a MAC address xx:xx:xx:xx:xx:xx")
    return text.replace("-", ":").lower()


def parse_neigh(key: str, fields: Mapping[str, str]) -> Neighbour:
    """A NEIGH row -> Neighbour (pure); raises ValueError naming the bad key part or field."""
    interface, sep, ip_text = key.partition(KEY_SEP)
    if not sep or not interface or not ip_text:
        raise ValueError(f"'{key}' is not <interface>|<ip>")
    try:
        ip = ipaddress.ip_address(ip_text)
    except ValueError:
        raise ValueError(f"'{ip_text}' is not an IP address") from None
    family = FAMILIES[ip.version]
    configured = fields.get("family")
    if configured is not None and configured.lower() != family.lower():
        raise ValueError(f"field 'family' = '{configured}' but {ip} is {family}")
    appl_key = f"{interface}{APPL_SEP}{ip}"
    if "neigh" not in fields:
        return Neighbour(interface, APP_NEIGH_RESOLVE_TABLE_NAME, appl_key, tuple(RESOLVE_FIELDS.items()))
    mac = parse_mac(fields["neigh"])
    return Neighbour(interface, APP_NEIGH_TABLE_NAME, appl_key, (("neigh", mac), ("family", family)))


class NbrMgr:
    """Keeps APPL_DB neighbours equal to the configured ones whose interface exists."""

    def __init__(self, dbs: Databases) -> None:
        self.state_intf = Table(dbs[STATE_DB], STATE_INTERFACE_TABLE_NAME)
        self.producers = {name: ProducerStateTable(dbs[APPL_DB], name)
                          for name in (APP_NEIGH_TABLE_NAME, APP_NEIGH_RESOLVE_TABLE_NAME)}
        self.configured: dict[str, Neighbour] = {}  # CONFIG_DB key -> entry
        self.installed: dict[str, Neighbour] = {}   # CONFIG_DB key -> entry written to APPL_DB

    # -- CONFIG_DB NEIGH ------------------------------------------------------------------------
    def handle(self, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            self.configured.pop(task.key, None)
            return Result.success() if self._uninstall(task.key) else Result.ignored("not installed")
        try:
            entry = parse_neigh(task.key, task.fields)
        except ValueError as exc:
            return Result.invalid(str(exc))
        self.configured[task.key] = entry
        if self.state_intf.get(entry.interface) is None:
            self._uninstall(task.key)
            return Result.retry(f"interface {entry.interface} is not ready")
        return Result.success() if self._install(task.key, entry) else Result.ignored("unchanged")

    # -- STATE_DB INTERFACE_TABLE ---------------------------------------------------------------
    def handle_interface(self, task: KeyOpFieldsValues) -> Result:
        if KEY_SEP in task.key:
            return Result.ignored("an address row")
        if task.is_set:  # rows still waiting for the interface are retried by their own consumer
            return Result.ignored("neighbours are programmed when their NEIGH row is written")
        keys = [k for k, entry in self.configured.items() if entry.interface == task.key]
        changed = [self._uninstall(k) for k in keys]
        for key in keys:  # flushed: only writing the row again brings it back
            del self.configured[key]
        return Result.success() if any(changed) else Result.ignored("no neighbour changed")

    # -- APPL_DB NEIGH_RESOLVE_TABLE ------------------------------------------------------------
    def handle_resolve(self, task: KeyOpFieldsValues) -> Result:
        """A resolve request (popped: it now stands in APPL_DB) or its withdrawal; no kernel to ask."""
        if task.is_del:
            return Result.success()
        interface, sep, ip_text = task.key.partition(APPL_SEP)
        try:
            ipaddress.ip_address(ip_text)
        except ValueError:
            return Result.invalid(f"'{task.key}' is not <interface>:<ip>")
        if not sep or not interface:
            return Result.invalid(f"'{task.key}' is not <interface>:<ip>")
        return Result.success()

    # -- APPL_DB --------------------------------------------------------------------------------
    def _install(self, key: str, entry: Neighbour) -> bool:
        """Write ``entry`` (replacing what the key had, e.g. a resolve request); False if unchanged."""
        old = self.installed.get(key)
        if old == entry:
            return False
        if old is not None and (old.table, old.appl_key) != (entry.table, entry.appl_key):
            self.producers[old.table].delete(old.appl_key)
        self.producers[entry.table].set(entry.appl_key, entry.fields)
        self.installed[key] = entry
        return True

    def _uninstall(self, key: str) -> bool:
        old = self.installed.pop(key, None)
        if old is None:
            return False
        self.producers[old.table].delete(old.appl_key)
        return True

    def register(self, dbs: Databases, runner: Runner) -> None:
        feeds = ((CONFIG_DB, CFG_NEIGH_TABLE_NAME, self.handle),
                 (STATE_DB, STATE_INTERFACE_TABLE_NAME, self.handle_interface))
        for db, table, handler in feeds:
            runner.add_consumer(TableConsumer(db, table, SubscriberStateTable(dbs[db], table), handler))
        resolve = ConsumerStateTable(dbs[APPL_DB], APP_NEIGH_RESOLVE_TABLE_NAME)
        runner.add_consumer(TableConsumer(APPL_DB, APP_NEIGH_RESOLVE_TABLE_NAME, resolve, self.handle_resolve))


def register(dbs: Databases, runner: Runner) -> None:
    """Wire the static neighbour manager into cfgmgrd."""
    NbrMgr(dbs).register(dbs, runner)
