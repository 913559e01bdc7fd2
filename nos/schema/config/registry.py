"""The table registry: CONFIG_DB table name -> :class:`TableSchema` (key shapes and row models).

Tables not listed here are not modelled: a configuration may carry them (they are kept and saved back),
and validation reports them as unknown instead of checking them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from nos.schema.config import (
    KEY_SEPARATOR,
    KeyShape,
    RowModel,
    TableSchema,
    buffer,
    device,
    interface,
    lag,
    mclag,
    pfcwd,
    port,
    qos,
    roce,
    route,
    vlan,
    vxlan,
)

_MODULES = (device, port, lag, vlan, interface, route, buffer, qos, pfcwd, vxlan, mclag, roce)

TABLES: Mapping[str, TableSchema] = MappingProxyType(
    {schema.name: schema for module in _MODULES for schema in module.SCHEMAS}
)


_FOLDED: Mapping[str, str] = MappingProxyType({name.casefold(): name for name in TABLES})


def case_twin(table: str) -> str | None:
    """The modelled table whose name is ``table``'s in another case (``PORT`` for ``port``), or None
    (also for a modelled table itself). Only for telling a user why ``port`` is not acted on: table
    names are case-exact (``nos.schema.tables.table_name_problem``) and nothing maps one to the other."""
    twin = _FOLDED.get(table.casefold())
    return twin if twin != table else None


def schema_for(table: str) -> TableSchema | None:
    """The schema of a modelled table, or None."""
    return TABLES.get(table)


def shape_for(table: str, key: str) -> KeyShape | None:
    """The key shape (and so the row model) a key of ``table`` has, or None if unmodelled or malformed."""
    schema = TABLES.get(table)
    return schema.shape_for(tuple(key.split(KEY_SEPARATOR))) if schema is not None else None


def row_model(table: str, key: str) -> type[RowModel] | None:
    """The pydantic model for the row ``table|key`` (e.g. ``PortRow`` for ``PORT|Ethernet0``)."""
    shape = shape_for(table, key)
    return shape.model if shape is not None else None
