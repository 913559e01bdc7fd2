"""``python -m nos.api.gnmi``: the port it chose is reported; a taken port is an error or, asked, any port."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from nos.api.gnmi.probe import capabilities
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def gnmi(redis_url: str, run_dir, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "nos.api.gnmi", "--redis", redis_url, "--run-dir", str(run_dir),
                             *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_the_chosen_port_is_reported_and_a_taken_port_falls_back_only_when_asked(redis_url, tmp_path, server):
    taken = str(server.port)
    refused = gnmi(redis_url, tmp_path / "a", "--port", taken)
    _, err = refused.communicate(timeout=30)
    assert refused.returncode == 2 and f"cannot listen on 127.0.0.1:{taken}" in err
    proc = gnmi(redis_url, tmp_path / "b", "--port", taken, "--port-fallback")
    try:
        status_file = tmp_path / "b" / "gnmi.json"
        wait_until(status_file.exists, timeout=30)
        status = json.loads(status_file.read_text())
        assert status["pid"] == proc.pid and status["port"] not in (0, server.port) and status["mode"] == "plain"
        assert capabilities(status["unix"])[0] and capabilities(f"127.0.0.1:{status['port']}")[0]
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0 and f"gnmi.listening address=127.0.0.1:{status['port']}" in out
    assert not status_file.exists() and not (tmp_path / "b" / "gnmi.sock").exists()
