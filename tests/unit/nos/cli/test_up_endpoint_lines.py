"""What ``nos up`` prints under "Switch ready": one order, foreground or ``-d`` (the README shows it)."""

from __future__ import annotations

from pathlib import Path

from nos.cli.switch import _endpoint_lines
from nos.runtime.rundir import RunDir

RUN = Path("/r")
ENDPOINTS = {"redis": "unix:///r/redis.sock", "redis_tcp": "redis://127.0.0.1:6379",
             "redis_password_file": "/r/redis.pass", "rest": "http://127.0.0.1:8000", "gnmi": "127.0.0.1:8080"}
SHOWN = [
    "  redis      unix:///r/redis.sock",
    "  redis_tcp  redis://127.0.0.1:6379  (password in /r/redis.pass)",
    "  rest       http://127.0.0.1:8000",
    "  gnmi       127.0.0.1:8080",
    "  run dir    /r",
]


def test_the_boot_order_and_the_sorted_boot_json_print_the_same_lines() -> None:
    boot_order = {k: ENDPOINTS[k] for k in ("redis_tcp", "redis_password_file", "redis", "rest", "gnmi")}
    sorted_order = dict(sorted(ENDPOINTS.items()))
    assert _endpoint_lines(boot_order, RunDir(RUN)) == SHOWN
    assert _endpoint_lines(sorted_order, RunDir(RUN)) == SHOWN


def test_an_endpoint_of_another_name_comes_after_the_known_ones() -> None:
    lines = _endpoint_lines({"metrics": "x", **ENDPOINTS}, RunDir(RUN))
    assert lines[4] == "  metrics    x" and lines[-1] == "  run dir    /r"
