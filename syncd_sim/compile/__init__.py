"""Compiling the simulated ASIC's object store into the fast path's tables (``compile_store``) and
hand-made tables for tests (``build.build_tables``).

``compile_store`` is pure: it reads the store (and the PFC watchdog rows) and returns a new,
immutable ``Tables``; the syncd shell debounces recompiles and swaps the result in whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from fastpath.build import freeze
from fastpath.hashing import DEFAULT_FIELDS
from fastpath.tables import N_TC, Tables
from fastpath.values import as_int
from nos.sai.types import ObjectType as T
from syncd_sim.compile.bridge import compile_l2, object_index, vlan_ids
from syncd_sim.compile.buffers import compile_buffers
from syncd_sim.compile.lag import compile_lags
from syncd_sim.compile.ports import compile_ports, front_ports
from syncd_sim.compile.qos import compile_qos
from syncd_sim.compile.routing import compile_l3
from syncd_sim.compile.watchdog import compile_watchdog
from syncd_sim.objects import ObjectStore

__all__ = ["compile_store"]

NO_ROWS: Mapping[str, Mapping[str, str]] = {}


def _freeze_all(table: Any) -> None:
    for f in fields(table):
        value = getattr(table, f.name)
        freeze(value)
        if isinstance(value, tuple):
            for item in value:
                if hasattr(item, "__dataclass_fields__"):
                    _freeze_all(item)


def _cpu_port(store: ObjectStore) -> str:
    return next((oid for oid, p in store.of_type(T.PORT).items() if p.builtin), "")


def compile_store(store: ObjectStore, *, version: int,
                  watchdog_rows: Mapping[str, Mapping[str, str]] = NO_ROWS) -> Tables:
    """The store's state as ``Tables`` (see ``fastpath.tables``)."""
    port_objs = front_ports(store)
    ports = compile_ports(store)
    n_queues = max([N_TC, *(len(q) for q in ports.queue_oids)])
    n_pgs = max([N_TC, *(len(g) for g in ports.pg_oids)])
    switch = next(iter(store.of_type(T.SWITCH).values()), None)
    lag_seed = as_int(switch.attrs, "SAI_SWITCH_ATTR_LAG_DEFAULT_HASH_SEED") if switch else 0
    port_index = {oid: i for i, oid in enumerate(ports.oids)}
    lags = compile_lags(store, port_index, ports.oper_up, lag_seed)
    l2 = compile_l2(store, port_index, lags, lag_seed, DEFAULT_FIELDS)
    l3 = compile_l3(store, object_index(port_index, lags), vlan_ids(store), l2, switch, _cpu_port(store))
    tables = Tables(
        version=version, ports=ports,
        qos=compile_qos(store, port_objs, ports.queue_oids, n_queues),
        buffers=compile_buffers(store, ports.pg_oids, ports.queue_oids, n_pgs, n_queues),
        watchdog=compile_watchdog(ports.queue_oids, n_queues, watchdog_rows),
        l2=l2, l3=l3)
    for part in (tables.ports, tables.qos, tables.buffers, tables.watchdog, l2, l3):
        _freeze_all(part)
    return tables
