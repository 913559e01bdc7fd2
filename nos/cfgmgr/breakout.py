"""Breakout manager: CONFIG_DB ``BREAKOUT_CFG|<parent>`` {brkout_mode} as the wanted mode of a cage.

On SONiC, ``config interface breakout <parent> <mode>`` (sonic-utilities ``config/main.py`` with
``ConfigMgmtDPB.breakOutPort``) checks the mode against platform.json, works out the ports to delete
(the cage's current ports) and to add (the children of the new mode; a port with the same name and
speed is left alone), deletes the config that depends on the deleted ports (``-f``), adds the new PORT
rows, loads default config for them (``-l``) and records the mode in BREAKOUT_CFG. Here writing the
BREAKOUT_CFG row (from any surface) is what asks for the breakout, and this manager rewrites
CONFIG_DB the same way when the cage's PORT rows do not match the mode.

:func:`plan_breakout` is the pure planner shared with the CLI. It removes, for every deleted port:
BUFFER_PG, BUFFER_QUEUE, PORT_QOS_MAP, QUEUE, PFC_WD, BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST,
INTERFACE (the interface and its addresses), NEIGH and DEVICE_NEIGHBOR rows (keys may name a
comma-separated port list: the port is taken out of the list), VLAN_MEMBER and PORTCHANNEL_MEMBER rows,
VLAN_SUB_INTERFACE rows of its sub-interfaces, the port from VLAN/PORTCHANNEL ``members`` and ACL_TABLE
``ports`` lists, and its CABLE_LENGTH|AZURE field; then deletes the old PORT rows and adds the child
rows from the platform (alias, lanes, index, speed, fec, ... and mtu 9100) with the admin_status the
parent had, and the SKU's default per-port rows for the new ports (CABLE_LENGTH field,
``BUFFER_PG|<p>|0``, ``BUFFER_QUEUE|<p>|0-2/3-4/5-6``, PORT_QOS_MAP, QUEUE; only into tables the
configuration uses). Everything is applied in one atomic ``ConfigDBConnector.apply``.

Deviation, stated: SONiC writes the deletions, waits until ASIC_DB has removed the old ports, then
writes the additions; here both are one atomic change, so a consumer may see a port deleted and
re-added (same name, new lanes) in one batch.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ConfigDBConnector, RowChange, SubscriberStateTable, Table
from nos.db.configdb import Config, Row
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.platform import breakout, defaults
from nos.platform.sku import Sku, UnknownPort, UnknownSku, load_sku
from nos.schema import tables as t
from nos.schema.dbconfig import CONFIG_DB

log = logging.getLogger(__name__)

CONSUMES = (
    (CONFIG_DB, t.CFG_BREAKOUT_CFG_TABLE_NAME),
    (CONFIG_DB, t.CFG_DEVICE_METADATA_TABLE_NAME),  # read only: the hwsku
    (CONFIG_DB, t.CFG_PORT_TABLE_NAME),  # read only: the cage's current ports
)
PRODUCES = ((CONFIG_DB, t.CFG_PORT_TABLE_NAME),)  # and the dependent tables listed in the docstring

BRKOUT_MODE = "brkout_mode"
SEP = "|"
SUB_INTF_SEPARATOR = "."
ADMIN_STATUS = "admin_status"
# Tables whose key starts with a port (or a comma-separated list of ports).
PORT_KEYED_TABLES = (
    t.CFG_BUFFER_PG_TABLE_NAME,
    t.CFG_BUFFER_QUEUE_TABLE_NAME,
    t.CFG_PORT_QOS_MAP_TABLE_NAME,
    t.CFG_QUEUE_TABLE_NAME,
    t.CFG_PFC_WD_TABLE_NAME,
    t.CFG_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME,
    t.CFG_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME,
    t.CFG_INTF_TABLE_NAME,
    t.CFG_NEIGH_TABLE_NAME,
    t.CFG_DEVICE_NEIGHBOR_TABLE_NAME,
)
# Tables whose key is <group>|<port>.
MEMBER_KEYED_TABLES = (t.CFG_VLAN_MEMBER_TABLE_NAME, t.CFG_LAG_MEMBER_TABLE_NAME)
# List fields that name ports.
PORT_LIST_FIELDS = (
    (t.CFG_VLAN_TABLE_NAME, "members"),
    (t.CFG_LAG_TABLE_NAME, "members"),
    (t.CFG_ACL_TABLE_TABLE_NAME, "ports"),
)
# Per-port default rows a new port gets (when the configuration uses the table).
DEFAULT_ROW_TABLES = (
    t.CFG_BUFFER_PG_TABLE_NAME,
    t.CFG_BUFFER_QUEUE_TABLE_NAME,
    t.CFG_PORT_QOS_MAP_TABLE_NAME,
    t.CFG_QUEUE_TABLE_NAME,
)


class BreakoutRefused(ValueError):
    """Raised by :func:`plan_breakout` when the parent is not a cage of the SKU or the platform does
    not offer the mode for it; the message names the parent and the offered modes."""


# -- pure planning ------------------------------------------------------------------------------
def offered_modes(sku: Sku, parent: str) -> list[str]:
    """The modes platform.json offers for ``parent``; raises BreakoutRefused if it is not a cage."""
    try:
        return list(sku.breakout_modes(parent))
    except UnknownPort:
        raise BreakoutRefused(
            f"{parent} is not a breakout parent of {sku.name} (cages: {', '.join(sku.parents()[:4])}, ...)"
        ) from None


def target_ports(sku: Sku, parent: str, mode: str) -> dict[str, dict[str, str]]:
    """PORT rows of ``parent`` under ``mode``; raises BreakoutRefused for a mode not offered."""
    offered = offered_modes(sku, parent)
    try:
        return sku.ports_for_mode(parent, mode)
    except breakout.InvalidBreakoutMode:
        raise BreakoutRefused(
            f"breakout mode {mode!r} is not offered for {parent}; offered: {', '.join(offered)}"
        ) from None


def cage_port_names(sku: Sku, parent: str) -> set[str]:
    """Every port name any offered mode gives the cage (where its current ports may be)."""
    return {name for mode in offered_modes(sku, parent) for name in sku.ports_for_mode(parent, mode)}


def _same_port(current: Mapping[str, object], target: Mapping[str, str]) -> bool:
    return current.get("lanes") == target["lanes"] and current.get("speed") == target["speed"]


def in_mode(current: Mapping[str, Mapping[str, object]], target: Mapping[str, Mapping[str, str]]) -> bool:
    """Whether the cage's current PORT rows already are the target ports (names, lanes, speeds)."""
    return set(current) == set(target) and all(_same_port(current[n], target[n]) for n in target)


def _port_list_key(key: str, removed: set[str]) -> tuple[bool, str | None]:
    """(names a removed port, the key with those ports taken out or None) for a port-keyed row."""
    first, sep, rest = key.partition(SEP)
    ports = first.split(",")
    if not removed.intersection(ports):
        return False, None
    keep = [p for p in ports if p not in removed]
    return True, (",".join(keep) + sep + rest) if keep else None


def _row_names_removed_port(table: str, key: str, removed: set[str]) -> bool:
    if table in MEMBER_KEYED_TABLES:
        parts = key.split(SEP)
        return len(parts) > 1 and parts[1] in removed
    if table == t.CFG_VLAN_SUB_INTF_TABLE_NAME:
        return key.split(SEP)[0].partition(SUB_INTF_SEPARATOR)[0] in removed
    return False


def _port_keyed_changes(config: Config, removed: set[str]) -> Iterator[RowChange]:
    for table in PORT_KEYED_TABLES:
        for key, row in config.get(table, {}).items():
            hit, new_key = _port_list_key(key, removed)
            if hit:
                yield RowChange(table, key, "delete")
                if new_key is not None:
                    yield RowChange(table, new_key, "replace", row)


def _member_changes(config: Config, removed: set[str]) -> Iterator[RowChange]:
    for table in (*MEMBER_KEYED_TABLES, t.CFG_VLAN_SUB_INTF_TABLE_NAME):
        for key in config.get(table, {}):
            if _row_names_removed_port(table, key, removed):
                yield RowChange(table, key, "delete")


def _list_field_changes(config: Config, removed: set[str]) -> Iterator[RowChange]:
    for table, name in PORT_LIST_FIELDS:
        for key, row in config.get(table, {}).items():
            value = row.get(name)
            if isinstance(value, list) and removed.intersection(value):
                yield RowChange(table, key, "replace", {**row, name: [p for p in value if p not in removed]})


def dependent_changes(config: Config, removed: set[str]) -> Iterator[RowChange]:
    """Row changes that take the removed ports out of every row that references them (pure)."""
    yield from _port_keyed_changes(config, removed)
    yield from _member_changes(config, removed)
    yield from _list_field_changes(config, removed)


def _cable_change(config: Config, removed: set[str], new_lengths: Mapping[str, str]) -> Iterator[RowChange]:
    table, key = t.CFG_PORT_CABLE_LEN_TABLE_NAME, defaults.AZURE
    current = config.get(table, {}).get(key)
    if current is None:
        return
    row: Row = {p: v for p, v in current.items() if p not in removed}
    row.update(new_lengths)
    if row != current:
        yield RowChange(table, key, "replace" if row else "delete", row)


def default_changes(config: Config, sku: Sku, removed: set[str], added: list[str]) -> Iterator[RowChange]:
    """The SKU's default per-port rows for the added ports, in the tables the config uses (pure)."""
    # nos.platform.defaults renders these for the default ports; the same helpers render them for
    # any port list, so the breakout children get exactly what a default port has.
    buffers = defaults._buffer_tables(sku, added)
    qos = defaults._port_qos_tables(sku, added)
    rendered = {**buffers, **qos}
    lengths = rendered[t.CFG_PORT_CABLE_LEN_TABLE_NAME][defaults.AZURE]
    yield from _cable_change(config, removed, lengths)
    for table in DEFAULT_ROW_TABLES:
        if not config.get(table):
            continue
        for key, row in rendered[table].items():
            if key != defaults.GLOBAL:
                yield RowChange(table, key, "replace", dict(row))


def _admin_status(current: Mapping[str, Mapping[str, object]], parent: str) -> str | None:
    """The admin_status the cage had: the parent port's, else its first port's."""
    if not current:
        return None
    name = parent if parent in current else min(current, key=breakout.port_number)
    value = current[name].get(ADMIN_STATUS)
    return value if isinstance(value, str) else None


def _new_port_row(row: Mapping[str, str], current: Mapping[str, Mapping[str, object]], parent: str) -> Row:
    out: Row = dict(row)
    if current:  # a fresh cage keeps the SKU's default; otherwise the parent's state carries over
        out.pop(ADMIN_STATUS, None)
        admin = _admin_status(current, parent)
        if admin is not None:
            out[ADMIN_STATUS] = admin
    return out


def plan_breakout(config: Config, sku: Sku, parent: str, mode: str) -> list[RowChange]:
    """CONFIG_DB changes that break ``parent`` out as ``mode`` (pure; see the module docstring).

    ``config`` is the whole CONFIG_DB (config_db.json form). Raises BreakoutRefused for a parent that
    is not a cage of the SKU or a mode the platform does not offer for it. An empty list means the
    cage already is in that mode and BREAKOUT_CFG says so.
    """
    target = target_ports(sku, parent, mode)
    ports = config.get(t.CFG_PORT_TABLE_NAME, {})
    current = {name: ports[name] for name in cage_port_names(sku, parent) if name in ports}
    kept = {name for name in current if name in target and _same_port(current[name], target[name])}
    removed = set(current) - kept
    added = sorted((n for n in target if n not in kept), key=breakout.port_number)
    changes: list[RowChange] = []
    if removed or added:
        changes += dependent_changes(config, removed)
        changes += [RowChange(t.CFG_PORT_TABLE_NAME, name, "delete") for name in sorted(removed)]
        changes += [RowChange(t.CFG_PORT_TABLE_NAME, n, "replace", _new_port_row(target[n], current, parent))
                    for n in added]
        changes += default_changes(config, sku, removed, added)
    offered = breakout.match_mode(mode, offered_modes(sku, parent))
    if config.get(t.CFG_BREAKOUT_CFG_TABLE_NAME, {}).get(parent, {}).get(BRKOUT_MODE) != offered:
        changes.append(RowChange(t.CFG_BREAKOUT_CFG_TABLE_NAME, parent, "merge", {BRKOUT_MODE: offered}))
    return changes


# -- the manager --------------------------------------------------------------------------------
class BreakoutMgr:
    """Acts on BREAKOUT_CFG rows whose mode the cage's PORT rows do not match."""

    def __init__(self, dbs: Databases) -> None:
        self.cdb = ConfigDBConnector(dbs[CONFIG_DB])
        self.metadata = Table(dbs[CONFIG_DB], t.CFG_DEVICE_METADATA_TABLE_NAME)
        self.ports = Table(dbs[CONFIG_DB], t.CFG_PORT_TABLE_NAME)
        self.skus: dict[str, Sku | None] = {}

    def sku(self, name: str) -> Sku | None:
        """The SKU named by DEVICE_METADATA (cached); None when this switch has no such SKU."""
        if name not in self.skus:
            try:
                self.skus[name] = load_sku(name)
            except UnknownSku as exc:
                log.warning("cfgmgr.breakout.unknown_sku hwsku=%s reason=%s", name, exc)
                self.skus[name] = None
        return self.skus[name]

    def handle(self, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            return Result.ignored("breakout record removed; the ports stay as they are")
        mode = task.fields.get(BRKOUT_MODE)
        if not mode:
            return Result.invalid(f"{task.key}: no {BRKOUT_MODE}")
        hwsku = self.metadata.hget("localhost", "hwsku")
        if not hwsku:
            return Result.retry("DEVICE_METADATA|localhost has no hwsku yet")
        sku = self.sku(hwsku)
        if sku is None:
            return Result.ignored(f"hwsku {hwsku} is not a SKU of this switch; breakout not acted on")
        try:
            target = target_ports(sku, task.key, mode)
            names = cage_port_names(sku, task.key)
        except BreakoutRefused as exc:
            return Result.invalid(str(exc))
        current = {name: row for name in names if (row := self.ports.get(name)) is not None}
        if in_mode(current, target):
            return Result.ignored("the cage already is in this mode")
        changes = plan_breakout(self.cdb.get_config(), sku, task.key, mode)
        self.cdb.apply(changes)
        log.info("cfgmgr.breakout.applied parent=%s mode=%s changes=%d", task.key, mode, len(changes))
        return Result.success()

    def register(self, dbs: Databases, runner: Runner) -> None:
        source = SubscriberStateTable(dbs[CONFIG_DB], t.CFG_BREAKOUT_CFG_TABLE_NAME)
        runner.add_consumer(TableConsumer(CONFIG_DB, t.CFG_BREAKOUT_CFG_TABLE_NAME, source, self.handle))


def register(dbs: Databases, runner: Runner) -> None:
    """Wire the breakout manager into cfgmgrd."""
    BreakoutMgr(dbs).register(dbs, runner)
