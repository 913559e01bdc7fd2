"""A write is applied before anything acts on it: a traffic run right after the RoCE intent is turned on
runs on the RoCE tables (lossless), every time; config commands, REST and gNMI can wait for "applied",
and say which hop lags when it does not come."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pygnmi.client import gNMIclient

from tests.e2e.conftest import RunningSwitch, nos, start_switch

pytestmark = pytest.mark.e2e

RUNS = 20
SENDERS = 16
SCENARIO = f"""\
name: incast-{SENDERS}to1
duration: 30ms
seed: 1
sample_interval: 100us
hosts:
  - name: sender{{i}}
    ports: Ethernet4-Ethernet{4 * SENDERS}
  - name: receiver
    ports: Ethernet0
workloads:
  - kind: incast
    senders: sender*
    receiver: receiver
    size: 2MB
    dscp: 26
"""


@pytest.fixture(scope="module")
def switch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSwitch]:
    """SONiC's 32x100G baseline with the incast's ports up (its ports start admin down)."""
    tmp = tmp_path_factory.mktemp("barrier")
    sw = start_switch(tmp / "sw", "--sku", "Force10-S6000", "--gnmi-port", "0")
    ports = tmp / "ports.json"
    ports.write_text(json.dumps({"PORT": {f"Ethernet{4 * i}": {"admin_status": "up"} for i in range(SENDERS + 1)}}))
    sw.nos("config", "load", str(ports))
    (tmp / "incast.yaml").write_text(SCENARIO)
    yield sw
    sw.close()
    nos("down", "--run-dir", str(sw.run_dir), check=False)


def incast(sw: RunningSwitch) -> dict:
    out = sw.nos("traffic", "run", str(sw.run_dir.parent / "incast.yaml"), "--json")
    return json.loads(out.stdout)["summary"]


def test_the_incast_right_after_the_intent_is_on_is_lossless_every_time(switch):
    off = incast(switch)
    assert off["drop_pkts"] > 0 and off["pfc_tx_frames"] == 0  # DSCP 26 is lossy without the intent
    for run in range(RUNS):
        # every other time the command does not wait either: the run must wait for the change itself
        switch.nos("config", *(["--no-wait"] if run % 2 else []), "roce", "enable")
        summary = incast(switch)
        assert summary["drop_pkts"] == 0 and summary["pfc_tx_frames"] > 0, (run, summary)
        switch.nos("config", "--no-wait", "roce", "disable")


def test_rest_and_gnmi_answer_once_applied(switch):
    rest = switch.endpoints["rest"]
    reply = httpx.patch(f"{rest}/api/v1/config/PORT/Ethernet8?wait=applied",
                        json=[{"op": "replace", "path": "/mtu", "value": "4000"}], timeout=30)
    assert reply.status_code == 200, reply.text
    asic = switch.db(1)
    oid = switch.db(2).hget("COUNTERS_PORT_NAME_MAP", "Ethernet8")
    assert asic.hget(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}", "SAI_PORT_ATTR_MTU") == "4022"  # no polling
    host, port = switch.endpoints["gnmi"].rsplit(":", 1)
    with gNMIclient(target=(host, int(port)), insecure=True) as client:
        client._gNMIclient__metadata.append(("nos-wait", "applied"))  # pygnmi keeps it private
        client.set(update=[("sonic-db:/CONFIG_DB/localhost/PORT/Ethernet8", {"mtu": "3000"})], encoding="json_ietf")
    assert asic.hget(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}", "SAI_PORT_ATTR_MTU") == "3022"


def test_a_change_not_applied_in_time_names_the_hop_that_lags(switch):
    pid = int(switch.db(6).hget("NOS_DAEMON_TABLE|orchagent", "pid"))
    os.kill(pid, signal.SIGSTOP)
    try:
        out = switch.nos("config", "--wait-timeout", "2", "interface", "mtu", "Ethernet12", "5000", check=False)
        assert out.returncode == 1
        assert "the change is in CONFIG_DB" in out.stderr and "orchagent" in out.stderr, out.stderr
        reply = httpx.patch(f"{switch.endpoints['rest']}/api/v1/config/PORT/Ethernet12?wait=applied",
                            json=[{"op": "replace", "path": "/mtu", "value": "6000"}], timeout=30)
        assert reply.status_code == 504 and "orchagent" in reply.text
    finally:
        os.kill(pid, signal.SIGCONT)
    switch.nos("config", "interface", "mtu", "Ethernet12", "7000")  # once it runs again, the wait ends


def test_without_daemons_there_is_nothing_to_wait_for(tmp_path: Path, redis_url):
    from nos.config.applied import wait_applied
    from nos.db.connector import Databases

    dbs = Databases(redis_url)
    try:
        assert not wait_applied(dbs, timeout=0.1).pipeline
    finally:
        dbs.close()
