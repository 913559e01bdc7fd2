"""Operations as jobs: 202 + Location, progress to succeeded or failed, save / reload / checkpoint /
rollback / delete-checkpoint against a real Redis and a run directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nos.config.files import read_config_file
from nos.db import ConfigDBConnector
from tests.conftest import wait_until
from tests.integration.nos.api.rest.conftest import START, TestClient, errors_of

pytestmark = pytest.mark.integration


def run_job(client: TestClient, operation: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """Start an operation and follow its Location until the job has finished."""
    reply = client.post(f"/api/v1/operations/{operation}", json=body)
    assert reply.status_code == 202, reply.text
    location = reply.headers["location"]
    assert location == f"/api/v1/jobs/{reply.json()['id']}" and reply.json()["operation"] == operation

    def finished() -> dict[str, Any] | None:
        job: dict[str, Any] = client.get(location).json()
        return job if job["state"] in ("succeeded", "failed") else None

    return wait_until(finished, timeout=20)  # type: ignore[return-value]


def test_config_save_writes_the_run_dir_config(client: TestClient, tmp_path: Path) -> None:
    job = run_job(client, "config-save")
    assert job["state"] == "succeeded", job
    assert job["progress_pct"] == 100 and job["step"] == job["steps_total"] == 2
    assert job["started_at"] and job["finished_at"] and job["errors"] is None
    assert job["messages"][0] == "step 1/2: read CONFIG_DB"
    assert job["result"] == {"path": str(tmp_path / "config_db.json"), "rows": 5}
    assert read_config_file(tmp_path / "config_db.json") == START


def test_config_save_to_a_given_file_and_bad_paths(client: TestClient, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    assert run_job(client, "config-save", {"path": str(target)})["state"] == "succeeded"
    assert json.loads(target.read_text())["VLAN"] == START["VLAN"]
    reply = client.post("/api/v1/operations/config-save", json={"path": str(tmp_path / "no" / "such" / "dir.json")})
    assert reply.status_code == 400 and errors_of(reply)[0]["error-path"] == "path"  # (more: test_file_confinement)


def test_config_reload_makes_config_db_equal_the_file(client: TestClient, cdb: ConfigDBConnector,
                                                      tmp_path: Path) -> None:
    target = {"PORT": START["PORT"], "VLAN": {"Vlan200": {"vlanid": "200"}}}
    path = tmp_path / "next.json"
    path.write_text(json.dumps(target))
    job = run_job(client, "config-reload", {"path": str(path)})
    assert job["state"] == "succeeded", job
    assert job["result"]["rows"] == 3 and cdb.get_config() == target
    missing = client.post("/api/v1/operations/config-reload", json={"path": str(tmp_path / "none.json")})
    assert missing.status_code == 404


def test_a_refused_reload_fails_the_job_and_changes_nothing(client: TestClient, cdb: ConfigDBConnector,
                                                            tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"VLAN": {"Vlan5000": {"vlanid": "5000"}}}))
    job = run_job(client, "config-reload", {"path": str(path)})
    assert job["state"] == "failed" and job["result"] is None
    assert any(e["error-path"].startswith("/VLAN/Vlan5000") for e in job["errors"])
    assert cdb.get_config() == START


def test_reload_without_a_path_reads_the_saved_config(client: TestClient, cdb: ConfigDBConnector) -> None:
    assert run_job(client, "config-save")["state"] == "succeeded"
    cdb.mod_entry("VLAN", "Vlan300", {"vlanid": "300"})
    assert run_job(client, "config-reload")["state"] == "succeeded"
    assert cdb.get_config() == START


def test_checkpoint_rollback_and_delete(client: TestClient, cdb: ConfigDBConnector) -> None:
    assert run_job(client, "checkpoint", {"name": "before-mtu"})["state"] == "succeeded"
    assert [c["name"] for c in client.get("/api/v1/checkpoints").json()] == ["before-mtu"]
    assert client.patch("/api/v1/config/PORT/Ethernet0", json=[{"op": "replace", "path": "/mtu", "value": "1500"}],
                        ).status_code == 200

    planned = run_job(client, "rollback", {"name": "before-mtu", "dry_run": True})
    assert planned["state"] == "succeeded" and planned["result"]["applied"] is False
    restore = {"op": "replace", "path": "/PORT/Ethernet0", "value": START["PORT"]["Ethernet0"]}
    assert planned["result"]["patch"] == [restore]
    assert cdb.get_entry("PORT", "Ethernet0")["mtu"] == "1500"

    done = run_job(client, "rollback", {"name": "before-mtu"})
    assert done["state"] == "succeeded" and done["result"]["changes"] == 1
    assert cdb.get_config() == START

    assert run_job(client, "delete-checkpoint", {"name": "before-mtu"})["state"] == "succeeded"
    assert client.get("/api/v1/checkpoints").json() == []
    for operation in ("rollback", "delete-checkpoint"):
        reply = client.post(f"/api/v1/operations/{operation}", json={"name": "before-mtu"})
        assert reply.status_code == 404 and "before-mtu" in errors_of(reply)[0]["error-message"]


def test_a_bad_checkpoint_name_is_refused_with_the_reason(client: TestClient) -> None:
    for operation in ("checkpoint", "rollback", "delete-checkpoint"):
        reply = client.post(f"/api/v1/operations/{operation}", json={"name": "../escape"})
        assert reply.status_code == 400 and "checkpoint name '../escape'" in errors_of(reply)[0]["error-message"]
    assert client.post("/api/v1/operations/checkpoint", json={}).status_code == 400


def test_jobs_are_listed_and_unknown_ones_are_404(client: TestClient) -> None:
    job = run_job(client, "config-save")
    assert [j["id"] for j in client.get("/api/v1/jobs").json()] == [job["id"]]
    reply = client.get("/api/v1/jobs/0123456789abcdef")
    assert reply.status_code == 404 and errors_of(reply)[0]["error-tag"] == "invalid-value"
