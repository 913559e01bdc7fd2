"""Bad input against a whole switch: nothing nested past the limit, too large or unwritable breaks it.

A startup config nested 5,000 deep stops ``nos up`` with one line; on a running switch a REST body
nested past the limit is 400, one declaring 100 MB is 413 before it is sent, a gNMI value nested past
the limit is INVALID_ARGUMENT, ``config save`` to a path it cannot write is one line naming it; and
after all of that the switch still takes a write through to the ASIC."""

from __future__ import annotations

import nos.api.gnmi  # noqa: F401 - first: turns gRPC's fork handlers off before grpc loads (this runner forks)

# isort: split
import socket
import time

import grpc
import httpx
import pytest
from pygnmi.client import gNMIclient, gNMIException

from tests.conftest import wait_until
from tests.e2e.conftest import nos, start_switch

pytestmark = [pytest.mark.e2e,
              pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")]  # pygnmi's reader

DEEP = "[" * 5000 + "]" * 5000
LIMIT = "nests deeper than 64 levels"
N = "sonic-db:/CONFIG_DB/localhost"


def test_a_startup_config_nested_past_the_limit_stops_nos_up_with_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    run = tmp_path / "run"
    done = nos("up", "-d", "--run-dir", str(run), "--config", str(deep), "--rest-port", "0", "--redis-port", "0",
               "--gnmi-port", "0", check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{deep}: the JSON {LIMIT}" in done.stderr and "Traceback" not in done.stdout + done.stderr
    assert nos("status", "--run-dir", str(run), check=False).returncode != 0  # nothing left running


@pytest.fixture(scope="module")
def switch(tmp_path_factory):
    sw = start_switch(tmp_path_factory.mktemp("limits"), "--sku", "Force10-S6000", "--gnmi-port", "0")
    yield sw
    sw.close()
    nos("down", "--run-dir", str(sw.run_dir), check=False)


def _declared_too_large(rest: str) -> bytes:
    host, port = rest.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(b"PATCH /api/v1/config HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000000\r\n\r\n[")
        return sock.recv(65536)


def test_bad_input_on_every_surface_leaves_the_switch_working(switch, tmp_path):
    rest = switch.endpoints["rest"]
    before = {key: switch.db(4).hgetall(key) for key in switch.db(4).keys("*|*")}

    reply = httpx.patch(f"{rest}/api/v1/config", content=DEEP, headers={"Content-Type": "application/json"})
    assert reply.status_code == 400 and LIMIT in reply.text  # once: 500 (RecursionError)
    started = time.monotonic()
    assert _declared_too_large(rest).startswith(b"HTTP/1.1 413 ") and time.monotonic() - started < 3

    host, port = switch.endpoints["gnmi"].rsplit(":", 1)
    with gNMIclient(target=(host, int(port)), insecure=True, gnmi_timeout=10) as client:
        with pytest.raises(gNMIException) as error:
            client.set(update=[(f"{N}/PORT/Ethernet0", '{"mtu": ' + DEEP + "}")], encoding="json_ietf")
        rpc = error.value.orig_exc
        assert rpc.code() == grpc.StatusCode.INVALID_ARGUMENT and LIMIT in rpc.details()  # once: INTERNAL

    (tmp_path / "plain").write_text("not a directory")
    target = tmp_path / "plain" / "config_db.json"
    saved = switch.nos("config", "save", str(target), check=False)
    assert saved.returncode == 1 and saved.stderr.startswith(f"Error: {target}: cannot write: ")
    assert saved.stderr.count("\n") == 1 and "Traceback" not in saved.stderr

    assert {key: switch.db(4).hgetall(key) for key in switch.db(4).keys("*|*")} == before
    reply = httpx.patch(f"{rest}/api/v1/config/PORT/Ethernet4", headers={"Content-Type": "application/json-patch+json"},
                        json=[{"op": "replace", "path": "/mtu", "value": "4000"}])
    assert reply.status_code == 200, reply.text
    oid = switch.db(2).hget("COUNTERS_PORT_NAME_MAP", "Ethernet4")
    wait_until(lambda: switch.db(1).hget(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}", "SAI_PORT_ATTR_MTU") == "4022",
               timeout=15)
