"""``make docker-test``'s checks, against real containers: ``python -m tests.docker.driver --work DIR``.

Run by ``tests/docker/run.sh`` once it has started a private dockerd (``DOCKER_HOST``) and built the image;
not collected by ``make test`` (no ``test_`` file here). From the host, with real processes only:

1. the switch of ``docker/docker-compose.yml`` (ports on free loopback ports, its run dir in DIR): every
   container healthy; ``nos attach`` and ``nos status`` ready; REST GET and PATCH; a pygnmi Set and an
   ON_CHANGE Subscribe; ``nos show``, ``nos config`` and ``nos config save`` (into the volume); the RoCE
   intent and a traffic run (lossless, paused); each change seen in the ``database`` container's own
   ASIC_DB / COUNTERS_DB (``docker-compose exec database redis-cli``);
2. the ``swss`` container killed (``docker kill``), a change made while it is gone, then compose starting
   it again: the switch reconciles (the change reaches the ASIC, the ports keep their object ids, nothing
   else in the ASIC changes) and ``nos status`` is ready again; ``docker-compose down``: status down;
3. the two-leaves lab from ``nos lab compose``: nine containers healthy, both switches ready, their link up
   at both ends, a port shut on one leaf darkening the other's end, and back.

Every wait polls with a deadline. A failure prints the containers' recent logs and exits 1.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")  # before grpc loads: this driver forks children

import argparse
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from tests.e2e.faults.normalise import differences, normal_form, read_asic

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker" / "docker-compose.yml"
LAB_FILE = ROOT / "configs" / "labs" / "two-leaves.yaml"
NOS = [sys.executable, "-m", "nos.cli.main"]
SOCK = "/var/run/nos/redis.sock"
MTU_OVERHEAD = 22  # SAI_PORT_ATTR_MTU counts the Ethernet header, FCS and one VLAN tag
PFC_ATTR = "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"
T0 = time.monotonic()


class Failed(AssertionError):
    """A check of the docker test failed (the message says which and what was seen)."""


def _quiet_cancelled(args: threading.ExceptHookArgs) -> None:
    """pygnmi's subscription reader thread raises CANCELLED when its channel is closed: not a failure."""
    if "CANCELLED" not in str(args.exc_value):
        sys.__excepthook__(args.exc_type, args.exc_value, args.exc_traceback)


threading.excepthook = _quiet_cancelled


def log(message: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {message}", flush=True)


@contextmanager
def step(name: str) -> Iterator[None]:
    started = time.monotonic()
    log(f"{name} ...")
    yield
    log(f"{name}: ok ({time.monotonic() - started:.1f} s)")


def check(ok: bool, what: str) -> None:
    if not ok:
        raise Failed(what)


def wait_for(cond: Callable[[], Any], what: str, timeout: float = 60.0, every: float = 0.2) -> Any:
    """Poll ``cond`` until it returns something true; Failed naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = cond()
        except (OSError, ValueError, subprocess.SubprocessError, Failed) as exc:
            last = exc
        if last and not isinstance(last, Exception):
            return last
        time.sleep(every)
    raise Failed(f"{what}: not within {timeout:g}s (last: {last!r})")


def run(argv: list[str], *, env: dict[str, str] | None = None, check_rc: bool = True, timeout: float = 180.0,
        input_text: str | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, input=input_text)
    if check_rc and proc.returncode != 0:
        raise Failed(f"{' '.join(argv)} -> {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def free_ports(count: int) -> list[int]:
    """``count`` consecutive TCP ports free on loopback right now."""
    for _ in range(200):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = probe.getsockname()[1]
        if base + count > 65535:
            continue
        socks = []
        try:
            for port in range(base, base + count):
                sock = socket.socket()
                socks.append(sock)
                sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
        return list(range(base, base + count))
    raise Failed("no free loopback ports")


def http(method: str, url: str, body: Any = None, content_type: str = "application/json") -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": content_type} if data is not None else {})
    with urllib.request.urlopen(request, timeout=30) as reply:
        raw = reply.read()
        return reply.status, json.loads(raw) if raw else None


@dataclass
class Project:
    """One docker-compose project: a compose file, its name and its environment."""

    name: str
    file: Path
    env: dict[str, str]

    def compose(self, *args: str, check_rc: bool = True, timeout: float = 300.0) -> subprocess.CompletedProcess[str]:
        return run(["docker-compose", "-p", self.name, "-f", str(self.file), *args], env=self.env,
                   check_rc=check_rc, timeout=timeout)

    def container(self, service: str) -> str:
        cid = self.compose("ps", "-q", service).stdout.strip()
        check(bool(cid), f"no container for service {service}")
        return cid

    def health(self) -> dict[str, str]:
        """Each container's health (or state, when it has no healthcheck)."""
        ids = self.compose("ps", "-q").stdout.split()
        if not ids:
            return {}
        fmt = "{{.Name}} {{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}"
        out = run([docker(), "inspect", "-f", fmt, *ids], env=self.env).stdout
        return dict(line.strip().lstrip("/").split(" ", 1) for line in out.splitlines() if line.strip())

    def wait_healthy(self, count: int, timeout: float = 180.0) -> None:
        def ready() -> bool:
            health = self.health()
            return len(health) == count and all(s == "healthy" for s in health.values())
        try:
            wait_for(ready, f"{count} healthy containers in {self.name}", timeout=timeout, every=0.5)
        except Failed:
            log(f"containers: {self.health()}")
            raise

    def redis(self, service: str, *args: str) -> str:
        """redis-cli in the ``service`` container (on its own socket)."""
        return self.compose("exec", "-T", service, "redis-cli", "-s", SOCK, *args).stdout.strip()

    def logs(self) -> str:
        return self.compose("logs", "--no-color", "--tail", "40", check_rc=False).stdout


def docker() -> str:
    return os.environ.get("DOCKER", "docker")


def nos(run_dir: Path, *args: str, check_rc: bool = True, timeout: float = 180.0) -> subprocess.CompletedProcess[str]:
    return run([*NOS, *args, "--run-dir", str(run_dir)], check_rc=check_rc, timeout=timeout)


def status_rc(run_dir: Path) -> int:
    return nos(run_dir, "status", check_rc=False, timeout=60).returncode


class Switch:
    """The single switch of docker/docker-compose.yml, seen from the host."""

    def __init__(self, work: Path, image: str) -> None:
        self.run_dir = work / "switch"
        shutil.rmtree(self.run_dir, ignore_errors=True)  # a fresh switch: no saved config from an earlier run
        self.run_dir.mkdir(parents=True)
        self.rest_port, self.gnmi_port, self.redis_port = free_ports(3)
        env = {**os.environ, "NOS_SWITCH_DIR": str(self.run_dir), "NOS_IMAGE": image,
               "NOS_REST_PORT": str(self.rest_port), "NOS_GNMI_PORT": str(self.gnmi_port),
               "NOS_REDIS_PORT": str(self.redis_port)}
        self.project = Project(f"nosdt{os.getpid()}", COMPOSE_FILE, env)
        self.rest = f"http://127.0.0.1:{self.rest_port}"

    def asic_port(self, port: str, attr: str) -> str:
        oid = self.project.redis("database", "-n", "2", "HGET", "COUNTERS_PORT_NAME_MAP", port)
        check(oid.startswith("oid:"), f"no COUNTERS_PORT_NAME_MAP entry for {port}: {oid!r}")
        return self.project.redis("database", "-n", "1", "HGET", f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}", attr)

    def asic_mtu(self, port: str) -> int:
        value = self.asic_port(port, "SAI_PORT_ATTR_MTU")
        return int(value) - MTU_OVERHEAD if value.isdigit() else -1

    def asic_rows(self) -> dict[str, dict[str, str]]:
        """The whole ASIC_DB of the database container (read over the run dir's socket: the same Redis)."""
        client = redis.Redis(unix_socket_path=str(self.run_dir / "redis.sock"), db=1, decode_responses=True)
        try:
            return read_asic(client)
        finally:
            client.close()


def single_switch(work: Path, image: str) -> None:
    sw = Switch(work, image)
    project = sw.project
    try:
        with step(f"docker-compose up ({COMPOSE_FILE.relative_to(ROOT)}: REST {sw.rest_port}, gNMI {sw.gnmi_port}, "
                  f"Redis {sw.redis_port})"):
            project.compose("up", "-d")
            project.wait_healthy(4)
        with step("nos attach, nos status ready"):
            nos(sw.run_dir, "attach", "--rest", sw.rest, "--gnmi", f"127.0.0.1:{sw.gnmi_port}",
                "--redis-tcp", f"redis://127.0.0.1:{sw.redis_port}", "--timeout", "60")
            wait_for(lambda: status_rc(sw.run_dir) == 0, "nos status ready", timeout=90, every=1.0)
        rest_checks(sw)
        gnmi_checks(sw)
        cli_checks(sw)
        traffic_checks(sw)
        swss_kill(sw)
        with step("docker-compose down; nos status down"):
            project.compose("down", "--timeout", "20")
            check(project.health() == {}, f"containers left: {project.health()}")
            check(status_rc(sw.run_dir) == 1, "nos status is not 'down' after docker-compose down")
    except BaseException:
        log(f"logs of {project.name}:\n{project.logs()}")
        project.compose("down", "--timeout", "10", check_rc=False)
        raise


def rest_checks(sw: Switch) -> None:
    with step("REST GET and PATCH (wait=applied); the mtu in the database container's ASIC_DB"):
        code, row = http("GET", f"{sw.rest}/api/v1/config/PORT/Ethernet0")
        check(code == 200 and row.get("mtu") == "9100", f"GET PORT/Ethernet0: {code} {row}")
        code, _ = http("PATCH", f"{sw.rest}/api/v1/config/PORT/Ethernet0?wait=applied",
                       [{"op": "replace", "path": "/mtu", "value": "4000"}], "application/json-patch+json")
        check(code in (200, 204), f"PATCH PORT/Ethernet0: {code}")
        check(sw.asic_mtu("Ethernet0") == 4000, f"ASIC mtu of Ethernet0 is {sw.asic_mtu('Ethernet0')}, not 4000")


def gnmi_checks(sw: Switch) -> None:
    from pygnmi.client import gNMIclient

    base = "sonic-db:/CONFIG_DB/localhost"
    with step("pygnmi Set (mtu) and ON_CHANGE Subscribe (a REST change streamed)"):
        with gNMIclient(target=("127.0.0.1", sw.gnmi_port), insecure=True, gnmi_timeout=15) as client:
            reply = client.set(update=[(f"{base}/PORT/Ethernet8/mtu", "5000")], encoding="json_ietf")
            check([r["op"] for r in reply["response"]] == ["UPDATE"], f"gNMI Set: {reply}")
            wait_for(lambda: sw.asic_mtu("Ethernet8") == 5000, "gNMI Set's mtu in the ASIC", timeout=20)
            sub = client.subscribe2(subscribe={"mode": "stream", "encoding": "json_ietf", "subscription": [
                {"path": f"{base}/PORT/Ethernet12", "mode": "on_change"}]})
            first = sub.get_update(timeout=15)
            check(bool(first.get("sync_response")), f"no sync_response first: {first}")
            http("PATCH", f"{sw.rest}/api/v1/config/PORT/Ethernet12",
                 [{"op": "replace", "path": "/mtu", "value": "8000"}], "application/json-patch+json")

            def changed() -> bool:
                for update in sub.get_update(timeout=15).get("update", {}).get("update", []):
                    if isinstance(update.get("val"), dict) and update["val"].get("mtu") == "8000":
                        return True
                return False
            wait_for(changed, "the ON_CHANGE update of Ethernet12's mtu", timeout=30)
            sub.close()


def cli_checks(sw: Switch) -> None:
    with step("nos show / nos config / nos config save into the volume"):
        shown = json.loads(nos(sw.run_dir, "show", "interfaces", "status", "Ethernet0", "--json").stdout)
        check(shown[0]["mtu"] == "4000", f"nos show interfaces status Ethernet0: {shown}")
        nos(sw.run_dir, "config", "interface", "mtu", "Ethernet4", "6000")  # returns once it is in the ASIC
        check(sw.asic_mtu("Ethernet4") == 6000, "nos config interface mtu did not reach the ASIC")
        nos(sw.run_dir, "config", "save")
        saved = json.loads((sw.run_dir / "config_db.json").read_text())
        check(saved["PORT"]["Ethernet4"]["mtu"] == "6000" and saved["PORT"]["Ethernet0"]["mtu"] == "4000",
              "the saved config_db.json in the volume lacks the changes")


def traffic_checks(sw: Switch) -> None:
    with step("nos config roce enable; PFC on priority 3 in the database container's ASIC_DB"):
        nos(sw.run_dir, "config", "roce", "enable", timeout=120)
        check(sw.asic_port("Ethernet0", PFC_ATTR) == "8", "RoCE intent: Ethernet0's PFC bitmask is not 8")
    with step("nos traffic run incast-64to1: lossless, senders paused, counters in COUNTERS_DB"):
        doc = json.loads(nos(sw.run_dir, "traffic", "run", "incast-64to1", "--json", "--timeout", "120",
                             timeout=180).stdout)
        summary = doc["summary"]
        check(summary["drop_pkts"] == 0 and summary["finished"] == summary["flows"] == 64, f"summary: {summary}")
        check(summary["pfc_tx_frames"] > 0, f"no pause frames: {summary}")
        oid = sw.project.redis("database", "-n", "2", "HGET", "COUNTERS_PORT_NAME_MAP", "Ethernet4")
        paused = sw.project.redis("database", "-n", "2", "HGET", f"COUNTERS:{oid}", "SAI_PORT_STAT_PFC_3_TX_PKTS")
        check(paused.isdigit() and int(paused) > 0, f"Ethernet4's PFC3 TX in COUNTERS_DB: {paused!r}")


def unset_nulls(rows: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """ASIC rows without their object-id attributes set to the null object: that is their SAI default, the
    same state as never set (a profile taken off a queue by the RoCE intent; a rebuilt view never sets it)."""
    return {key: {f: v for f, v in fields.items() if v != "oid:0x0"} for key, fields in rows.items()}


def swss_kill(sw: Switch) -> None:
    project = sw.project
    before = sw.asic_rows()
    port16 = project.redis("database", "-n", "2", "HGET", "COUNTERS_PORT_NAME_MAP", "Ethernet16")
    with step("docker kill swss; a change while it is gone; nos status not ready"):
        run([docker(), "kill", project.container("swss")], env=project.env)
        wait_for(lambda: status_rc(sw.run_dir) == 2, "nos status degraded with swss killed", timeout=30, every=1.0)
        code, _ = http("PATCH", f"{sw.rest}/api/v1/config/PORT/Ethernet16",
                       [{"op": "replace", "path": "/mtu", "value": "7000"}], "application/json-patch+json")
        check(code in (200, 204), f"PATCH with swss down: {code}")
        check(sw.asic_mtu("Ethernet16") == 9100, "the ASIC changed with swss down")
    with step("docker-compose up -d starts swss again: the switch reconciles"):
        project.compose("up", "-d")
        project.wait_healthy(4)
        wait_for(lambda: sw.asic_mtu("Ethernet16") == 7000, "the change made while swss was down in the ASIC")
        wait_for(lambda: status_rc(sw.run_dir) == 0, "nos status ready after swss came back", timeout=90, every=1.0)
        # the same ASIC up to object ids (a restarted orchagent's view gets new ones at APPLY_VIEW), but for
        # the one change: nothing lost, nothing duplicated
        before[f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{port16}"]["SAI_PORT_ATTR_MTU"] = str(7000 + MTU_OVERHEAD)
        diff = differences(normal_form(unset_nulls(before)), normal_form(unset_nulls(sw.asic_rows())))
        check(not diff, "the ASIC after the restart differs from before it: " + "; ".join(diff))


def lab(work: Path, image: str) -> None:
    lab_dir = work / "lab"
    shutil.rmtree(lab_dir, ignore_errors=True)
    ports = free_ports(6)  # each switch i gets base + i
    rest, gnmi, redis_port = ports[0], ports[2], ports[4]
    compose_file = work / "lab-compose.yml"
    nos_cmd = [*NOS, "lab", "compose", str(LAB_FILE), "--dir", str(lab_dir), "-o", str(compose_file),
               "--image", image, "--rest-port", str(rest), "--gnmi-port", str(gnmi), "--redis-port", str(redis_port)]
    project = Project(f"noslab{os.getpid()}", compose_file, dict(os.environ))
    leaf1, leaf2 = lab_dir / "nodes" / "leaf1", lab_dir / "nodes" / "leaf2"
    try:
        with step("nos lab compose two-leaves; docker-compose up; 9 containers healthy"):
            run(nos_cmd)
            project.compose("up", "-d")
            project.wait_healthy(9)
        with step("nos attach both leaves; both ready"):
            for i, run_dir in enumerate((leaf1, leaf2)):
                nos(run_dir, "attach", "--rest", f"http://127.0.0.1:{rest + i}", "--gnmi", f"127.0.0.1:{gnmi + i}",
                    "--redis-tcp", f"redis://127.0.0.1:{redis_port + i}", "--timeout", "60")
            for run_dir in (leaf1, leaf2):
                wait_for(lambda d=run_dir: status_rc(d) == 0, f"nos status ready for {run_dir.name}", timeout=120,
                         every=1.0)

        def oper(run_dir: Path) -> str:
            rows = json.loads(nos(run_dir, "show", "interfaces", "status", "Ethernet508", "--json").stdout)
            return str(rows[0]["oper"])

        with step("the leaf1:Ethernet508 -- leaf2:Ethernet508 link: up at both ends, dark when leaf2 shuts it"):
            wait_for(lambda: oper(leaf1) == "up" and oper(leaf2) == "up", "the link up at both ends", timeout=30)
            nos(leaf2, "config", "interface", "shutdown", "Ethernet508")
            wait_for(lambda: oper(leaf1) == "down", "leaf1's end down once leaf2 shut its port", timeout=15)
            nos(leaf2, "config", "interface", "startup", "Ethernet508")
            wait_for(lambda: oper(leaf1) == "up", "leaf1's end up again", timeout=15)
        with step("docker-compose down (the lab)"):
            project.compose("down", "--timeout", "20")
            check(project.health() == {}, f"containers left: {project.health()}")
    except BaseException:
        log(f"logs of {project.name}:\n{project.logs()}")
        project.compose("down", "--timeout", "10", check_rc=False)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="a scratch directory (run dirs, the lab's files)")
    parser.add_argument("--image", default=os.environ.get("NOS_IMAGE", "nos-sim:latest"))
    parser.add_argument("--no-lab", action="store_true", help="only the single switch")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    try:
        single_switch(args.work.resolve(), args.image)
        if not args.no_lab:
            lab(args.work.resolve(), args.image)
    except Failed as exc:
        log(f"FAILED: {exc}")
        return 1
    log("every docker check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
