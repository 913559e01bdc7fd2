"""What a traffic run adds to the ASIC's counters: the model's result -> SAI stat updates per object.

Pure. The syncd shell applies the updates to ``AsicStats`` and polls the flex counter groups at once,
so COUNTERS_DB (and so ``show``, REST, gNMI and /metrics) shows the run as soon as the job is done.
Counters add up over runs, as a real ASIC's do; watermarks keep the peak (they are clear-on-read).
Packets are counted per flow as ``ceil(bytes / (mtu + headers))`` by the model; the port's size
histogram is not filled (an approximation: SONiC's show commands do not read it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastpath.tables import N_TC, Tables

ADD, MAX = "add", "max"


@dataclass(frozen=True)
class Update:
    """One stat of one object: ``add`` a delta, or raise a watermark to ``max``."""

    oid: str
    stat: str
    value: int
    mode: str = ADD


def _nonzero(values: Any) -> Iterator[tuple[tuple[int, ...], int]]:
    array = np.asarray(values)
    for index in zip(*np.nonzero(array), strict=True):
        yield tuple(int(i) for i in index), int(round(float(array[index])))


def _port_updates(tables: Tables, result: Any) -> Iterator[Update]:
    oids = tables.ports.oids
    for column, stat in ((result.port_rx_bytes, "SAI_PORT_STAT_IF_IN_OCTETS"),
                         (result.port_rx_pkts, "SAI_PORT_STAT_IF_IN_UCAST_PKTS"),
                         (result.port_tx_bytes, "SAI_PORT_STAT_IF_OUT_OCTETS"),
                         (result.port_tx_pkts, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS")):
        for (port,), value in _nonzero(column):
            yield Update(oids[port], stat, value)
    for array, name in ((result.pfc_tx_frames, "SAI_PORT_STAT_PFC_{}_TX_PKTS"),
                        (result.pfc_rx_frames, "SAI_PORT_STAT_PFC_{}_RX_PKTS")):
        for (port, prio), value in _nonzero(array):
            yield Update(oids[port], name.format(prio), value)
    for array, name in ((np.asarray(result.pfc_tx_pause_s) * 1e6, "SAI_PORT_STAT_PFC_{}_TX_PAUSE_DURATION_US"),
                        (np.asarray(result.pfc_rx_pause_s) * 1e6, "SAI_PORT_STAT_PFC_{}_RX_PAUSE_DURATION_US")):
        for (port, prio), value in _nonzero(array):
            if value:
                yield Update(oids[port], name.format(prio), value)
    out_drops = np.asarray(result.queue_drop_pkts).sum(axis=1)
    in_drops = np.asarray(result.pg_drop_pkts).sum(axis=1)
    for array, stat in ((out_drops, "SAI_PORT_STAT_IF_OUT_DISCARDS"), (in_drops, "SAI_PORT_STAT_IF_IN_DISCARDS"),
                        (in_drops, "SAI_PORT_STAT_IN_DROPPED_PKTS")):
        for (port,), value in _nonzero(array):
            yield Update(oids[port], stat, value)


def _indexed_updates(oids: tuple[tuple[str, ...], ...], columns: Any, limit: int) -> Iterator[Update]:
    """Updates for per-port indexed objects (queues, PGs): ``oids[port][index]``, one (array, stat, mode) per
    column; indexes beyond what the port has (or ``limit``) are skipped."""
    for array, stat, mode in columns:
        for (port, index), value in _nonzero(array):
            if port < len(oids) and index < min(len(oids[port]), limit):
                yield Update(oids[port][index], stat, value, mode)


def _queue_updates(tables: Tables, result: Any) -> Iterator[Update]:
    return _indexed_updates(tables.ports.queue_oids, (
        (result.queue_tx_pkts, "SAI_QUEUE_STAT_PACKETS", ADD),
        (result.queue_tx_bytes, "SAI_QUEUE_STAT_BYTES", ADD),
        (result.queue_drop_pkts, "SAI_QUEUE_STAT_DROPPED_PACKETS", ADD),
        (result.queue_drop_bytes, "SAI_QUEUE_STAT_DROPPED_BYTES", ADD),
        (result.queue_ecn_marked_pkts, "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", ADD),
        (result.queue_max_bytes, "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", MAX)), limit=1 << 16)


def _pg_updates(tables: Tables, result: Any) -> Iterator[Update]:
    return _indexed_updates(tables.ports.pg_oids, (
        (result.pg_rx_pkts, "SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS", ADD),
        (result.pg_rx_bytes, "SAI_INGRESS_PRIORITY_GROUP_STAT_BYTES", ADD),
        (result.pg_drop_pkts, "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", ADD),
        (result.pg_max_shared, "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES", MAX),
        (result.pg_max_headroom, "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES", MAX)), limit=N_TC)


def _pool_updates(tables: Tables, result: Any) -> Iterator[Update]:
    oids = tables.buffers.pool_oids
    for (pool,), value in _nonzero(result.pool_max_bytes):
        if pool < len(oids) and oids[pool]:
            yield Update(oids[pool], "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES", value, MAX)


def counter_updates(tables: Tables, result: Any) -> list[Update]:
    """Every non-zero stat the run produced, for the objects of ``tables`` (``result``: model.Result)."""
    return [*_port_updates(tables, result), *_queue_updates(tables, result), *_pg_updates(tables, result),
            *_pool_updates(tables, result)]
