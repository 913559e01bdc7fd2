"""``nos status`` tells the truth: a killed daemon is not running (and its restart and cause are
told), routes still waiting in APPL_DB mean not ready, and a breakout does not leave it degraded."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from nos.db import Databases, ProducerStateTable
from nos.runtime.liveness import children_by_module
from nos.runtime.rundir import RunDir
from nos.runtime.status import collect_status, switch_ready
from tests.conftest import wait_until
from tests.e2e.conftest import start_switch

pytestmark = pytest.mark.e2e
ROUTES = 20_000


def status(sw):
    out = sw.nos("status", "--json", check=False)
    return out.returncode, json.loads(out.stdout)


def check(info, name):
    return next(c for c in info["checks"] if c["name"] == name)


@pytest.fixture(scope="module")
def sw(tmp_path_factory):
    switch = start_switch(tmp_path_factory.mktemp("st"), "--gnmi-port", "0")  # NOS-SIM-128x400G
    wait_until(lambda: status(switch)[0] == 0, timeout=30)
    yield switch
    switch.close()
    switch.nos("down", check=False)


def test_a_killed_daemon_is_not_running_and_its_restart_is_told(sw):
    old = int(sw.db(6).hget("NOS_DAEMON_TABLE|orchagent", "pid"))
    supervisor = RunDir(sw.run_dir).supervisor_pid()
    assert supervisor is not None
    # The supervisor is held while status looks, so that the restart cannot finish first (an idle
    # orchagent is back and reconciled within a second); held, it has not reaped the killed daemon
    # either, which then is a zombie that signal 0 still reaches.
    os.kill(supervisor, signal.SIGSTOP)
    try:
        os.kill(old, signal.SIGKILL)
        code, info = status(sw)
    finally:
        os.kill(supervisor, signal.SIGCONT)
    orchagent = check(info, "daemon orchagent")
    assert code == 2 and not info["ready"] and not orchagent["ok"]
    assert f"pid {old} running" not in orchagent["detail"]
    entry = next(d for d in info["daemons"] if d["name"] == "orchagent")
    assert not entry["running"] and entry["pid"] is None, entry
    # the restart and its cause: in STATE_DB, in status and in supervisor.log
    wait_until(lambda: sw.db(6).hget("NOS_DAEMON_TABLE|orchagent", "restarts") == "1", timeout=15)
    assert sw.db(6).hget("NOS_DAEMON_TABLE|orchagent", "last_exit") == "killed by SIGKILL"
    log = (sw.run_dir / "logs" / "supervisor.log").read_text()
    assert f"orchagent (pid {old}) killed by SIGKILL; restarting in 0.2s" in log
    assert "orchagent started again" in log
    wait_until(lambda: status(sw)[0] == 0, timeout=60, interval=0.2)
    code, info = status(sw)
    detail = check(info, "daemon orchagent")["detail"]
    assert "restarted 1x" in detail and "killed by SIGKILL" in detail and f"pid {old}" not in detail


def test_routes_waiting_in_appl_db_are_not_ready(sw):
    dbs = Databases(sw.endpoints["redis"])
    try:
        routes = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE")
        wait_until(lambda: status(sw)[0] == 0, timeout=60, interval=0.5)  # a restart before has converged
        before = json.loads(sw.nos("status", "--json").stdout)["asic"]["routes"]["asic"]
        rows = [(f"{100 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}.0/24", {"blackhole": "true", "protocol": "bgp"})
                for i in range(ROUTES)]
        for start in range(0, ROUTES, 1000):
            routes.set_many(rows[start:start + 1000])
        started = time.monotonic()
        info = collect_status(RunDir(sw.run_dir))  # what nos status prints, without its ~0.5 s of imports
        took = time.monotonic() - started
        ready_now = switch_ready(RunDir(sw.run_dir))
        code, cli = status(sw)
    finally:
        dbs.close()
    assert info["state"] == "converging" and not info["ready"], info["checks"]
    assert not ready_now or cli["ready"]  # the lab's check agrees (unless all were in by then)
    routes_check = check(info, "routes")
    figures = info["asic"]["routes"]
    assert not routes_check["ok"] and figures["expected"] == before + ROUTES and figures["queued"] > 0
    assert f"of {before + ROUTES:,} in the ASIC, {figures['queued']:,} waiting in APPL_DB ROUTE_TABLE" \
        in routes_check["detail"]
    assert code == 2 or cli["ready"] and cli["asic"]["routes"]["asic"] == before + ROUTES  # all in by then
    wait_until(lambda: status(sw)[0] == 0, timeout=120, interval=0.5)
    code, info = status(sw)
    assert check(info, "routes")["detail"] == f"routes: {before + ROUTES:,} of {before + ROUTES:,} in the ASIC"
    assert took < 2.0  # 0.1-0.2 s with 20,000 routes queued on an idle machine (README)


def test_a_breakout_does_not_leave_it_degraded(sw):
    out = sw.nos("config", "interface", "breakout", "Ethernet0", "4x100G")
    assert "every new port is in the ASIC" in out.stdout
    wait_until(lambda: status(sw)[0] == 0, timeout=30, interval=0.2)
    code, info = status(sw)
    assert info["asic"]["ports"]["wanted"] == 131 and info["asic"]["ports"]["in_asic"] == 131
    assert "128 ports when cfgmgrd started" in check(info, "ports")["detail"]


def test_the_labs_ready_check_is_the_status_verdict_and_asks_the_apis_once_the_databases_are_ready(sw):
    run = RunDir(sw.run_dir)
    wait_until(lambda: status(sw)[0] == 0, timeout=60, interval=0.2)
    assert switch_ready(run)
    supervisor = run.supervisor_pid()
    assert supervisor is not None
    rest = children_by_module(supervisor)["nos.api.rest"].pid
    os.kill(rest, signal.SIGSTOP)  # the databases are ready, REST does not answer
    try:
        assert not switch_ready(run)
        assert not collect_status(run)["ready"]
    finally:
        os.kill(rest, signal.SIGCONT)
    wait_until(lambda: switch_ready(run), timeout=10, interval=0.2)
