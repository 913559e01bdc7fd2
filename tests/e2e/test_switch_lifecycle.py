"""``nos up / status / down`` and ``nos config load|reload|save`` against real switch processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
import redis

from nos.config.files import read_config_file
from nos.paths import skus_dir
from nos.runtime.forkserver import argv_of
from tests.conftest import SHARED, wait_until
from tests.e2e.conftest import NOS, nos, start_switch

pytestmark = pytest.mark.e2e
SKUS = skus_dir()


def http_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as reply:
        return json.loads(reply.read())


def test_up_reports_endpoints_and_ports_are_in_config_db(switch_s6000):
    assert "Switch ready in" in switch_s6000.up_output
    ep = switch_s6000.endpoints
    assert ep["redis"].startswith("unix://") and ep["redis_tcp"].startswith("redis://127.0.0.1:")
    assert ep["gnmi"].startswith("127.0.0.1:") and "gnmi" in switch_s6000.up_output
    port = switch_s6000.db(4).hgetall("PORT|Ethernet0")
    assert port["lanes"] == "25,26,27,28" and port["speed"] == "100000"
    assert len(switch_s6000.db(4).keys("PORT|*")) == 32
    # the TCP endpoint serves the same data (what redis-cli -p -a would see), with the run dir's password
    password = Path(ep["redis_password_file"]).read_text().strip()
    with redis.Redis.from_url(ep["redis_tcp"], db=4, password=password, decode_responses=True) as tcp:
        assert tcp.hget("PORT|Ethernet124", "lanes") == "97,98,99,100"
        assert tcp.config_get("notify-keyspace-events")["notify-keyspace-events"] == "AKE"


def test_ports_flow_from_config_db_to_the_asic(switch_s6000):
    appl = switch_s6000.db(0)
    assert appl.hgetall("PORT_TABLE:PortConfigDone") == {"count": "32"}
    # ready counts PortInitDone once portsyncd's stand-in has produced it (it may still be pending in
    # _PORT_TABLE); the plain row appears when orchagent pops it
    wait_until(lambda: appl.hgetall("PORT_TABLE:PortInitDone") == {"lanes": "0"}, timeout=15)
    assert appl.hgetall("PORT_TABLE:Ethernet0")["admin_status"] == "down"
    oid = switch_s6000.db(2).hget("COUNTERS_PORT_NAME_MAP", "Ethernet0")
    port = switch_s6000.db(1).hgetall(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}")
    assert port["SAI_PORT_ATTR_HW_LANE_LIST"] == "4:25,26,27,28" and port["SAI_PORT_ATTR_MTU"] == "9122"
    assert switch_s6000.db(6).hget("PORT_TABLE|Ethernet0", "state") == "ok"


def test_status_is_ready_in_text_and_json(switch_s6000):
    # right after boot orchagent may still be creating the ports' buffers and QoS: converging, not degraded
    wait_until(lambda: switch_s6000.nos("status", check=False).returncode == 0, timeout=20)
    text = switch_s6000.nos("status")
    assert text.returncode == 0 and ": ready" in text.stdout and "cfgmgrd" in text.stdout
    info = json.loads(switch_s6000.nos("status", "--json").stdout)
    assert info["ready"] and info["state"] == "ready" and info["sku"] == "Force10-S6000"
    assert {c["name"] for c in info["checks"]} >= {"redis", "daemon cfgmgrd", "daemon orchagent", "daemon syncd",
                                                   "ports", "asic ports", "routes", "pipeline", "redis tcp",
                                                   "rest", "gnmi"}
    assert info["backlog"]["asic_requests"] == 0 and info["asic"]["ports"]["in_asic"] == 32
    assert "answers Capabilities" in next(c["detail"] for c in info["checks"] if c["name"] == "gnmi")


def test_rest_health_status_and_config_reads(switch_s6000):
    rest = switch_s6000.endpoints["rest"]
    assert http_json(rest + "/api/v1/health") == {"status": "ok"}
    wait_until(lambda: http_json(rest + "/api/v1/status")["ready"] is True, timeout=20)
    assert http_json(rest + "/api/v1/status")["state"] == "ready"
    assert http_json(rest + "/api/v1/config/PORT/Ethernet0")["lanes"] == "25,26,27,28"
    with pytest.raises(urllib.error.HTTPError) as err:
        http_json(rest + "/api/v1/config/PORT/Ethernet999")
    err.value.close()
    assert err.value.code == 404


def test_config_save_load_reload(switch_s6000, tmp_path):
    saved = tmp_path / "saved.json"
    out = switch_s6000.nos("config", "save", str(saved))
    assert "Saved" in out.stdout
    data = json.loads(saved.read_text())
    assert data["PORT"]["Ethernet0"]["lanes"] == "25,26,27,28"

    change = tmp_path / "vlan.json"
    change.write_text(json.dumps({"VLAN": {"Vlan100": {"vlanid": "100"}},
                                  "VLAN_MEMBER": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"}}}))
    switch_s6000.nos("config", "load", str(change))
    assert switch_s6000.db(4).hgetall("VLAN_MEMBER|Vlan100|Ethernet0") == {"tagging_mode": "untagged"}

    # reload the saved file: the VLAN rows added since are gone again
    out = switch_s6000.nos("config", "reload", str(saved))
    assert "Reloaded" in out.stdout
    assert not switch_s6000.db(4).exists("VLAN|Vlan100")
    assert switch_s6000.db(4).hget("PORT|Ethernet0", "lanes") == "25,26,27,28"


@pytest.mark.parametrize(("content", "message"), [
    ('{"PORT": {"Ethernet0": {"mtu": "9100"}', "JSON"),
    ('{"PORT": {"Ethernet0": {"mtu": "abc"}}}', "mtu"),
    ('{"VLAN": {"Vlan100": {"vlanid": "100"}}, "VLAN_MEMBER": {"Vlan100|Ethernet999": {"tagging_mode": "tagged"}}}',
     "Ethernet999"),
])
def test_malformed_file_is_refused_and_config_db_unchanged(switch_s6000, tmp_path, content, message):
    before = {k: switch_s6000.db(4).hgetall(k) for k in switch_s6000.db(4).keys("*|*")}
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    out = switch_s6000.nos("config", "load", str(bad), check=False)
    assert out.returncode == 1
    assert message in out.stderr and "CONFIG_DB unchanged" in out.stderr
    after = {k: switch_s6000.db(4).hgetall(k) for k in switch_s6000.db(4).keys("*|*")}
    assert after == before


def without_empty_tables(config):
    """CONFIG_DB cannot hold an empty table (SONiC's config save drops them too)."""
    return {table: rows for table, rows in config.items() if rows}


def test_every_shared_real_config_loads_and_saves_back(tmp_path):
    """Each real SONiC file replaces the running configuration and is saved back unchanged."""
    files = sorted((SHARED / "configs").glob("*.json"))
    assert len(files) >= 6
    sw = start_switch(tmp_path / "real", "--config", str(SHARED / "configs" /
                      "buildimage_yang-models_sample_config_db.EXTRACTED.json"))
    try:
        for path in files:
            out = sw.nos("config", "reload", str(path))
            assert "Reloaded" in out.stdout, path
            saved = tmp_path / f"{path.stem}.saved.json"
            sw.nos("config", "save", str(saved))
            assert read_config_file(saved) == without_empty_tables(read_config_file(path)), path

        # fragments merge into a switch that has their ports; one naming ports it lacks is refused
        sw.nos("config", "reload", str(SKUS / "NOS-SIM-128x400G" / "config_db.json"))
        for name in ("buildimage_sample_output_qos-arista7800r3-48cq2-lc.json",
                     "utilities_qos_config_input_config_qos.json"):
            assert "Loaded" in sw.nos("config", "load", str(SHARED / "configs" / name)).stdout
        before = sw.db(4).dbsize()
        out = sw.nos("config", "load", str(SHARED / "configs" / "buildimage_sample_output_buffers-dell6100.json"),
                     check=False)
        assert out.returncode == 1 and "references port 'Ethernet1', which is not in PORT" in out.stderr
        assert sw.db(4).dbsize() == before
    finally:
        sw.close()
        sw.nos("down")


def test_two_switches_side_by_side_then_down(tmp_path):
    a = start_switch(tmp_path / "a", "--sku", "Force10-S6000")
    b = start_switch(tmp_path / "b")
    try:
        assert a.endpoints["redis_tcp"] != b.endpoints["redis_tcp"]
        assert a.endpoints["rest"] != b.endpoints["rest"]
        assert len(a.db(4).keys("PORT|*")) == 32
        assert len(b.db(4).keys("PORT|*")) == 128
        assert b.db(4).hget("PORT|Ethernet508", "lanes") == "508,509,510,511"
    finally:
        a.close()
        b.close()
        out_a = a.nos("down")
        b.nos("down")
    assert "stopped" in out_a.stdout
    assert a.nos("status", check=False).returncode == 1
    assert not (a.run_dir / "endpoints.json").exists()
    assert not (b.run_dir / "supervisor.pid").exists()


def test_foreground_up_stops_cleanly_on_ctrl_c(tmp_path):
    run_dir = tmp_path / "fg"
    argv = [*NOS, "up", "--sku", "Force10-S6000", "--run-dir", str(run_dir), "--rest-port", "0", "--redis-port", "0"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as proc:
        try:
            assert proc.stdout is not None
            lines: list[str] = []
            wait_until(lambda: lines.append(proc.stdout.readline()) or "Press Ctrl-C" in lines[-1], timeout=60)
            sock = json.loads((run_dir / "endpoints.json").read_text())["redis"].removeprefix("unix://")
            proc.send_signal(signal.SIGINT)
            rest, _ = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0 and "Switch stopped." in rest
    assert not os.path.exists(sock)
    assert not (run_dir / "endpoints.json").exists()


def test_a_killed_daemon_is_restarted_and_counted(switch_s6000):
    row = switch_s6000.db(6).hgetall("NOS_DAEMON_TABLE|cfgmgrd")
    old = int(row["pid"])
    os.kill(old, signal.SIGKILL)
    wait_until(lambda: switch_s6000.db(6).hget("NOS_DAEMON_TABLE|cfgmgrd", "pid") not in (None, str(old)), timeout=20)
    wait_until(lambda: switch_s6000.nos("status", check=False).returncode == 0, timeout=20)
    assert switch_s6000.db(6).hget("NOS_DAEMON_TABLE|cfgmgrd", "restarts") == "1"


def test_a_killed_gnmi_server_comes_back_on_the_same_endpoint(switch_s6000):
    status_file = switch_s6000.run_dir / "gnmi.json"
    before = json.loads(status_file.read_text())
    os.kill(before["pid"], signal.SIGKILL)
    wait_until(lambda: status_file.exists() and json.loads(status_file.read_text())["pid"] != before["pid"],
               timeout=20)
    assert json.loads(status_file.read_text())["port"] == before["port"]
    assert switch_s6000.endpoints["gnmi"] == f"127.0.0.1:{before['port']}"
    wait_until(lambda: switch_s6000.nos("status", check=False).returncode == 0, timeout=20)


def test_a_non_loopback_bind_without_credentials_is_refused_before_anything_starts(tmp_path):
    run_dir = tmp_path / "open"
    for detach in ((), ("-d",)):
        out = nos("up", *detach, "--run-dir", str(run_dir), "--bind", "0.0.0.0", check=False)
        assert out.returncode == 1 and "refusing to listen on 0.0.0.0 without credentials" in out.stderr
    assert not (run_dir / "supervisor.pid").exists() and not (run_dir / "redis.sock").exists()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # pygnmi leaves its PEM files open
def test_up_with_mutual_tls_and_credentials_on_all_addresses(tmp_path):
    """REST and gNMI share --bind, --auth-file and the TLS files; readiness works over mutual TLS."""
    import nos.api.gnmi  # noqa: F401 - turns gRPC's fork handlers off before pygnmi loads grpc

    # isort: split
    from pygnmi.client import gNMIclient

    from nos.api import auth
    from tests.integration.nos.api.certs import Authority

    ca = Authority(tmp_path / "pki", "lab-ca")
    server, client = ca.issue("switch", server=True), ca.issue("op", server=False)
    creds = tmp_path / "users.json"
    auth.add_user(creds, "admin", auth.ADMIN, "admin-secret-1")
    sw = start_switch(tmp_path / "tls", "--sku", "Force10-S6000", "--gnmi-port", "0", "--bind", "0.0.0.0",
                      "--auth-file", str(creds), "--tls-cert", str(server.cert), "--tls-key", str(server.key),
                      "--tls-ca", str(ca.files.cert))
    try:
        assert sw.endpoints["rest"].startswith("https://127.0.0.1:")
        info = json.loads(sw.nos("status", "--json").stdout)
        assert info["ready"] and {c["name"] for c in info["checks"]} >= {"rest", "gnmi"}
        assert json.loads((sw.run_dir / "gnmi.json").read_text())["mode"] == "mutual-tls"
        host, port = sw.endpoints["gnmi"].rsplit(":", 1)
        with gNMIclient(target=(host, int(port)), username="admin", password="admin-secret-1",
                        path_root=str(ca.files.cert), path_cert=str(client.cert), path_key=str(client.key)) as gc:
            reply = gc.get(path=["sonic-db:/CONFIG_DB/localhost/PORT/Ethernet0/lanes"], encoding="json_ietf")
        assert reply["notification"][0]["update"][0]["val"] == "25,26,27,28"
    finally:
        sw.close()
        sw.nos("down")


def test_second_up_in_the_same_run_dir_is_refused(switch_s6000):
    out = nos("up", "-d", "--run-dir", str(switch_s6000.run_dir), check=False)
    assert out.returncode == 1 and "already running" in out.stderr


def test_nos_redis_cli_reads_the_switch_database(switch_s6000):
    # options of nos itself come before redis-cli's own arguments
    out = nos("redis-cli", "--run-dir", str(switch_s6000.run_dir), "-n", "4", "hget", "PORT|Ethernet0", "lanes")
    assert out.stdout.strip() == "25,26,27,28"


def test_refused_entries_are_readable(switch_s6000):
    """A port at a speed its lanes cannot do: refused by the ASIC, visible in nos show errors."""
    switch_s6000.db(0)  # ensure clients exist before the change
    nos("redis-cli", "--run-dir", str(switch_s6000.run_dir), "-n", "0", "eval",
        "redis.call('SADD','PORT_TABLE_KEY_SET','Ethernet200'); "
        "redis.call('HSET','_PORT_TABLE:Ethernet200','lanes','200','speed','400000'); "
        "redis.call('PUBLISH','PORT_TABLE_CHANNEL@0','G')", "0")
    wait_until(lambda: "Ethernet200" in switch_s6000.nos("show", "errors").stdout, timeout=10)
    info = json.loads(switch_s6000.nos("show", "errors", "--json").stdout)
    row = next(r for r in info if r["key"] == "Ethernet200")
    assert row["table"] == "PORT_TABLE" and row["status"] == "FAILED" and "speed 400000" in row["reason"]
    switch_s6000.db(0).delete("PORT_TABLE:Ethernet200")


def test_with_its_fork_server_killed_the_daemons_run_on_and_come_back_by_exec(switch_s6000):
    """Issue 17: the daemons are forked from a server that imported them. Killing it takes no daemon
    with it (they are the supervisor's children); a daemon that dies afterwards starts by exec."""
    supervisor = psutil.Process(int((switch_s6000.run_dir / "supervisor.pid").read_text()))
    [server] = [p for p in supervisor.children() if argv_of(p.cmdline())[1:3] == ["-m", "nos.cli.main"]]
    daemons = {p.pid for p in supervisor.children()} - {server.pid}
    server.kill()
    wait_until(lambda: not psutil.pid_exists(server.pid), timeout=10)  # reaped, not left a zombie
    assert daemons <= {p.pid for p in supervisor.children()}
    old = int(switch_s6000.db(6).hget("NOS_DAEMON_TABLE|orchagent", "pid"))
    os.kill(old, signal.SIGKILL)
    wait_until(lambda: switch_s6000.db(6).hget("NOS_DAEMON_TABLE|orchagent", "pid") not in (None, str(old)), timeout=20)
    new = psutil.Process(int(switch_s6000.db(6).hget("NOS_DAEMON_TABLE|orchagent", "pid")))
    assert new.cmdline()[1:3] == ["-m", "orchagent"]  # separate words: exec'd, not a forked title
    wait_until(lambda: switch_s6000.nos("status", check=False).returncode == 0, timeout=30)
