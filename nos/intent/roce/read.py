"""Reading what the RoCE report and check need from a running switch (the one IO helper of the package):
CONFIG_DB, and APPL_DB's BUFFER_PG_TABLE and BUFFER_PROFILE_TABLE (for the dynamic buffer model)."""

from __future__ import annotations

from nos.db import ConfigDBConnector, Table
from nos.db.configdb import Config
from nos.db.connector import Databases
from nos.intent.roce.check import ApplBuffers
from nos.schema import tables as t
from nos.schema.dbconfig import APPL_DB, CONFIG_DB


def read_appl_buffers(dbs: Databases) -> ApplBuffers:
    pgs = Table(dbs[APPL_DB], t.APP_BUFFER_PG_TABLE_NAME).get_all()
    profiles = Table(dbs[APPL_DB], t.APP_BUFFER_PROFILE_TABLE_NAME).get_all()
    return ApplBuffers({k: dict(v) for k, v in pgs.items()}, {k: dict(v) for k, v in profiles.items()})


def read_inputs(dbs: Databases, cdb: ConfigDBConnector | None = None) -> tuple[Config, ApplBuffers]:
    """CONFIG_DB (through ``cdb`` when given, e.g. a cached connector) and APPL_DB's buffer tables."""
    config = (cdb or ConfigDBConnector(dbs[CONFIG_DB])).get_config()
    return config, read_appl_buffers(dbs)


__all__ = ["read_appl_buffers", "read_inputs"]
