"""``/api/v1/intents/roce`` against a real Redis holding the 128x400G SKU's default configuration:
PUT/GET/DELETE apply and undo the expansion in one transaction, dry runs answer the expanded change,
refusals name table, key and field, and the lossless check answers per port and priority."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nos.api.rest.app import create_app
from nos.config.apply import reload_config
from nos.db import ConfigDBConnector, Databases
from nos.platform.sku import DEFAULT_SKU, load_sku
from nos.schema.dbconfig import CONFIG_DB
from tests.integration.nos.api.rest.conftest import TestClient, errors_of

pytestmark = pytest.mark.integration
URL = "/api/v1/intents/roce"


@pytest.fixture
def sku_client(dbs: Databases, tmp_path: Path) -> Iterator[tuple[TestClient, ConfigDBConnector]]:
    cdb = ConfigDBConnector(dbs[CONFIG_DB])
    reload_config(cdb, load_sku(DEFAULT_SKU).default_config())
    with TestClient(create_app(dbs, run_dir=tmp_path)) as client:
        yield client, cdb


def test_put_get_check_delete(sku_client) -> None:
    client, cdb = sku_client
    before = cdb.get_config()
    assert client.get(URL).json()["configured"] is None
    check = client.get(f"{URL}/check").json()
    assert not check["lossless"] and {i["kind"] for i in check["issues"]} >= {"watchdog_off", "cnp_not_prioritised"}

    reply = client.put(URL, json={"profile": "nvidia", "ecn_probability": 100})
    assert reply.status_code == 200, reply.text
    assert reply.json()["applied"] and reply.json()["changes"] > 1000
    assert cdb.get_entry("PORT_QOS_MAP", "Ethernet0")["pfc_enable"] == "3"
    got = client.get(URL).json()
    assert got["configured"] == {"profile": "nvidia", "ecn_probability": "100"} and got["in_sync"]
    check = client.get(f"{URL}/check").json()
    assert check == {"expected": "intent", "mode": "lossless", "priorities": [3], "ports": 128, "lossless": True,
                     "issues": []}
    assert client.get(f"{URL}/check", params={"profile": "sonic"}).json()["lossless"] is False

    assert client.delete(URL).status_code == 200
    assert cdb.get_config() == before
    assert client.delete(URL).status_code == 404


def test_dry_run_answers_the_expanded_change(sku_client) -> None:
    client, cdb = sku_client
    before = cdb.get_config()
    reply = client.put(URL, params={"dry_run": "true"}, json={"mode": "lossy"})
    assert reply.status_code == 200 and not reply.json()["applied"]
    patch = reply.json()["patch"]
    assert {"op": "add", "path": "/ROCE/global", "value": {"mode": "lossy"}} in patch
    assert patch_value(patch, "/WRED_PROFILE/ROCE")["ecn"] == "ecn_all"
    assert patch_value(patch, "/PORT_QOS_MAP/Ethernet0")["dscp_to_tc_map"] == "ROCE"
    assert cdb.get_config() == before


def patch_value(patch, path):
    return next(op["value"] for op in patch if op["path"] == path)


def test_refusals_name_table_key_field_and_change_nothing(sku_client) -> None:
    client, cdb = sku_client
    before = cdb.get_config()
    reply = client.put(URL, json={"cnp_tc": 9, "mode": "fast"})
    assert reply.status_code == 400
    paths = sorted(e["error-path"] for e in errors_of(reply))
    assert paths == ["/ROCE/global/cnp_tc", "/ROCE/global/mode"]
    reply = client.put(URL, json={"cable_length": "7m"})
    assert [e["error-path"] for e in errors_of(reply)] == ["/ROCE/global/cable_length"]
    assert cdb.get_config() == before
