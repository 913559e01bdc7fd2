"""SONiC's database_config.json: logical DB names -> numeric ids and key separators.

The file format is SONiC's own (``INSTANCES``, ``DATABASES``, ``VERSION``); the ids and separators
are a fixed contract (DESIGN.md, "Databases").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from nos.paths import configs_dir

APPL_DB = "APPL_DB"
ASIC_DB = "ASIC_DB"
COUNTERS_DB = "COUNTERS_DB"
LOGLEVEL_DB = "LOGLEVEL_DB"
CONFIG_DB = "CONFIG_DB"
PFC_WD_DB = "PFC_WD_DB"
FLEX_COUNTER_DB = "FLEX_COUNTER_DB"
STATE_DB = "STATE_DB"
APPL_STATE_DB = "APPL_STATE_DB"


class UnknownDatabase(KeyError):
    """Raised when a DB name is not in database_config.json."""


@dataclass(frozen=True)
class DatabaseInfo:
    """One logical database: its name, Redis DB number and key separator."""

    name: str
    id: int
    separator: str


@dataclass(frozen=True)
class SonicDBConfig:
    """The parsed database_config.json (only the parts a single-instance switch needs)."""

    databases: dict[str, DatabaseInfo]
    raw: dict[str, Any]

    def info(self, name: str) -> DatabaseInfo:
        try:
            return self.databases[name]
        except KeyError:
            raise UnknownDatabase(f"unknown database {name!r}; known: {sorted(self.databases)}") from None

    def db_id(self, name: str) -> int:
        return self.info(name).id

    def separator(self, name: str) -> str:
        return self.info(name).separator

    def name_of(self, db_id: int) -> str:
        """The first DB name with this id (PFC_WD_DB and FLEX_COUNTER_DB share 5)."""
        for info in self.databases.values():
            if info.id == db_id:
                return info.name
        raise UnknownDatabase(f"no database with id {db_id}")

    def rendered(self, *, unix_socket: str, port: int, hostname: str = "127.0.0.1") -> dict[str, Any]:
        """The file as a running switch publishes it in its run directory."""
        out = json.loads(json.dumps(self.raw))
        inst = out["INSTANCES"]["redis"]
        inst.update({"hostname": hostname, "port": port, "unix_socket_path": unix_socket})
        return out  # type: ignore[no-any-return]


def parse_db_config(raw: dict[str, Any]) -> SonicDBConfig:
    dbs = {}
    for name, spec in raw["DATABASES"].items():
        sep = spec.get("separator", "|")
        if sep not in (":", "|"):
            raise ValueError(f"database {name}: separator must be ':' or '|', not {sep!r}")
        dbs[name] = DatabaseInfo(name=name, id=int(spec["id"]), separator=sep)
    return SonicDBConfig(databases=dbs, raw=raw)


def load_db_config(path: Path | None = None) -> SonicDBConfig:
    """Read a database_config.json (default: the project's ``configs/database_config.json``)."""
    if path is None:
        return default_db_config()
    return parse_db_config(json.loads(Path(path).read_text()))


@lru_cache(maxsize=1)
def default_db_config() -> SonicDBConfig:
    return parse_db_config(json.loads((configs_dir() / "database_config.json").read_text()))
