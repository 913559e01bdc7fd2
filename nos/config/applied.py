"""Waiting until what was written to CONFIG_DB has reached the ASIC (the "applied" barrier).

Each daemon of the pipeline records the CONFIG_DB generation it has processed (``nos.daemon.progress``):
cfgmgrd, orchagent (which has then had syncd's answers for all of it) and syncd_sim. A generation is
applied when every one of them has reached it. Processing a write can make a daemon write CONFIG_DB
again (the RoCE intent's expansion, buffermgrd's lossless PGs): when the daemons reach the generation
asked for and CONFIG_DB has moved on, the wait goes on to the newer generation, a few times at most
(other clients' writes must not keep a waiter forever).

A switch without any of these daemons (only Redis runs: tests, a database alone) has no pipeline to
wait for: ``wait_applied`` says so and returns at once. A daemon that is there (it has a row) but has
not recorded any progress yet (it is starting, or replaying) is waited for like one that lags.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from nos.db import Table
from nos.db.connector import Databases
from nos.db.errors import map_redis_errors
from nos.schema.dbconfig import CONFIG_DB, STATE_DB
from nos.schema.tables import CONFIG_DB_GENERATION_KEY, PROGRESS_FIELD, STATE_NOS_DAEMON_TABLE_NAME

HOPS = ("cfgmgrd", "orchagent", "syncd")  # in pipeline order (the first that lags is the one named)
DEFAULT_TIMEOUT_S = 10.0
FOLLOW_UPS = 3  # newer generations followed (daemons' own writes caused by the one asked for)
POLL_S = 0.005


class NotApplied(RuntimeError):
    """Raised when a CONFIG_DB generation has not reached the ASIC within the timeout; the message names
    the hop that lags and what it reports."""


@dataclass
class Applied:
    """What ``wait_applied`` saw: the generation it waited for, per hop the one each had, the seconds."""

    generation: int
    hops: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    pipeline: bool = True  # False: no daemon records progress here (nothing to wait for)


def current_generation(dbs: Databases) -> int:
    with map_redis_errors("read the CONFIG_DB generation"):
        return int(dbs[CONFIG_DB].client.get(CONFIG_DB_GENERATION_KEY) or 0)


def hop_rows(dbs: Databases) -> dict[str, dict[str, str]]:
    """The rows of the pipeline's daemons that are there, by daemon."""
    rows = Table(dbs[STATE_DB], STATE_NOS_DAEMON_TABLE_NAME).get_all()
    return {name: row for name, row in rows.items() if name in HOPS}


def lagging(rows: dict[str, dict[str, str]], generation: int) -> str | None:
    """The first hop not at ``generation`` yet, described; None when every hop is there."""
    for name in HOPS:
        row = rows.get(name)
        if row is None:
            continue
        have = int(row.get(PROGRESS_FIELD, "0") or 0)
        if have < generation:
            status = row.get("status", "unknown")
            done = f"has processed generation {have}" if PROGRESS_FIELD in row else "has not processed any yet"
            return f"{name} {done} (status {status})"
    return None


def wait_applied(dbs: Databases, generation: int | None = None, timeout: float = DEFAULT_TIMEOUT_S) -> Applied:
    """Wait until CONFIG_DB ``generation`` (default: the current one) is applied; raises NotApplied."""
    started = time.monotonic()
    target = current_generation(dbs) if generation is None else generation
    deadline = started + timeout
    follow_ups = 0
    while True:
        rows = hop_rows(dbs)
        if not rows:
            return Applied(target, pipeline=False)
        behind = lagging(rows, target)
        if behind is None:
            newer = current_generation(dbs)
            if newer > target and follow_ups < FOLLOW_UPS:
                target, follow_ups = newer, follow_ups + 1
                continue
            return Applied(target, {n: int(r.get(PROGRESS_FIELD) or 0) for n, r in rows.items()},
                           time.monotonic() - started)
        if time.monotonic() >= deadline:
            raise NotApplied(f"CONFIG_DB generation {target} not applied within {timeout:g} s: {behind}; "
                             "see 'nos status'")
        time.sleep(POLL_S)
