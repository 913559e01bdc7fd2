"""The REST server on a real socket: credentials and roles, TLS and mutual TLS, the loopback rule, and
TCP_NODELAY on accepted connections."""

from __future__ import annotations

import base64
import logging
import re
import socket
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.routing import APIRoute

from nos.api import auth
from nos.api.rest.app import create_app
from nos.api.tls import TlsFiles
from nos.db import ConfigDBConnector, Databases
from tests.conftest import wait_until
from tests.integration.nos.api.certs import Authority
from tests.integration.nos.api.rest.servers import serving

pytestmark = pytest.mark.integration

ADMIN_PW, VIEWER_PW = "admin-secret-1", "viewer-secret-1"
MTU = [{"op": "replace", "path": "/mtu", "value": "1500"}]


@pytest.fixture
def credentials(tmp_path: Path) -> dict[str, object]:
    path = tmp_path / auth.FILE_NAME
    auth.add_user(path, "admin", auth.ADMIN, ADMIN_PW)
    auth.add_user(path, "viewer", auth.READ_ONLY, VIEWER_PW)
    return {"path": path, "admin_token": auth.add_token(path, "ci", auth.ADMIN),
            "viewer_token": auth.add_token(path, "mon", auth.READ_ONLY)}


@pytest.fixture
def guarded(dbs: Databases, cdb: ConfigDBConnector, credentials: dict[str, object]) -> Iterator[str]:
    app = create_app(dbs, auth=auth.Authenticator(credentials["path"]))  # type: ignore[arg-type]
    with serving(app) as (port, _server):
        yield f"http://127.0.0.1:{port}"


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def bearer(token: object) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_no_or_wrong_credentials_get_401_with_a_challenge(guarded: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    for headers in ({}, basic("admin", "wrong-password"), basic("nobody", ADMIN_PW), bearer("nos_forged"),
                    {"Authorization": "Basic !!!"}, {"Authorization": "Digest x"}):
        reply = httpx.get(f"{guarded}/api/v1/config", headers=headers)
        assert reply.status_code == 401, headers
        assert reply.headers["www-authenticate"] == 'Basic realm="nos", Bearer'
        [error] = reply.json()["ietf-restconf:errors"]["error"]
        assert error["error-tag"] == "access-denied"
    assert "wrong-password" not in caplog.text and ADMIN_PW not in caplog.text and "nos_forged" not in caplog.text
    assert httpx.get(f"{guarded}/api/v1/health").status_code == 200  # health never needs credentials


def test_every_route_but_health_needs_credentials(dbs: Databases, cdb: ConfigDBConnector,
                                                  credentials: dict[str, object]) -> None:
    """The app adds every router's routes itself (``add_routes``): each keeps the authentication guard."""
    app = create_app(dbs, auth=auth.Authenticator(credentials["path"]))  # type: ignore[arg-type]
    routes = [r for r in app.routes if isinstance(r, APIRoute)]
    assert len(routes) > 30
    with serving(app) as (port, _server):
        for route in routes:
            path = re.sub(r"\{[^}]+\}", "x", route.path)
            for method in sorted(route.methods):
                reply = httpx.request(method, f"http://127.0.0.1:{port}{path}")
                assert reply.status_code == (200 if route.path == "/api/v1/health" else 401), (method, route.path)


def test_read_only_users_read_but_cannot_write(guarded: str, credentials: dict[str, object],
                                               cdb: ConfigDBConnector) -> None:
    for headers in (basic("viewer", VIEWER_PW), bearer(credentials["viewer_token"])):
        assert httpx.get(f"{guarded}/api/v1/config/PORT", headers=headers).status_code == 200
        for method, url, body in (("PATCH", "/api/v1/config/PORT/Ethernet0", MTU),
                                  ("DELETE", "/api/v1/config/VLAN/Vlan100", None),
                                  ("POST", "/api/v1/operations/config-save", {})):
            reply = httpx.request(method, guarded + url, json=body, headers=headers)
            assert reply.status_code == 403, (method, url)
            assert "read-only" in reply.json()["ietf-restconf:errors"]["error"][0]["error-message"]
    assert cdb.get_entry("PORT", "Ethernet0")["mtu"] == "9100" and cdb.get_keys("VLAN") == ["Vlan100"]


def test_admins_write_with_a_password_or_a_token(guarded: str, credentials: dict[str, object],
                                                 cdb: ConfigDBConnector) -> None:
    for headers, mtu in ((basic("admin", ADMIN_PW), "1500"), (bearer(credentials["admin_token"]), "4000"),
                         (basic("ci", str(credentials["admin_token"])), "5000")):
        reply = httpx.patch(f"{guarded}/api/v1/config/PORT/Ethernet0", headers=headers,
                            json=[{"op": "replace", "path": "/mtu", "value": mtu}])
        assert reply.status_code == 200, reply.text
        assert cdb.get_entry("PORT", "Ethernet0")["mtu"] == mtu


@pytest.fixture
def pki(tmp_path: Path) -> dict[str, object]:
    ca, other = Authority(tmp_path, "nos-test-ca"), Authority(tmp_path, "other-ca")
    return {"ca": ca, "other": other, "server": ca.issue("server", server=True),
            "client": ca.issue("client", server=False), "stranger": other.issue("stranger", server=False)}


def client_context(ca: Path | None, cert: object = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(ca) if ca else None)
    if cert is not None:
        context.load_cert_chain(str(cert.cert), str(cert.key))  # type: ignore[attr-defined]
    return context


def test_tls_is_trusted_only_by_clients_that_trust_the_ca(dbs: Databases, cdb: ConfigDBConnector,
                                                          pki: dict[str, object]) -> None:
    server, ca = pki["server"], pki["ca"]
    tls = TlsFiles.from_flags(str(server.cert), str(server.key), None)  # type: ignore[attr-defined]
    assert tls is not None
    with serving(create_app(dbs), **tls.uvicorn_kwargs()) as (port, _):
        url = f"https://127.0.0.1:{port}/api/v1/config/VLAN"
        trusted = httpx.get(url, verify=client_context(ca.files.cert))  # type: ignore[attr-defined]
        assert trusted.status_code == 200 and trusted.json() == {"Vlan100": {"vlanid": "100"}}
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(url, verify=client_context(None))
        with pytest.raises(httpx.TransportError):
            httpx.get(f"http://127.0.0.1:{port}/api/v1/health")  # plain HTTP to a TLS listener


def test_mutual_tls_refuses_clients_without_a_certificate_from_the_ca(dbs: Databases, cdb: ConfigDBConnector,
                                                                     pki: dict[str, object]) -> None:
    server, ca = pki["server"], pki["ca"]
    tls = TlsFiles.from_flags(str(server.cert), str(server.key), str(ca.files.cert))  # type: ignore[attr-defined]
    assert tls is not None and tls.mutual
    with serving(create_app(dbs), **tls.uvicorn_kwargs()) as (port, _):
        url = f"https://127.0.0.1:{port}/api/v1/health"
        ca_cert = ca.files.cert  # type: ignore[attr-defined]
        assert httpx.get(url, verify=client_context(ca_cert, pki["client"])).status_code == 200
        for cert in (pki["stranger"], None):
            with pytest.raises(httpx.TransportError):
                httpx.get(url, verify=client_context(ca_cert, cert))


def test_accepted_connections_have_tcp_nodelay(dbs: Databases, cdb: ConfigDBConnector) -> None:
    with serving(create_app(dbs)) as (port, server), httpx.Client() as client:
        assert client.get(f"http://127.0.0.1:{port}/api/v1/health").status_code == 200
        [connection] = wait_until(lambda: list(server.server_state.connections))  # type: ignore[misc]
        accepted = connection.transport.get_extra_info("socket")
        assert accepted.family == socket.AF_INET
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def test_a_public_listener_without_credentials_refuses_to_start(redis_url: str, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "nos.api.rest", "--redis", redis_url, "--host", "0.0.0.0", "--port", "0",
               "--run-dir", str(tmp_path)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "refusing to listen on 0.0.0.0 without credentials" in proc.stderr
    assert str(tmp_path / auth.FILE_NAME) in proc.stderr


def test_bad_tls_flags_are_refused_at_start(redis_url: str, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "nos.api.rest", "--redis", redis_url, "--port", "0",
               "--tls-cert", str(tmp_path / "missing.crt"), "--tls-key", str(tmp_path / "missing.key")]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--tls-cert" in proc.stderr and "no such file" in proc.stderr


def test_the_docs_are_public_and_an_unknown_path_needs_credentials_too(guarded: str) -> None:
    """The guard checks every request but health and the docs before routing: a caller without
    credentials is not told which paths exist."""
    assert httpx.get(f"{guarded}/openapi.json").status_code == 200
    assert httpx.get(f"{guarded}/docs").status_code == 200
    reply = httpx.get(f"{guarded}/api/v1/nothing-here")
    assert reply.status_code == 401 and reply.json()["ietf-restconf:errors"]["error"][0]["error-tag"] == "access-denied"
    assert httpx.get(f"{guarded}/api/v1/nothing-here", headers=basic("viewer", VIEWER_PW)).status_code == 404


def test_an_unreadable_credentials_file_answers_503(guarded: str, credentials: dict[str, object]) -> None:
    Path(str(credentials["path"])).write_text("{not json")
    reply = httpx.get(f"{guarded}/api/v1/config/PORT", headers=basic("admin", ADMIN_PW))
    assert reply.status_code == 503 and "credentials" in reply.json()["ietf-restconf:errors"]["error"][0][
        "error-message"]
