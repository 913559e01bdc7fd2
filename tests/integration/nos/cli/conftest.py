"""CLI fixtures: a run directory whose switch is the test Redis, CONFIG_DB loaded with the 128x400G SKU's
default configuration, and helpers to run ``nos`` commands with click's CliRunner."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from nos.cli.main import cli
from nos.config.files import read_config_file
from nos.db import ConfigDBConnector
from nos.paths import skus_dir


@pytest.fixture
def run_dir(tmp_path: Path, redis_url: str) -> str:
    """A run directory as ``nos up`` leaves it, for a switch whose Redis is the test server."""
    (tmp_path / "endpoints.json").write_text(json.dumps({"redis": redis_url}))
    (tmp_path / "supervisor.pid").write_text(str(os.getpid()))
    return str(tmp_path)


@pytest.fixture
def sku_config(dbs):
    """CONFIG_DB holding NOS-SIM-128x400G's default config_db.json (as ``nos up`` loads it)."""
    ConfigDBConnector(dbs["CONFIG_DB"]).mod_config(read_config_file(skus_dir() / "NOS-SIM-128x400G" / "config_db.json"))
    return dbs


def nos(run_dir: str, *args: str, code: int = 0, stdin: str | None = None) -> Result:
    """Run ``nos <args> --run-dir <run_dir>``; assert the exit code."""
    result = CliRunner().invoke(cli, [*args, "--run-dir", run_dir], input=stdin)
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    return result


def config_dump(raw) -> dict[str, dict[str, str]]:
    """Every CONFIG_DB hash, exactly as stored (to show that a refused command changed nothing)."""
    client = raw(4)
    return {key: client.hgetall(key) for key in client.keys("*") if client.type(key) == "hash"}
