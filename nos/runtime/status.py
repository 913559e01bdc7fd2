"""``nos status`` (and REST ``/api/v1/status``): the switch's real state, read from its processes and
databases.

States: ``down`` (no supervisor; an attached switch whose Redis does not answer), ``booting``, ``ready``
(every check passes: each process is the supervisor's live child with a fresh heartbeat, nothing is
waiting in any hop, and the ASIC holds the ports and routes APPL_DB asks for), ``converging`` (only work
in flight is missing: the figures say how much), ``degraded`` (anything else: a dead daemon, Redis not
answering, a route missing with nothing in flight). A mismatch with nothing in flight is looked at
twice, 0.3 s apart, before it is called degraded: a daemon's ``pending`` is as of its last heartbeat, so
the last batch of a load can be in its hands unseen for a moment.

A switch whose processes run elsewhere (docker-compose's containers) is read the same way once
``nos attach`` has pointed the run dir at it: each daemon by its heartbeat row alone (``nos status``
cannot see another host's or container's processes), the APIs at the endpoints it was attached with.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.runtime import convergence, liveness, readiness
from nos.runtime.listeners import tls_from_record
from nos.runtime.rundir import RunDir

SECOND_LOOK_S = 0.3
ASIC_CHECKS = frozenset({"routes", "asic ports"})
# child name -> module, when boot.json does not say (as nos.runtime.switch starts them)
MODULES = {"syncd": "syncd_sim", "orchagent": "orchagent", "cfgmgrd": "nos.cfgmgr", "rest": "nos.api.rest",
           "gnmi": "nos.api.gnmi", "redis_guard": "nos.runtime.redis_guard", "iccpd": "iccpd"}
HEARTBEAT_DAEMONS = ("syncd", "orchagent", "cfgmgrd")
REDIS_ROW = "redis"


@dataclass
class Report:
    checks: list[readiness.Check] = field(default_factory=list)
    daemons: list[dict[str, object]] = field(default_factory=list)
    backlog: convergence.Backlog | None = None
    figures: dict[str, object] = field(default_factory=dict)
    redis: dict[str, object] = field(default_factory=dict)

    @property
    def state(self) -> str:
        failing = [c for c in self.checks if not c.ok]
        if not failing:
            return "ready"
        return "converging" if all(c.waiting for c in failing) else "degraded"

    def idle_mismatch(self) -> bool:
        """Only the ASIC comparison fails, with nothing in flight."""
        failing = [c for c in self.checks if not c.ok]
        return bool(failing) and all(c.name in ASIC_CHECKS for c in failing) and self.backlog is not None \
            and not self.backlog.total


def _redis_check(dbs: Databases, row: dict[str, str]) -> readiness.Check:
    check = readiness.check_redis(dbs)
    note = liveness.restart_note(row)
    return replace(check, detail=f"{check.detail}; {note}") if note and check.ok else check


def gather(dbs: Databases, supervisor_pid: int | None, children: list[str], modules: dict[str, str],
           heartbeat: list[str]) -> Report:
    """Every check but the API servers' own (they are asked over their endpoints by the CLI)."""
    report = Report()
    kids = liveness.children_by_module(supervisor_pid) if supervisor_pid else {}
    now = time.time()
    try:
        rows = readiness.daemon_rows(dbs)
    except DbError:
        rows = {}
    report.redis = rows.get(REDIS_ROW, {})  # type: ignore[assignment]
    report.checks.append(_redis_check(dbs, rows.get(REDIS_ROW, {})))
    for name in children:
        child = kids.get(modules.get(name, MODULES.get(name, ""))) if supervisor_pid else None
        row = rows.get(name, {})
        if supervisor_pid is None:  # REST, an attached switch: no supervisor here, the heartbeat row alone
            report.checks.append(readiness.check_daemon(dbs, name, rows))
        elif name in heartbeat:
            report.checks.append(liveness.judge_daemon(name, row, child, now))
        else:
            report.checks.append(liveness.judge_server(name, row, child))
        report.daemons.append(liveness.daemon_info(name, row, child, now))
    if not report.checks[0].ok:
        return report
    if report.redis.get("journal_error"):
        report.checks.append(readiness.Check("config journal", False, str(report.redis["journal_error"])))
    try:
        report.backlog = convergence.read_backlog(dbs, rows, heartbeat)
        report.checks.append(readiness.check_port_config_done(dbs))
        asic, report.figures = convergence.asic_checks(dbs, report.backlog)
    except DbError as exc:
        report.checks.append(readiness.Check("redis", False, str(exc)))
        return report
    total = report.backlog.total
    report.checks.append(readiness.Check("pipeline", not total, report.backlog.describe(), waiting=True))
    report.checks += asic
    return report


def gather_twice(dbs: Databases, *args: Any) -> Report:
    """``gather``, and once more after a moment if only the ASIC comparison fails with nothing in flight:
    if the figures moved meanwhile, it was converging."""
    first = gather(dbs, *args)
    if not first.idle_mismatch():
        return first
    time.sleep(SECOND_LOOK_S)
    second = gather(dbs, *args)
    if second.idle_mismatch() and second.figures != first.figures:
        second.checks = [replace(c, waiting=True) if c.name in ASIC_CHECKS else c for c in second.checks]
    return second


def _gather_args(boot: dict[str, Any], pid: int) -> tuple[int, list[str], dict[str, str], list[str]]:
    children = list(boot.get("daemons") or MODULES)
    heartbeat = list(boot.get("heartbeat_daemons") or HEARTBEAT_DAEMONS)
    return pid, children, dict(boot.get("modules") or {}), heartbeat


def collect_status(run: RunDir) -> dict[str, Any]:
    pid = run.supervisor_pid()
    boot = run.boot_state() or {}
    endpoints = run.endpoints()
    out: dict[str, Any] = {"run_dir": str(run.path), "pid": pid, "state": "down", "ready": False,
                           "sku": boot.get("sku"), "endpoints": endpoints or {}, "checks": []}
    if pid is None and run.attachment() is not None and endpoints:
        return _attached_status(run, boot, endpoints, out)
    if pid is None:
        return out
    if not endpoints:
        out["state"] = boot.get("state", "booting")
        return out
    dbs = Databases(endpoints["redis"])
    try:
        report = gather_twice(dbs, *_gather_args(boot, pid))
    finally:
        dbs.close()
    report.checks += _api_checks(run, endpoints, boot)
    out.update(checks=readiness.as_dicts(report.checks), ready=report.state == "ready", state=report.state,
               daemons=report.daemons, redis=report.redis, asic=report.figures,
               backlog=report.backlog.__dict__ if report.backlog is not None else None)
    if boot.get("started_at"):
        out["uptime_seconds"] = round(time.time() - float(boot["started_at"]), 1)
    return out


def _attached_status(run: RunDir, boot: dict[str, Any], endpoints: dict[str, str],
                     out: dict[str, Any]) -> dict[str, Any]:
    """A switch that ``nos attach`` points at (its processes run elsewhere, e.g. in containers): each
    daemon's heartbeat row alone (no process of it is this host's to look at), the pipeline and the ASIC,
    then the API servers at the endpoints it was attached with. Down while its Redis does not answer."""
    heartbeat = list(boot.get("heartbeat_daemons") or HEARTBEAT_DAEMONS)
    dbs = Databases(endpoints["redis"])
    try:
        report = gather_twice(dbs, None, heartbeat, {}, heartbeat)
    finally:
        dbs.close()
    out["attached"] = boot.get("by") or True
    for info in report.daemons:  # a process elsewhere: its pid is the heartbeat's, whether it runs is the check's
        info.update(pid=info["heartbeat_pid"], running=None)
    if not report.checks[0].ok:
        out.update(checks=readiness.as_dicts(report.checks))
        return out
    report.checks += _api_checks(run, endpoints, boot, gnmi_at=endpoints.get("gnmi"))
    out.update(checks=readiness.as_dicts(report.checks), ready=report.state == "ready", state=report.state,
               daemons=report.daemons, redis=report.redis, asic=report.figures,
               backlog=report.backlog.__dict__ if report.backlog is not None else None)
    return out


def switch_ready(run: RunDir) -> bool:
    """``collect_status(run)["ready"]`` for a caller that polls it until true (the lab while it boots):
    the API servers are asked only once the databases say ready, and a mismatch gets no second look
    (it is not ready either way; the next poll looks again). While a switch converges this costs one
    ``gather``, not that plus a REST request, a gNMI Capabilities call and two Redis TCP logins."""
    pid = run.supervisor_pid()
    boot = run.boot_state() or {}
    endpoints = run.endpoints()
    if pid is None or not endpoints:
        return False
    dbs = Databases(endpoints["redis"])
    try:
        report = gather(dbs, *_gather_args(boot, pid))
    finally:
        dbs.close()
    return report.state == "ready" and all(c.ok for c in _api_checks(run, endpoints, boot))


def _api_checks(run: RunDir, endpoints: dict[str, str], boot: dict[str, Any],
                gnmi_at: str | None = None) -> list[readiness.Check]:
    """The API endpoints' own checks; gNMI on its local socket, or at ``gnmi_at`` (an attached switch's
    published address: its server is not this host's process)."""
    checks = []
    if "redis_tcp" in endpoints:
        checks.append(readiness.check_redis_tcp(endpoints["redis_tcp"], run.redis_password_file))
    if "rest" in endpoints:
        checks.append(readiness.check_http("rest", endpoints["rest"] + "/api/v1/health",
                                           tls=tls_from_record(boot.get("tls"))))
    if gnmi_at is not None:
        checks.append(readiness.check_gnmi_at(gnmi_at))
    elif "gnmi" in endpoints:
        checks.append(readiness.check_gnmi(run))
    return checks
