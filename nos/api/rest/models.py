"""Request and response models of the REST API (they make /docs and the OpenAPI document useful).

CONFIG_DB rows are config_db.json rows: field -> string, or list of strings for SONiC's ``field@`` lists.
A request may give numbers and booleans; they are stored as strings, as ``config load`` does.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict  # pydantic needs typing_extensions' TypedDict before Python 3.12

FieldValue = str | list[str]
Row = dict[str, FieldValue]
Table = dict[str, Row]
Config = dict[str, Table]
RowIn = dict[str, str | int | float | bool | list[str]]

PatchOpName = Literal["add", "remove", "replace", "move", "copy", "test"]


PatchOperation = TypedDict("PatchOperation", {
    "op": PatchOpName,
    "path": Annotated[str, Field(description="JSON pointer, e.g. /PORT/Ethernet0/mtu or "
                                             "/INTERFACE/Ethernet0|10.0.0.0~131")],
    "value": NotRequired[Annotated[Any, Field(description="for add, replace and test")]],
    "from": NotRequired[Annotated[str | None, Field(description="for move and copy")]],
})
"""One RFC 6902 operation; paths are ``/TABLE/key/field`` (``/`` in a key written ``~1``). A TypedDict,
not a model: validated, it is the operation as RFC 6902 JSON already (members not given stay missing),
with no model instance built and dumped again per operation."""
PatchOperation.__pydantic_config__ = ConfigDict(  # type: ignore[attr-defined]
    title="PatchOperation",
    json_schema_extra={"description": "One RFC 6902 operation; paths are ``/TABLE/key/field`` (``/`` in a key "
                                      "written ``~1``).",
                       "examples": [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9100"}]})


class FieldRef(BaseModel):
    table: str
    key: str
    field: str


class WriteResult(BaseModel):
    """What a write did (or, with ``dry_run``, would do)."""

    applied: bool = Field(description="false on a dry run and when nothing had to change")
    dry_run: bool
    generation: int = Field(description="CONFIG_DB generation after the write (on a dry run: the one planned on)")
    changes: int = Field(description="rows created, replaced or deleted")
    patch: list[dict[str, Any]] = Field(description="the row-level JSON Patch applied (or that would be)")
    warnings: list[str] = Field(default_factory=list, description="accepted, but a daemon will wait or refuse")
    not_acted_on: list[str] = Field(default_factory=list, description="tables kept but not modelled by this switch")
    unknown_fields: list[FieldRef] = Field(default_factory=list, description="fields kept but not modelled")


class Health(BaseModel):
    status: Literal["ok"]


class CheckOut(BaseModel):
    name: str
    ok: bool
    detail: str


class Status(BaseModel):
    ready: bool
    state: str = Field(description="ready, converging (work in flight) or degraded")
    checks: list[CheckOut]


# ---- state --------------------------------------------------------------------------------------

class InterfaceStatus(BaseModel):
    """One line of ``show interfaces status`` (scripts/intfutil), as JSON."""

    interface: str
    lanes: str
    speed: str
    mtu: str
    fec: str
    alias: str
    vlan: str
    oper: str
    admin: str
    type: str
    asym_pfc: str


class LagMember(BaseModel):
    name: str
    selected: bool
    status: str | None = Field(description="APPL_DB LAG_MEMBER_TABLE status (enabled/disabled)")
    in_sync: bool


class LagProtocol(BaseModel):
    name: str
    active: bool
    oper_status: str


class Lag(BaseModel):
    """``show interfaces portchannel`` (teamshow) plus the rows behind it."""

    name: str
    protocol: LagProtocol | None = Field(description="null (N/A) until the LAG exists")
    members: list[LagMember]
    config: Row = Field(description="CONFIG_DB PORTCHANNEL row")
    appl: dict[str, str] | None = Field(description="APPL_DB LAG_TABLE row")
    state: dict[str, str] | None = Field(description="STATE_DB LAG_TABLE row")


class Vlan(BaseModel):
    """``show vlan brief`` as JSON, plus STATE_DB VLAN_TABLE."""

    vlan_id: str
    ip_addresses: list[str]
    ports: list[str]
    port_tagging: list[str]
    proxy_arp: str
    static_anycast_gateway: str
    dhcp_helper_addresses: list[str]
    state: dict[str, str] | None = Field(description="STATE_DB VLAN_TABLE row (state=ok once created)")


class Route(BaseModel):
    """One APPL_DB ROUTE_TABLE entry (key ``[<vrf>:]<prefix>``) with its fields as fpmsyncd writes them."""

    prefix: str
    vrf: str
    fields: dict[str, str]


# ---- counters (COUNTERS_DB, SAI stat names; a stat not in the hash is left out = N/A) ---------------

Counters = dict[str, int | str]
CountersByName = dict[str, Counters]


class Watermarks(BaseModel):
    kind: Literal["user", "periodic", "persistent"]
    table: str = Field(description="USER_WATERMARKS, PERIODIC_WATERMARKS or PERSISTENT_WATERMARKS")
    queues: CountersByName
    priority_groups: CountersByName
    buffer_pools: CountersByName


# ---- operations and jobs --------------------------------------------------------------------------

JobState = Literal["pending", "running", "succeeded", "failed"]


class JobOut(BaseModel):
    """A long operation's progress (poll ``GET /api/v1/jobs/<id>``)."""

    id: str
    operation: str
    state: JobState
    progress_pct: int
    step: int = Field(description="1-based number of the step running (or last run)")
    step_name: str
    steps_total: int
    messages: list[str]
    created_at: str
    started_at: str | None
    finished_at: str | None
    result: dict[str, Any] | None
    errors: list[dict[str, str]] | None = Field(description="RESTCONF error entries when failed")


CONFIG_FILE = ("a .json file in the server's configuration directory (--config-dir, default the run directory), "
               "relative to it or absolute inside it")


class SaveRequest(BaseModel):
    path: str | None = Field(default=None, description=f"default: <run dir>/config_db.json; else {CONFIG_FILE}")


class ReloadRequest(BaseModel):
    path: str | None = Field(default=None, description=f"default: the saved config_db.json; else {CONFIG_FILE}")


class CheckpointRequest(BaseModel):
    name: str = Field(description="letters, digits, '_', '.', '-'")


class RollbackRequest(BaseModel):
    name: str
    dry_run: bool = False


class CheckpointOut(BaseModel):
    name: str
    created: str


__all__ = ["CheckpointOut", "CheckpointRequest", "Config", "Counters", "CountersByName", "FieldRef", "FieldValue",
           "Health", "InterfaceStatus", "JobOut", "Lag", "PatchOperation", "ReloadRequest", "RollbackRequest", "Route",
           "Row", "RowIn", "SaveRequest", "Status", "Vlan", "Watermarks", "WriteResult"]
