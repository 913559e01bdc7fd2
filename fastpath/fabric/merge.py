"""Every switch's compiled tables merged into one index space for the traffic model (pure).

Ports are concatenated in the fabric's switch order (global port = the switch's offset + its port),
so are the per-port QoS, buffer-profile and watchdog rows; pools are concatenated too and each
switch's PG and queue pool indices are offset by its first pool, so every switch keeps its own
shared buffer and thresholds. Forwarding state is not merged (paths are found per switch,
``fastpath.fabric.route``). Port names become ``switch:port``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from fastpath.tables import NO_POOL, BufferTables, PortTables, QosTables, Tables, WatchdogTables

POOL_FIELDS = ("pool_size", "pool_ingress", "pool_dynamic", "pool_xoff")


def _concat(parts: Sequence[Any], name: str) -> Any:
    return np.concatenate([getattr(p, name) for p in parts], axis=0)


def _ports(names: Sequence[str], parts: Sequence[PortTables]) -> PortTables:
    return PortTables(
        names=tuple(f"{sw}:{port}" for sw, p in zip(names, parts, strict=True) for port in p.names),
        oids=tuple(o for p in parts for o in p.oids),
        speed_bps=_concat(parts, "speed_bps"), admin_up=_concat(parts, "admin_up"), oper_up=_concat(parts, "oper_up"),
        mtu=_concat(parts, "mtu"), queue_oids=tuple(q for p in parts for q in p.queue_oids),
        pg_oids=tuple(g for p in parts for g in p.pg_oids))


def _buffers(names: Sequence[str], parts: Sequence[BufferTables]) -> BufferTables:
    base = np.cumsum([0] + [len(p.pool_size) for p in parts])
    values: dict[str, Any] = {}
    for f in fields(BufferTables):
        if f.name == "pool_names":
            values[f.name] = tuple(f"{sw}:{pool}" for sw, p in zip(names, parts, strict=True) for pool in p.pool_names)
        elif f.name == "pool_oids":
            values[f.name] = tuple(o for p in parts for o in (p.pool_oids or ("",) * len(p.pool_size)))
        elif f.name in ("pg_pool", "q_pool"):
            values[f.name] = np.concatenate([np.where(getattr(p, f.name) == NO_POOL, NO_POOL, getattr(p, f.name) + b)
                                             for p, b in zip(parts, base, strict=False)]).astype(np.int32)
        else:
            values[f.name] = _concat(parts, f.name)
    return BufferTables(**values)


def _stack(cls: Any, parts: Sequence[Any]) -> Any:
    return cls(**{f.name: _concat(parts, f.name) for f in fields(cls)})


def merge_tables(switches: Sequence[tuple[str, Tables]]) -> Tables:
    """One ``Tables`` holding every switch's ports, QoS, buffers and watchdog (see the module docstring)."""
    names = [name for name, _ in switches]
    tables = [t for _, t in switches]
    queues = {t.qos.sched_kind.shape[1] for t in tables}
    if len(queues) != 1:
        raise ValueError(f"merge_tables: the switches have different numbers of queues per port {sorted(queues)}")
    return Tables(version=0, ports=_ports(names, [t.ports for t in tables]),
                  qos=_stack(QosTables, [t.qos for t in tables]),
                  buffers=_buffers(names, [t.buffers for t in tables]),
                  watchdog=_stack(WatchdogTables, [t.watchdog for t in tables]))
