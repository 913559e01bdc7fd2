"""RoCE intent manager: CONFIG_DB ``ROCE|global`` -> SONiC's buffer, QoS, PFC and watchdog tables.

Whichever surface wrote the row (CLI, REST, gNMI, ``config load``, redis-cli), the manager makes
CONFIG_DB what ``nos.intent.roce.plan`` says for it, in ONE ``nos.config.transaction.commit``: built
on a snapshot, validated as a whole, applied atomically if CONFIG_DB is still at that generation
(rebuilt on the new state otherwise; after the transaction layer's attempts it retries on the
next loop turn). Deleting the row, or ``enabled`` false, writes back the rows saved in
``NOS_ROCE_SAVED`` (see ``nos.intent.roce.saved``). The CLI and REST apply the same plan in the
transaction that writes the row, so the manager then finds nothing to change.

A refused intent (a bad field, a cable length the SKU has no headroom for, a result that fails
validation) changes nothing and is reported in STATE_DB ``NOS_REJECTED_TABLE|CONFIG_DB:ROCE:global``
with table, key and field. The manager also re-expands when the set or speeds of ports change
(breakout: new ports get the intent too) and when CABLE_LENGTH changes (headroom follows the cable).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from nos.config.errors import ConfigValidationError
from nos.config.transaction import commit
from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ConfigDBConnector, SubscriberStateTable
from nos.db.configdb import Config, ConfigConflict
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.intent.roce import IntentError, plan
from nos.schema import tables as t
from nos.schema.config.roce import CFG_ROCE_SAVED_TABLE_NAME, CFG_ROCE_TABLE_NAME, ROCE_KEY
from nos.schema.dbconfig import CONFIG_DB

log = logging.getLogger(__name__)

CONSUMES = (
    (CONFIG_DB, CFG_ROCE_TABLE_NAME),
    (CONFIG_DB, t.CFG_PORT_TABLE_NAME),  # re-expands for new ports and speeds
    (CONFIG_DB, t.CFG_PORT_CABLE_LEN_TABLE_NAME),  # and cable lengths (headroom)
    (CONFIG_DB, CFG_ROCE_SAVED_TABLE_NAME),  # saved rows without the intent (a reload) are written back
)
PRODUCES = tuple((CONFIG_DB, table) for table in (
    t.CFG_BUFFER_PG_TABLE_NAME, t.CFG_BUFFER_PROFILE_TABLE_NAME, t.CFG_BUFFER_QUEUE_TABLE_NAME,
    t.CFG_PORT_CABLE_LEN_TABLE_NAME, t.CFG_DSCP_TO_TC_MAP_TABLE_NAME, t.CFG_TC_TO_QUEUE_MAP_TABLE_NAME,
    t.CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME, t.CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME,
    t.CFG_PORT_QOS_MAP_TABLE_NAME, t.CFG_QUEUE_TABLE_NAME, t.CFG_SCHEDULER_TABLE_NAME,
    t.CFG_WRED_PROFILE_TABLE_NAME, t.CFG_PFC_WD_TABLE_NAME, CFG_ROCE_SAVED_TABLE_NAME,
))
PRIORITY = 150  # after the port and breakout managers


class RoceMgr:
    """Reconciles CONFIG_DB with ``ROCE|global``; remembers the ports it last expanded for."""

    def __init__(self, dbs: Databases) -> None:
        self.cdb = ConfigDBConnector(dbs[CONFIG_DB])
        self.ports: dict[str, str] | None = None  # port -> speed at the last reconcile
        # No intent and nothing saved, as of the last look: port and cable changes need no reads until
        # the ROCE row or NOS_ROCE_SAVED changes (a PORT change read both rows through KEYS before).
        self.idle = False

    def reconcile(self) -> Result:
        """Apply the plan for the current CONFIG_DB, all or nothing."""
        seen: dict[str, str] = {}

        def build(current: Config) -> Config:
            seen.clear()
            seen.update(_speeds(current.get(t.CFG_PORT_TABLE_NAME, {})))
            return plan(current)  # copies what it changes: commit need copy nothing

        try:
            result = commit(self.cdb, build, tables=())
        except IntentError as exc:
            return Result.invalid(str(exc))
        except ConfigValidationError as exc:
            return Result.invalid("; ".join(str(e) for e in exc.errors[:10]))
        except ConfigConflict as exc:
            return Result.retry(str(exc), soon=True)
        self.ports = seen
        if not result.applied:
            return Result.ignored("CONFIG_DB already is what the intent says")
        log.info("cfgmgr.roce.applied rows=%d generation=%d", len(result.changes), result.generation)
        return Result.success()

    def handle(self, task: KeyOpFieldsValues) -> Result:
        self.idle = False
        if task.key != ROCE_KEY:
            return Result.invalid(f"the RoCE intent is the one row {CFG_ROCE_TABLE_NAME}|{ROCE_KEY}")
        return self.reconcile()

    def handle_ports(self, tasks: list[KeyOpFieldsValues]) -> list[Result]:
        """Re-expand once per batch of PORT changes, when the ports or their speeds changed."""
        if self.ports is not None and self._ports_unchanged(tasks):
            return [Result.ignored()] * len(tasks)
        return self.re_expand(tasks)

    def re_expand(self, tasks: list[KeyOpFieldsValues]) -> list[Result]:
        """Re-expand once for a batch of changes to an input of the expansion (ports, cable lengths)."""
        if self.idle or (not self.cdb.get_entry(CFG_ROCE_TABLE_NAME, ROCE_KEY)
                         and not self.cdb.get_table(CFG_ROCE_SAVED_TABLE_NAME)):
            self.ports, self.idle = None, True
            return [Result.ignored("no RoCE intent")] * len(tasks)
        result = self.reconcile()
        if result.rejected:  # the intent's own row carries the report
            log.warning("cfgmgr.roce.port_change_refused reason=%s", result.reason)
            result = Result.ignored(result.reason)
        return [result] * len(tasks)

    def saved_changed(self, tasks: list[KeyOpFieldsValues]) -> list[Result]:
        """NOS_ROCE_SAVED changed (the expansion's own bookkeeping, or a config load or reload)."""
        self.idle = False
        return self.re_expand(tasks)

    def _ports_unchanged(self, tasks: list[KeyOpFieldsValues]) -> bool:
        assert self.ports is not None
        for task in tasks:
            known = self.ports.get(task.key)
            if task.is_del != (known is None) or (not task.is_del and task.fields.get("speed", known) != known):
                return False
        return True

    def register(self, dbs: Databases, runner: Runner) -> None:
        source = SubscriberStateTable(dbs[CONFIG_DB], CFG_ROCE_TABLE_NAME)
        runner.add_consumer(TableConsumer(CONFIG_DB, CFG_ROCE_TABLE_NAME, source, self.handle))
        for table, handler in ((t.CFG_PORT_TABLE_NAME, self.handle_ports),
                               (t.CFG_PORT_CABLE_LEN_TABLE_NAME, self.re_expand),
                               (CFG_ROCE_SAVED_TABLE_NAME, self.saved_changed)):
            source = SubscriberStateTable(dbs[CONFIG_DB], table)
            runner.add_consumer(TableConsumer(CONFIG_DB, table, source, lambda _task: Result.ignored(),
                                              batch_handler=handler))


def _speeds(ports: Mapping[str, Mapping[str, object]]) -> dict[str, str]:
    return {name: str(row.get("speed", "")) for name, row in ports.items()}


def register(dbs: Databases, runner: Runner) -> None:
    """Wire the RoCE intent manager into cfgmgrd."""
    RoceMgr(dbs).register(dbs, runner)
