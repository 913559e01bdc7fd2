"""Buffer manager (SONiC's buffermgrd). DEVICE_METADATA|localhost ``buffer_model``, read at start as on
SONiC, picks the model: ``dynamic`` wires ``buffer_dynamic``; anything else is the traditional model here
(swss cfgmgr/buffermgr.cpp).

Traditional model:
* CONFIG_DB BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE, BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST
  are copied to APPL_DB ``*_TABLE`` as they are, keys with ``:`` instead of ``|``.
* Lossless PGs: for a port with a speed, a CABLE_LENGTH entry and PORT_QOS_MAP ``pfc_enable``, the
  profile ``pg_lossless_<speed>_<cable>_profile`` from the SKU's ``pg_profile_lookup.ini`` and
  ``BUFFER_PG|<port>|3-4`` are written back into CONFIG_DB (``buffer_lossless.plan_traditional``), and
  flow to APPL_DB by the copy. As buffermgrd: recomputed when a PORT row, a port's cable length
  (``doCableTask``) or ``pfc_enable`` changes; a PORT row before its cable length waits; cable ``0m``
  generates nothing; a speed/cable pair without a lookup row is refused (reported on the PORT key, nothing
  generated); deleting PORT_QOS_MAP|<port> forgets its ``pfc_enable`` (its PG rows stay, later updates
  generate none).
* DEVICE_METADATA|localhost ``buffer_model`` is also followed at run time, as buffermgrd's
  ``doBufferMetaTask``: while it says ``dynamic`` every other table's updates are held (pending, not
  dropped) and go on when it says ``traditional`` again (switching models for real needs a restart).

Deviations, stated: a PORT row is acted on only when its speed or admin_status changed (buffermgrd
recomputes on every PORT write, so an unrelated field rewrote a PG a user had deleted); a port's
generated lossless PG ranges that no longer match ``pfc_enable``, and those of a deleted port, are
deleted from CONFIG_DB (buffermgrd leaves them, so the port could never be removed while they hold it).
CONFIG_DB writes go through the atomic ``ConfigDBConnector.apply`` (they bump the config generation).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from nos.cfgmgr import buffer_lossless as bl
from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ConfigDBConnector, ProducerStateTable, RowChange, SubscriberStateTable, Table
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.platform.sku import PgLookupRow, SkuDataError, UnknownSku, load_sku
from nos.schema import tables as t
from nos.schema.dbconfig import APPL_DB, CONFIG_DB

log = logging.getLogger(__name__)

PRIORITY = 50
# CONFIG_DB table -> APPL_DB table, copied as they are (traditional model).
COPIED = {
    t.CFG_BUFFER_POOL_TABLE_NAME: t.APP_BUFFER_POOL_TABLE_NAME,
    t.CFG_BUFFER_PROFILE_TABLE_NAME: t.APP_BUFFER_PROFILE_TABLE_NAME,
    t.CFG_BUFFER_PG_TABLE_NAME: t.APP_BUFFER_PG_TABLE_NAME,
    t.CFG_BUFFER_QUEUE_TABLE_NAME: t.APP_BUFFER_QUEUE_TABLE_NAME,
    t.CFG_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME: t.APP_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME,
    t.CFG_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME: t.APP_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME,
}
CONSUMES = (*((CONFIG_DB, table) for table in COPIED), (CONFIG_DB, t.CFG_PORT_TABLE_NAME),
            (APPL_DB, t.APP_PORT_TABLE_NAME),  # read only: a port's lanes (breakout)
            (CONFIG_DB, t.CFG_PORT_CABLE_LEN_TABLE_NAME), (CONFIG_DB, t.CFG_PORT_QOS_MAP_TABLE_NAME),
            (CONFIG_DB, t.CFG_DEVICE_METADATA_TABLE_NAME))
PRODUCES = (*((APPL_DB, table) for table in COPIED.values()), (CONFIG_DB, t.CFG_BUFFER_PROFILE_TABLE_NAME),
            (CONFIG_DB, t.CFG_BUFFER_PG_TABLE_NAME))
LOCALHOST = "localhost"
GLOBAL = "global"  # PORT_QOS_MAP|global: switch-wide maps, not a port


def buffer_model(dbs: Databases) -> str:
    """DEVICE_METADATA|localhost buffer_model ("traditional" when absent)."""
    row = Table(dbs[CONFIG_DB], t.CFG_DEVICE_METADATA_TABLE_NAME).get(LOCALHOST) or {}
    return row.get("buffer_model") or "traditional"


def read_lookup(dbs: Databases) -> list[PgLookupRow]:
    """The SKU's pg_profile_lookup.ini rows (DEVICE_METADATA hwsku); none when the SKU is unknown."""
    row = Table(dbs[CONFIG_DB], t.CFG_DEVICE_METADATA_TABLE_NAME).get(LOCALHOST) or {}
    try:
        return load_sku(row.get("hwsku", "")).pg_profile_lookup()
    except (UnknownSku, SkuDataError, OSError) as exc:
        log.warning("cfgmgr.buffer.no_lookup hwsku=%s reason=%s", row.get("hwsku"), exc)
        return []


@dataclass
class ModelGate:
    """buffermgrd's ``dynamic_buffer_model`` flag: DEVICE_METADATA|localhost ``buffer_model`` at run time."""

    dynamic: bool = False

    def handle_metadata(self, task: KeyOpFieldsValues) -> Result:
        if task.key == LOCALHOST:
            self.dynamic = task.is_set and task.fields.get("buffer_model") == "dynamic"
        return Result.success()

    def guard(self, handler: Callable[[KeyOpFieldsValues], Result]) -> Callable[[KeyOpFieldsValues], Result]:
        """``handler``, held (NEED_RETRY) while the model is dynamic."""
        def guarded(task: KeyOpFieldsValues) -> Result:
            if self.dynamic:
                return Result.retry("DEVICE_METADATA|localhost buffer_model is dynamic: held")
            return handler(task)
        return guarded


class Copier:
    """Forwards one CONFIG_DB buffer table to its APPL_DB table. With ``port_keyed`` (BUFFER_PG,
    BUFFER_QUEUE) a SET waits while a port of its key has other lanes in CONFIG_DB than in APPL_DB: a
    breakout re-creating a port under the same name deletes and re-adds its rows in one change, and the
    re-added rows must reach orchagent after the port's new lanes (else they would bind the old port)."""

    def __init__(self, dbs: Databases, appl_table: str, port_keyed: bool = False) -> None:
        self.appl = ProducerStateTable(dbs[APPL_DB], appl_table)
        self.ports = (Table(dbs[CONFIG_DB], t.CFG_PORT_TABLE_NAME), Table(dbs[APPL_DB], t.APP_PORT_TABLE_NAME))
        self.port_keyed = port_keyed

    def handle(self, task: KeyOpFieldsValues) -> Result:
        key = bl.config_to_appl_key(task.key)
        if task.is_del:
            self.appl.delete(key)
            return Result.success()
        for port in task.key.rpartition("|")[0].split(",") if self.port_keyed else ():
            config, appl = (table.hget(port, "lanes") for table in self.ports)
            if config is not None and config != appl:
                return Result.retry(f"port {port} is not on its new lanes in APPL_DB yet")
        self.appl.set(key, task.fields)
        return Result.success()


@dataclass
class PortInputs:
    """What buffermgrd remembers of a port."""

    speed: str = ""
    admin: str = ""
    pfc_enable: str | None = None
    generated: tuple[str, ...] = ()  # PG ranges this manager wrote for the port
    dirty: bool = False


@dataclass
class TraditionalBufferMgr:
    """The lossless part of the traditional model (the copy is ``Copier``)."""

    dbs: Databases
    lookup: dict[tuple[str, str], PgLookupRow]
    ports: dict[str, PortInputs] = field(default_factory=dict)
    cables: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.config = ConfigDBConnector(self.dbs[CONFIG_DB])
        self.profiles = Table(self.dbs[CONFIG_DB], t.CFG_BUFFER_PROFILE_TABLE_NAME)
        self.pools = Table(self.dbs[CONFIG_DB], t.CFG_BUFFER_POOL_TABLE_NAME)
        self.pgs = Table(self.dbs[CONFIG_DB], t.CFG_BUFFER_PG_TABLE_NAME)

    def handle_port(self, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            inputs = self.ports.pop(task.key, None)
            if inputs is not None:
                self._drop_pgs(task.key, inputs.generated, ())
            return Result.success()
        inputs = self.ports.setdefault(task.key, PortInputs())
        speed, admin = task.fields.get("speed", inputs.speed), task.fields.get("admin_status", inputs.admin)
        if (speed, admin) != (inputs.speed, inputs.admin):
            inputs.speed, inputs.admin, inputs.dirty = speed, admin, True
        return self.update(task.key)

    def handle_cable(self, task: KeyOpFieldsValues) -> Result:
        """buffermgrd doCableTask: a port whose cable length changed (not "None") is recomputed at once;
        what that update says is not this task's status (buffermgrd ignores it too)."""
        if not task.is_set:
            return Result.success()
        for port, cable in task.fields.items():
            if cable == "None" or self.cables.get(port) == cable:
                continue
            self.cables[port] = cable
            inputs = self.ports.get(port)
            if inputs is not None:
                inputs.dirty = True
                result = self.update(port)
                if not result.done:
                    log.info("cfgmgr.buffer.cable_update_deferred port=%s reason=%s", port, result.reason)
        return Result.success()

    def handle_qos(self, task: KeyOpFieldsValues) -> Result:
        if task.key == GLOBAL:
            return Result.success()
        if task.is_del:  # buffermgrd erases the port's pfc status; the PG rows stay
            if task.key in self.ports:
                self.ports[task.key].pfc_enable = None
            return Result.success()
        pfc = task.fields.get("pfc_enable")
        inputs = self.ports.get(task.key)
        if inputs is None:  # the PORT row comes later and does the work then
            self.ports[task.key] = PortInputs(pfc_enable=pfc)
            return Result.success()
        if pfc is not None and pfc != inputs.pfc_enable:
            inputs.pfc_enable, inputs.dirty = pfc, True
            result = self.update(task.key)
            if not result.done:  # waiting for a cable length or the pool: try again later
                return result
        return Result.success()  # as buffermgrd: a refusal is reported on the PORT key

    def update(self, port: str) -> Result:
        """buffermgrd doSpeedUpdateTask for a port whose inputs changed."""
        inputs = self.ports[port]
        if not inputs.dirty or not inputs.speed:
            return Result.success()
        if port not in self.cables:
            return Result.retry(f"no CABLE_LENGTH for {port}")
        if inputs.pfc_enable is None:
            inputs.dirty = False
            return Result.success()
        name = bl.traditional_profile_name(inputs.speed, self.cables[port])
        mode = (self.pools.get(bl.INGRESS_LOSSLESS_POOL) or {}).get("mode", "")
        exists = self.profiles.get(name) is not None
        if not exists and not mode:
            return Result.retry(f"BUFFER_POOL|{bl.INGRESS_LOSSLESS_POOL} has no mode yet")
        plan = bl.plan_traditional(port, inputs.speed, self.cables[port], inputs.pfc_enable, self.lookup, mode, exists)
        inputs.dirty = False
        if plan.invalid:
            return Result.invalid(plan.invalid)
        if plan.skip:
            log.info("cfgmgr.buffer.skip port=%s reason=%s", port, plan.skip)
            return Result.success()
        self._write(port, plan, inputs)
        return Result.success()

    def _write(self, port: str, plan: bl.LosslessPlan, inputs: PortInputs) -> None:
        changes = []
        if plan.profile_fields:
            row: dict[str, str | list[str]] = dict(plan.profile_fields)
            changes.append(RowChange(t.CFG_BUFFER_PROFILE_TABLE_NAME, plan.profile, "replace", row))
            log.info("cfgmgr.buffer.profile_created profile=%s", plan.profile)
        for pg in plan.pgs:
            key = f"{port}|{pg}"
            if (self.pgs.get(key) or {}).get("profile") != plan.profile:
                changes.append(RowChange(t.CFG_BUFFER_PG_TABLE_NAME, key, "replace", {"profile": plan.profile}))
        changes += self._stale(port, inputs.generated, plan.pgs)
        if changes:
            self.config.apply(changes)
        inputs.generated = plan.pgs

    def _stale(self, port: str, old: tuple[str, ...], new: tuple[str, ...]) -> list[RowChange]:
        """Deletions of the generated PG rows of ``old`` not in ``new`` that still hold a generated profile."""
        out = []
        for pg in old:
            key = f"{port}|{pg}"
            profile = (self.pgs.get(key) or {}).get("profile", "")
            if pg not in new and profile.startswith("pg_lossless_"):
                out.append(RowChange(t.CFG_BUFFER_PG_TABLE_NAME, key, "delete"))
        return out

    def _drop_pgs(self, port: str, old: tuple[str, ...], new: tuple[str, ...]) -> None:
        changes = self._stale(port, old, new)
        if changes:
            self.config.apply(changes)


def _consumer(dbs: Databases, table: str, handler: Callable[[KeyOpFieldsValues], Result]) -> TableConsumer:
    return TableConsumer(CONFIG_DB, table, SubscriberStateTable(dbs[CONFIG_DB], table), handler)


def register_traditional(dbs: Databases, runner: Runner) -> TraditionalBufferMgr:
    gate = ModelGate()
    runner.add_consumer(_consumer(dbs, t.CFG_DEVICE_METADATA_TABLE_NAME, gate.handle_metadata))
    for cfg_table, appl_table in COPIED.items():
        keyed = cfg_table in (t.CFG_BUFFER_PG_TABLE_NAME, t.CFG_BUFFER_QUEUE_TABLE_NAME)
        runner.add_consumer(_consumer(dbs, cfg_table, gate.guard(Copier(dbs, appl_table, keyed).handle)))
    mgr = TraditionalBufferMgr(dbs, bl.lookup_table(read_lookup(dbs)))
    runner.add_consumer(_consumer(dbs, t.CFG_PORT_CABLE_LEN_TABLE_NAME, gate.guard(mgr.handle_cable)))
    runner.add_consumer(_consumer(dbs, t.CFG_PORT_QOS_MAP_TABLE_NAME, gate.guard(mgr.handle_qos)))
    runner.add_consumer(_consumer(dbs, t.CFG_PORT_TABLE_NAME, gate.guard(mgr.handle_port)))
    return mgr


def register(dbs: Databases, runner: Runner) -> None:
    """Wire buffermgrd into cfgmgrd in the model DEVICE_METADATA names."""
    if buffer_model(dbs) == "dynamic":
        from nos.cfgmgr.buffer_dynamic import register_dynamic

        register_dynamic(dbs, runner)
        return
    register_traditional(dbs, runner)
