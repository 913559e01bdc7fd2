"""Credentials, roles, TLS and mutual TLS, with pygnmi as the client."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest
from pygnmi.client import gNMIclient, gNMIException

from nos.api import auth
from nos.api.tls import TlsFiles
from tests.integration.nos.api.certs import Authority

pytestmark = pytest.mark.integration

N = "sonic-db:/CONFIG_DB/localhost"
ADMIN_PW, VIEWER_PW = "admin-secret-1", "viewer-secret-1"


@pytest.fixture
def credentials(tmp_path):
    path = tmp_path / "credentials.json"
    auth.add_user(path, "admin", auth.ADMIN, ADMIN_PW)
    auth.add_user(path, "viewer", auth.READ_ONLY, VIEWER_PW)
    return path


@pytest.fixture
def pki(tmp_path):
    ca = Authority(tmp_path / "pki", "lab-ca")
    rogue = Authority(tmp_path / "pki", "rogue-ca")
    return {"ca": ca, "server": ca.issue("switch", server=True),
            "client": ca.issue("operator", server=False),
            "rogue_client": rogue.issue("intruder", server=False)}


def status(error: gNMIException) -> grpc.StatusCode:
    return error.orig_exc.code()


def test_no_or_wrong_credentials_are_unauthenticated(seeded, start_server, credentials):
    server = start_server(auth_file=credentials)
    for username, password in (("", ""), ("admin", "wrong-password"), ("nobody", ADMIN_PW)):
        with pytest.raises(gNMIException) as error:
            gNMIclient(target=("127.0.0.1", server.port), username=username, password=password, insecure=True).connect()
        assert status(error.value) == grpc.StatusCode.UNAUTHENTICATED
        assert ADMIN_PW not in error.value.orig_exc.details()


def test_read_only_may_read_but_not_set_and_admin_may_set(seeded, start_server, credentials):
    server = start_server(auth_file=credentials)
    with gNMIclient(target=("127.0.0.1", server.port), username="viewer", password=VIEWER_PW, insecure=True) as gc:
        assert gc.get(path=[f"{N}/PORT/Ethernet0/mtu"], encoding="json_ietf")["notification"]
        with pytest.raises(gNMIException) as error:
            gc.set(update=[(f"{N}/PORT/Ethernet0/mtu", "1500")], encoding="json_ietf")
        assert status(error.value) == grpc.StatusCode.PERMISSION_DENIED
        assert "read-only" in error.value.orig_exc.details()
    with gNMIclient(target=("127.0.0.1", server.port), username="admin", password=ADMIN_PW, insecure=True) as gc:
        gc.set(update=[(f"{N}/PORT/Ethernet0/mtu", "1500")], encoding="json_ietf")
        assert gc.get(path=[f"{N}/PORT/Ethernet0/mtu"], encoding="json_ietf")["notification"][0]["update"][0]["val"] \
            == "1500"


def test_tls_with_a_lab_ca_and_bearer_tokens(seeded, start_server, credentials, pki):
    token = auth.add_token(credentials, "ci", auth.READ_ONLY)
    server = start_server(auth_file=credentials, tls=TlsFiles(pki["server"].cert, pki["server"].key))
    with gNMIclient(target=("127.0.0.1", server.port), username="admin", password=ADMIN_PW,
                    path_cert=str(pki["ca"].files.cert), gnmi_timeout=5) as gc:  # pygnmi: path_cert = trusted root
        assert gc.capabilities()["gnmi_version"] == "0.8.0"
    with gNMIclient(target=("127.0.0.1", server.port), username="admin", password=ADMIN_PW,
                    path_root=str(pki["ca"].files.cert), skip_verify=True, gnmi_timeout=5) as gc:
        assert gc.capabilities()["gnmi_version"] == "0.8.0"  # pygnmi fetches the server's certificate
    with gNMIclient(target=("127.0.0.1", server.port), token=token, path_cert=str(pki["ca"].files.cert)) as gc:
        assert gc.get(path=[f"{N}/PORT/Ethernet0/mtu"], encoding="json_ietf")["notification"]
        with pytest.raises(gNMIException) as error:
            gc.set(update=[(f"{N}/PORT/Ethernet0/mtu", "1500")], encoding="json_ietf")
        assert status(error.value) == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.FutureTimeoutError):  # a plain-text client does not get through to a TLS listener
        gNMIclient(target=("127.0.0.1", server.port), username="admin", password=ADMIN_PW, insecure=True,
                   gnmi_timeout=1).connect()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # pygnmi leaves its PEM files open
def test_mutual_tls_accepts_the_lab_ca_client_and_refuses_another_ca(seeded, start_server, credentials, pki):
    server = start_server(auth_file=credentials,
                          tls=TlsFiles(pki["server"].cert, pki["server"].key, pki["ca"].files.cert))
    ca = str(pki["ca"].files.cert)
    good, bad = pki["client"], pki["rogue_client"]
    with gNMIclient(target=("127.0.0.1", server.port), username="admin", password=ADMIN_PW, path_root=ca,
                    path_cert=str(good.cert), path_key=str(good.key)) as gc:
        assert gc.capabilities()["gnmi_version"] == "0.8.0"
    with pytest.raises(grpc.FutureTimeoutError):  # the handshake fails, so the channel never becomes ready
        gNMIclient(target=("127.0.0.1", server.port), username="admin", password=ADMIN_PW, path_root=ca,
                   path_cert=str(bad.cert), path_key=str(bad.key), gnmi_timeout=1).connect()


def test_a_non_loopback_listener_without_credentials_is_refused_at_start(redis_url, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "nos.api.gnmi", "--redis", redis_url, "--host", "0.0.0.0",
                           "--port", "0", "--run-dir", str(tmp_path / "run")], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 2
    assert "refusing to listen on 0.0.0.0 without credentials" in proc.stderr
    assert not (tmp_path / "run" / "gnmi.json").exists()


def test_a_non_loopback_listener_with_credentials_serves_and_enforces_them(seeded, start_server, credentials):
    server = start_server(host="0.0.0.0", auth_file=credentials)
    with gNMIclient(target=("127.0.0.1", server.port), username="viewer", password=VIEWER_PW, insecure=True) as gc:
        assert gc.capabilities()["gnmi_version"] == "0.8.0"


def test_bad_flags_exit_2_with_the_reason(redis_url, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "nos.api.gnmi", "--redis", redis_url, "--port", "0",
                           "--tls-cert", str(tmp_path / "missing.crt"), "--tls-key", str(tmp_path / "k")],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "--tls-cert" in proc.stderr and "no such file" in proc.stderr
