"""A whole switch whose last user is deleted with ``nos user del`` while it runs: REST and gNMI go on
refusing callers without valid credentials (they accepted anonymous admin writes before)."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request

import pytest

from tests.e2e.conftest import NOS, start_switch

pytestmark = pytest.mark.e2e

MTU = [{"op": "replace", "path": "/mtu", "value": "1500"}]


def rest_status(url: str, method: str = "GET", body: object = None) -> int:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json-patch+json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_deleting_the_last_user_with_nos_user_del_keeps_rest_and_gnmi_closed(tmp_path):
    import nos.api.gnmi  # noqa: F401 - turns gRPC's fork handlers off before pygnmi loads grpc

    # isort: split
    import grpc
    from pygnmi.client import gNMIclient, gNMIException

    run_dir = tmp_path / "sw"
    add = subprocess.run([*NOS, "user", "add", "admin", "--role", "admin", "--password-stdin", "--run-dir",
                          str(run_dir)], input="admin-secret-1\n", capture_output=True, text=True, timeout=60)
    assert add.returncode == 0, add.stderr
    sw = start_switch(run_dir, "--sku", "Force10-S6000", "--gnmi-port", "0")
    try:
        rest, (host, port) = sw.endpoints["rest"], sw.endpoints["gnmi"].rsplit(":", 1)
        assert rest_status(f"{rest}/api/v1/config/PORT/Ethernet0", "PATCH", MTU) == 401
        deleted = sw.nos("user", "del", "admin")
        assert rest_status(f"{rest}/api/v1/config/PORT/Ethernet0", "PATCH", MTU) == 401
        assert rest_status(f"{rest}/api/v1/config/PORT") == 401
        for kwargs in ({}, {"username": "admin", "password": "admin-secret-1"}):
            with pytest.raises(gNMIException) as error:
                with gNMIclient(target=(host, int(port)), insecure=True, gnmi_timeout=5, **kwargs) as gc:
                    gc.set(update=[("sonic-db:/CONFIG_DB/localhost/PORT/Ethernet0/mtu", "1500")],
                           encoding="json_ietf")
            assert error.value.orig_exc.code() == grpc.StatusCode.UNAUTHENTICATED
        assert sw.db(4).hget("PORT|Ethernet0", "mtu") != "1500"
        assert "no user or token is left" in deleted.stderr
        assert json.loads(sw.nos("status", "--json").stdout)["ready"]  # the switch itself is fine
    finally:
        sw.close()
        sw.nos("down")
