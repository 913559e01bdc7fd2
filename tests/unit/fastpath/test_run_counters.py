"""A traffic run's result -> SAI stat updates on the right objects (pure)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from fastpath.build import build_tables
from fastpath.run_counters import ADD, MAX, Update, counter_updates


def result(n: int) -> SimpleNamespace:
    zeros1, zeros2 = np.zeros(n), np.zeros((n, 8))
    r = SimpleNamespace(port_rx_bytes=zeros1.copy(), port_rx_pkts=zeros1.copy(), port_tx_bytes=zeros1.copy(),
                        port_tx_pkts=zeros1.copy(), pool_max_bytes=np.zeros(2))
    for name in ("pfc_tx_frames", "pfc_rx_frames", "pfc_tx_pause_s", "pfc_rx_pause_s", "queue_tx_pkts",
                 "queue_tx_bytes", "queue_drop_pkts", "queue_drop_bytes", "queue_ecn_marked_pkts",
                 "queue_max_bytes", "pg_rx_pkts", "pg_rx_bytes", "pg_drop_pkts", "pg_max_shared", "pg_max_headroom"):
        setattr(r, name, zeros2.copy())
    return r


def test_only_non_zero_stats_on_their_objects() -> None:
    base = build_tables(n_ports=2)
    ports = replace(base.ports, oids=("oid:p0", "oid:p1"),
                    queue_oids=tuple(tuple(f"oid:q{p}{i}" for i in range(8)) for p in range(2)),
                    pg_oids=tuple(tuple(f"oid:g{p}{i}" for i in range(8)) for p in range(2)))
    tables = replace(base, ports=ports, buffers=replace(base.buffers, pool_oids=("oid:pool0", "")))
    r = result(2)
    r.port_tx_bytes[1] = 4180
    r.pfc_tx_frames[0, 3] = 7
    r.pfc_tx_pause_s[0, 3] = 0.0015
    r.queue_drop_pkts[1, 1] = 5
    r.queue_max_bytes[1, 3] = 1000
    r.pg_max_headroom[0, 3] = 2000
    r.pool_max_bytes[:] = (9, 9)   # the second pool has no object id: skipped
    assert sorted(counter_updates(tables, r), key=lambda u: (u.oid, u.stat)) == sorted([
        Update("oid:p1", "SAI_PORT_STAT_IF_OUT_OCTETS", 4180, ADD),
        Update("oid:p0", "SAI_PORT_STAT_PFC_3_TX_PKTS", 7, ADD),
        Update("oid:p0", "SAI_PORT_STAT_PFC_3_TX_PAUSE_DURATION_US", 1500, ADD),
        Update("oid:p1", "SAI_PORT_STAT_IF_OUT_DISCARDS", 5, ADD),
        Update("oid:q11", "SAI_QUEUE_STAT_DROPPED_PACKETS", 5, ADD),
        Update("oid:q13", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", 1000, MAX),
        Update("oid:g03", "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES", 2000, MAX),
        Update("oid:pool0", "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES", 9, MAX),
    ], key=lambda u: (u.oid, u.stat))
