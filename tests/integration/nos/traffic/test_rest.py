"""``POST /api/v1/operations/traffic-run`` (a job) and ``POST /api/v1/trace/packet`` against a real Redis,
syncd_sim played by a thread."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nos.api.rest.app import create_app
from nos.db import Databases
from tests.conftest import wait_until
from tests.integration.nos.api.rest.conftest import TestClient, errors_of
from tests.integration.nos.traffic.conftest import finish_with
from tests.unit.nos.traffic.documents import sample_document

pytestmark = pytest.mark.integration


@pytest.fixture
def client(sku_config: Databases, tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(sku_config, run_dir=tmp_path)) as test_client:
        yield test_client


def follow(client: TestClient, reply: Any) -> dict[str, Any]:
    assert reply.status_code == 202, reply.text
    location = reply.headers["location"]

    def finished() -> dict[str, Any] | None:
        job: dict[str, Any] = client.get(location).json()
        return job if job["state"] in ("succeeded", "failed") else None

    return wait_until(finished, timeout=20)  # type: ignore[return-value]


def test_traffic_run_job_result_is_the_document(client: TestClient, responder) -> None:
    responder("NOS_TRAFFIC_REQUEST", finish_with(sample_document()))
    job = follow(client, client.post("/api/v1/operations/traffic-run", json={"name": "incast-64to1"}))
    assert job["state"] == "succeeded", job
    assert job["operation"] == "traffic-run" and job["result"] == sample_document()
    assert job["messages"][0] == "step 1/1: run scenario 'incast-64to1' on the simulated ASIC"


def test_traffic_run_scenario_text(client: TestClient, responder) -> None:
    answering = responder("NOS_TRAFFIC_REQUEST", finish_with({"summary": {}}))
    text = "name: two\nhosts: [{name: h, ports: Ethernet0-Ethernet4}]\nworkloads: [{kind: permutation, size: 1MB}]\n"
    job = follow(client, client.post("/api/v1/operations/traffic-run", json={"scenario": text}))
    assert job["state"] == "succeeded" and job["result"] == {"summary": {}}
    assert len(answering.ids) == 1


def test_bad_scenarios_are_refused_with_every_field(client: TestClient) -> None:
    text = ("name: bad\nhosts: [{name: h, ports: Ethernet1}]\n"
            "workloads: [{kind: permutation, size: 1XB}, {kind: incast, senders: h, receiver: h, size: 1MB, dscp: 99}]")
    reply = client.post("/api/v1/operations/traffic-run", json={"scenario": text})
    assert reply.status_code == 400
    assert [e["error-path"] for e in errors_of(reply)] == ["/scenario/workloads[0].size", "/scenario/workloads[1].dscp"]
    reply = client.post("/api/v1/operations/traffic-run",
                        json={"scenario": "name: bad\nhosts: [{name: h, ports: Ethernet1}]\n"
                                          "workloads: [{kind: permutation, size: 1MB}]"})
    assert reply.status_code == 400
    (error,) = errors_of(reply)
    assert error["error-path"] == "/scenario/hosts[0].ports" and "no such port" in error["error-message"]


@pytest.mark.parametrize(("body", "status", "message"), [
    ({}, 400, "exactly one of 'scenario'"), ({"name": "x", "scenario": "y"}, 400, "exactly one of 'scenario'"),
    ({"name": "no-such-scenario"}, 404, "no scenario 'no-such-scenario'"), ({"name": "../etc"}, 400, "pattern")])
def test_traffic_run_body_problems(client: TestClient, body: dict[str, Any], status: int, message: str) -> None:
    reply = client.post("/api/v1/operations/traffic-run", json=body)
    assert reply.status_code == status and message in errors_of(reply)[0]["error-message"], reply.text


def test_a_job_fails_when_syncd_does_not_listen(client: TestClient) -> None:
    job = follow(client, client.post("/api/v1/operations/traffic-run", json={"name": "incast-64to1"}))
    assert job["state"] == "failed" and "not listening" in job["errors"][0]["error-message"]


def test_trace_packet(client: TestClient, responder) -> None:
    answer = {"steps": [{"stage": "ingress", "detail": "ok"}], "result": {"action": "drop"}}

    def handle(redis_client: Any, trace_id: str) -> None:
        assert json.loads(redis_client.hget(f"NOS_TRACE|{trace_id}", "packet")) == {"in_port": "Ethernet0", "ttl": 1}
        redis_client.hset(f"NOS_TRACE|{trace_id}", mapping={"state": "done", "result": json.dumps(answer)})

    responder("NOS_TRACE_REQUEST", handle)
    reply = client.post("/api/v1/trace/packet", json={"in_port": "Ethernet0", "ttl": 1})
    assert reply.status_code == 200 and reply.json() == answer


def test_trace_problems(client: TestClient, responder) -> None:
    assert client.post("/api/v1/trace/packet", json={"in_port": "Ethernet0"}).status_code == 503
    reply = client.post("/api/v1/trace/packet", json={"in_port": "Ethernet0", "dscp": 64})
    assert reply.status_code == 400 and errors_of(reply)[0]["error-path"] == "body/dscp"
    responder("NOS_TRACE_REQUEST", lambda redis_client, trace_id: redis_client.hset(
        f"NOS_TRACE|{trace_id}", mapping={"state": "failed", "error": "packet: no port 'Ethernet9'"}))
    reply = client.post("/api/v1/trace/packet", json={"in_port": "Ethernet9"})
    assert reply.status_code == 400 and "no port 'Ethernet9'" in errors_of(reply)[0]["error-message"]


@pytest.mark.parametrize("path, body", [("/api/v1/operations/traffic-run", '{"name": "incast-64to1"}'),
                                        ("/api/v1/trace/packet", '{"in_port": "Ethernet4", "dst_ip": "10.0.0.2"}')])
def test_a_json_body_sent_as_a_form_is_refused_naming_the_content_type(client: TestClient, path: str,
                                                                        body: str) -> None:
    # what curl -d sends: the JSON text with Content-Type application/x-www-form-urlencoded
    reply = client.post(path, content=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert reply.status_code == 415, reply.text
    message = errors_of(reply)[0]["error-message"]
    assert "application/x-www-form-urlencoded" in message and "application/json" in message, message
