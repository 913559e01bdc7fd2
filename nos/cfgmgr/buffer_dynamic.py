"""The dynamic buffer manager (SONiC's buffermgrd with ``-a``, swss cfgmgr/buffermgrdyn.cpp), wired by
``nos.cfgmgr.buffer`` when DEVICE_METADATA|localhost ``buffer_model`` is ``dynamic``.

At start it publishes the ASIC constants from the SKU's ``asic.json`` in STATE_DB ``ASIC_TABLE|<VENDOR>``
{cell_size, pipeline_latency, mac_phy_delay, peer_response_time} (buffermgrd's ``-a`` file) and reads the
SKU's ``zero_profiles.json`` (``-z``). It mirrors the CONFIG_DB buffer tables, PORT, CABLE_LENGTH,
DEFAULT_LOSSLESS_BUFFER_PARAMETER, LOSSLESS_TRAFFIC_PATTERN and STATE_DB BUFFER_MAX_PARAM_TABLE; after
changes (debounced by ``RECOMPUTE_S``) it computes the APPL_DB buffer tables with
``buffer_dynamic_plan.plan`` and writes what differs from what it wrote before. So a speed, MTU, cable,
autoneg or admin-status change recomputes the headroom, the profiles and the pool sizes. Refusals (a
headroom larger than the port's limit, a lossless PG without cable length) are reported in STATE_DB
``NOS_REJECTED_TABLE|CONFIG_DB:BUFFER_PG:<key>`` and cleared when they are resolved.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from nos.cfgmgr import buffer_dynamic_plan as dp
from nos.cfgmgr import buffer_headroom as hr
from nos.daemon.consumer import StatusReporter, TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ProducerStateTable, SubscriberStateTable, Table
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.platform.sku import Sku, UnknownSku, load_sku, read_json
from nos.schema import tables as t
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB

log = logging.getLogger(__name__)

RECOMPUTE_S = 0.05
ASIC_TABLE = "ASIC_TABLE"
ZERO_PROFILES_FILE = "zero_profiles.json"
APPL_TABLES = {
    dp.POOL: t.APP_BUFFER_POOL_TABLE_NAME, dp.PROFILE: t.APP_BUFFER_PROFILE_TABLE_NAME,
    dp.PG: t.APP_BUFFER_PG_TABLE_NAME, dp.QUEUE: t.APP_BUFFER_QUEUE_TABLE_NAME,
    dp.INGRESS_LIST: t.APP_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME,
    dp.EGRESS_LIST: t.APP_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME,
}
CONFIG_TABLES = {
    dp.POOL: t.CFG_BUFFER_POOL_TABLE_NAME, dp.PROFILE: t.CFG_BUFFER_PROFILE_TABLE_NAME,
    dp.PG: t.CFG_BUFFER_PG_TABLE_NAME, dp.QUEUE: t.CFG_BUFFER_QUEUE_TABLE_NAME,
    dp.INGRESS_LIST: t.CFG_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME,
    dp.EGRESS_LIST: t.CFG_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME,
}
CONSUMES = (*((CONFIG_DB, table) for table in CONFIG_TABLES.values()), (CONFIG_DB, t.CFG_PORT_TABLE_NAME),
            (CONFIG_DB, t.CFG_PORT_CABLE_LEN_TABLE_NAME), (CONFIG_DB, t.CFG_DEFAULT_LOSSLESS_BUFFER_PARAMETER),
            (CONFIG_DB, t.CFG_LOSSLESS_TRAFFIC_PATTERN_TABLE_NAME), (STATE_DB, t.STATE_BUFFER_MAXIMUM_VALUE_TABLE))
PRODUCES = (*((APPL_DB, table) for table in APPL_TABLES.values()), (STATE_DB, ASIC_TABLE))


def asic_constants(sku: Sku) -> hr.AsicConstants:
    a = sku.asic
    return hr.AsicConstants(int(a["cell_size"]), float(a["pipeline_latency_kb"]), float(a["mac_phy_delay_kb"]),
                            float(a["peer_response_time_kb"]))


def asic_table_row(asic: hr.AsicConstants) -> dict[str, str]:
    """STATE_DB ASIC_TABLE fields (delays in KiB, as buffermgrd's asic_table.json)."""
    return {"cell_size": str(asic.cell_size), "pipeline_latency": f"{asic.pipeline_latency:g}",
            "mac_phy_delay": f"{asic.mac_phy_delay:g}", "peer_response_time": f"{asic.peer_response_time:g}"}


def zero_profiles(sku: Sku) -> tuple[dict[str, dict[str, str]], str]:
    """The SKU's zero profiles and its ``control_fields`` ``pgs_to_apply_zero_profile`` ("" when absent)."""
    path = sku.path / ZERO_PROFILES_FILE
    if not path.exists():
        return {}, ""
    doc = read_json(path)
    rows: dict[str, dict[str, str]] = doc.get(t.CFG_BUFFER_PROFILE_TABLE_NAME, {})
    return rows, str(doc.get("control_fields", {}).get("pgs_to_apply_zero_profile", ""))


class DynamicBufferMgr:
    """Mirrors the inputs, recomputes the plan when they changed, writes the difference."""

    def __init__(self, dbs: Databases, reporter: StatusReporter | None) -> None:
        self.inputs = dp.DynInputs()
        self.reporter = reporter
        self.appl = {kind: ProducerStateTable(dbs[APPL_DB], table) for kind, table in APPL_TABLES.items()}
        self.written: dict[str, dp.Rows] = {kind: {} for kind in APPL_TABLES}
        self.errors: dict[tuple[str, str], str] = {}
        self.dirty = True

    # -- inputs -----------------------------------------------------------------------------------
    def mirror(self, rows: dp.Rows) -> Callable[[KeyOpFieldsValues], Result]:
        def handle(task: KeyOpFieldsValues) -> Result:
            if task.is_del:
                rows.pop(task.key, None)
            else:
                rows[task.key] = dict(task.fields)
            self.dirty = True
            return Result.success()
        return handle

    def handle_cable(self, task: KeyOpFieldsValues) -> Result:
        if task.is_set:
            self.inputs.cables.update(task.fields)
            self.dirty = True
        return Result.success()

    def handle_param(self, task: KeyOpFieldsValues) -> Result:
        if task.is_set:
            self.inputs.default_th = task.fields.get("default_dynamic_th", self.inputs.default_th)
            ratio = task.fields.get("over_subscribe_ratio", "0")
            if not ratio.isdecimal():
                return Result.invalid(f"field over_subscribe_ratio: {ratio!r} is not a number")
            self.inputs.over_subscribe_ratio = int(ratio)
            self.dirty = True
        return Result.success()

    def handle_pattern(self, task: KeyOpFieldsValues) -> Result:
        if task.is_set:
            mtu, small = task.fields.get("mtu", "1024"), task.fields.get("small_packet_percentage", "100")
            if not (mtu.isdecimal() and small.isdecimal()):
                return Result.invalid(f"fields mtu {mtu!r} / small_packet_percentage {small!r} must be numbers")
            self.inputs.pattern = hr.TrafficPattern(int(mtu), int(small))
            self.dirty = True
        return Result.success()

    # -- output -----------------------------------------------------------------------------------
    def recompute(self) -> None:
        if not self.dirty:
            return
        self.dirty = False
        self.inputs.previous_pgs = self.written[dp.PG]
        self.inputs.previous_pools = self.written[dp.POOL]
        result = dp.plan(self.inputs)
        for kind in (dp.POOL, dp.PROFILE, dp.INGRESS_LIST, dp.EGRESS_LIST, dp.PG, dp.QUEUE):
            self._write(kind, result.rows[kind])
        self._report(result.errors)

    def _write(self, kind: str, rows: dp.Rows) -> None:
        old, table = self.written[kind], self.appl[kind]
        for key, fields in rows.items():
            if old.get(key) != fields:
                # drop the fields it no longer has, but never by deleting a pool or profile: orchagent defers
                # the removal of one in use, and the SET queued behind that DEL would wait with it (buffermgrdyn
                # only ever sets them, too)
                if kind not in (dp.POOL, dp.PROFILE) and old.get(key, {}).keys() - fields.keys():
                    table.delete(key)
                table.set(key, fields)
        for key in old.keys() - rows.keys():
            table.delete(key)
        self.written[kind] = {k: dict(v) for k, v in rows.items()}

    def _report(self, errors: dict[tuple[str, str], str]) -> None:
        for (kind, key), reason in errors.items():
            if self.errors.get((kind, key)) != reason:
                log.warning("cfgmgr.buffer_dynamic.refused table=%s key=%s reason=%s", CONFIG_TABLES[kind], key, reason)
                if self.reporter:
                    task = KeyOpFieldsValues.set(key, {})
                    self.reporter.rejected(CONFIG_DB, CONFIG_TABLES[kind], task, Result.invalid(reason))
        for kind, key in self.errors.keys() - errors.keys():
            if self.reporter:
                self.reporter.cleared(CONFIG_DB, CONFIG_TABLES[kind], key)
        self.errors = dict(errors)


def _consumer(dbs: Databases, db: str, table: str, handler: Callable[[KeyOpFieldsValues], Result]) -> TableConsumer:
    return TableConsumer(db, table, SubscriberStateTable(dbs[db], table), handler)


def register_dynamic(dbs: Databases, runner: Runner) -> DynamicBufferMgr:
    mgr = DynamicBufferMgr(dbs, runner.reporter)
    hwsku = (Table(dbs[CONFIG_DB], t.CFG_DEVICE_METADATA_TABLE_NAME).get("localhost") or {}).get("hwsku", "")
    try:
        sku = load_sku(hwsku)
        mgr.inputs.asic = asic_constants(sku)
        mgr.inputs.zero_profiles, mgr.inputs.zero_pg_ids = zero_profiles(sku)
        Table(dbs[STATE_DB], ASIC_TABLE).set(str(sku.asic.get("vendor", "vs")).upper(),
                                             asic_table_row(mgr.inputs.asic))
    except (UnknownSku, KeyError, ValueError, OSError) as exc:
        log.error("cfgmgr.buffer_dynamic.no_asic hwsku=%s reason=%s", hwsku, exc)
    i = mgr.inputs
    mirrors = {dp.POOL: i.pools, dp.PROFILE: i.profiles, dp.PG: i.pgs, dp.QUEUE: i.queues,
               dp.INGRESS_LIST: i.ingress_lists, dp.EGRESS_LIST: i.egress_lists}
    for kind, rows in mirrors.items():
        runner.add_consumer(_consumer(dbs, CONFIG_DB, CONFIG_TABLES[kind], mgr.mirror(rows)))
    runner.add_consumer(_consumer(dbs, CONFIG_DB, t.CFG_PORT_TABLE_NAME, mgr.mirror(i.ports)))
    runner.add_consumer(_consumer(dbs, CONFIG_DB, t.CFG_PORT_CABLE_LEN_TABLE_NAME, mgr.handle_cable))
    runner.add_consumer(_consumer(dbs, CONFIG_DB, t.CFG_DEFAULT_LOSSLESS_BUFFER_PARAMETER, mgr.handle_param))
    runner.add_consumer(_consumer(dbs, CONFIG_DB, t.CFG_LOSSLESS_TRAFFIC_PATTERN_TABLE_NAME, mgr.handle_pattern))
    runner.add_consumer(_consumer(dbs, STATE_DB, t.STATE_BUFFER_MAXIMUM_VALUE_TABLE, mgr.mirror(i.max_params)))
    runner.add_timer("buffer_dynamic", RECOMPUTE_S, mgr.recompute)
    runner.busy.append(lambda: mgr.dirty)  # a recompute is due: what CONFIG_DB asked is not in APPL_DB yet
    return mgr
