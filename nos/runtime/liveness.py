"""Is each of the switch's processes alive, and is it the one the switch started?

A heartbeat row in STATE_DB says what a daemon last wrote, not that it still runs: a killed daemon's
row keeps its pid. So a daemon counts as running when the supervisor has a live child running its
module (``python -m <module>``, from ``/proc`` through psutil, a forked one's title included; zombies,
which the supervisor has not reaped yet, are dead) and that child is the pid of a fresh heartbeat.
Restarts and the cause of the last exit are what the supervisor wrote beside the heartbeat
(``children.Daemon.record``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import psutil

from nos.runtime.forkserver import argv_of
from nos.runtime.readiness import HEARTBEAT_STALE_S, Check


@dataclass(frozen=True)
class Child:
    pid: int
    started: float  # epoch


def children_by_module(supervisor_pid: int) -> dict[str, Child]:
    """The supervisor's live children by the module they run."""
    try:
        kids = psutil.Process(supervisor_pid).children()
    except psutil.Error:
        return {}
    found: dict[str, Child] = {}
    for kid in kids:
        try:
            if kid.status() == psutil.STATUS_ZOMBIE:
                continue
            argv = argv_of(kid.cmdline())  # a forked daemon's title is one string
            if "-m" in argv[:-1]:
                found[argv[argv.index("-m") + 1]] = Child(kid.pid, kid.create_time())
        except psutil.Error:  # it ended while we looked
            continue
    return found


def when(epoch: str | float | None) -> str:
    """Epoch seconds as local date and time (pure but for the time zone)."""
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(epoch or 0)))
    except (TypeError, ValueError):
        return "?"


def restart_note(row: Mapping[str, str]) -> str:
    """``restarted 2x, last exit 2026-12-02 05:12:03: killed by SIGKILL`` (pure), or ""."""
    restarts = row.get("restarts", "0")
    parts = [f"restarted {restarts}x"] if restarts not in ("", "0") else []
    if row.get("last_exit"):
        parts.append(f"last exit {when(row.get('last_exit_time'))}: {row['last_exit']}")
    return ", ".join(parts)


def judge_daemon(name: str, row: Mapping[str, str], child: Child | None, now: float) -> Check:
    """A heartbeat daemon's check (pure): alive as the supervisor's child, and the pid of a fresh heartbeat."""
    note = restart_note(row)
    tail = f"; {note}" if note else ""
    if child is None:
        return Check(f"daemon {name}", False, f"not running (its last heartbeat was pid {row.get('pid', '?')}){tail}")
    if row.get("pid") != str(child.pid):
        return Check(f"daemon {name}", False, f"pid {child.pid} started {now - child.started:.1f}s ago, "
                                              f"no heartbeat from it yet{tail}")
    age = now - float(row.get("heartbeat", "0") or 0)
    ok = row.get("status") == "running" and age < HEARTBEAT_STALE_S
    detail = f"pid {child.pid} {row.get('status')}, heartbeat {age:.1f}s ago"
    if row.get("pending", "0") not in ("", "0"):
        detail += f", {row['pending']} pending"
    return Check(f"daemon {name}", ok, detail + tail)


def judge_server(name: str, row: Mapping[str, str], child: Child | None) -> Check:
    """A child without a heartbeat (REST, gNMI, the Redis TCP guard): alive as the supervisor's child."""
    note = restart_note(row)
    tail = f"; {note}" if note else ""
    if child is None:
        return Check(f"process {name}", False, f"not running{tail}")
    return Check(f"process {name}", True, f"pid {child.pid}{tail}")


def daemon_info(name: str, row: Mapping[str, str], child: Child | None, now: float) -> dict[str, object]:
    """What ``nos status --json`` tells of one child (pure)."""
    heartbeat = row.get("heartbeat")
    return {
        "name": name, "pid": child.pid if child else None, "running": child is not None,
        "heartbeat_pid": int(row["pid"]) if row.get("pid", "").isdigit() else None,
        "heartbeat_age_s": round(now - float(heartbeat), 1) if heartbeat else None,
        "status": row.get("status"), "pending": int(row.get("pending", "0") or 0),
        "restarts": int(row.get("restarts", "0") or 0), "last_exit": row.get("last_exit"),
        "last_exit_time": float(row["last_exit_time"]) if row.get("last_exit_time") else None,
    }
