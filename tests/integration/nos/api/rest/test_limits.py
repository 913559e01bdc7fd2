"""REST body limits: a body over the size limit is 413 before it is read whole (Content-Length, or
chunked past the limit), a JSON body nested deeper than 64 levels is 400 naming the limit (once a 500:
RecursionError), on every route that takes a body; nothing changes, and the server goes on answering."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nos.api.rest.app import create_app
from nos.api.rest.limits import MAX_BODY, BodyLimits
from nos.db import ConfigDBConnector, Databases
from tests.integration.nos.api.rest.conftest import START, TestClient, errors_of
from tests.integration.nos.api.rest.servers import serving

pytestmark = pytest.mark.integration

JSON = {"Content-Type": "application/json"}
DEEP = "[" * 5000 + "]" * 5000


@pytest.fixture
def small(dbs: Databases, cdb: ConfigDBConnector, tmp_path: Path) -> Iterator[TestClient]:
    """The app with a 1,000-byte body limit and 8 levels of nesting."""
    with TestClient(create_app(dbs, run_dir=tmp_path, limits=BodyLimits(1000, 8))) as test_client:
        yield test_client


@pytest.mark.parametrize(("method", "url", "body"), [
    ("PATCH", "/api/v1/config", DEEP),
    ("PATCH", "/api/v1/config/PORT/Ethernet0", "[" * 100 + "]" * 100),  # the parser copes; jsonpatch would not
    ("PUT", "/api/v1/config/VLAN/Vlan7", '{"vlanid": ' + DEEP + "}"),
    ("POST", "/api/v1/config/VLAN/Vlan7", "{" * 3000),
    ("PUT", "/api/v1/intents/roce", '{"profile": ' + DEEP + "}"),  # a body FastAPI parses itself
    ("POST", "/api/v1/operations/checkpoint", '{"name": ' + DEEP + "}"),
])
def test_a_body_nested_past_the_limit_is_400_naming_it(client: TestClient, cdb: ConfigDBConnector, method: str,
                                                       url: str, body: str) -> None:
    reply = client.request(method, url, content=body, headers=JSON)
    assert reply.status_code == 400, reply.text
    [error] = errors_of(reply)
    assert "deeper than 64 levels" in error["error-message"] and error["error-path"] == "body"
    assert cdb.get_config() == START
    assert client.get("/api/v1/config/VLAN/Vlan100").status_code == 200


def test_brackets_in_strings_are_text(client: TestClient, cdb: ConfigDBConnector) -> None:
    reply = client.put("/api/v1/config/PORT/Ethernet0", json={**START["PORT"]["Ethernet0"], "description": "[{" * 100})
    assert reply.status_code == 200, reply.text
    assert cdb.get_entry("PORT", "Ethernet0")["description"] == "[{" * 100


def test_limits_are_the_servers_own(small: TestClient, cdb: ConfigDBConnector) -> None:
    assert small.put("/api/v1/config/VLAN/Vlan7", json={"vlanid": "7", "x": "y" * 900}).status_code == 200
    reply = small.put("/api/v1/config/VLAN/Vlan8", json={"vlanid": "8", "x": "y" * 1000})
    assert reply.status_code == 413 and errors_of(reply)[0]["error-tag"] == "too-big"
    assert "at most 1000 bytes" in errors_of(reply)[0]["error-message"]
    reply = small.patch("/api/v1/config", content="[" * 9 + "]" * 9, headers=JSON)
    assert reply.status_code == 400 and "deeper than 8 levels" in reply.text
    assert "Vlan8" not in cdb.get_table("VLAN")


def test_a_chunked_body_is_cut_at_the_limit(small: TestClient, cdb: ConfigDBConnector) -> None:
    sent: list[int] = []

    def chunks() -> Iterator[bytes]:
        for n in range(100):
            sent.append(n)
            yield b'{"vlanid": "9", "x": "' if n == 0 else b"y" * 100

    reply = small.put("/api/v1/config/VLAN/Vlan9", content=chunks(), headers=JSON)
    assert reply.status_code == 413, reply.text
    assert "passed 1000 bytes before it ended" in errors_of(reply)[0]["error-message"]
    assert "Vlan9" not in cdb.get_table("VLAN")


def _exchange(port: int, head: bytes, body: bytes, *, wait: float = 5.0) -> bytes:
    """Send a request head and part of a body on a raw socket; what the server answers within ``wait``."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(head + body)
        answer = b""
        deadline = time.monotonic() + wait
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            if time.monotonic() > deadline:
                break
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def test_a_declared_length_over_the_limit_is_answered_before_the_body_is_sent(dbs: Databases, cdb: ConfigDBConnector,
                                                                            tmp_path: Path) -> None:
    """100 MB declared, 20 bytes sent: a 413 at once (the server never waits for the rest), and the
    connection is closed; the server answers the next request."""
    with serving(create_app(dbs, run_dir=tmp_path)) as (port, _server):
        head = (b"PATCH /api/v1/config HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100000000\r\n\r\n")
        started = time.monotonic()
        answer = _exchange(port, head, b'[{"op": "add", "pa')
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
        assert time.monotonic() - started < 2.0
        assert b"connection: close" in answer.lower()
        assert b"this server reads at most %d bytes (16 MiB" % MAX_BODY in answer
        head = b"GET /api/v1/config/VLAN/Vlan100 HTTP/1.1\r\nHost: x\r\n\r\n"
        assert _exchange(port, head, b"").startswith(b"HTTP/1.1 200 ")
    assert cdb.get_config() == START


def test_a_chunked_body_past_the_limit_over_a_socket(dbs: Databases, cdb: ConfigDBConnector, tmp_path: Path) -> None:
    with serving(create_app(dbs, run_dir=tmp_path, limits=BodyLimits(4096))) as (port, _server):
        head = (b"PUT /api/v1/config/VLAN/Vlan9 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"1000\r\n" + b"y" * 4096 + b"\r\n"
        answer = _exchange(port, head, chunk * 2)  # 8 KiB of a body that never ends
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert cdb.get_config() == START
