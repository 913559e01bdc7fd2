"""``nos lab up|status|link|down`` on configs/labs/two-leaves.yaml: two real switches, each its own
Redis, daemons, REST and gNMI; any ``nos`` command against one of them with ``--lab/--node``; a link
whose carrier follows the cut and both ends' admin state; a lab stopped leaves nothing running; a
lab that cannot get ready stops what it started."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from nos.runtime.procs import pid_alive
from nos.runtime.rundir import RunDir
from tests.conftest import wait_until
from tests.e2e.conftest import nos

pytestmark = pytest.mark.e2e
LABS = Path(__file__).resolve().parents[2] / "configs" / "labs"
LINK = ("leaf1:Ethernet508", "leaf2:Ethernet508")


@pytest.fixture(scope="module")
def labs_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("labs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NOS_LABS_DIR", str(root))
        mp.delenv("NOS_RUN_DIR", raising=False)
        yield root


@pytest.fixture(scope="module")
def lab(labs_dir: Path) -> Iterator[dict[str, object]]:
    up = nos("lab", "up", str(LABS / "two-leaves.yaml"), timeout=200)
    try:
        yield {"up": up.stdout, "status": json.loads(nos("lab", "status", "--json").stdout)}
    finally:
        nos("lab", "down", "--lab", "two-leaves", check=False, timeout=90)


def _db(status: dict[str, object], node: str, n: int) -> redis.Redis:
    state = json.loads((Path(os.environ["NOS_LABS_DIR"]) / "two-leaves" / "lab.json").read_text())
    return redis.Redis.from_url(state["nodes"][node]["endpoints"]["redis"], db=n, decode_responses=True)


def _carrier(status: dict[str, object], node: str, port: str) -> str | None:
    client = _db(status, node, 6)  # STATE_DB
    try:
        return client.hget(f"NOS_LINK_TABLE|{port}", "carrier")
    finally:
        client.close()


def _opers() -> tuple[str, str]:
    """The link's oper status at both ends, as nos lab status shows it (APPL_DB PORT_TABLE)."""
    doc = json.loads(nos("lab", "status", "--json", check=False).stdout)
    link = doc["links"][0]
    return link["a_oper"], link["b_oper"]


def test_lab_up_lists_every_switch_ready_with_its_own_endpoints(lab: dict[str, object]) -> None:
    status = lab["status"]
    assert isinstance(status, dict) and status["ready"] and status["state"] == "ready"
    nodes = {n["node"]: n for n in status["nodes"]}
    assert set(nodes) == {"leaf1", "leaf2"} and all(n["ready"] for n in nodes.values())
    assert len({n["rest"] for n in nodes.values()}) == 2 and len({n["redis_tcp"] for n in nodes.values()}) == 2
    assert "leaf1" in str(lab["up"]) and "ready" in str(lab["up"])
    assert [(li["a"], li["b"], li["a_carrier"], li["b_carrier"]) for li in status["links"]] == [
        (*LINK, "up", "up")]


def test_any_command_runs_against_one_node(lab: dict[str, object]) -> None:
    out = nos("--lab", "two-leaves", "--node", "leaf2", "show", "runningconfiguration", "all").stdout
    assert json.loads(out)["DEVICE_METADATA"]["localhost"]["hostname"] == "leaf2"
    assert "leaf1" in nos("--node", "leaf1", "status").stdout  # the only lab running: no --lab needed
    missing = nos("--node", "spine9", "status", check=False)
    assert missing.returncode == 1 and "no switch 'spine9' in lab two-leaves" in missing.stderr


def test_link_down_and_up_reach_both_ends(lab: dict[str, object]) -> None:
    status = lab["status"]
    nos("lab", "link", "down", *LINK)
    assert _carrier(status, "leaf1", "Ethernet508") == "down" and _carrier(status, "leaf2", "Ethernet508") == "down"
    wait_until(lambda: _opers() == ("down", "down"), timeout=10)   # each switch's own port went oper down
    nos("lab", "link", "up", LINK[1], LINK[0])  # either order names the link
    assert _carrier(status, "leaf1", "Ethernet508") == "up" and _carrier(status, "leaf2", "Ethernet508") == "up"
    wait_until(lambda: _opers() == ("up", "up"), timeout=10)
    bad = nos("lab", "link", "down", "leaf1:Ethernet0", "leaf2:Ethernet0", check=False)
    assert bad.returncode == 2 and "no link leaf1:Ethernet0 -- leaf2:Ethernet0" in bad.stderr


def test_an_admin_down_port_darkens_the_far_end(lab: dict[str, object]) -> None:
    status = lab["status"]
    nos("--node", "leaf2", "config", "interface", "shutdown", "Ethernet508")
    try:
        wait_until(lambda: _carrier(status, "leaf1", "Ethernet508") == "down", timeout=10)
        assert _carrier(status, "leaf2", "Ethernet508") == "up"  # leaf1's end still has light
    finally:
        nos("--node", "leaf2", "config", "interface", "startup", "Ethernet508")
    wait_until(lambda: _carrier(status, "leaf1", "Ethernet508") == "up", timeout=10)


def test_every_switch_gives_its_tables_at_once(labs_dir: Path, lab: dict[str, object]) -> None:
    from nos.lab.exchange import LabExchangeError, export_all, import_all

    nodes = json.loads((labs_dir / "two-leaves" / "lab.json").read_text())["nodes"]
    exported = export_all(nodes)
    assert sorted(exported) == ["leaf1", "leaf2"]
    leaf1 = exported["leaf1"].tables
    assert leaf1.ports.n == 128 and leaf1.l3.switch_mac != exported["leaf2"].tables.l3.switch_mac
    assert exported["leaf1"].cables.get("Ethernet508") == 40.0  # the topology's cable for the peer link
    assert import_all(nodes, {"leaf1": [], "leaf2": []}) == {"leaf1": 0, "leaf2": 0}
    with pytest.raises(LabExchangeError, match="leaf9: not running"):
        export_all({**nodes, "leaf9": {}})


def test_a_killed_switch_is_dark_at_its_peer_and_comes_back(labs_dir: Path, lab: dict[str, object]) -> None:
    status = lab["status"]
    state = json.loads((labs_dir / "two-leaves" / "lab.json").read_text())
    leaf2 = json.loads((Path(state["nodes"]["leaf2"]["run_dir"]) / "boot.json").read_text())["pid"]
    os.kill(leaf2, signal.SIGKILL)
    wait_until(lambda: _carrier(status, "leaf1", "Ethernet508") == "down", timeout=10)

    def back() -> bool:
        doc = json.loads(nos("lab", "status", "--json", check=False).stdout)
        node = next(n for n in doc["nodes"] if n["node"] == "leaf2")
        return bool(doc["ready"] and node["restarts"] == 1)

    wait_until(back, timeout=90, interval=0.5)
    wait_until(lambda: _carrier(status, "leaf1", "Ethernet508") == "up", timeout=10)
    out = nos("--node", "leaf2", "show", "runningconfiguration", "all").stdout
    assert json.loads(out)["DEVICE_METADATA"]["localhost"]["hostname"] == "leaf2"


def test_lab_down_stops_every_process(labs_dir: Path, lab: dict[str, object]) -> None:
    state = json.loads((labs_dir / "two-leaves" / "lab.json").read_text())
    pids = [state["pid"]] + [json.loads((Path(n["run_dir"]) / "boot.json").read_text())["pid"]
                             for n in state["nodes"].values()]
    assert all(pid_alive(p) for p in pids)
    assert "stopped" in nos("lab", "down", timeout=90).stdout
    assert not [p for p in pids if pid_alive(p)]
    after = nos("lab", "status", "--lab", "two-leaves", check=False)
    assert after.returncode == 1 and "down" in after.stdout


def test_a_lab_that_cannot_get_ready_stops_what_it_started(labs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOS_LAB_BOOT_TIMEOUT", "1")
    failed = nos("lab", "up", str(LABS / "two-leaves.yaml"), check=False, timeout=120)
    assert failed.returncode == 1 and "not ready within 1 s" in failed.stderr
    state = json.loads((labs_dir / "two-leaves" / "lab.json").read_text())
    assert state["state"] == "failed"
    wait_until(lambda: not pid_alive(state["pid"]), timeout=60)
    # a switch stopped before it wrote boot.json never got far; any that did must be gone, and no run
    # dir may still name a live supervisor
    runs = [RunDir(Path(n["run_dir"])) for n in state["nodes"].values()]
    boots = [run.boot_state() or {} for run in runs]
    assert not [b["pid"] for b in boots if b.get("pid") and pid_alive(b["pid"])]
    assert not [run.path for run in runs if run.supervisor_pid() is not None]


def test_a_killed_lab_leaves_nothing_running(labs_dir: Path) -> None:
    nos("lab", "up", str(LABS / "two-leaves.yaml"), timeout=200)
    state = json.loads((labs_dir / "two-leaves" / "lab.json").read_text())
    switches = [json.loads((Path(n["run_dir"]) / "boot.json").read_text())["pid"] for n in state["nodes"].values()]
    os.kill(state["pid"], signal.SIGKILL)
    wait_until(lambda: not [p for p in switches if pid_alive(p)], timeout=60, interval=0.2)
    assert nos("lab", "status", "--lab", "two-leaves", check=False).returncode == 1
    again = nos("lab", "up", str(LABS / "two-leaves.yaml"), timeout=200)  # the stale lab is no obstacle
    assert "ready" in again.stdout
    nos("lab", "down", timeout=90)
