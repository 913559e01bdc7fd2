"""What a daemon tells the world: heartbeat and status in STATE_DB, rejected entries by table and key.

``NOS_DAEMON_TABLE|<daemon>`` {pid, status, started, heartbeat, pending, rejected} is read by
``nos status``; ``NOS_REJECTED_TABLE|<DB>:<TABLE>:<key>`` {op, status, reason, daemon, time} holds
every entry a daemon refused (cleared when the key later succeeds), every key its readers skipped as
not a row (``nos.db.baddata``: cleared when the key is read as a row or deleted), and every callback
of its loop that raised (``<daemon>:loop:<what>``, cleared when it next succeeds).
"""

from __future__ import annotations

import os
import time

from nos.daemon.task import Result, TaskStatus
from nos.db import Table
from nos.db.baddata import BadKey
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
        self.dbs = dbs
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

    # -- nos.db.baddata.Publisher: keys the readers skipped ---------------------------------------
    def bad_key(self, bad: BadKey) -> None:
        self._write(bad.db, bad.table, bad.key, TaskStatus.INVALID, bad.reason)

    def bad_key_cleared(self, db: str, table: str, key: str) -> None:
        self.cleared(db, table, key)

    def bad_keys_reported(self) -> int:
        return self.dbs.bad_keys.count()

    def loop_failed(self, daemon: str, what: str, reason: str) -> None:
        """A callback of the daemon's loop raised (``Runner``): ``<daemon>:loop:<what>``."""
        self._write(daemon, "loop", what, TaskStatus.FAILED, reason, op="")

    def _write(self, db: str, table: str, key: str, status: TaskStatus, reason: str, op: str = "SET") -> None:
        self.rejects.set(rejected_key(db, table, key), {
            "op": op, "status": status.name, "reason": reason, "daemon": self.daemon, "time": f"{time.time():.3f}",
        })

    def heartbeat(self, status: str, **extra: str | int) -> None:
        fields = {"pid": str(os.getpid()), "status": status, "started": self.started,
                  "heartbeat": f"{time.time():.3f}"}
        fields.update({k: str(v) for k, v in extra.items()})
        self.daemons.set(self.daemon, fields)
