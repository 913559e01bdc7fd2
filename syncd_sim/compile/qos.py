"""Compiling the QoS state of every port: the DSCP->TC, TC->queue, TC->PG and PFC priority->queue maps
bound on the port (or the switch-wide DSCP->TC map), the PFC enable bitmasks, the scheduler of each
queue (the queue's own, else its parent scheduler group's, as qosorch binds them) and its WRED profile.

Unbound or unlisted entries: DSCP -> the port's default TC (``SAI_PORT_ATTR_QOS_DEFAULT_TC``, 0),
TC -> queue and PFC priority -> queue identity, TC -> PG 0. A queue without a scheduler is DWRR
weight 1. PFC: ``PRIORITY_FLOW_CONTROL`` sets both directions; in ``SEPARATE`` mode ``_RX`` / ``_TX``.
WRED: ECN marking when the mark mode covers green; WRED dropping when green is enabled without ECN
(colours other than green are not modelled: every packet is green).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fastpath.tables import N_TC, SCHED_DWRR, SCHED_STRICT, SCHED_WRR, QosTables
from fastpath.values import as_bool, as_int, ref
from nos.sai.types import ObjectType as T
from syncd_sim.objects import ObjectStore, SaiObject

MAP_ATTRS = {  # port attribute -> (SAI map type, key parameter, value parameter)
    "SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP": ("dscp", "tc"),
    "SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP": ("tc", "qidx"),
    "SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP": ("tc", "pg"),
    "SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP": ("prio", "qidx"),
}
SCHED_KINDS = {"SAI_SCHEDULING_TYPE_STRICT": SCHED_STRICT, "SAI_SCHEDULING_TYPE_WRR": SCHED_WRR,
               "SAI_SCHEDULING_TYPE_DWRR": SCHED_DWRR}
ECN_GREEN = {"SAI_ECN_MARK_MODE_GREEN", "SAI_ECN_MARK_MODE_GREEN_YELLOW", "SAI_ECN_MARK_MODE_GREEN_RED",
             "SAI_ECN_MARK_MODE_ALL"}


def parse_map(obj: SaiObject | None, key: str, value: str) -> dict[int, int]:
    """A QOS_MAP's ``MAP_TO_VALUE_LIST`` as {key: value} for the given parameters."""
    if obj is None:
        return {}
    try:
        items = json.loads(obj.attrs.get("SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST", "{}")).get("list", [])
        return {int(item["key"][key]): int(item["value"][value]) for item in items}
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}


def _row(width: int, default: Sequence[int], pairs: Mapping[int, int]) -> list[int]:
    row = list(default)
    for k, v in pairs.items():
        if 0 <= k < width:
            row[k] = v
    return row


def _mask(value: int) -> list[bool]:
    return [bool(value >> i & 1) for i in range(N_TC)]


def _pfc(attrs: Mapping[str, str]) -> tuple[list[bool], list[bool]]:
    """(rx, tx) enable per priority."""
    separate = attrs.get("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_MODE") == "SAI_PORT_PRIORITY_FLOW_CONTROL_MODE_SEPARATE"
    if separate or ("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL" not in attrs
                    and "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_TX" in attrs):
        return (_mask(as_int(attrs, "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_RX")),
                _mask(as_int(attrs, "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_TX")))
    both = _mask(as_int(attrs, "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"))
    return both, both


def _maps(store: ObjectStore, port: SaiObject, switch_dscp: dict[int, int]) -> list[list[int]]:
    found = {attr: parse_map(store.find(T.QOS_MAP, ref(port.attrs, attr)), *params)
             for attr, params in MAP_ATTRS.items()}
    dscp = found["SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP"] or switch_dscp
    default_tc = as_int(port.attrs, "SAI_PORT_ATTR_QOS_DEFAULT_TC")
    ident = list(range(N_TC))
    return [_row(64, [default_tc] * 64, dscp),
            _row(N_TC, ident, found["SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP"]),
            _row(N_TC, [0] * N_TC, found["SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP"]),
            _row(N_TC, ident, found["SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP"])]


def _scheduler(store: ObjectStore, queue: SaiObject) -> SaiObject | None:
    sched = ref(queue.attrs, "SAI_QUEUE_ATTR_SCHEDULER_PROFILE_ID")
    if not sched:
        group = store.find(T.SCHEDULER_GROUP, ref(queue.attrs, "SAI_QUEUE_ATTR_PARENT_SCHEDULER_NODE"))
        sched = ref(group.attrs, "SAI_SCHEDULER_GROUP_ATTR_SCHEDULER_PROFILE_ID") if group else ""
    return store.find(T.SCHEDULER, sched) if sched else None


def _queue_row(store: ObjectStore, queue: SaiObject | None) -> tuple[Any, ...]:
    """(kind, weight, ecn, drop, min, max, prob) of one queue."""
    sched = _scheduler(store, queue) if queue else None
    kind, weight = SCHED_DWRR, 1
    if sched is not None:
        kind = SCHED_KINDS.get(sched.attrs.get("SAI_SCHEDULER_ATTR_SCHEDULING_TYPE", ""), SCHED_WRR)
        weight = as_int(sched.attrs, "SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT", 1)
    wred = store.find(T.WRED, ref(queue.attrs, "SAI_QUEUE_ATTR_WRED_PROFILE_ID")) if queue else None
    if wred is None:
        return kind, weight, False, False, 0, 0, 0.0
    a = wred.attrs
    ecn = a.get("SAI_WRED_ATTR_ECN_MARK_MODE", "") in ECN_GREEN
    drop = as_bool(a, "SAI_WRED_ATTR_GREEN_ENABLE") and not ecn
    prob = as_int(a, "SAI_WRED_ATTR_GREEN_DROP_PROBABILITY", 100) / 100
    return (kind, weight, ecn, drop, as_int(a, "SAI_WRED_ATTR_GREEN_MIN_THRESHOLD"),
            as_int(a, "SAI_WRED_ATTR_GREEN_MAX_THRESHOLD"), prob)


def compile_qos(store: ObjectStore, ports: Sequence[SaiObject], queue_oids: Sequence[Sequence[str]],
                n_queues: int) -> QosTables:
    switch = next(iter(store.of_type(T.SWITCH).values()), None)
    switch_dscp = parse_map(store.find(T.QOS_MAP, ref(switch.attrs, "SAI_SWITCH_ATTR_QOS_DSCP_TO_TC_MAP")),
                            "dscp", "tc") if switch else {}
    maps = [_maps(store, p, switch_dscp) for p in ports]
    pfc = [_pfc(p.attrs) for p in ports]
    rows = [[_queue_row(store, store.find(T.QUEUE, q[i]) if i < len(q) else None) for i in range(n_queues)]
            for q in queue_oids]
    n = len(ports)
    cols = [np.array([[r[c] for r in row] for row in rows]).reshape(n, n_queues) for c in range(7)]
    return QosTables(
        dscp_to_tc=np.array([m[0] for m in maps], dtype=np.int8).reshape(n, 64),
        tc_to_queue=np.array([m[1] for m in maps], dtype=np.int8).reshape(n, N_TC),
        tc_to_pg=np.array([m[2] for m in maps], dtype=np.int8).reshape(n, N_TC),
        pfc_priority_to_queue=np.array([m[3] for m in maps], dtype=np.int8).reshape(n, N_TC),
        pfc_rx=np.array([p[0] for p in pfc], dtype=bool).reshape(n, N_TC),
        pfc_tx=np.array([p[1] for p in pfc], dtype=bool).reshape(n, N_TC),
        sched_kind=cols[0].astype(np.int8), sched_weight=cols[1].astype(np.int64),
        wred_ecn=cols[2].astype(bool), wred_drop=cols[3].astype(bool),
        wred_min=cols[4].astype(np.int64), wred_max=cols[5].astype(np.int64), wred_prob=cols[6].astype(np.float64),
    )
