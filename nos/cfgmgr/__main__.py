"""``python -m nos.cfgmgr --redis URL``: the config-manager daemon (cfgmgrd).

Every module of ``nos.cfgmgr`` that defines ``register(dbs, runner)`` is a manager and is wired here,
in the order of its ``PRIORITY`` (lower first; default 100; the port manager is 0 so that
``PortConfigDone`` is written before anything else starts). A manager whose ``register`` raises is
reported (``cfgmgrd:loop:register <module>`` in ``nos show errors``) and the others run.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import sys
from types import ModuleType

import nos.cfgmgr
from nos.daemon.main import daemon_main
from nos.daemon.runner import Runner
from nos.db.connector import Databases

NAME = "cfgmgrd"


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
    for module in manager_modules():
        runner.guarded(f"register {module.__name__}", functools.partial(module.register, dbs, runner))


if __name__ == "__main__":
    sys.exit(daemon_main(NAME, build))
