"""``/api/v1/state``: what the switch did with its configuration, in SONiC's words.

Interfaces are ``show interfaces status`` as JSON (CONFIG_DB PORT, APPL_DB PORT_TABLE, STATE_DB
PORT_TABLE and transceiver info, LAG and VLAN membership); LAGs are ``show interfaces portchannel``
plus the CONFIG_DB / APPL_DB / STATE_DB rows behind it; VLANs are ``show vlan brief`` plus STATE_DB
VLAN_TABLE; routes are APPL_DB ROUTE_TABLE as fpmsyncd writes it. Each read is a few pipelined round
trips (readers.read_tables), whatever the number of ports.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from nos.api.rest import models
from nos.api.rest.context import ApiContext
from nos.api.rest.errors import ERROR_RESPONSES, ApiError
from nos.api.rest.readers import read_tables
from nos.api.rest.responses import json_response
from nos.cli.show import render
from nos.schema import tables as tbl
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB

LAG_TABLES = (*render.PORTCHANNEL_TABLES, (CONFIG_DB, tbl.CFG_LAG_TABLE_NAME))
VLAN_TABLES = (*render.VLAN_TABLES, (STATE_DB, tbl.STATE_VLAN_TABLE_NAME))
ROUTE_TABLES = ((APPL_DB, tbl.APP_ROUTE_TABLE_NAME),)
DEFAULT_VRF = "default"


def split_route_key(key: str) -> tuple[str, str]:
    """``Vrf1:10.0.0.0/24`` -> (``Vrf1``, prefix); VRF device names start with ``Vrf`` (fpmsyncd)."""
    if key.startswith("Vrf") and ":" in key:
        vrf, _, prefix = key.partition(":")
        return vrf, prefix
    return DEFAULT_VRF, key


def lag_records(snap: render.Snapshot) -> list[dict[str, Any]]:
    records = []
    for summary in render.portchannel_summary(snap):
        name = summary["team_dev"]
        records.append({
            "name": name, "protocol": summary["protocol"], "members": summary["ports"],
            "config": dict(snap.row(CONFIG_DB, tbl.CFG_LAG_TABLE_NAME, name) or {}),
            "appl": snap.row(APPL_DB, tbl.APP_LAG_TABLE_NAME, name),
            "state": snap.row(STATE_DB, tbl.STATE_LAG_TABLE_NAME, name),
        })
    return records


def vlan_records(snap: render.Snapshot) -> list[dict[str, Any]]:
    return [{**record, "state": snap.row(STATE_DB, tbl.STATE_VLAN_TABLE_NAME, f"Vlan{record['vlan_id']}")}
            for record in render.vlan_brief(snap)]


def route_records(snap: render.Snapshot, vrf: str | None, prefix: str | None) -> list[dict[str, Any]]:
    records = []
    for key, row in snap.rows(APPL_DB, tbl.APP_ROUTE_TABLE_NAME).items():
        route_vrf, route_prefix = split_route_key(key)
        if (vrf is None or vrf == route_vrf) and (prefix is None or prefix == route_prefix):
            records.append({"prefix": route_prefix, "vrf": route_vrf, "fields": dict(row)})
    return sorted(records, key=lambda r: (r["vrf"] != DEFAULT_VRF, r["vrf"], render.natural_key(r["prefix"])))


def router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(prefix="/api/v1/state", tags=["state"], responses=ERROR_RESPONSES)

    @api.get("/interfaces", response_model=list[models.InterfaceStatus])
    def interfaces(names: Annotated[str | None, Query(description="Ethernet0,Ethernet8-16")] = None) -> Any:
        """``show interfaces status``: every port and PortChannel."""
        return json_response(render.interface_status(read_tables(ctx.dbs, render.STATUS_TABLES), names))

    @api.get("/interfaces/{name}", response_model=models.InterfaceStatus)
    def interface(name: str) -> Any:
        """``show interfaces status <name>``."""
        found = render.interface_status(read_tables(ctx.dbs, render.STATUS_TABLES), name)
        if len(found) != 1:
            raise ApiError(404, f"no interface {name}", path=name)
        return json_response(found[0])

    @api.get("/lags", response_model=list[models.Lag])
    def lags() -> Any:
        """Every PortChannel: LACP state, members and their selection."""
        return json_response(lag_records(read_tables(ctx.dbs, LAG_TABLES)))

    @api.get("/lags/{name}", response_model=models.Lag)
    def lag(name: str) -> Any:
        found = [r for r in lag_records(read_tables(ctx.dbs, LAG_TABLES)) if r["name"] == name]
        if not found:
            raise ApiError(404, f"no PortChannel {name}", path=name)
        return json_response(found[0])

    @api.get("/vlans", response_model=list[models.Vlan])
    def vlans() -> Any:
        """``show vlan brief``: addresses, members and tagging of every VLAN."""
        return json_response(vlan_records(read_tables(ctx.dbs, VLAN_TABLES)))

    @api.get("/routes", response_model=list[models.Route])
    def routes(vrf: str | None = None,
               prefix: Annotated[str | None, Query(description="exact prefix, e.g. 10.1.0.0/24")] = None) -> Any:
        """APPL_DB ROUTE_TABLE (what zebra handed to fpmsyncd)."""
        return json_response(route_records(read_tables(ctx.dbs, ROUTE_TABLES), vrf, prefix))

    return api


__all__ = ["lag_records", "route_records", "router", "split_route_key", "vlan_records"]
