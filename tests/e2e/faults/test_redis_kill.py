"""SIGKILL of redis-server on a running switch, right after accepted but unsaved changes (CLI and
REST): the switch comes back ready by itself, CONFIG_DB holds the changes, the ASIC is rebuilt from
them, the endpoints are the same and ``nos status`` shows the restart and its cause."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request

import psutil
import pytest
import redis

from tests.conftest import wait_until
from tests.e2e.conftest import start_switch

pytestmark = pytest.mark.e2e
RECOVERY_BOUND_S = 45.0  # measured 1.4-2.1 s on this 2-core machine (README); generous for a loaded one
ROUTE = "192.168.50.0/24"


def status(sw):
    return json.loads(sw.nos("status", "--json", check=False).stdout)


def redis_pid(sw) -> int:
    supervisor = psutil.Process(int((sw.run_dir / "supervisor.pid").read_text()))
    return next(p.pid for p in supervisor.children() if "redis-server" in " ".join(p.cmdline()))


def patch(rest, path, ops):
    request = urllib.request.Request(rest + path, data=json.dumps(ops).encode(), method="PATCH",
                                     headers={"Content-Type": "application/json-patch+json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def asic_route(sw, prefix):
    return list(sw.db(1).scan_iter(match=f'ASIC_STATE:SAI_OBJECT_TYPE_ROUTE_ENTRY:{{"dest":"{prefix}"*', count=1000))


def asic_port(sw, name):
    oid = sw.db(2).hget("COUNTERS_PORT_NAME_MAP", name)
    return sw.db(1).hgetall(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}") if oid else {}


@pytest.fixture(scope="module")
def sw(tmp_path_factory):
    switch = start_switch(tmp_path_factory.mktemp("rk"), "--sku", "Force10-S6000", "--gnmi-port", "0")
    yield switch
    switch.close()
    switch.nos("down", check=False)


def test_redis_killed_after_unsaved_changes_comes_back_with_them(sw, tmp_path):
    wait_until(lambda: status(sw)["ready"], timeout=30)
    endpoints = sw.endpoints
    sw.nos("config", "interface", "ip", "add", "Ethernet0", "10.0.0.0/31")
    route = tmp_path / "route.json-patch"
    route.write_text(json.dumps([{"op": "add", "path": "/STATIC_ROUTE", "value": {ROUTE: {"blackhole": "true"}}}]))
    sw.nos("config", "apply-patch", str(route))
    mtu = [{"op": "replace", "path": "/mtu", "value": "4000"}]
    answer = patch(endpoints["rest"], "/api/v1/config/PORT/Ethernet4", mtu)
    assert answer["applied"]
    old = redis_pid(sw)
    supervisor = int((sw.run_dir / "supervisor.pid").read_text())
    # The supervisor is held while status looks: an idle switch is back and reconciled within a second
    # of the kill, sooner than one `nos status` answers, so a poll for the moment it is not ready races.
    os.kill(supervisor, signal.SIGSTOP)
    try:
        os.kill(old, signal.SIGKILL)  # at once: the REST change is accepted, not saved, maybe not yet in the ASIC
        killed = time.monotonic()
        sw.close()
        lost = status(sw)
    finally:
        os.kill(supervisor, signal.SIGCONT)
    assert lost["state"] == "degraded" and not lost["ready"], lost
    assert not next(c for c in lost["checks"] if c["name"] == "redis")["ok"]

    def back():  # ready again, after the restart (not the ready of before the kill)
        s = status(sw)
        return s["ready"] and s["redis"].get("restarts") == "1" and s
    info = wait_until(back, timeout=RECOVERY_BOUND_S, interval=0.2)
    recovered = time.monotonic() - killed
    print(f"ready again {recovered:.1f}s after the kill")

    # same endpoints, a new server, and the changes
    assert sw.endpoints == endpoints and redis_pid(sw) != old
    config = sw.db(4)
    assert config.hget("PORT|Ethernet4", "mtu") == "4000"
    assert config.exists("INTERFACE|Ethernet0|10.0.0.0/31") and config.hgetall(f"STATIC_ROUTE|{ROUTE}") == {
        "blackhole": "true"}
    # the ASIC was rebuilt from CONFIG_DB (it was empty after the loss)
    wait_until(lambda: asic_route(sw, ROUTE) and asic_route(sw, "10.0.0.0/31"), timeout=10)
    assert asic_port(sw, "Ethernet4")["SAI_PORT_ATTR_MTU"] == "4022"
    # what status and the log say
    assert info["redis"]["restarts"] == "1" and info["redis"]["last_exit"] == "killed by SIGKILL"
    redis_check = next(c for c in info["checks"] if c["name"] == "redis")
    assert "restarted 1x" in redis_check["detail"] and "killed by SIGKILL" in redis_check["detail"]
    daemons = {d["name"]: d for d in info["daemons"]}
    assert all(daemons[name]["restarts"] == 1 for name in ("syncd", "orchagent", "cfgmgrd", "rest", "gnmi"))
    log = (sw.run_dir / "logs" / "supervisor.log").read_text()
    assert "Redis killed by SIGKILL" in log and "CONFIG_DB restored" in log
    assert "restarting in" not in log  # nobody waited out a back-off while Redis was down
    # the endpoints work: REST reads the change, TCP with the password, the unix socket without
    with urllib.request.urlopen(endpoints["rest"] + "/api/v1/config/PORT/Ethernet4", timeout=10) as reply:
        assert json.loads(reply.read())["mtu"] == "4000"
    password = (sw.run_dir / "redis.pass").read_text().strip()
    with redis.Redis.from_url(endpoints["redis_tcp"], password=password, db=4, decode_responses=True) as tcp:
        assert tcp.hget("PORT|Ethernet4", "mtu") == "4000"
    assert recovered < RECOVERY_BOUND_S
