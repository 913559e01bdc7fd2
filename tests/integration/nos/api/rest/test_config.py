"""CONFIG_DB over REST against a real Redis: CRUD, JSON Patch all or nothing, dry runs, keys with '/' and
'|', and RESTCONF error bodies for every refusal."""

from __future__ import annotations

import pytest

from nos.db import ConfigDBConnector
from tests.integration.nos.api.rest.conftest import START, TestClient, errors_of

pytestmark = pytest.mark.integration

PATCH = {"Content-Type": "application/json-patch+json"}


def test_reads_whole_config_table_and_row(client: TestClient) -> None:
    assert client.get("/api/v1/config").json() == START
    assert client.get("/api/v1/config/VLAN").json() == START["VLAN"]
    assert client.get("/api/v1/config/PORT/Ethernet4").json() == START["PORT"]["Ethernet4"]
    assert client.get("/api/v1/config/INTERFACE/Ethernet0").json() == {}  # a field-less row exists


def test_keys_with_slash_and_bar_work_raw_and_percent_encoded(client: TestClient, cdb: ConfigDBConnector) -> None:
    for url in ("/api/v1/config/INTERFACE/Ethernet0|10.0.0.0/31", "/api/v1/config/INTERFACE/Ethernet0%7C10.0.0.0%2F31"):
        assert client.get(url).status_code == 200, url
    assert client.put("/api/v1/config/INTERFACE/Ethernet4", json={}).status_code == 200
    reply = client.put("/api/v1/config/INTERFACE/Ethernet4%7C10.0.0.2%2F31", json={})
    assert reply.status_code == 200, reply.text
    assert reply.json()["patch"] == [{"op": "add", "path": "/INTERFACE/Ethernet4|10.0.0.2~131", "value": {}}]
    add = [{"op": "add", "path": "/INTERFACE/Ethernet4|10.0.0.4~131", "value": {}}]
    reply = client.patch("/api/v1/config", json=add)
    assert reply.status_code == 200, reply.text
    assert {"Ethernet4|10.0.0.2/31", "Ethernet4|10.0.0.4/31"} <= set(cdb.get_keys("INTERFACE"))
    assert "Ethernet4|10.0.0.2/31" in cdb.get_keys("INTERFACE")
    assert client.delete("/api/v1/config/INTERFACE/Ethernet4|10.0.0.2/31").status_code == 200
    assert "Ethernet4|10.0.0.2/31" not in cdb.get_keys("INTERFACE")


def test_put_replaces_a_row_and_reports_the_new_generation(client: TestClient, cdb: ConfigDBConnector) -> None:
    before = cdb.generation()
    reply = client.put("/api/v1/config/PORT/Ethernet4", json={"lanes": "4,5,6,7", "speed": 100000, "mtu": 1500})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["applied"] is True and body["dry_run"] is False and body["changes"] == 1
    assert body["generation"] == before + 1 == cdb.generation()
    assert cdb.get_entry("PORT", "Ethernet4") == {"lanes": "4,5,6,7", "speed": "100000", "mtu": "1500"}


def test_post_creates_and_refuses_an_existing_row(client: TestClient, cdb: ConfigDBConnector) -> None:
    reply = client.post("/api/v1/config/VLAN/Vlan200", json={"vlanid": "200"})
    assert reply.status_code == 201, reply.text
    assert cdb.get_entry("VLAN", "Vlan200") == {"vlanid": "200"}
    again = client.post("/api/v1/config/VLAN/Vlan200", json={"vlanid": "200"})
    assert again.status_code == 409
    [error] = errors_of(again)
    assert error["error-tag"] == "resource-denied" and error["error-path"] == "/VLAN/Vlan200"


def test_list_fields_round_trip(client: TestClient, cdb: ConfigDBConnector) -> None:
    reply = client.put("/api/v1/config/VLAN/Vlan300", json={"vlanid": "300", "dhcp_servers": ["10.1.1.1", "10.1.1.2"]})
    assert reply.status_code == 200, reply.text
    assert cdb.db.client.hget("VLAN|Vlan300", "dhcp_servers@") == "10.1.1.1,10.1.1.2"
    assert client.get("/api/v1/config/VLAN/Vlan300").json()["dhcp_servers"] == ["10.1.1.1", "10.1.1.2"]


def test_delete_row_and_table_and_404s(client: TestClient, cdb: ConfigDBConnector) -> None:
    assert client.delete("/api/v1/config/VLAN/Vlan100").status_code == 200
    assert cdb.get_keys("VLAN") == []
    for method, url in (("GET", "/api/v1/config/VLAN/Vlan100"), ("DELETE", "/api/v1/config/VLAN/Vlan100"),
                        ("GET", "/api/v1/config/VLAN"), ("DELETE", "/api/v1/config/VLAN")):
        reply = client.request(method, url)
        assert reply.status_code == 404, (method, url)
        [error] = errors_of(reply)
        assert error["error-tag"] == "invalid-value" and "VLAN" in error["error-message"]
    assert client.delete("/api/v1/config/INTERFACE").status_code == 200
    assert cdb.get_keys("INTERFACE") == []


def test_patch_applies_all_operations_atomically(client: TestClient, cdb: ConfigDBConnector) -> None:
    ops = [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"},
           {"op": "add", "path": "/VLAN_MEMBER", "value": {"Vlan100|Ethernet4": {"tagging_mode": "tagged"}}}]
    reply = client.patch("/api/v1/config", json=ops, headers=PATCH)
    assert reply.status_code == 200, reply.text
    assert reply.json()["changes"] == 2
    assert cdb.get_entry("PORT", "Ethernet0")["mtu"] == "1500"
    assert cdb.get_entry("VLAN_MEMBER", "Vlan100|Ethernet4") == {"tagging_mode": "tagged"}


def test_patch_with_one_bad_operation_changes_nothing_and_names_it(client: TestClient, cdb: ConfigDBConnector) -> None:
    before, generation = cdb.get_config(), cdb.generation()
    ops = [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"},
           {"op": "replace", "path": "/PORT/Ethernet4/mtu", "value": "99999999"}]
    reply = client.patch("/api/v1/config", json=ops, headers=PATCH)
    assert reply.status_code == 400
    [error] = errors_of(reply)
    assert error["error-path"] == "/PORT/Ethernet4/mtu" and "99999999" in error["error-message"]
    missing = client.patch("/api/v1/config", json=[ops[0], {"op": "remove", "path": "/PORT/Ethernet8"}], headers=PATCH)
    assert missing.status_code == 400
    [error] = errors_of(missing)
    assert error["error-path"] == "/PORT/Ethernet8" and "operation 1" in error["error-message"]
    assert "PORT|Ethernet8" in error["error-message"]
    assert cdb.get_config() == before and cdb.generation() == generation


def test_validation_errors_are_one_entry_per_problem(client: TestClient) -> None:
    ops = [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "-1"},
           {"op": "add", "path": "/VLAN/Vlan5000", "value": {"vlanid": "5000"}}]
    reply = client.patch("/api/v1/config", json=ops)  # plain application/json is accepted too
    assert reply.status_code == 400
    paths = {e["error-path"] for e in errors_of(reply)}
    assert "/PORT/Ethernet0/mtu" in paths and any(p.startswith("/VLAN/Vlan5000") for p in paths)


def test_dry_run_answers_the_patch_and_changes_nothing(client: TestClient, cdb: ConfigDBConnector) -> None:
    before, generation = cdb.get_config(), cdb.generation()
    reply = client.patch("/api/v1/config/PORT/Ethernet0?dry_run=true", json=[{"op": "replace", "path": "/mtu",
                                                                               "value": "4000"}], headers=PATCH)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["applied"] is False and body["dry_run"] is True and body["generation"] == generation
    assert body["patch"] == [{"op": "replace", "path": "/PORT/Ethernet0",
                              "value": {**START["PORT"]["Ethernet0"], "mtu": "4000"}}]
    assert client.delete("/api/v1/config/VLAN?dry_run=true").json()["patch"] == [
        {"op": "remove", "path": "/VLAN/Vlan100"}]
    assert client.put("/api/v1/config/VLAN/Vlan9?dry_run=1", json={"vlanid": "9"}).json()["applied"] is False
    assert cdb.get_config() == before and cdb.generation() == generation


def test_patch_relative_to_a_table_or_row(client: TestClient, cdb: ConfigDBConnector) -> None:
    reply = client.patch("/api/v1/config/PORT", json=[{"op": "replace", "path": "/Ethernet4/mtu", "value": 1500},
                                                      {"op": "add", "path": "/Ethernet4/fec", "value": "rs"}],
                         headers=PATCH)
    assert reply.status_code == 200, reply.text
    assert cdb.get_entry("PORT", "Ethernet4")["mtu"] == "1500" and cdb.get_entry("PORT", "Ethernet4")["fec"] == "rs"
    reply = client.patch("/api/v1/config/INTERFACE/Ethernet0|10.0.0.0/31", headers=PATCH,
                         json=[{"op": "add", "path": "/secondary", "value": "true"}])
    assert reply.status_code == 200, reply.text
    assert cdb.get_entry("INTERFACE", "Ethernet0|10.0.0.0/31") == {"secondary": "true"}
    bad = client.patch("/api/v1/config/PORT/Ethernet0", json=[{"op": "replace", "path": "mtu", "value": "1"}],
                       headers=PATCH)
    assert bad.status_code == 400 and "relative to /PORT/Ethernet0" in errors_of(bad)[0]["error-message"]


def test_unknown_tables_are_kept_and_reported(client: TestClient, cdb: ConfigDBConnector) -> None:
    reply = client.put("/api/v1/config/SNMP_COMMUNITY/public", json={"TYPE": "RO"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["not_acted_on"] == ["SNMP_COMMUNITY"]
    assert cdb.get_entry("SNMP_COMMUNITY", "public") == {"TYPE": "RO"}


@pytest.mark.parametrize(("method", "url", "body", "headers", "status"), [
    ("PATCH", "/api/v1/config", "[]", {"Content-Type": "text/plain"}, 415),
    ("PUT", "/api/v1/config/VLAN/Vlan7", '{"vlanid": "7"}', {"Content-Type": "application/xml"}, 415),
    ("PUT", "/api/v1/config/VLAN/Vlan7", '{"vlanid": "7"}', {}, 415),
    ("PATCH", "/api/v1/config", "[{", {"Content-Type": "application/json"}, 400),
    ("PATCH", "/api/v1/config", '[{"op": "jump", "path": "/X"}]', {"Content-Type": "application/json"}, 400),
    ("PUT", "/api/v1/config/VLAN/Vlan7", '{"vlanid": {"a": 1}}', {"Content-Type": "application/json"}, 400),
    ("PUT", "/api/v1/config/VLAN|X/Vlan7", '{"vlanid": "7"}', {"Content-Type": "application/json"}, 400),
    ("PATCH", "/api/v1/config", '[{"op": "add", "path": "/PORT|X", "value": {}}]', {"Content-Type": "application/json"},
     400),
    ("GET", "/api/v1/config/VLAN/Vlan100?dry_run=maybe", "", {}, 200),
    ("PUT", "/api/v1/config/VLAN/Vlan7?dry_run=maybe", '{"vlanid": "7"}', {"Content-Type": "application/json"}, 400),
    ("POST", "/api/v1/config", "{}", {"Content-Type": "application/json"}, 405),
    ("GET", "/api/v1/nothing", "", {}, 404),
])
def test_client_mistakes_get_restconf_errors(client: TestClient, cdb: ConfigDBConnector, method: str, url: str,
                                             body: str, headers: dict[str, str], status: int) -> None:
    before = cdb.get_config()
    reply = client.request(method, url, content=body, headers=headers)
    assert reply.status_code == status, reply.text
    if status != 200:
        [error, *_] = errors_of(reply)
        assert error["error-tag"] in ("invalid-value", "operation-not-supported") and error["error-message"]
    assert cdb.get_config() == before


@pytest.mark.parametrize(("method", "url", "body", "says"), [
    ("PATCH", "/api/v1/config", '[{"op": "jump", "path": "/X"}]', "body/0/op: "),
    ("PATCH", "/api/v1/config/PORT/Ethernet0", '[{"op": "add"}]', "body/0/path: Field required"),
    ("PATCH", "/api/v1/config", "[{", "the body is not valid JSON: "),
    ("PATCH", "/api/v1/config", "", "body: Field required"),
    ("PUT", "/api/v1/config/VLAN/Vlan7", '["vlanid"]', "body: "),
    ("PUT", "/api/v1/config/VLAN/Vlan7?dry_run=maybe", '{"vlanid": "7"}', "query/dry_run: "),
    ("DELETE", "/api/v1/config/VLAN?dry_run=2", "", "query/dry_run: "),
])
def test_a_malformed_write_names_where(client: TestClient, method: str, url: str, body: str, says: str) -> None:
    """Write routes read their body and flag themselves (``write_params``): errors name the location as
    FastAPI would (``body/0/op``, ``query/dry_run``)."""
    reply = client.request(method, url, content=body, headers={"Content-Type": "application/json"})
    assert reply.status_code == 400, reply.text
    assert says in errors_of(reply)[0]["error-message"]


def test_the_openapi_document_describes_what_the_write_routes_read(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    patch = spec["paths"]["/api/v1/config/{table}/{key}"]["patch"]
    assert [(p["name"], p["in"], p["required"]) for p in patch["parameters"]] == [
        ("table", "path", True), ("key", "path", True), ("dry_run", "query", False), ("wait", "query", False)]
    assert patch["parameters"][3]["schema"]["enum"] == ["accepted", "applied"]
    content = patch["requestBody"]["content"]
    assert set(content) == {"application/json-patch+json", "application/json"}
    assert content["application/json"]["schema"]["items"] == {"$ref": "#/components/schemas/PatchOperation"}
    assert spec["components"]["schemas"]["PatchOperation"]["required"] == ["op", "path"]
    put = spec["paths"]["/api/v1/config/{table}/{key}"]["put"]["requestBody"]["content"]
    assert set(put) == {"application/json"} and put["application/json"]["schema"]["type"] == "object"


def test_mclag_tables_go_through_the_same_validated_transactions(client: TestClient, cdb: ConfigDBConnector) -> None:
    domain = {"source_ip": "10.0.0.1", "peer_ip": "10.0.0.2", "keepalive_interval": "1", "session_timeout": "30"}
    assert client.put("/api/v1/config/MCLAG_DOMAIN/1", json=domain).status_code == 200
    before = cdb.get_config()
    timers = client.patch("/api/v1/config", json=[{"op": "replace", "path": "/MCLAG_DOMAIN/1/keepalive_interval",
                                                    "value": "11"}])
    assert timers.status_code == 400 and "/MCLAG_DOMAIN/1/session_timeout" in {
        e["error-path"] for e in errors_of(timers)}
    second = client.post("/api/v1/config/MCLAG_DOMAIN/2", json=domain)
    assert second.status_code == 400 and "MCLAG_DOMAIN" in str(errors_of(second))
    member = client.put("/api/v1/config/MCLAG_INTERFACE/1%7CEthernet0", json={"if_type": "PortChannel"})
    assert member.status_code == 400 and "if_name" in str(errors_of(member))
    assert cdb.get_config() == before
