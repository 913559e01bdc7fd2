"""A daemon's check from its heartbeat row and the supervisor's live child (pure)."""

from __future__ import annotations

from nos.runtime.liveness import Child, judge_daemon, judge_server, restart_note
from nos.runtime.readiness import Check
from nos.runtime.status import Report

NOW = 1_000_000.0
ROW = {"pid": "42", "status": "running", "heartbeat": str(NOW - 0.5), "pending": "0"}


def test_a_live_child_with_a_fresh_heartbeat_is_running():
    check = judge_daemon("orchagent", ROW, Child(42, NOW - 60), NOW)
    assert check.ok and check.detail == "pid 42 running, heartbeat 0.5s ago"


def test_a_dead_daemon_is_not_running_whatever_its_row_says():
    row = {**ROW, "restarts": "1", "last_exit": "killed by SIGKILL", "last_exit_time": str(NOW - 2)}
    check = judge_daemon("orchagent", row, None, NOW)
    assert not check.ok and not check.waiting
    assert check.detail.startswith("not running (its last heartbeat was pid 42); restarted 1x, last exit ")
    assert check.detail.endswith(": killed by SIGKILL")


def test_a_restarted_daemon_without_its_own_heartbeat_yet():
    check = judge_daemon("orchagent", ROW, Child(43, NOW - 0.2), NOW)
    assert not check.ok and "pid 43 started 0.2s ago, no heartbeat from it yet" in check.detail


def test_a_stale_heartbeat_fails_and_pending_is_shown():
    assert not judge_daemon("syncd", {**ROW, "heartbeat": str(NOW - 9)}, Child(42, 0), NOW).ok
    assert "7 pending" in judge_daemon("syncd", {**ROW, "pending": "7"}, Child(42, 0), NOW).detail


def test_servers_and_notes():
    assert judge_server("rest", {}, Child(7, 0)).ok
    assert not judge_server("rest", {"restarts": "2"}, None).ok
    assert restart_note({}) == "" and restart_note({"restarts": "3"}) == "restarted 3x"


def test_state_from_checks():
    ready = Check("a", True, "")
    assert Report([ready]).state == "ready"
    assert Report([ready, Check("pipeline", False, "", waiting=True)]).state == "converging"
    assert Report([Check("pipeline", False, "", waiting=True), Check("daemon x", False, "")]).state == "degraded"
