"""Credentials changed while the gNMI server runs (pygnmi as the client): every user and token deleted,
the first user added, a password changed, the file broken. Enforcement never relaxes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from pygnmi.client import gNMIclient, gNMIException
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from nos.api import auth
from nos.api.auth import ListenerRefused
from nos.api.gnmi.server import GnmiServer, ServerOptions
from nos.db import ConfigDBConnector, Databases
from nos.schema.dbconfig import CONFIG_DB

pytestmark = pytest.mark.integration

N = "sonic-db:/CONFIG_DB/localhost"
ADMIN_PW = "admin-secret-1"
MTU = f"{N}/PORT/Ethernet0/mtu"


def call(server: GnmiServer, what: str, **credentials: Any) -> grpc.StatusCode:
    """The status of one call (OK or the refusal's code): 'capabilities', 'get' or 'set'. ``bearer=``
    sends ``authorization: Bearer`` metadata on a plaintext channel (pygnmi sends a token over TLS only)."""
    if "bearer" in credentials:
        return bearer_call(server, what, credentials["bearer"])
    try:
        with gNMIclient(target=("127.0.0.1", server.port), insecure=True, gnmi_timeout=5, **credentials) as gc:
            if what == "get":
                gc.get(path=[MTU], encoding="json_ietf")
            elif what == "set":
                gc.set(update=[(MTU, "1500")], encoding="json_ietf")
            else:
                gc.capabilities()
    except gNMIException as error:
        return error.orig_exc.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def bearer_call(server: GnmiServer, what: str, token: str) -> grpc.StatusCode:
    stub = gnmi_pb2_grpc.gNMIStub(channel := grpc.insecure_channel(f"127.0.0.1:{server.port}"))
    metadata = [("authorization", f"Bearer {token}")]
    path = gnmi_pb2.Path(origin="sonic-db", elem=[gnmi_pb2.PathElem(name=n)
                                                  for n in ("CONFIG_DB", "localhost", "PORT", "Ethernet0", "mtu")])
    try:
        if what == "get":
            stub.Get(gnmi_pb2.GetRequest(path=[path]), metadata=metadata, timeout=5)
        elif what == "set":
            value = gnmi_pb2.TypedValue(json_ietf_val=b'"1500"')
            stub.Set(gnmi_pb2.SetRequest(update=[gnmi_pb2.Update(path=path, val=value)]), metadata=metadata, timeout=5)
        else:
            stub.Capabilities(gnmi_pb2.CapabilityRequest(), metadata=metadata, timeout=5)
    except grpc.RpcError as error:
        return error.code()  # type: ignore[no-any-return]
    finally:
        channel.close()
    return grpc.StatusCode.OK


def assert_refused(server: GnmiServer, dbs: Databases, callers: list[dict[str, Any]],
                   code: grpc.StatusCode = grpc.StatusCode.UNAUTHENTICATED) -> None:
    for credentials in callers:
        for what in ("capabilities", "get", "set"):
            assert call(server, what, **credentials) == code, (what, credentials)
    assert ConfigDBConnector(dbs[CONFIG_DB]).get_entry("PORT", "Ethernet0")["mtu"] == "9100"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / auth.FILE_NAME


def test_deleting_every_user_and_token_keeps_refusing(seeded: Databases, start_server: Callable[..., GnmiServer],
                                                      path: Path) -> None:
    auth.add_user(path, "admin", auth.ADMIN, ADMIN_PW)
    token = auth.add_token(path, "ci", auth.ADMIN)
    server = start_server(auth_file=path)
    assert call(server, "get", username="ci", password=token) == grpc.StatusCode.OK
    assert call(server, "get", bearer=token) == grpc.StatusCode.OK
    auth.remove(path, "user", "admin")  # what `nos user del` and `nos token del` do
    auth.remove(path, "token", "ci")
    assert_refused(server, seeded, [{}, {"username": "admin", "password": ADMIN_PW}, {"bearer": token},
                                    {"username": "ci", "password": token}])
    path.unlink()
    assert_refused(server, seeded, [{}, {"username": "admin", "password": ADMIN_PW}])


def test_a_public_listener_whose_credentials_are_all_deleted_refuses_every_call(
        seeded: Databases, start_server: Callable[..., GnmiServer], path: Path) -> None:
    token = auth.add_token(path, "ci", auth.READ_ONLY)
    server = start_server(host="0.0.0.0", auth_file=path)
    assert call(server, "get", username="ci", password=token) == grpc.StatusCode.OK
    auth.save(path, auth.Credentials({}, {}))
    assert_refused(server, seeded, [{}, {"bearer": token}, {"username": "ci", "password": token}])


def test_the_first_user_added_at_run_time_is_required_from_then_on(
        seeded: Databases, start_server: Callable[..., GnmiServer], path: Path) -> None:
    server = start_server(auth_file=path)
    assert call(server, "get") == grpc.StatusCode.OK  # a loopback lab without credentials
    auth.add_user(path, "admin", auth.ADMIN, ADMIN_PW)
    assert call(server, "get") == grpc.StatusCode.UNAUTHENTICATED
    assert call(server, "get", username="admin", password=ADMIN_PW) == grpc.StatusCode.OK
    auth.remove(path, "user", "admin")
    assert_refused(server, seeded, [{}, {"username": "admin", "password": ADMIN_PW}])


def test_a_changed_password_and_a_deleted_token_take_effect_on_the_next_call(
        seeded: Databases, start_server: Callable[..., GnmiServer], path: Path) -> None:
    auth.add_user(path, "admin", auth.ADMIN, ADMIN_PW)
    token = auth.add_token(path, "ci", auth.READ_ONLY)
    server = start_server(auth_file=path)
    assert call(server, "get", username="admin", password=ADMIN_PW) == grpc.StatusCode.OK
    assert call(server, "get", username="ci", password=token) == grpc.StatusCode.OK
    assert call(server, "get", bearer=token) == grpc.StatusCode.OK
    auth.add_user(path, "admin", auth.ADMIN, "new-secret-2")
    auth.remove(path, "token", "ci")
    assert call(server, "get", username="admin", password=ADMIN_PW) == grpc.StatusCode.UNAUTHENTICATED
    assert call(server, "get", username="ci", password=token) == grpc.StatusCode.UNAUTHENTICATED
    assert call(server, "get", bearer=token) == grpc.StatusCode.UNAUTHENTICATED
    assert call(server, "get", username="admin", password="new-secret-2") == grpc.StatusCode.OK


def test_a_credentials_file_broken_at_run_time_refuses_every_call_until_fixed(
        seeded: Databases, start_server: Callable[..., GnmiServer], path: Path) -> None:
    server = start_server(auth_file=path)
    assert call(server, "get") == grpc.StatusCode.OK
    path.write_text("{ not json")
    assert_refused(server, seeded, [{}, {"username": "admin", "password": ADMIN_PW}],
                   code=grpc.StatusCode.UNAVAILABLE)
    auth.save(path, auth.Credentials({}, {}))
    assert_refused(server, seeded, [{}])


@pytest.mark.parametrize("content", [None, '{"users": {}, "tokens": {}}'])
def test_a_public_listener_without_credentials_cannot_start(redis_url: str, tmp_path: Path,
                                                            content: str | None) -> None:
    """Neither the process nor a server built in-process: there is no way to serve 0.0.0.0 open."""
    if content is not None:
        (tmp_path / auth.FILE_NAME).write_text(content)
    proc = subprocess.run([sys.executable, "-m", "nos.api.gnmi", "--redis", redis_url, "--host", "0.0.0.0",
                           "--port", "0", "--run-dir", str(tmp_path)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "refusing to listen on 0.0.0.0 without credentials" in proc.stderr
    assert not (tmp_path / "gnmi.json").exists()
    with pytest.raises(ListenerRefused):
        GnmiServer(ServerOptions(redis_url, host="0.0.0.0", port=0, run_dir=tmp_path))
