"""``/api/v1/counters``: COUNTERS_DB as syncd's flex counters write it, by object name.

Objects are found through orchagent's name maps (``COUNTERS_PORT_NAME_MAP``, ``COUNTERS_QUEUE_NAME_MAP``
``Ethernet0:3``, ``COUNTERS_PG_NAME_MAP``, ``COUNTERS_RIF_NAME_MAP``, ``COUNTERS_BUFFER_POOL_NAME_MAP``)
and their ``COUNTERS:<oid>`` hashes are returned with SAI's stat names as integers. A stat that is not
in the hash is left out (N/A), an object whose hash does not exist yet is ``{}``; see ``readers``.
``/counters/interfaces`` answers for every port in one read of two round trips.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query

from nos.api.rest import models, readers
from nos.api.rest.context import ApiContext
from nos.api.rest.counters_cache import CountersCache
from nos.api.rest.errors import ERROR_RESPONSES, ApiError
from nos.api.rest.responses import json_response, json_variant
from nos.cli.show.render import parse_interface_filter
from nos.schema import tables as tbl
from nos.schema.dbconfig import COUNTERS_DB

PortFilter = Annotated[str | None, Query(description="ports, e.g. Ethernet0,Ethernet8-16 (default: all)")]
PFC_STATS = frozenset(readers.PFC_STATS)


def router(ctx: ApiContext) -> APIRouter:
    api = APIRouter(prefix="/api/v1/counters", tags=["counters"], responses=ERROR_RESPONSES)
    db = ctx.dbs[COUNTERS_DB]
    every_port = CountersCache(db, (f"{tbl.COUNTERS_TABLE}{db.separator}*", tbl.COUNTERS_PORT_NAME_MAP),
                               lambda: readers.counters_json(db, tbl.COUNTERS_PORT_NAME_MAP))
    ctx.on_close.append(every_port.close)
    ctx.kept_reads[f"{api.prefix}/interfaces"] = every_port.get  # GETs without a query: hot_reads answers

    @api.get("/interfaces", response_model=models.CountersByName)
    async def interfaces(accept_encoding: Annotated[str | None, Header()] = None) -> Any:
        """Every port's counters (``SAI_PORT_STAT_*``); read again only after COUNTERS_DB changed, and
        sent gzip-compressed to clients that accept it. (A GET without a query string is answered with
        the same body and headers by ``nos.api.rest.hot_reads``, before the routing.)"""
        return json_variant(*await every_port.get(), accept_encoding)

    @api.get("/interfaces/{name}", response_model=models.Counters)
    def interface(name: str) -> Any:
        """One port's counters."""
        found = readers.counters(db, tbl.COUNTERS_PORT_NAME_MAP, {name})
        if name not in found:
            raise ApiError(404, f"no port {name} in {tbl.COUNTERS_PORT_NAME_MAP}", path=name)
        return json_response(found[name])

    @api.get("/pfc", response_model=models.CountersByName)
    def pfc(ports: PortFilter = None) -> Any:
        """PFC frames per priority: ``SAI_PORT_STAT_PFC_<0..7>_RX_PKTS`` / ``_TX_PKTS`` (``show pfc counters``)."""
        return json_response(readers.counters(db, tbl.COUNTERS_PORT_NAME_MAP, parse_interface_filter(ports),
                                              keep=PFC_STATS.__contains__))

    @api.get("/queues", response_model=models.CountersByName)
    def queues(ports: PortFilter = None) -> Any:
        """Queue counters by ``<port>:<index>`` (``SAI_QUEUE_STAT_*``, ``show queue counters``)."""
        return json_response(readers.counters(db, tbl.COUNTERS_QUEUE_NAME_MAP, parse_interface_filter(ports),
                                              by_port=True))

    @api.get("/priority-groups", response_model=models.CountersByName)
    def priority_groups(ports: PortFilter = None) -> Any:
        """Ingress priority-group counters by ``<port>:<index>`` (``SAI_INGRESS_PRIORITY_GROUP_STAT_*``)."""
        return json_response(readers.counters(db, tbl.COUNTERS_PG_NAME_MAP, parse_interface_filter(ports),
                                              by_port=True))

    @api.get("/rifs", response_model=models.CountersByName)
    def rifs() -> Any:
        """Router-interface counters (``SAI_ROUTER_INTERFACE_STAT_*``) by interface name."""
        return json_response(readers.counters(db, tbl.COUNTERS_RIF_NAME_MAP))

    @api.get("/watermarks/{kind}", response_model=models.Watermarks)
    def watermarks(kind: Literal["user", "periodic", "persistent"], ports: PortFilter = None) -> Any:
        """Queue, priority-group and buffer-pool watermarks from ``USER_WATERMARKS`` (what ``show ... watermark``
        reads), ``PERIODIC_WATERMARKS`` (telemetry) or ``PERSISTENT_WATERMARKS`` (``persistent-watermark``)."""
        table = readers.WATERMARK_TABLES[kind]
        wanted = parse_interface_filter(ports)
        return json_response({
            "kind": kind, "table": table,
            "queues": readers.counters(db, tbl.COUNTERS_QUEUE_NAME_MAP, wanted, by_port=True, table=table),
            "priority_groups": readers.counters(db, tbl.COUNTERS_PG_NAME_MAP, wanted, by_port=True, table=table),
            "buffer_pools": readers.counters(db, tbl.COUNTERS_BUFFER_POOL_NAME_MAP, table=table),
        })

    return api


__all__ = ["router"]
