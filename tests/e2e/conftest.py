"""Whole-switch fixtures: real ``nos up`` processes in temporary run directories."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

NOS = [sys.executable, "-m", "nos.cli.main"]


def nos(*args: str, check: bool = True, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*NOS, *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"nos {' '.join(args)} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@dataclass
class RunningSwitch:
    run_dir: Path
    up_output: str
    clients: dict[int, redis.Redis] = field(default_factory=dict)

    @property
    def endpoints(self) -> dict[str, str]:
        return json.loads((self.run_dir / "endpoints.json").read_text())

    def db(self, n: int) -> redis.Redis:
        if n not in self.clients:
            self.clients[n] = redis.Redis.from_url(self.endpoints["redis"], db=n, decode_responses=True)
        return self.clients[n]

    def close(self) -> None:
        for client in self.clients.values():
            client.close()
        self.clients.clear()

    def nos(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return nos(*args, "--run-dir", str(self.run_dir), check=check)


def start_switch(run_dir: Path, *extra: str) -> RunningSwitch:
    out = nos("up", "-d", "--run-dir", str(run_dir), "--rest-port", "0", "--redis-port", "0", *extra)
    return RunningSwitch(run_dir, out.stdout)


@pytest.fixture(scope="module")
def switch_s6000(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSwitch]:
    sw = start_switch(tmp_path_factory.mktemp("sw"), "--sku", "Force10-S6000")
    yield sw
    sw.close()
    nos("down", "--run-dir", str(sw.run_dir), check=False)
