"""REST with a key of CONFIG_DB that is not a row (redis-cli set 'PORT|Ethernet4' notahash): reads leave it
out or name it (never a 5xx), config-save refuses to lose it, writes elsewhere go on, a PUT repairs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.nos.api.rest.conftest import TestClient, errors_of
from tests.integration.nos.api.rest.test_operations import run_job

pytestmark = pytest.mark.integration

REASON = "WRONGTYPE: CONFIG_DB PORT|Ethernet4 is a string, expected a hash"


@pytest.fixture
def garbage(client: TestClient, raw) -> TestClient:
    raw(4).delete("PORT|Ethernet4")
    raw(4).set("PORT|Ethernet4", "notahash")
    return client


def test_reads_leave_the_key_out_or_name_it(garbage: TestClient) -> None:
    assert set(garbage.get("/api/v1/config/PORT").json()) == {"Ethernet0"}  # the old code: 503
    assert set(garbage.get("/api/v1/config").json()["PORT"]) == {"Ethernet0"}
    reply = garbage.get("/api/v1/config/PORT/Ethernet4")
    assert reply.status_code == 409 and errors_of(reply)[0]["error-message"] == REASON


def test_config_save_refuses_and_names_the_key(garbage: TestClient, tmp_path: Path) -> None:
    target = tmp_path / "saved.json"
    job = run_job(garbage, "config-save", {"path": str(target)})  # the old code saved without Ethernet4

    assert job["state"] == "failed" and not target.exists()
    assert [(e["error-path"], e["error-message"]) for e in job["errors"]] == [("/PORT/Ethernet4", REASON)]


def test_writes_to_other_rows_apply_and_a_put_of_the_row_repairs_it(garbage: TestClient, raw) -> None:
    patch = [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"}]
    assert garbage.patch("/api/v1/config", json=patch).status_code == 200
    assert raw(4).hget("PORT|Ethernet0", "mtu") == "1500"

    row = {"lanes": "4,5,6,7", "speed": "100000", "mtu": "9100"}
    reply = garbage.put("/api/v1/config/PORT/Ethernet4", json=row)  # the old code: WRONGTYPE in the apply, 503
    assert reply.status_code == 200, reply.text
    assert raw(4).hgetall("PORT|Ethernet4") == row
    assert run_job(garbage, "config-save")["state"] == "succeeded"


def test_state_and_counters_reads_leave_out_keys_that_are_not_hashes(client: TestClient, raw) -> None:
    raw(6).set("PORT_TABLE|Ethernet0", "garbage")
    raw(2).rpush("COUNTERS_PORT_NAME_MAP", "garbage")
    reply = client.get("/api/v1/state/interfaces")  # the old code: 503 "the switch's database"
    assert reply.status_code == 200, reply.text
    assert client.get("/api/v1/counters/interfaces").status_code == 200
