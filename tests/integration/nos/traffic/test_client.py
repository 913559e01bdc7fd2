"""The request protocol against a real Redis, syncd_sim played by a thread: the exact hash and channel,
progress, results, failures, deadlines, and a switch with no one listening."""

from __future__ import annotations

import json
import threading

import pytest
import redis

from nos.db import Databases
from nos.traffic.client import JobStatus, run_scenario, trace_packet
from nos.traffic.errors import JobFailed, JobTimeout, SwitchNotAnswering

pytestmark = pytest.mark.integration

SCENARIO = "name: t\nhosts: [{name: a, ports: Ethernet0}]\nworkloads: [{kind: permutation, size: 1MB}]\n"


def test_a_run_goes_queued_running_done(dbs: Databases, responder) -> None:
    seen: list[JobStatus] = []
    halfway = threading.Event()
    asked: dict[str, object] = {}

    def handle(client: redis.Redis, job_id: str) -> None:
        key = f"NOS_TRAFFIC_JOB|{job_id}"
        asked.update(client.hgetall(key), ttl=client.ttl(key))
        client.hset(key, mapping={"state": "running", "progress": "0.5", "sim_time_s": "0.001"})
        assert halfway.wait(5), "the client never saw the job half done"
        client.hset(key, mapping={"state": "done", "progress": "1", "result": json.dumps({"summary": {"flows": 1}})})

    def progress(status: JobStatus) -> None:
        seen.append(status)
        if status.state == "running":
            halfway.set()

    responder("NOS_TRAFFIC_REQUEST", handle)
    document = run_scenario(dbs, SCENARIO, timeout_s=10, progress=progress, poll_s=0.01)
    assert document == {"summary": {"flows": 1}}
    assert asked["scenario"] == SCENARIO and asked["state"] == "queued" and asked["progress"] == "0"
    assert 3000 < int(asked["ttl"]) <= 3600  # type: ignore[call-overload]
    running = next(s for s in seen if s.state == "running")
    assert (running.progress, running.sim_time_s) == (0.5, 0.001)
    assert seen[-1].state == "done" and seen[-1].progress == 1.0


def test_a_failed_run_reports_syncds_error(dbs: Databases, responder) -> None:
    def handle(client: redis.Redis, job_id: str) -> None:
        client.hset(f"NOS_TRAFFIC_JOB|{job_id}", mapping={"state": "failed", "error": "hosts[0].ports: no such port"})

    responder("NOS_TRAFFIC_REQUEST", handle)
    with pytest.raises(JobFailed, match=r"^hosts\[0\]\.ports: no such port$"):
        run_scenario(dbs, SCENARIO, timeout_s=10, poll_s=0.01)


def test_no_one_listening_fails_at_once_and_the_job_is_not_left_queued(dbs: Databases, raw) -> None:
    with pytest.raises(SwitchNotAnswering, match="not listening on NOS_TRAFFIC_REQUEST"):
        run_scenario(dbs, SCENARIO, timeout_s=30)
    (key,) = raw(6).keys("NOS_TRAFFIC_JOB|*")
    assert raw(6).hget(key, "state") == "failed"


def test_a_run_still_going_at_the_deadline(dbs: Databases, responder) -> None:
    responder("NOS_TRAFFIC_REQUEST",
              lambda client, job_id: client.hset(f"NOS_TRAFFIC_JOB|{job_id}", mapping={"state": "running",
                                                                                       "progress": "0.25"}))
    with pytest.raises(JobTimeout, match=r"not finished within 0.3 s \(state running, progress 25%\)"):
        run_scenario(dbs, SCENARIO, timeout_s=0.3, poll_s=0.01)


def test_a_run_never_started(dbs: Databases, responder) -> None:
    responder("NOS_TRAFFIC_REQUEST", lambda client, job_id: None)
    with pytest.raises(SwitchNotAnswering, match="did not start the request within 0.2 s"):
        run_scenario(dbs, SCENARIO, timeout_s=0.2, poll_s=0.01)


def test_a_result_that_is_not_json(dbs: Databases, responder) -> None:
    responder("NOS_TRAFFIC_REQUEST",
              lambda client, job_id: client.hset(f"NOS_TRAFFIC_JOB|{job_id}", mapping={"state": "done",
                                                                                       "result": "{oops"}))
    with pytest.raises(JobFailed, match="the result is not JSON"):
        run_scenario(dbs, SCENARIO, timeout_s=5, poll_s=0.01)


def test_trace_round_trip_and_cleanup(dbs: Databases, responder, raw) -> None:
    packets: list[dict[str, object]] = []

    def handle(client: redis.Redis, trace_id: str) -> None:
        key = f"NOS_TRACE|{trace_id}"
        packets.append(json.loads(client.hget(key, "packet") or "null"))
        answer = {"steps": [{"stage": "ingress", "detail": "Ethernet0 up"}], "result": {"action": "forward"}}
        client.hset(key, mapping={"state": "done", "result": json.dumps(answer)})

    responder("NOS_TRACE_REQUEST", handle)
    answer = trace_packet(dbs, {"in_port": "Ethernet0", "dscp": 26}, timeout_s=5)
    assert answer["result"] == {"action": "forward"} and answer["steps"][0]["stage"] == "ingress"
    assert packets == [{"in_port": "Ethernet0", "dscp": 26}]
    assert raw(6).keys("NOS_TRACE|*") == []


def test_trace_refused(dbs: Databases, responder) -> None:
    responder("NOS_TRACE_REQUEST",
              lambda client, trace_id: client.hset(f"NOS_TRACE|{trace_id}", mapping={
                  "state": "failed", "error": "packet: no port 'Ethernet1'"}))
    with pytest.raises(JobFailed, match="no port 'Ethernet1'"):
        trace_packet(dbs, {"in_port": "Ethernet1"}, timeout_s=5)
