"""Port manager: CONFIG_DB PORT -> APPL_DB PORT_TABLE (SONiC's portsyncd boot copy + portmgrd).

At start it copies every CONFIG_DB port into APPL_DB and writes ``PORT_TABLE:PortConfigDone``
{count} (portsyncd); afterwards it forwards changes, injecting portmgrd's defaults
(``admin_status`` down, ``mtu`` 9100) the first time a port is seen, in one single set so
orchagent never sees a partial port. A deleted port is deleted from APPL_DB.
"""

from __future__ import annotations

from collections.abc import Mapping

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ProducerStateTable, SubscriberStateTable, Table
from nos.db.configdb import NULL_FIELD
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import APPL_DB, CONFIG_DB
from nos.schema.tables import APP_PORT_TABLE_NAME, CFG_PORT_TABLE_NAME, PORT_CONFIG_DONE_KEY

CONSUMES = ((CONFIG_DB, CFG_PORT_TABLE_NAME),)
PRODUCES = ((APPL_DB, APP_PORT_TABLE_NAME),)

DEFAULT_ADMIN_STATUS = "down"  # portmgr.h DEFAULT_ADMIN_STATUS_STR
DEFAULT_MTU = "9100"           # portmgr.h DEFAULT_MTU_STR


def to_appl(fields: Mapping[str, str], first_sight: bool) -> dict[str, str]:
    """APPL_DB PORT_TABLE fields for a CONFIG_DB PORT row (pure)."""
    out = {f: v for f, v in fields.items() if f != NULL_FIELD}
    if first_sight:
        out.setdefault("admin_status", DEFAULT_ADMIN_STATUS)
        out.setdefault("mtu", DEFAULT_MTU)
    return out


class PortMgr:
    """Forwards port configuration; remembers what it wrote to skip identical re-sends."""

    def __init__(self, dbs: Databases) -> None:
        self.config_ports = Table(dbs[CONFIG_DB], CFG_PORT_TABLE_NAME)
        self.appl = ProducerStateTable(dbs[APPL_DB], APP_PORT_TABLE_NAME)
        self.written: dict[str, dict[str, str]] = {}

    def boot(self) -> int:
        """portsyncd at start: copy every port, then announce PortConfigDone. Returns the count."""
        rows = self.config_ports.get_all()
        entries = [(name, to_appl(fields, first_sight=True)) for name, fields in sorted(rows.items())]
        if entries:
            self.appl.set_many(entries)
        self.written = dict(entries)
        self.appl.set(PORT_CONFIG_DONE_KEY, {"count": str(len(entries))})
        return len(entries)

    def handle(self, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            self.written.pop(task.key, None)
            self.appl.delete(task.key)
            return Result.success()
        fields = to_appl(task.fields, first_sight=task.key not in self.written)
        if self.written.get(task.key) == fields:
            return Result.ignored("unchanged")
        self.appl.set(task.key, fields)
        self.written[task.key] = fields
        return Result.success()

    def register(self, dbs: Databases, runner: Runner) -> None:
        source = SubscriberStateTable(dbs[CONFIG_DB], CFG_PORT_TABLE_NAME)
        runner.add_consumer(TableConsumer(CONFIG_DB, CFG_PORT_TABLE_NAME, source, self.handle))
