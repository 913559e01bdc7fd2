"""Wiring of orchagent: the switch first, then every orch, then syncd's notifications; APPLY_VIEW once
the replay of what the databases hold has settled (a restarted orchagent rebuilt its view by then).

Every module of ``orchagent.orchs`` that exports ``ORCH`` (a class taking ``OrchDeps``) is an orch;
they are built in ``PRIORITY`` order (lower first, default 100). Orchs do not construct each other:
what they share (interface registry, event bus, switch context) comes in ``OrchDeps``.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType
from typing import Any

import orchagent.orchs
from nos.daemon.progress import Progress
from nos.daemon.runner import Runner
from nos.db import NotificationConsumer
from nos.db.connector import Databases
from nos.schema.dbconfig import ASIC_DB
from nos.schema.tables import ASIC_NOTIFICATIONS_CHANNEL
from orchagent.core.deps import OrchDeps
from orchagent.core.orch import wire
from orchagent.orchs.switch import apply_view, init_switch
from orchagent.sairedis import SaiRedis

NAME = "orchagent"
UPSTREAM = "cfgmgrd"  # whose APPL_DB output orchagent consumes (the "applied" barrier, nos.daemon.progress)
CONSUMES = ((ASIC_DB, ASIC_NOTIFICATIONS_CHANNEL),)  # syncd's notifications, handed to the orchs


def orch_modules() -> list[ModuleType]:
    found = []
    for info in pkgutil.iter_modules(orchagent.orchs.__path__):
        module = importlib.import_module(f"orchagent.orchs.{info.name}")
        if hasattr(module, "ORCH"):
            found.append(module)
    return sorted(found, key=lambda m: (getattr(m, "PRIORITY", 100), m.__name__))


def build(dbs: Databases, runner: Runner) -> list[Any]:
    sai = SaiRedis(dbs)
    deps = OrchDeps(dbs, sai, init_switch(dbs, sai))
    # before the orchs' first reads; reported once the rebuilt view is the ASIC's
    progress = Progress(dbs, runner, NAME, upstream=UPSTREAM, enabled=False)
    orchs = [module.ORCH(deps) for module in orch_modules()]
    for orch in orchs:  # each on its own: one whose wiring raises (a bug) is reported, the others run
        runner.guarded(f"wire {type(orch).__name__}", functools.partial(wire, orch, dbs, runner))
    listeners = [orch for orch in orchs if hasattr(orch, "on_notifications")]
    notes = NotificationConsumer(dbs[ASIC_DB], ASIC_NOTIFICATIONS_CHANNEL)

    def dispatch() -> None:
        batch = notes.pops()
        for orch in listeners:  # each on its own: one that raises does not keep the batch from the others
            runner.guarded(f"{ASIC_NOTIFICATIONS_CHANNEL} {type(orch).__name__}",
                           functools.partial(orch.on_notifications, batch))

    runner.add_selectable(notes, dispatch, ASIC_NOTIFICATIONS_CHANNEL)

    def settled() -> None:  # the replay of what APPL_DB and CONFIG_DB hold is done
        apply_view(sai)
        progress.enabled = True

    runner.when_settled(settled)
    sai.on_wait = lambda seconds: runner.heartbeat_now(f"waiting {seconds:.0f}s for syncd")
    return orchs
