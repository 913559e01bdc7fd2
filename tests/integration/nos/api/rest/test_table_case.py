"""Table names are case-exact on every REST write: ``/config/port/...`` is a table ``port`` (kept,
reported in ``not_acted_on`` with a hint), and no PUT, POST, PATCH or DELETE of it touches ``PORT``."""

from __future__ import annotations

import pytest

from nos.db import ConfigDBConnector
from tests.integration.nos.api.rest.conftest import START, TestClient

pytestmark = pytest.mark.integration

PATCH = {"Content-Type": "application/json-patch+json"}
HINT = "port: table names are case-exact: this is another table than PORT (kept, not acted on)"


def test_every_write_of_a_lower_case_table_leaves_port_alone(client: TestClient, cdb: ConfigDBConnector) -> None:
    reply = client.put("/api/v1/config/port/Ethernet0", json={"mtu": "1500"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["not_acted_on"] == ["port"] and reply.json()["warnings"] == [HINT]
    assert client.post("/api/v1/config/port/Ethernet4", json={"mtu": 1500}).status_code == 201
    reply = client.patch("/api/v1/config/port/Ethernet0", json=[{"op": "replace", "path": "/mtu", "value": "1400"}],
                         headers=PATCH)
    assert reply.status_code == 200, reply.text
    reply = client.patch("/api/v1/config", json=[{"op": "add", "path": "/port/Ethernet8", "value": {"mtu": "9000"}}],
                         headers=PATCH)
    assert reply.status_code == 200, reply.text
    reply = client.patch("/api/v1/config/port", json=[{"op": "remove", "path": "/Ethernet8"}], headers=PATCH)
    assert reply.status_code == 200, reply.text
    assert cdb.get_table("port") == {"Ethernet0": {"mtu": "1400"}, "Ethernet4": {"mtu": "1500"}}
    assert cdb.get_table("PORT") == START["PORT"]
    assert client.get("/api/v1/config/port/Ethernet0").json() == {"mtu": "1400"}  # once: PORT|Ethernet0
    assert client.delete("/api/v1/config/port/Ethernet0").status_code == 200
    assert client.delete("/api/v1/config/port").status_code == 200
    assert client.get("/api/v1/config/port").status_code == 404
    assert cdb.get_config() == START


@pytest.mark.parametrize(("method", "url", "body"), [
    ("PUT", "/api/v1/config/PORT%7CEthernet0/x", {"mtu": "1500"}),
    ("PATCH", "/api/v1/config", [{"op": "add", "path": "/PORT|Ethernet0", "value": {"x": {}}}]),
    ("PATCH", "/api/v1/config", [{"op": "add", "path": "", "value": {"": {"x": {}}}}]),
])
def test_a_name_that_cannot_be_a_table_is_refused(client: TestClient, cdb: ConfigDBConnector, method: str, url: str,
                                                 body: object) -> None:
    reply = client.request(method, url, json=body)
    assert reply.status_code == 400, reply.text
    assert "table name" in reply.text
    assert cdb.get_config() == START
