"""The four containers of a docker-compose switch, run here as plain processes (what each container runs,
without docker): ``python -m nos.runtime.container database|syncd|swss|mgmt`` on one run dir, reached
with ``nos attach``. A role killed and started again, and Redis killed, leave a switch that reconciles.
``make docker-test`` runs the same roles in real containers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from nos.runtime.redis_server import pick_free_port
from tests.conftest import wait_until
from tests.e2e.conftest import nos

pytestmark = pytest.mark.e2e
ROLES = ("database", "syncd", "swss", "mgmt")
SKU = "Force10-S6000"


@dataclass
class Roles:
    run_dir: Path
    ports: dict[str, int]
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def health_file(self, role: str) -> Path:
        return self.run_dir.parent / f"{role}.health"

    def start(self, role: str) -> None:
        extra = {"database": ["--redis-port", str(self.ports["redis"]), "--sku", SKU],
                 "mgmt": ["--rest-port", str(self.ports["rest"]), "--gnmi-port", str(self.ports["gnmi"]),
                          "--published-on", "127.0.0.1"]}.get(role, [])
        with (self.run_dir.parent / f"{role}.log").open("ab") as out:
            self.procs[role] = subprocess.Popen(
                [sys.executable, "-m", "nos.runtime.container", role, "--run-dir", str(self.run_dir),
                 "--health-file", str(self.health_file(role)), *extra], stdout=out, stderr=subprocess.STDOUT)

    def healthy(self, role: str) -> bool:
        return self.health_file(role).exists()

    def db(self, n: int) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.run_dir / "redis.sock"), db=n, decode_responses=True)

    def nos(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return nos(*args, "--run-dir", str(self.run_dir), check=check)

    def stop(self) -> None:
        for role in reversed(ROLES):
            proc = self.procs.get(role)
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="module")
def roles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Roles]:
    base = tmp_path_factory.mktemp("roles")
    sw = Roles(base / "run", {name: pick_free_port() for name in ("redis", "rest", "gnmi")})
    sw.run_dir.mkdir()
    try:
        for role in ROLES:
            sw.start(role)
        wait_until(lambda: all(sw.healthy(r) for r in ROLES), timeout=60)
        sw.nos("attach", "--rest", f"http://127.0.0.1:{sw.ports['rest']}", "--gnmi", f"127.0.0.1:{sw.ports['gnmi']}",
               "--redis-tcp", f"redis://127.0.0.1:{sw.ports['redis']}")
        yield sw
    finally:
        sw.stop()


def status(sw: Roles) -> subprocess.CompletedProcess[str]:
    return sw.nos("status", check=False)


def asic_mtu(sw: Roles, port: str) -> str | None:
    oid = sw.db(2).hget("COUNTERS_PORT_NAME_MAP", port)
    return sw.db(1).hget(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}", "SAI_PORT_ATTR_MTU") if oid else None


def test_the_attached_switch_is_ready_and_every_command_reaches_it(roles: Roles) -> None:
    wait_until(lambda: status(roles).returncode == 0, timeout=60)
    info = json.loads(roles.nos("status", "--json").stdout)
    assert info["attached"] == "docker-compose" and info["sku"] == SKU
    names = {c["name"] for c in info["checks"] if c["ok"]}
    assert {"daemon syncd", "daemon orchagent", "daemon cfgmgrd", "asic ports", "rest", "gnmi", "redis tcp"} <= names
    roles.nos("config", "interface", "mtu", "Ethernet0", "4000")  # returns once the change is in the ASIC
    assert asic_mtu(roles, "Ethernet0") == "4022"
    roles.nos("config", "save")
    assert json.loads((roles.run_dir / "config_db.json").read_text())["PORT"]["Ethernet0"]["mtu"] == "4000"
    down = roles.nos("down", check=False)
    assert down.returncode == 1 and "attached" in down.stderr


def test_a_killed_role_started_again_reconciles(roles: Roles) -> None:
    wait_until(lambda: status(roles).returncode == 0, timeout=60)
    roles.procs["swss"].send_signal(signal.SIGKILL)  # its orchagent and cfgmgrd die with it
    roles.procs["swss"].wait()
    wait_until(lambda: status(roles).returncode == 2, timeout=30)
    roles.db(4).hset("PORT|Ethernet4", "mtu", "5000")  # while swss is away
    roles.start("swss")
    wait_until(lambda: asic_mtu(roles, "Ethernet4") == "5022", timeout=60)
    wait_until(lambda: status(roles).returncode == 0, timeout=60)
    assert asic_mtu(roles, "Ethernet0") == "4022"


def test_redis_killed_comes_back_with_config_db_and_every_role_follows(roles: Roles) -> None:
    wait_until(lambda: status(roles).returncode == 0, timeout=60)
    pid = int(roles.db(6).hget("NOS_DAEMON_TABLE|redis", "pid") or 0)
    assert pid > 0
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: (roles.db(6).hget("NOS_DAEMON_TABLE|redis", "restarts") or "0") != "0", timeout=60)
    wait_until(lambda: status(roles).returncode == 0, timeout=90)
    assert asic_mtu(roles, "Ethernet0") == "4022" and asic_mtu(roles, "Ethernet4") == "5022"  # CONFIG_DB kept
    assert all(roles.procs[r].poll() is None for r in ROLES)


def test_forgetting_the_attachment(roles: Roles) -> None:
    roles.nos("attach", "--forget")
    assert status(roles).returncode == 1
    assert roles.nos("show", "interfaces", "status", check=False).returncode == 1
