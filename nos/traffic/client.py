"""The client side of the traffic-run and packet-trace requests to syncd_sim (STATE_DB hash + PUBLISH).

Protocol (syncd_sim's side is ``syncd_sim.fastpath_shell``):

* a traffic run: HSET ``NOS_TRAFFIC_JOB|<id>`` ``scenario`` (the YAML text), ``state`` queued,
  ``progress`` 0; then PUBLISH ``<id>`` on the channel ``NOS_TRAFFIC_REQUEST``. syncd_sim sets ``state``
  running, updates ``progress`` (0..1) and ``sim_time_s`` as it goes, and ends with ``state`` done and
  ``result`` (the JSON of ``fastpath.report``) or ``state`` failed and ``error``. Runs go one
  at a time: a job stays queued while another runs. The hash expires ``JOB_TTL_S`` after it was made.
* a packet trace: HSET ``NOS_TRACE|<id>`` ``packet`` (JSON header fields), ``state`` queued; PUBLISH
  ``<id>`` on ``NOS_TRACE_REQUEST``; syncd_sim answers ``result`` (JSON) or ``error`` with ``state``
  done or failed. The client deletes the hash once answered (it expires after ``TRACE_TTL_S`` anyway).

The client polls the hash until the deadline. When no one receives the PUBLISH (syncd_sim is not
running), it fails at once, marking the job failed so that it is not run later. Before it asks, it waits
until every CONFIG_DB write accepted so far has reached the ASIC (``nos.config.applied``): a run right
after ``nos config roce enable`` runs on the RoCE tables.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from nos.config.applied import NotApplied, wait_applied
from nos.db import Table
from nos.db.connector import Databases
from nos.db.errors import map_redis_errors
from nos.schema.dbconfig import STATE_DB
from nos.schema.tables import NOS_TRACE, NOS_TRACE_REQUEST, NOS_TRAFFIC_JOB, NOS_TRAFFIC_REQUEST
from nos.traffic.errors import ConfigNotApplied, JobFailed, JobTimeout, SwitchNotAnswering

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
JOB_TTL_S = 3600
TRACE_TTL_S = 60
POLL_S = 0.01  # a hash read per poll: cheap, and a run of 0.1 s is not kept waiting for the next one
APPLIED_TIMEOUT_S = 30.0  # how long a run or trace waits for the configuration to reach the ASIC


@dataclass(frozen=True)
class JobStatus:
    """A job's fields as last read (``progress`` 0..1)."""

    id: str
    state: str
    progress: float = 0.0
    sim_time_s: float = 0.0
    error: str = ""

    @classmethod
    def of(cls, job_id: str, fields: Mapping[str, str]) -> JobStatus:
        return cls(job_id, fields.get("state", ""), _float(fields.get("progress")), _float(fields.get("sim_time_s")),
                   fields.get("error", ""))


def _float(text: str | None) -> float:
    try:
        return float(text) if text else 0.0
    except ValueError:
        return 0.0


ProgressFn = Callable[[JobStatus], None]


@dataclass
class RequestClient:
    """Requests of one kind (a STATE_DB table and its channel) on one switch."""

    dbs: Databases
    table_name: str
    channel: str
    ttl_s: int
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep

    @property
    def table(self) -> Table:
        return Table(self.dbs[STATE_DB], self.table_name)

    def submit(self, fields: Mapping[str, str]) -> str:
        """Write the request (state queued) and announce it; its id. ``SwitchNotAnswering`` when no
        one listens on the channel (the request is then marked failed)."""
        job_id = uuid.uuid4().hex[:16]
        table = self.table
        table.set(job_id, {**fields, "state": QUEUED})
        db = self.dbs[STATE_DB]
        with map_redis_errors(f"publish {self.channel}"):
            db.client.expire(table.key_name(job_id), self.ttl_s)
            listeners = int(db.client.publish(self.channel, job_id))
        if listeners == 0:
            table.set(job_id, {"state": FAILED, "error": "no one listened on the request channel"})
            raise SwitchNotAnswering(f"syncd_sim is not listening on {self.channel}: is the switch running "
                                     "('nos status')?")
        return job_id

    def status(self, job_id: str) -> JobStatus:
        return JobStatus.of(job_id, self.table.get(job_id) or {})

    def wait(self, job_id: str, timeout_s: float, progress: ProgressFn | None = None,
             poll_s: float = POLL_S) -> dict[str, str]:
        """The job's fields once it is done; ``JobFailed`` with its error, ``JobTimeout`` or
        ``SwitchNotAnswering`` (still queued) at the deadline."""
        deadline = self.clock() + timeout_s
        while True:
            fields = self.table.get(job_id) or {}
            status = JobStatus.of(job_id, fields)
            if progress is not None:
                progress(status)
            if status.state == DONE:
                return fields
            if status.state == FAILED:
                raise JobFailed(status.error or "failed without a reason")
            if not fields:
                raise JobFailed(f"the request {self.table_name}|{job_id} disappeared (expired or deleted)")
            if self.clock() >= deadline:
                raise self._late(status, timeout_s)
            self.sleep(poll_s)

    def _late(self, status: JobStatus, timeout_s: float) -> Exception:
        if status.state == QUEUED:
            return SwitchNotAnswering(f"syncd_sim did not start the request within {timeout_s:g} s (another run "
                                      "may be ahead of it; is the switch running? 'nos status')")
        return JobTimeout(f"not finished within {timeout_s:g} s (state {status.state}, progress "
                          f"{status.progress:.0%}); it goes on running: {self.table_name}|{status.id} in STATE_DB")


def traffic_client(dbs: Databases, **kwargs: Any) -> RequestClient:
    return RequestClient(dbs, NOS_TRAFFIC_JOB, NOS_TRAFFIC_REQUEST, JOB_TTL_S, **kwargs)


def trace_client(dbs: Databases, **kwargs: Any) -> RequestClient:
    return RequestClient(dbs, NOS_TRACE, NOS_TRACE_REQUEST, TRACE_TTL_S, **kwargs)


def decode_result(fields: Mapping[str, str]) -> dict[str, Any]:
    try:
        document = json.loads(fields.get("result", ""))
    except ValueError as exc:
        raise JobFailed(f"the result is not JSON: {exc}") from None
    if not isinstance(document, dict):
        raise JobFailed("the result is not a JSON object")
    return document


def applied_first(dbs: Databases, timeout_s: float = APPLIED_TIMEOUT_S) -> None:
    """Wait until every accepted CONFIG_DB write has reached the ASIC: a run or trace sees the tables it
    was configured for (raises ConfigNotApplied naming the hop that lags)."""
    try:
        wait_applied(dbs, timeout=timeout_s)
    except NotApplied as exc:
        raise ConfigNotApplied(str(exc)) from None


def run_scenario(dbs: Databases, scenario_text: str, *, timeout_s: float, progress: ProgressFn | None = None,
                 poll_s: float = POLL_S) -> dict[str, Any]:
    """Run a scenario (YAML text) on the switch, once the configuration written so far is applied;
    its result document."""
    applied_first(dbs)
    client = traffic_client(dbs)
    job_id = client.submit({"scenario": scenario_text, "progress": "0"})
    return decode_result(client.wait(job_id, timeout_s, progress, poll_s))


def trace_packet(dbs: Databases, packet: Mapping[str, Any], *, timeout_s: float = 10.0,
                 poll_s: float = 0.01) -> dict[str, Any]:
    """Explain one packet (header fields, ``in_port`` at least) on the switch, once the configuration
    written so far is applied: ``{"steps", "result"}``."""
    applied_first(dbs)
    client = trace_client(dbs)
    job_id = client.submit({"packet": json.dumps(dict(packet))})
    try:
        return decode_result(client.wait(job_id, timeout_s, None, poll_s))
    finally:
        client.table.delete(job_id)


__all__ = ["DONE", "FAILED", "JobStatus", "QUEUED", "RUNNING", "RequestClient", "run_scenario", "trace_client",
           "trace_packet", "traffic_client"]
