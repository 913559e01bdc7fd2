"""``python -m nos.cfgmgr --redis URL``: the config-manager daemon (cfgmgrd).

Every module of ``nos.cfgmgr`` that defines ``register(dbs, runner)`` is a manager and is wired here,
in the order of its ``PRIORITY`` (lower first; default 100; the port manager is 0 so that
``PortConfigDone`` is written before anything else starts). A manager whose ``register`` raises is
reported (``cfgmgrd:loop:register <module>`` in ``nos show errors``) and the others run. Once the replay
of CONFIG_DB has settled, the APPL_DB rows a predecessor wrote and nothing asks for now are deleted
(``nos.daemon.sweep``).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import sys
from types import ModuleType

import nos.cfgmgr
from nos.cfgmgr.intf import CONNECTED_PROTOCOL
from nos.cfgmgr.static_route import PROTOCOL as STATIC_PROTOCOL
from nos.daemon.main import daemon_main
from nos.daemon.progress import Progress
from nos.daemon.runner import Runner
from nos.daemon.sweep import Owns, start_tracking, sweep
from nos.db.connector import Databases
from nos.schema.dbconfig import APPL_DB
from nos.schema.tables import (
    APP_NEIGH_RESOLVE_TABLE_NAME,
    APP_PORT_TABLE_NAME,
    APP_ROUTE_TABLE_NAME,
    PORT_CONFIG_DONE_KEY,
    PORT_INIT_DONE_KEY,
)

NAME = "cfgmgrd"
# Which rows of a shared APPL_DB table are cfgmgrd's (the rest of a table it writes is all its own):
# ROUTE_TABLE holds routing protocols' routes too; PORT_TABLE's markers are portsyncd's announcements;
# NEIGH_RESOLVE_TABLE holds orchagent's requests as well as the manager's (and is read by nobody here).
OWNED_ROWS: dict[str, Owns] = {
    APP_ROUTE_TABLE_NAME: lambda key, row: row.get("protocol") in (CONNECTED_PROTOCOL, STATIC_PROTOCOL),
    APP_PORT_TABLE_NAME: lambda key, row: key not in (PORT_CONFIG_DONE_KEY, PORT_INIT_DONE_KEY),
    APP_NEIGH_RESOLVE_TABLE_NAME: lambda key, row: False,
}


def manager_modules() -> list[ModuleType]:
    found = []
    for info in pkgutil.iter_modules(nos.cfgmgr.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"nos.cfgmgr.{info.name}")
        if callable(getattr(module, "register", None)):
            found.append(module)
    return sorted(found, key=lambda m: (getattr(m, "PRIORITY", 100), m.__name__))


def build(dbs: Databases, runner: Runner) -> None:
    """Every manager, each on its own: one whose start raises (a bug) is reported and the others run."""
    Progress(dbs, runner, NAME)  # first: its generation baseline comes before the managers' first reads
    start_tracking(dbs[APPL_DB])
    for module in manager_modules():
        runner.guarded(f"register {module.__name__}", functools.partial(module.register, dbs, runner))
    runner.when_settled(lambda: _sweep(dbs))


def _sweep(dbs: Databases) -> None:
    """What a predecessor wrote into APPL_DB that nothing asks for now."""
    sweep(dbs[APPL_DB], OWNED_ROWS)


if __name__ == "__main__":
    sys.exit(daemon_main(NAME, build))
