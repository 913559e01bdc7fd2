"""What every route of one REST server shares: the switch's databases, the run directory, the directory
operations may read and write files in (``files``, ``nos.api.rest.config_dir``), the job store and the
lock that serialises this server's CONFIG_DB writes.

Writes are serialised in-process (as sonic-mgmt-framework serialises commits) so that concurrent REST
writes queue instead of rebuilding on each other's snapshots; writers in other processes (gNMI, CLI)
are still caught by the transaction's generation check.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from nos.api.auth import Authenticator
from nos.api.rest.config_dir import ConfigDir
from nos.api.rest.in_flight import Active
from nos.api.rest.jobs import JobStore
from nos.db import ConfigDBConnector
from nos.db.connector import Databases
from nos.runtime.rundir import RunDir
from nos.schema.dbconfig import CONFIG_DB


@dataclass
class ApiContext:
    dbs: Databases
    run_dir: Path | None = None
    daemons: tuple[str, ...] = ()
    auth: Authenticator | None = None
    config_dir: Path | None = None  # where operations read and write files (None: the run directory)
    jobs: JobStore = field(default_factory=JobStore)
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    active: Active = field(default_factory=Active)  # requests in flight (``nos.api.rest.in_flight``)
    on_close: list[Callable[[], None]] = field(default_factory=list)
    # GET paths answered from a kept body without FastAPI's routing (``nos.api.rest.hot_reads``)
    kept_reads: dict[str, Callable[[], Awaitable[tuple[bytes, bytes]]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cdb = ConfigDBConnector(self.dbs[CONFIG_DB], cached=True)  # snapshots kept current by keyspace events
        directory = self.config_dir or self.run_dir
        self.files = ConfigDir.of(directory, self.run_dir) if directory is not None else None

    @property
    def saved_config(self) -> Path | None:
        """Where ``config save`` writes by default and ``config reload`` reads (``<run dir>/config_db.json``)."""
        return RunDir(self.run_dir).saved_config_file if self.run_dir is not None else None

    def close(self) -> None:
        for close in self.on_close:
            close()
        self.jobs.close()
        self.cdb.close()  # the config cache's subscription


__all__ = ["ApiContext"]
