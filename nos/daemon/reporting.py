"""What a daemon tells the world: heartbeat and status in STATE_DB, rejected entries by table and key.

``NOS_DAEMON_TABLE|<daemon>`` {pid, status, started, heartbeat, pending, rejected} is read by
``nos status``; ``NOS_REJECTED_TABLE|<DB>:<TABLE>:<key>`` {op, status, reason, daemon, time} holds
every entry a daemon refused (cleared when the key later succeeds).
"""

from __future__ import annotations

import os
import time

from nos.daemon.task import Result
from nos.db import Table
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import STATE_DB
from nos.schema.tables import STATE_NOS_DAEMON_TABLE_NAME, STATE_NOS_REJECTED_TABLE_NAME


def rejected_key(db: str, table: str, key: str) -> str:
    return f"{db}:{table}:{key}"


class StateDbReporter:
    """Writes rejections and the daemon's heartbeat to STATE_DB."""

    def __init__(self, dbs: Databases, daemon: str) -> None:
        self.daemon = daemon
        self.rejects = Table(dbs[STATE_DB], STATE_NOS_REJECTED_TABLE_NAME)
        self.daemons = Table(dbs[STATE_DB], STATE_NOS_DAEMON_TABLE_NAME)
        self.started = f"{time.time():.3f}"

    def rejected(self, db: str, table: str, task: KeyOpFieldsValues, result: Result) -> None:
        self.rejects.set(rejected_key(db, table, task.key), {
            "op": task.op, "status": result.status.name, "reason": result.reason,
            "daemon": self.daemon, "time": f"{time.time():.3f}",
        })

    def cleared(self, db: str, table: str, key: str) -> None:
        self.rejects.delete(rejected_key(db, table, key))

    def heartbeat(self, status: str, **extra: str | int) -> None:
        fields = {"pid": str(os.getpid()), "status": status, "started": self.started,
                  "heartbeat": f"{time.time():.3f}"}
        fields.update({k: str(v) for k, v in extra.items()})
        self.daemons.set(self.daemon, fields)
