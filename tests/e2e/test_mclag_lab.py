"""configs/labs/mclag.yaml with real switches: ``nos lab up`` brings the pair up (session up on both,
the roles, the same system MAC, shown by ``show mclag brief`` and ``nos lab status``); invalid MC-LAG
configuration is refused naming what; a member going down, iccpd killed and the peer switch killed
each change what the other leaf shows, and each recovers."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.conftest import wait_until
from tests.e2e.conftest import nos

pytestmark = pytest.mark.e2e
LABS = Path(__file__).resolve().parents[2] / "configs" / "labs"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    root = tmp_path_factory.mktemp("labs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NOS_LABS_DIR", str(root))
        mp.delenv("NOS_RUN_DIR", raising=False)
        nos("lab", "up", str(LABS / "mclag.yaml"), timeout=200)
        try:
            yield json.loads(nos("lab", "status", "--json").stdout)
        finally:
            nos("lab", "down", "--lab", "mclag", check=False, timeout=90)


def state_db(node: str) -> redis.Redis:
    lab = json.loads((Path(os.environ["NOS_LABS_DIR"]) / "mclag" / "lab.json").read_text())
    return redis.Redis.from_url(lab["nodes"][node]["endpoints"]["redis"], db=6, decode_responses=True)


def session(node: str) -> dict[str, str]:
    client = state_db(node)
    try:
        return client.hgetall("MCLAG_TABLE|1")
    except redis.RedisError:
        return {}
    finally:
        client.close()


def brief(node: str) -> dict[str, str]:
    out = nos("--lab", "mclag", "--node", node, "show", "mclag", "brief").stdout
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in out.splitlines() if " : " in line)}


def daemon_pid(node: str, name: str) -> int:
    doc = json.loads(nos("--lab", "mclag", "--node", node, "status", "--json", check=False).stdout)
    return int(next(d["pid"] for d in doc["daemons"] if d["name"] == name))


def test_the_pair_comes_up_with_roles_and_one_system_mac(lab: dict[str, object]) -> None:
    assert lab["ready"]
    rows = {n["node"]: n["mclag"] for n in lab["nodes"]}  # type: ignore[union-attr]
    assert rows == {"leaf1": "up active", "leaf2": "up standby", "spine1": ""}
    one, two = brief("leaf1"), brief("leaf2")
    assert (one["Session Status"], one["Role"], two["Session Status"], two["Role"]) == ("up", "active", "up", "standby")
    assert one["System Mac"] == two["System Mac"] == session("leaf1")["system_mac"]
    assert one["Peer Link"] == "PortChannel999" and one["Peer Link Status"] == "up"


def test_invalid_mclag_configuration_is_refused_naming_the_field(lab: dict[str, object]) -> None:
    refused = nos("--lab", "mclag", "--node", "leaf1", "config", "mclag", "member", "add", "1", "PortChannel999",
                  check=False)
    assert refused.returncode == 2 and "MCLAG_INTERFACE|1|PortChannel999" in refused.stderr
    assert "peer link cannot be a member" in refused.stderr
    second = nos("--lab", "mclag", "--node", "leaf1", "config", "mclag", "add", "2", "10.0.0.1", "10.0.0.2",
                 check=False)
    assert second.returncode == 2 and "only one mclag Domain" in second.stderr
    timers = nos("--lab", "mclag", "--node", "leaf1", "config", "mclag", "keepalive-interval", "1", "2", check=False)
    assert timers.returncode == 2 and "session_timeout >= (3 * KA)" in timers.stderr
    client = state_db("leaf1")
    try:
        assert not client.exists("MCLAG_LOCAL_INTF_TABLE|PortChannel999")
    finally:
        client.close()


def test_a_member_down_on_one_leaf_shows_on_the_other_and_recovers(lab: dict[str, object]) -> None:
    def remote() -> str:
        client = state_db("leaf2")
        try:
            return client.hget("MCLAG_REMOTE_INTF_TABLE|1|PortChannel1", "oper_status") or ""
        finally:
            client.close()
    nos("--lab", "mclag", "--node", "leaf1", "config", "interface", "shutdown", "Ethernet0")
    try:
        wait_until(lambda: remote() == "down", timeout=10)
        shown = nos("--lab", "mclag", "--node", "leaf2", "show", "mclag", "interface", "1", "PortChannel1").stdout
        assert "up/down" in shown and "IsolateWithPeerLink  : No" in shown
    finally:
        nos("--lab", "mclag", "--node", "leaf1", "config", "interface", "startup", "Ethernet0")
    wait_until(lambda: remote() == "up", timeout=10)


def _watch(node: str, seconds: float) -> list[str]:
    """The session states ``node`` shows, polled every 10 ms for ``seconds`` (changes only)."""
    seen: list[str] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        row = session(node)
        now = f"{row.get('oper_status', '?')} {row.get('role', '?')}"
        if not seen or seen[-1] != now:
            seen.append(now)
        if "down active" in seen and seen[-1] == "up standby":
            break
        time.sleep(0.01)
    return seen


def test_iccpd_killed_drops_the_session_and_its_restart_restores_it(lab: dict[str, object]) -> None:
    pid = daemon_pid("leaf1", "iccpd")
    before = session("leaf2")
    assert f"{before.get('oper_status')} {before.get('role')}" == "up standby", before
    os.kill(pid, signal.SIGKILL)
    seen = _watch("leaf2", 15)   # leaf2 may see the reset before the first poll: "up standby" was checked above
    assert "down active" in seen and seen[-1] == "up standby", seen


def test_the_peer_switch_killed_leaves_the_survivor_active_alone_until_it_returns(lab: dict[str, object]) -> None:
    own_mac = json.loads(nos("--lab", "mclag", "--node", "leaf2", "show", "runningconfiguration", "all").stdout)[
        "DEVICE_METADATA"]["localhost"]["mac"]
    doc = json.loads(nos("--lab", "mclag", "--node", "leaf1", "status", "--json").stdout)
    os.kill(int(doc["pid"]), signal.SIGKILL)      # the whole switch (its daemons die with it); the lab restarts it
    wait_until(lambda: session("leaf2").get("oper_status") == "down", timeout=10, interval=0.02)
    alone = session("leaf2")
    assert alone["role"] == "active" and alone["system_mac"] == own_mac.lower() and alone["peer_mac"] == ""
    during = _traffic()      # leaf1 is down or still booting: left out, its links down for the run
    assert during["switches_down"] == ["leaf1"], during["switches_down"]
    assert during["delivered_bytes"] == during["bytes"] and during["dropped_bytes"] == 0
    wait_until(lambda: session("leaf2").get("oper_status") == "up", timeout=60, interval=0.1)
    assert session("leaf2")["role"] == "standby"
    wait_until(lambda: json.loads(nos("lab", "status", "--json", check=False).stdout)["ready"], timeout=60,
               interval=0.5)
    again = _traffic()
    assert again["switches_down"] == [] and again["delivered_bytes"] == again["bytes"]


def test_the_peer_link_down_keeps_the_session_and_the_traffic(lab: dict[str, object]) -> None:
    for port in ("Ethernet496", "Ethernet504"):
        nos("lab", "link", "down", f"leaf1:{port}", f"leaf2:{port}", "--lab", "mclag")
    try:
        doc = _traffic()
        assert session("leaf1")["oper_status"] == "up" == session("leaf2")["oper_status"]   # ICCP is not on it
        assert doc["delivered_bytes"] == doc["bytes"] and _peer_link_bytes(doc) == 0
    finally:
        for port in ("Ethernet496", "Ethernet504"):
            nos("lab", "link", "up", f"leaf1:{port}", f"leaf2:{port}", "--lab", "mclag")


def _traffic() -> dict[str, object]:
    return json.loads(nos("lab", "traffic", "run", str(LABS / "scenarios" / "all-to-all.yaml"), "--lab", "mclag",
                          "--json", timeout=200).stdout)


def _peer_link_bytes(doc: dict[str, object]) -> float:
    links = [li for li in doc["links"] if li["a"].endswith(("Ethernet496", "Ethernet504"))]  # type: ignore[union-attr]
    return float(sum(li["a_tx_bytes"] + li["b_tx_bytes"] for li in links))


def test_dual_homed_flows_spread_over_both_leaves_and_survive_a_member_down(lab: dict[str, object]) -> None:
    before = _traffic()
    assert before["delivered_bytes"] == before["bytes"] and before["dropped_bytes"] == 0
    tx = {s["switch"]: s["tx_bytes"] for s in before["switches"]}  # type: ignore[union-attr]
    assert tx["leaf1"] > 0.2 * (tx["leaf1"] + tx["leaf2"]) < tx["leaf2"]       # both leaves carry a share
    assert _peer_link_bytes(before) == 0                                       # each leaf delivers locally
    nos("--lab", "mclag", "--node", "leaf1", "config", "interface", "shutdown", "Ethernet8")   # h2's leaf1 link
    try:
        wait_until(lambda: "PortChannel999" in nos("--lab", "mclag", "--node", "leaf1", "show", "mac").stdout,
                   timeout=10)
        after = _traffic()
        assert after["delivered_bytes"] == after["bytes"] and after["dropped_bytes"] == 0
        assert _peer_link_bytes(after) > 0                                     # leaf1 reaches h2 through leaf2
    finally:
        nos("--lab", "mclag", "--node", "leaf1", "config", "interface", "startup", "Ethernet8")
