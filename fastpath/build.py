"""Hand-made ``Tables`` for tests and benchmarks: a small switch with the buffer and QoS defaults that
SONiC programs on a 128x400G Tomahawk 5 SKU (configs/skus/NOS-SIM-128x400G), without a Redis or an
object store.

Defaults (every port alike; ../shared/reference/model-defaults.md 2.1, 2.2, 2.3, 2.4):

* pools: ``ingress_lossless_pool`` (index 0, ingress, dynamic, 165,660,324 B, shared headroom pool
  xoff 29,423,360 B) and ``egress_lossless_pool`` (index 1, egress, dynamic, 165,660,324 B);
* PG 0 (lossy): ``ingress_lossy_profile`` size 0, static_th 167,546,528 B;
* PGs 3 and 4 (lossless): ``pg_lossless_400000_5m_profile`` from pg_profile_lookup.ini: size 18,796,
  xon 0, xoff 612,140, xon_offset 3,556, dynamic_th 0 (alpha 1). How size/xoff map to reserved and
  headroom is stated in ``syncd_sim.compile.buffers`` (here: reserved 18,796, headroom xoff 612,140);
* PGs 1, 2, 5, 6, 7: no profile (``NO_POOL``);
* queues 0-2, 5-6: ``egress_lossy_profile`` size 1,778, dynamic_th 0; queues 3-4:
  ``egress_lossless_profile`` size 0, static_th 167,546,528; queue 7: no profile;
* AZURE maps: DSCP 3->TC3, 4->TC4, 5->TC2, 8->TC0, 46->TC5, 48->TC6, every other DSCP -> TC1;
  TC->queue identity; TC->PG 3->3, 4->4, 7->7, others 0; PFC priority->queue identity; PFC on 3, 4;
* schedulers: DWRR weight 14 (scheduler.0) on queues 0-2, 5-6, weight 15 (scheduler.1) on 3-4, queue 7
  has none (DWRR weight 1, as the compiler treats an unscheduled queue);
* WRED: off, but the AZURE_LOSSLESS thresholds (1 MiB / 2 MiB, 5 %) are filled in on queues 3, 4 so that
  ``wred_ecn=...`` alone turns ECN marking on;
* PFC watchdog: off; detection 0.2 s, restoration 0.2 s, action drop (SONiC's defaults) filled in;
* forwarding: no VLANs, FDB, routes (empty ``L2Tables`` / ``L3Tables``); ``build_l2`` makes the
  layer-2 part (VLANs, LAGs, FDB, isolation groups) from plain data, passed as ``l2=...``.

Keyword overrides replace any field of the sub-tables by name (``sched_kind=SCHED_STRICT``,
``pfc_tx=array``, ``speed_bps=[...]``, ``pool_size=...``, ``l3=...``): a scalar or an array that
broadcasts to the default's shape is cast to the default's dtype; an array of another shape (for
example more pools) is taken as it is. An unknown name raises ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from typing import Any

import numpy as np

from fastpath.hashing import hrw_buckets
from fastpath.l2 import HASH_BUCKETS, MEMBER_TAGGED, MEMBER_UNTAGGED, N_VLAN, L2Tables, empty_l2
from fastpath.l3 import empty_l3
from fastpath.tables import (
    N_TC,
    NO_POOL,
    SCHED_DWRR,
    TH_DYNAMIC,
    TH_STATIC,
    WD_DROP,
    BufferTables,
    PortTables,
    QosTables,
    Tables,
    WatchdogTables,
)

N_QUEUES = 8

INGRESS_POOL_BYTES = 165_660_324
EGRESS_POOL_BYTES = 165_660_324
SHARED_HEADROOM_BYTES = 29_423_360
LOSSY_STATIC_TH = 167_546_528
LOSSLESS_PG_SIZE = 18_796
LOSSLESS_PG_XON = 0
LOSSLESS_PG_XOFF = 612_140
LOSSLESS_PG_XON_OFFSET = 3_556
EGRESS_LOSSY_SIZE = 1_778
LOSSLESS_PRIORITIES = (3, 4)
DWRR_LOSSY_WEIGHT = 14
DWRR_LOSSLESS_WEIGHT = 15
WRED_MIN = 1_048_576
WRED_MAX = 2_097_152
WRED_PROB = 0.05
WD_DEFAULT_S = 0.2
PORT_MTU = 9100

AZURE_DSCP_TO_TC = {3: 3, 4: 4, 5: 2, 8: 0, 46: 5, 48: 6}
AZURE_TC_TO_PG = (0, 0, 0, 3, 4, 0, 0, 7)


def azure_dscp_to_tc() -> np.ndarray[Any, np.dtype[np.int8]]:
    """SONiC's AZURE DSCP_TO_TC_MAP as a 64-entry row."""
    row = np.ones(64, dtype=np.int8)
    for dscp, tc in AZURE_DSCP_TO_TC.items():
        row[dscp] = tc
    return row


def _per_port(row: Any, n_ports: int, dtype: Any) -> Any:
    return np.tile(np.asarray(row, dtype=dtype), (n_ports, 1))


def _lossless_mask() -> np.ndarray[Any, np.dtype[np.bool_]]:
    mask = np.zeros(N_TC, dtype=bool)
    mask[list(LOSSLESS_PRIORITIES)] = True
    return mask


def default_ports(n_ports: int, speed_bps: Any) -> PortTables:
    names = tuple(f"Ethernet{4 * i}" for i in range(n_ports))
    return PortTables(
        names=names,
        oids=tuple(f"oid:0x1000000000{i + 1:03x}" for i in range(n_ports)),
        speed_bps=np.broadcast_to(np.asarray(speed_bps, dtype=np.float64), (n_ports,)).astype(np.int64),
        admin_up=np.ones(n_ports, dtype=bool),
        oper_up=np.ones(n_ports, dtype=bool),
        mtu=np.full(n_ports, PORT_MTU, dtype=np.int64),
        queue_oids=tuple(tuple(f"oid:0x15{i:05x}{q:08x}" for q in range(N_QUEUES)) for i in range(n_ports)),
        pg_oids=tuple(tuple(f"oid:0x1a{i:05x}{q:08x}" for q in range(N_TC)) for i in range(n_ports)),
    )


def default_qos(n_ports: int) -> QosTables:
    lossless = _lossless_mask()
    weights = np.where(lossless, DWRR_LOSSLESS_WEIGHT, DWRR_LOSSY_WEIGHT)
    weights[7] = 1
    return QosTables(
        dscp_to_tc=_per_port(azure_dscp_to_tc(), n_ports, np.int8),
        tc_to_queue=_per_port(np.arange(N_TC), n_ports, np.int8),
        tc_to_pg=_per_port(AZURE_TC_TO_PG, n_ports, np.int8),
        pfc_priority_to_queue=_per_port(np.arange(N_TC), n_ports, np.int8),
        pfc_rx=_per_port(lossless, n_ports, bool),
        pfc_tx=_per_port(lossless, n_ports, bool),
        sched_kind=np.full((n_ports, N_QUEUES), SCHED_DWRR, dtype=np.int8),
        sched_weight=_per_port(weights, n_ports, np.int64),
        wred_ecn=np.zeros((n_ports, N_QUEUES), dtype=bool),
        wred_drop=np.zeros((n_ports, N_QUEUES), dtype=bool),
        wred_min=_per_port(np.where(lossless, WRED_MIN, 0), n_ports, np.int64),
        wred_max=_per_port(np.where(lossless, WRED_MAX, 0), n_ports, np.int64),
        wred_prob=_per_port(np.where(lossless, WRED_PROB, 0.0), n_ports, np.float64),
    )


def default_buffers(n_ports: int) -> BufferTables:
    lossless = _lossless_mask()
    pg_pool = np.where(lossless, 0, NO_POOL)
    pg_pool[0] = 0
    q_pool = np.zeros(N_QUEUES, dtype=np.int32)
    q_pool[:] = 1
    q_pool[7] = NO_POOL
    return BufferTables(
        pool_names=("ingress_lossless_pool", "egress_lossless_pool"),
        pool_size=np.array([INGRESS_POOL_BYTES, EGRESS_POOL_BYTES], dtype=np.int64),
        pool_ingress=np.array([True, False]),
        pool_dynamic=np.array([True, True]),
        pool_xoff=np.array([SHARED_HEADROOM_BYTES, 0], dtype=np.int64),
        pg_pool=_per_port(pg_pool, n_ports, np.int32),
        pg_reserved=_per_port(np.where(lossless, LOSSLESS_PG_SIZE, 0), n_ports, np.int64),
        pg_xoff=_per_port(np.where(lossless, LOSSLESS_PG_XOFF, 0), n_ports, np.int64),
        pg_xon=_per_port(np.where(lossless, LOSSLESS_PG_XON, 0), n_ports, np.int64),
        pg_xon_offset=_per_port(np.where(lossless, LOSSLESS_PG_XON_OFFSET, 0), n_ports, np.int64),
        pg_th_mode=_per_port(np.where(lossless, TH_DYNAMIC, TH_STATIC), n_ports, np.int8),
        pg_dynamic_th=np.zeros((n_ports, N_TC), dtype=np.int64),
        pg_static_th=_per_port(np.where(lossless, 0, LOSSY_STATIC_TH), n_ports, np.int64),
        q_pool=_per_port(q_pool, n_ports, np.int32),
        q_reserved=_per_port(np.where(lossless, 0, EGRESS_LOSSY_SIZE), n_ports, np.int64),
        q_th_mode=_per_port(np.where(lossless, TH_STATIC, TH_DYNAMIC), n_ports, np.int8),
        q_dynamic_th=np.zeros((n_ports, N_QUEUES), dtype=np.int64),
        q_static_th=_per_port(np.where(lossless, LOSSY_STATIC_TH, 0), n_ports, np.int64),
    )


def default_watchdog(n_ports: int) -> WatchdogTables:
    return WatchdogTables(
        enabled=np.zeros((n_ports, N_QUEUES), dtype=bool),
        detection_s=np.full((n_ports, N_QUEUES), WD_DEFAULT_S),
        restoration_s=np.full((n_ports, N_QUEUES), WD_DEFAULT_S),
        action=np.full((n_ports, N_QUEUES), WD_DROP, dtype=np.int8),
    )


def _coerce(default: Any, value: Any) -> Any:
    if not isinstance(default, np.ndarray):
        return value
    arr = np.asarray(value, dtype=default.dtype)
    try:
        arr = np.broadcast_to(arr, default.shape)
    except ValueError:
        pass
    return freeze(arr.copy())


def freeze(arr: Any) -> Any:
    """Mark a numpy array read-only (compiled tables are immutable)."""
    if isinstance(arr, np.ndarray):
        arr.flags.writeable = False
    return arr


def _apply(table: Any, overrides: dict[str, Any]) -> Any:
    names = {f.name for f in fields(table)}
    mine = {k: _coerce(getattr(table, k), v) for k, v in overrides.items() if k in names}
    for key in mine:
        del overrides[key]
    for f in fields(table):
        freeze(getattr(table, f.name))
    return replace(table, **mine) if mine else table


def build_tables(n_ports: int = 4, speed_bps: Any = 400e9, **overrides: Any) -> Tables:
    """A ``Tables`` with ``n_ports`` ports at ``speed_bps`` (a number or one per port) and the module's defaults;
    ``overrides`` replace fields of PortTables, QosTables, BufferTables, WatchdogTables or Tables."""
    rest = dict(overrides)
    ports = _apply(default_ports(n_ports, speed_bps), rest)
    qos = _apply(default_qos(n_ports), rest)
    buffers = _apply(default_buffers(n_ports), rest)
    watchdog = _apply(default_watchdog(n_ports), rest)
    top = {k: rest.pop(k) for k in ("version", "l2", "l3", "extra") if k in rest}
    if rest:
        raise TypeError(f"build_tables: unknown table field(s) {sorted(rest)}")
    return Tables(version=int(top.get("version", 0)), ports=ports, qos=qos, buffers=buffers,
                  watchdog=watchdog, l2=top.get("l2", empty_l2(n_ports)), l3=top.get("l3", empty_l3()),
                  extra=top.get("extra", {}))


ISO_TYPES = ("bridge-port", "port")


def _isolation(n_ports: int, n_obj: int, groups: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    member = np.zeros((len(groups), n_obj), dtype=bool)
    obj_iso = np.full(n_obj, -1, dtype=np.int32)
    port_iso = np.full(n_ports, -1, dtype=np.int32)
    port_type = np.zeros(len(groups), dtype=bool)
    for g, (name, group) in enumerate(groups.items()):
        kind = group.get("type", "bridge-port")
        if kind not in ISO_TYPES:
            raise ValueError(f"build_l2: isolation group {name!r}: type {kind!r} is not bridge-port or port")
        port_type[g] = kind == "port"
        member[g, list(group.get("members", ()))] = True
        (port_iso if port_type[g] else obj_iso)[list(group.get("bind", ()))] = g
    return {"iso_oids": tuple(groups), "iso_port_type": port_type, "iso_member": member, "obj_iso": obj_iso,
            "port_iso": port_iso}


def _lag_buckets(lags: Sequence[Sequence[int]], seed: int) -> Any:
    members = [sorted(m) for m in lags]
    flat = np.array([p for m in members for p in m], dtype=np.int32)
    ptr = np.concatenate([[0], np.cumsum([len(m) for m in members])]).astype(np.int64)
    return hrw_buckets(ptr, flat.astype(np.uint64) + np.uint64(1), np.ones(len(flat)), flat, HASH_BUCKETS, seed)


def build_l2(n_ports: int, *, vlans: Mapping[int, Mapping[int, str]] | None = None,
             lags: Sequence[Sequence[int]] = (), fdb: Mapping[tuple[int, int], int] | None = None,
             isolation: Mapping[str, Mapping[str, Any]] | None = None, lag_seed: int = 0) -> L2Tables:
    """Layer-2 tables from plain data. Objects are ports ``0..n_ports-1`` and LAG ``k`` = ``n_ports + k``.

    * ``vlans``: ``{vid: {obj: "tagged" | "untagged"}}``; an untagged member takes the VID as its PVID;
      every object in a VLAN has a bridge port (named ``bp<obj>``) that learns;
    * ``lags``: each LAG's member ports (all carrying traffic; a member port enters as its LAG);
    * ``fdb``: ``{(vid, mac): obj}`` dynamic entries;
    * ``isolation``: ``{name: {"type": "bridge-port" | "port", "bind": [...], "members": [...]}}``, as an
      APPL_DB ISOLATION_GROUP_TABLE row (TYPE, PORTS, MEMBERS; default bridge-port): a bridge-port group
      binds and has objects (ports or LAGs, their bridge ports), a port group ports. Groups are named
      by ``name`` in ``iso_oids``.
    """
    n_obj = n_ports + len(lags)
    base = empty_l2(n_ports)
    port_obj = np.arange(n_ports, dtype=np.int32)
    for k, ports in enumerate(lags):
        port_obj[list(ports)] = n_ports + k
    member = np.zeros((N_VLAN, n_obj), dtype=np.int8)
    pvid = np.ones(n_obj, dtype=np.int32)
    for vid, objs in (vlans or {}).items():
        for obj, mode in objs.items():
            member[vid, obj] = MEMBER_TAGGED if mode == "tagged" else MEMBER_UNTAGGED
            if mode != "tagged":
                pvid[obj] = vid
    in_bridge = (member != 0).any(axis=0)
    entries = sorted(((vid << 48 | mac), obj) for (vid, mac), obj in (fdb or {}).items())
    return replace(
        base, port_obj=port_obj, obj_pvid=pvid, obj_learn=np.ones(n_obj, dtype=bool),
        obj_bridge_port=tuple(f"bp{o}" if in_bridge[o] else "" for o in range(n_obj)), vlan_member=member,
        vlan_oid=tuple(f"vlan{v}" if v in (vlans or {}) else "" for v in range(N_VLAN)),
        fdb_keys=np.array([k for k, _ in entries], dtype=np.uint64),
        fdb_obj=np.array([o for _, o in entries], dtype=np.int32), fdb_static=np.zeros(len(entries), dtype=bool),
        lag_oids=tuple(f"lag{k}" for k in range(len(lags))), lag_members=tuple(tuple(sorted(m)) for m in lags),
        lag_buckets=_lag_buckets(lags, lag_seed), lag_seed=lag_seed,
        **_isolation(n_ports, n_obj, isolation or {}))
