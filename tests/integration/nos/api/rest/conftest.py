"""The REST app on the session's real Redis, through Starlette's TestClient (no sockets), with a small
valid configuration loaded and a run directory for saves and checkpoints."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from nos.api.rest.app import create_app
from nos.config.apply import reload_config
from nos.db import ConfigDBConnector, Databases
from nos.db.configdb import Config
from nos.schema.dbconfig import CONFIG_DB

with warnings.catch_warnings():  # Starlette 1.x prefers httpx2 for its test client; httpx works the same
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

START: Config = {
    "PORT": {"Ethernet0": {"lanes": "0,1,2,3", "speed": "100000", "mtu": "9100", "admin_status": "up"},
             "Ethernet4": {"lanes": "4,5,6,7", "speed": "100000", "mtu": "9100"}},
    "VLAN": {"Vlan100": {"vlanid": "100"}},
    "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.0/31": {}},
}


@pytest.fixture
def cdb(dbs: Databases) -> ConfigDBConnector:
    connector = ConfigDBConnector(dbs[CONFIG_DB])
    reload_config(connector, START)
    return connector


@pytest.fixture
def client(dbs: Databases, cdb: ConfigDBConnector, tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(dbs, run_dir=tmp_path)) as test_client:
        yield test_client


def errors_of(reply: object) -> list[dict[str, str]]:
    """The RESTCONF error entries of a reply (asserting the body has that shape)."""
    body = reply.json()  # type: ignore[attr-defined]
    assert set(body) == {"ietf-restconf:errors"}, body
    return body["ietf-restconf:errors"]["error"]
