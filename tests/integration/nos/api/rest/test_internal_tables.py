"""The switch's own tables (``NOS_*``) through REST: readable, never written by a raw config write
(named in the URL, in a patch, or changed by a whole-document replace); the RoCE intent still keeps
``NOS_ROCE_SAVED``. No REST route writes a database other than CONFIG_DB."""

from __future__ import annotations

import json
from typing import Any

import pytest

from nos.db import ConfigDBConnector
from tests.integration.nos.api.rest.conftest import TestClient, errors_of

pytestmark = pytest.mark.integration

SAVED = "NOS_ROCE_SAVED"
SAVED_ROW = {"Ethernet0": json.dumps({"mtu": "9100"})}


@pytest.fixture
def saved(cdb: ConfigDBConnector) -> ConfigDBConnector:
    cdb.mod_entry(SAVED, "PORT", SAVED_ROW)
    return cdb


def assert_refused(reply: Any, table: str, cdb: ConfigDBConnector, before: dict[str, Any]) -> None:
    assert reply.status_code == 403, reply.text
    [error] = errors_of(reply)
    assert error["error-tag"] == "access-denied" and error["error-path"] == f"/{table}"
    assert f"table {table} is internal" in error["error-message"]
    assert cdb.get_config() == before


@pytest.mark.parametrize(("method", "url", "body"), [
    ("PUT", f"/api/v1/config/{SAVED}/PORT", {"Ethernet0": "null"}),
    ("POST", f"/api/v1/config/{SAVED}/BUFFER_PG", {"Ethernet0|3": "null"}),
    ("PATCH", f"/api/v1/config/{SAVED}/PORT", [{"op": "remove", "path": "/Ethernet0"}]),
    ("PATCH", f"/api/v1/config/{SAVED}", [{"op": "remove", "path": "/PORT"}]),
    ("DELETE", f"/api/v1/config/{SAVED}/PORT", None),
    ("DELETE", f"/api/v1/config/{SAVED}", None),
    ("PUT", "/api/v1/config/NOS_CONFIG_GENERATION/x", {"a": "1"}),
    ("DELETE", "/api/v1/config/NOS_ANYTHING", None),
])
def test_a_write_naming_an_internal_table_is_refused(client: TestClient, saved: ConfigDBConnector, method: str,
                                                      url: str, body: object) -> None:
    before = saved.get_config()
    media = "application/json-patch+json" if method == "PATCH" else "application/json"
    reply = client.request(method, url, content=json.dumps(body) if body is not None else None,
                           headers={"Content-Type": media})
    assert_refused(reply, url.split("/")[4], saved, before)
    dry = client.request(method, url + "?dry_run=true", content=json.dumps(body) if body is not None else None,
                         headers={"Content-Type": media})
    assert dry.status_code == 403


@pytest.mark.parametrize("patch", [
    [{"op": "add", "path": f"/{SAVED}", "value": {"PORT": SAVED_ROW}}],  # a new internal table
    [{"op": "replace", "path": f"/{SAVED}/PORT/Ethernet0", "value": "null"}],
    [{"op": "remove", "path": f"/{SAVED}"}],
    [{"op": "move", "from": f"/{SAVED}/PORT", "path": "/VLAN/Vlan7"}],
    [{"op": "add", "path": "/VLAN/Vlan7", "value": {"vlanid": "7"}}, {"op": "remove", "path": f"/{SAVED}/PORT"}],
])
def test_a_patch_that_changes_an_internal_table_is_refused_whole(client: TestClient, saved: ConfigDBConnector,
                                                                 patch: list[dict[str, Any]]) -> None:
    before = saved.get_config()
    reply = client.patch("/api/v1/config", json=patch, headers={"Content-Type": "application/json-patch+json"})
    assert_refused(reply, SAVED, saved, before)


def test_a_whole_document_replace_must_keep_the_internal_tables(client: TestClient,
                                                                saved: ConfigDBConnector) -> None:
    document = client.get("/api/v1/config").json()
    assert document[SAVED] == {"PORT": SAVED_ROW}  # reading is allowed
    assert client.get(f"/api/v1/config/{SAVED}/PORT").json() == SAVED_ROW
    without = {name: rows for name, rows in document.items() if name != SAVED}
    reply = client.patch("/api/v1/config", json=[{"op": "replace", "path": "", "value": without}])
    assert_refused(reply, SAVED, saved, document)
    document["VLAN"]["Vlan7"] = {"vlanid": "7"}
    reply = client.patch("/api/v1/config", json=[{"op": "replace", "path": "", "value": document}])
    assert reply.status_code == 200, reply.text  # the same internal rows: accepted
    assert saved.get_entry("VLAN", "Vlan7") == {"vlanid": "7"} and saved.get_entry(SAVED, "PORT") == SAVED_ROW


def test_a_patch_may_read_an_internal_table(client: TestClient, saved: ConfigDBConnector) -> None:
    reply = client.patch("/api/v1/config", json=[{"op": "test", "path": f"/{SAVED}/PORT", "value": SAVED_ROW},
                                                 {"op": "add", "path": "/VLAN/Vlan7", "value": {"vlanid": "7"}}])
    assert reply.status_code == 200, reply.text


def test_no_route_writes_state_counters_or_another_db(client: TestClient) -> None:
    for method in ("PUT", "POST", "PATCH", "DELETE"):
        for url in ("/api/v1/state/interfaces", "/api/v1/counters/interfaces", "/api/v1/state/NOS_DAEMON_TABLE"):
            assert client.request(method, url, json={}).status_code in (404, 405), (method, url)
