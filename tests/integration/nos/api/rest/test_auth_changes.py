"""Credentials changed while the REST server runs: deleting every user and token, the file deleted or
broken, a password changed, a token deleted, the first user added. Enforcement never relaxes."""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from nos.api import auth
from nos.api.rest.app import create_app
from nos.db import ConfigDBConnector, Databases
from tests.conftest import wait_until
from tests.integration.nos.api.rest.servers import serving

pytestmark = pytest.mark.integration

ADMIN_PW = "admin-secret-1"
MTU = [{"op": "replace", "path": "/mtu", "value": "1500"}]


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / auth.FILE_NAME


@pytest.fixture
def server(dbs: Databases, cdb: ConfigDBConnector, path: Path) -> Iterator[str]:
    """A REST server on 127.0.0.1 that checks ``path`` (the file may not exist yet)."""
    with serving(create_app(dbs, auth=auth.Authenticator(path))) as (port, _server):
        yield f"http://127.0.0.1:{port}"


def assert_refused(url: str, headers_list: list[dict[str, str]], cdb: ConfigDBConnector, status: int = 401) -> None:
    """Reads and writes are all refused with ``status``, and CONFIG_DB keeps MTU 9100."""
    for headers in headers_list:
        for method, route, body in (("GET", "/api/v1/config/PORT", None),
                                    ("PATCH", "/api/v1/config/PORT/Ethernet0", MTU),
                                    ("DELETE", "/api/v1/config/VLAN/Vlan100", None),
                                    ("POST", "/api/v1/operations/config-save", {})):
            reply = httpx.request(method, url + route, json=body, headers=headers)
            assert reply.status_code == status, (method, route, headers, reply.text)
    assert cdb.get_entry("PORT", "Ethernet0")["mtu"] == "9100" and cdb.get_keys("VLAN") == ["Vlan100"]


def test_deleting_every_user_and_token_keeps_refusing_anonymous_and_wrong_callers(
        server: str, path: Path, cdb: ConfigDBConnector) -> None:
    auth.add_user(path, "admin", auth.ADMIN, ADMIN_PW)
    token = auth.add_token(path, "ci", auth.ADMIN)
    assert httpx.get(f"{server}/api/v1/config/PORT", headers=bearer(token)).status_code == 200
    assert httpx.get(f"{server}/api/v1/config/PORT").status_code == 401
    auth.remove(path, "user", "admin")  # what `nos user del` and `nos token del` do
    auth.remove(path, "token", "ci")
    assert_refused(server, [{}, basic("admin", ADMIN_PW), bearer(token), basic("anonymous", "x")], cdb)
    path.unlink()  # the file itself deleted
    assert_refused(server, [{}, basic("admin", ADMIN_PW)], cdb)
    auth.add_user(path, "admin", auth.ADMIN, ADMIN_PW)  # a new admin gets back in; nobody else does
    assert httpx.patch(f"{server}/api/v1/config/PORT/Ethernet0", json=MTU, headers=basic("admin", ADMIN_PW),
                       ).status_code == 200


def test_the_first_credential_added_at_run_time_is_required_from_then_on(
        server: str, path: Path, cdb: ConfigDBConnector) -> None:
    assert httpx.get(f"{server}/api/v1/config/PORT").status_code == 200  # a loopback lab without credentials
    token = auth.add_token(path, "ci", auth.ADMIN)
    assert httpx.get(f"{server}/api/v1/config/PORT").status_code == 401
    assert httpx.get(f"{server}/api/v1/config/PORT", headers=bearer(token)).status_code == 200
    auth.remove(path, "token", "ci")
    assert_refused(server, [{}, bearer(token)], cdb)


def test_a_changed_password_and_a_deleted_token_take_effect_on_the_next_request(
        server: str, path: Path) -> None:
    auth.add_user(path, "admin", auth.ADMIN, ADMIN_PW)
    keep, drop = auth.add_token(path, "keep", auth.READ_ONLY), auth.add_token(path, "drop", auth.READ_ONLY)
    url = f"{server}/api/v1/config/PORT"
    assert httpx.get(url, headers=basic("admin", ADMIN_PW)).status_code == 200  # now in the server's cache
    assert httpx.get(url, headers=bearer(drop)).status_code == 200
    auth.add_user(path, "admin", auth.ADMIN, "new-secret-2")
    auth.remove(path, "token", "drop")
    assert httpx.get(url, headers=basic("admin", ADMIN_PW)).status_code == 401
    assert httpx.get(url, headers=basic("admin", "new-secret-2")).status_code == 200
    assert httpx.get(url, headers=bearer(drop)).status_code == 401
    assert httpx.get(url, headers=basic("drop", drop)).status_code == 401
    assert httpx.get(url, headers=bearer(keep)).status_code == 200


def test_a_credentials_file_broken_at_run_time_refuses_every_request_until_fixed(
        server: str, path: Path, cdb: ConfigDBConnector) -> None:
    assert httpx.get(f"{server}/api/v1/config/PORT").status_code == 200  # open: nothing configured yet
    path.write_text('{"users": {"admin": {"role": "admin"}}}')  # a hand edit that lost the password hash
    assert_refused(server, [{}, basic("admin", ADMIN_PW)], cdb, status=503)
    reply = httpx.get(f"{server}/api/v1/config/PORT")
    assert str(path) not in reply.text and "server log" in reply.text  # the reason is logged, not told
    auth.save(path, auth.Credentials({}, {}))  # fixed, but empty: a file that was broken stays required
    assert_refused(server, [{}], cdb)


def inherited_listener(host: str) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, 0))
    listener.listen(16)
    return listener


def test_a_public_server_process_whose_credentials_are_all_deleted_refuses_every_request(
        redis_url: str, cdb: ConfigDBConnector, tmp_path: Path) -> None:
    """``python -m nos.api.rest`` on 0.0.0.0 (the socket passed as ``nos up`` passes it), then every
    credential deleted: no request gets through, with or without (old) credentials."""
    path = tmp_path / auth.FILE_NAME
    token = auth.add_token(path, "ci", auth.ADMIN)
    listener = inherited_listener("0.0.0.0")
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    command = [sys.executable, "-m", "nos.api.rest", "--redis", redis_url, "--host", "0.0.0.0",
               "--fd", str(listener.fileno()), "--run-dir", str(tmp_path)]
    log = tmp_path / "rest.log"
    with log.open("w") as out:
        proc = subprocess.Popen(command, pass_fds=[listener.fileno()], stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "NOS_LOG_LEVEL": "WARNING"})
    listener.close()
    try:
        wait_until(lambda: _answers(f"{url}/api/v1/health") or proc.poll() is not None, timeout=30)
        assert proc.poll() is None, log.read_text()
        assert httpx.get(f"{url}/api/v1/config/PORT", headers=bearer(token)).status_code == 200
        path.unlink()
        assert_refused(url, [{}, bearer(token), basic("ci", token)], cdb)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.parametrize("content", [None, '{"users": {}, "tokens": {}}'])
def test_a_public_server_process_without_credentials_cannot_start(redis_url: str, tmp_path: Path,
                                                                  content: str | None) -> None:
    if content is not None:
        (tmp_path / auth.FILE_NAME).write_text(content)
    listener = inherited_listener("0.0.0.0")
    command = [sys.executable, "-m", "nos.api.rest", "--redis", redis_url, "--host", "0.0.0.0",
               "--fd", str(listener.fileno()), "--run-dir", str(tmp_path)]
    proc = subprocess.run(command, pass_fds=[listener.fileno()], capture_output=True, text=True, timeout=60)
    listener.close()
    assert proc.returncode == 2 and "refusing to listen on 0.0.0.0 without credentials" in proc.stderr
