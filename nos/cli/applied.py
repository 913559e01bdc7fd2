"""``nos config`` commands wait until their change has reached the ASIC (as NVUE's ``nv config apply``).

``nos config --no-wait ...`` (or ``NOS_NO_WAIT=1``) returns once CONFIG_DB holds the change;
``--wait-timeout S`` bounds the wait (default 10 s). A change that is in CONFIG_DB but not applied in
time exits 1 naming the hop that lags; the change stays (it is applied when that hop catches up).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import click

from nos.cli.common import fail
from nos.config.applied import DEFAULT_TIMEOUT_S, NotApplied, current_generation, wait_applied
from nos.db.connector import Databases


@dataclass
class WaitOptions:
    wait: bool = True
    timeout: float = DEFAULT_TIMEOUT_S


def wait_options() -> WaitOptions:
    ctx = click.get_current_context(silent=True)
    found = ctx.find_object(WaitOptions) if ctx is not None else None
    return found or WaitOptions(wait=os.environ.get("NOS_NO_WAIT", "") not in ("1", "true", "yes"))


def wait_after(dbs: Databases, before: int) -> None:
    """After a command that may have written CONFIG_DB (at generation ``before`` when it started): wait
    until what it wrote is applied, unless nothing was written or waiting is off."""
    options = wait_options()
    if not options.wait or current_generation(dbs) == before:
        return
    try:
        wait_applied(dbs, timeout=options.timeout)
    except NotApplied as exc:
        fail(f"the change is in CONFIG_DB, but {exc}")
