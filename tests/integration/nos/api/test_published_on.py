"""``--published-on``: in a container the API servers listen on every address of the container while
docker publishes their ports elsewhere; the credentials rule is applied to that published address."""

from __future__ import annotations

import nos.api.gnmi  # noqa: F401 - first: turns gRPC's fork handlers off before grpc loads (this runner forks)

# isort: split
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from pygnmi.client import gNMIclient

from nos.api.auth import ListenerRefused
from nos.api.gnmi.server import GnmiServer, ServerOptions
from nos.runtime.redis_server import pick_free_port

pytestmark = pytest.mark.integration


def test_rest_published_beyond_loopback_without_credentials_refuses_to_start(redis_url: str, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "nos.api.rest", "--redis", redis_url, "--host", "0.0.0.0",
                           "--port", "0", "--run-dir", str(tmp_path), "--published-on", "192.0.2.7"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "refusing to listen on 192.0.2.7 without credentials" in proc.stderr


def test_rest_on_every_address_published_on_loopback_serves_open(redis_url: str, tmp_path: Path) -> None:
    port = pick_free_port()
    err = tmp_path / "rest.log"
    with err.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "nos.api.rest", "--redis", redis_url, "--host", "0.0.0.0",
                                 "--port", str(port), "--run-dir", str(tmp_path), "--published-on", "127.0.0.1"],
                                stdout=subprocess.DEVNULL, stderr=out)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, err.read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/status", timeout=2) as reply:
                    assert reply.status == 200  # no credentials asked
                    break
            except OSError:
                assert time.monotonic() < deadline, "REST did not answer"
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(10)


def test_gnmi_is_judged_by_its_published_address(redis_url: str, tmp_path: Path) -> None:
    with pytest.raises(ListenerRefused, match="192.0.2.7"):
        GnmiServer(ServerOptions(redis_url, host="0.0.0.0", port=0, run_dir=tmp_path, published_on="192.0.2.7"))
    server = GnmiServer(ServerOptions(redis_url, host="0.0.0.0", port=0, run_dir=tmp_path, published_on="127.0.0.1"))
    port = server.start()
    try:
        with gNMIclient(target=("127.0.0.1", port), insecure=True) as client:
            assert client.capabilities()["gnmi_version"] == "0.8.0"
    finally:
        server.stop(0)
