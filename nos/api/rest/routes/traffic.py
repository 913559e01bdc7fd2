"""``POST /api/v1/operations/traffic-run`` (a traffic scenario as a job) and ``POST /api/v1/trace/packet``
(one packet explained), both answered by syncd_sim through ``nos.traffic.client``.

A scenario is checked before the job starts: a bad field (or a port the switch lacks) answers 400 with
one entry per problem, its ``error-path`` ``/scenario/<field>``. The job then runs the scenario
(one at a time with the other operations) and notes the run's progress in its messages; its result
is the run's result document (``fastpath.report``). A trace answers 200 with
``{"steps", "result"}``; 503 when syncd_sim does not answer, 504 when it is too slow, 400 when it
refuses the packet.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel, ConfigDict, Field, model_validator

from nos.api.rest import models
from nos.api.rest.context import ApiContext
from nos.api.rest.errors import ERROR_RESPONSES, INVALID_VALUE, ApiError, entry
from nos.api.rest.jobs import Job, JobRun, Step
from nos.api.rest.routes.config import JSON, content_type
from nos.api.rest.routes.operations import JOBS_PATH
from nos.db import Table
from nos.paths import configs_dir
from nos.schema.dbconfig import CONFIG_DB
from nos.schema.tables import CFG_PORT_TABLE_NAME
from nos.traffic.client import JobStatus, run_scenario, trace_packet
from nos.traffic.errors import JobFailed, JobTimeout, ScenarioError, SwitchNotAnswering
from nos.traffic.hosts import check_against_ports
from nos.traffic.scenario import parse_scenario

NOTE_EVERY = 0.1  # progress steps noted in the job's messages


class TrafficRunRequest(BaseModel):
    """A scenario as YAML text, or the name of one in configs/scenarios."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"name": "incast-64to1"}]})

    scenario: str | None = Field(default=None, description="the scenario's YAML text")
    name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.\-]+$",
                             description="a scenario file in configs/scenarios (without .yaml)")
    timeout_s: float = Field(default=300.0, gt=0, le=3600, description="fail the job after this long")

    @model_validator(mode="after")
    def _one(self) -> TrafficRunRequest:
        if (self.scenario is None) == (self.name is None):
            raise ValueError("give exactly one of 'scenario' (YAML text) and 'name'")
        return self


class TracePacketRequest(BaseModel):
    """Header fields of one packet; only ``in_port`` is required."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"in_port": "Ethernet0", "dst_ip": "10.0.0.2", "dscp": 26}]})

    in_port: str = Field(min_length=1)
    src_mac: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
    dst_mac: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
    vlan: int | None = Field(default=None, ge=0, le=4094)
    src_ip: str | None = None
    dst_ip: str | None = None
    ip_proto: int | None = Field(default=None, ge=0, le=255)
    l4_src: int | None = Field(default=None, ge=0, le=65535)
    l4_dst: int | None = Field(default=None, ge=0, le=65535)
    dscp: int | None = Field(default=None, ge=0, le=63)
    ttl: int | None = Field(default=None, ge=0, le=255)
    timeout_s: float = Field(default=10.0, gt=0, le=60)


def scenario_text(body: TrafficRunRequest) -> str:
    if body.scenario is not None:
        return body.scenario
    path = configs_dir() / "scenarios" / f"{body.name}.yaml"
    if not path.is_file():
        raise ApiError(404, f"no scenario '{body.name}' in {path.parent}", path="name")
    return path.read_text()


class ScenarioRefused(ApiError):
    """Raised for a scenario that does not parse or does not fit the switch: 400, one entry per problem."""

    def __init__(self, exc: ScenarioError) -> None:
        super().__init__(400, str(exc))
        self.problems = exc.problems

    def entries(self) -> list[dict[str, str]]:
        return [entry("application", INVALID_VALUE, str(p), f"/scenario/{p.field}") for p in self.problems]


def check(ctx: ApiContext, text: str) -> str:
    """The scenario's name once it parses and fits this switch's ports."""
    try:
        parsed = parse_scenario(text, "")
        check_against_ports(parsed, Table(ctx.dbs[CONFIG_DB], CFG_PORT_TABLE_NAME).keys())
    except ScenarioError as exc:
        raise ScenarioRefused(exc) from None
    return parsed.name


def run_steps(ctx: ApiContext, text: str, name: str, timeout_s: float) -> list[Step]:
    def run(job_run: JobRun) -> dict[str, Any]:
        noted = [0.0]

        def progress(status: JobStatus) -> None:
            if status.progress - noted[0] >= NOTE_EVERY:
                noted[0] = status.progress
                job_run.note(f"progress {status.progress:.0%} ({status.sim_time_s * 1e3:.3f} ms simulated)")

        try:
            return run_scenario(ctx.dbs, text, timeout_s=timeout_s, progress=progress)
        except SwitchNotAnswering as exc:
            raise ApiError(503, str(exc)) from None
        except JobTimeout as exc:
            raise ApiError(504, str(exc)) from None
        except JobFailed as exc:
            raise ApiError(400, f"scenario '{name}': {exc}") from None

    return [Step(f"run scenario '{name}' on the simulated ASIC", run)]


def router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(prefix="/api/v1", tags=["traffic"], responses=ERROR_RESPONSES)
    accepted: dict[int | str, dict[str, Any]] = {202: {"description": "accepted; follow the Location header"}}

    # A JSON body only: curl's -d sends a form type, which would otherwise reach the model as form fields
    # and answer "Input should be a valid dictionary"; 415 names the type to send instead.
    json_only = [Depends(content_type(*JSON))]

    @api.post("/operations/traffic-run", response_model=models.JobOut, status_code=202, responses=accepted,
              dependencies=json_only)
    def traffic_run(body: TrafficRunRequest, response: Response) -> Any:
        """``nos traffic run``: run a scenario; the job's result is the run's result document."""
        text = scenario_text(body)
        name = check(ctx, text)
        job: Job = ctx.jobs.submit("traffic-run", run_steps(ctx, text, name, body.timeout_s))
        response.status_code = 202
        response.headers["Location"] = f"{JOBS_PATH}/{job.id}"
        return job.view()

    @api.post("/trace/packet", dependencies=json_only)
    def trace(body: TracePacketRequest) -> dict[str, Any]:
        """``nos trace packet``: every forwarding decision for one packet."""
        packet = body.model_dump(exclude_none=True, exclude={"timeout_s"})
        try:
            return trace_packet(ctx.dbs, packet, timeout_s=body.timeout_s)
        except SwitchNotAnswering as exc:
            raise ApiError(503, str(exc)) from None
        except JobTimeout as exc:
            raise ApiError(504, str(exc)) from None
        except JobFailed as exc:
            raise ApiError(400, f"trace: {exc}") from None

    return api


__all__ = ["router"]
