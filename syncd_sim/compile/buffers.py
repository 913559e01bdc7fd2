"""Compiling the buffer state: the pools, and the profile bound to each ingress priority group and
queue (``SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE``, ``SAI_QUEUE_ATTR_BUFFER_PROFILE_ID``).

How SONiC's profile fields map to the model (SAI: size -> ``RESERVED_BUFFER_SIZE``, xoff -> ``XOFF_TH``,
xon -> ``XON_TH``, xon_offset -> ``XON_OFFSET_TH``):

* headroom (``pg_xoff``) = xoff: the bytes a lossless PG may still take after it sent XOFF (in flight
  on the cable), drawn from the pool's shared headroom (``pool_xoff``) when the pool has one;
* reserved (``pg_reserved``) = the guaranteed bytes before the shared pool is used. Vendors read
  ``size`` two ways, and the compiler tells them apart by the numbers: when size >= xoff (the
  Mellanox convention, size = xon + xoff [+ MTU]) the headroom is inside size and reserved =
  size - xoff; when size < xoff (the Broadcom convention, e.g. TH5's size 18,796 with xoff 612,140)
  size is the PG's minimum and the headroom comes on top, so reserved = size.
* threshold: the profile's mode (its pool's mode when unset), alpha = 2^dynamic_th, or static_th bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fastpath.tables import NO_POOL, TH_DYNAMIC, TH_STATIC, BufferTables
from fastpath.values import as_int, ref
from nos.sai.types import ObjectType as T
from syncd_sim.objects import ObjectStore, SaiObject

P = "SAI_BUFFER_PROFILE_ATTR_"
POOL_STATIC = "SAI_BUFFER_POOL_THRESHOLD_MODE_STATIC"
MODES = {"SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC": TH_DYNAMIC, "SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC": TH_STATIC}
EMPTY_ROW = (NO_POOL, 0, 0, 0, 0, TH_DYNAMIC, 0, 0)


def reserved_and_headroom(size: int, xoff: int) -> tuple[int, int]:
    """(reserved, headroom) of a profile; see the module docstring."""
    return (size - xoff if size >= xoff else size), xoff


def _profile_row(profile: SaiObject | None, pool_index: dict[str, int],
                 pools: dict[str, SaiObject]) -> tuple[int, ...]:
    """(pool, reserved, xoff, xon, xon_offset, th_mode, dynamic_th, static_th)."""
    if profile is None:
        return EMPTY_ROW
    a = profile.attrs
    pool_oid = ref(a, P + "POOL_ID")
    if pool_oid not in pool_index:
        return EMPTY_ROW
    pool_static = pools[pool_oid].attrs.get("SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE") == POOL_STATIC
    mode = MODES.get(a.get(P + "THRESHOLD_MODE", ""), TH_STATIC if pool_static else TH_DYNAMIC)
    reserved, xoff = reserved_and_headroom(as_int(a, P + "RESERVED_BUFFER_SIZE"), as_int(a, P + "XOFF_TH"))
    return (pool_index[pool_oid], reserved, xoff, as_int(a, P + "XON_TH"), as_int(a, P + "XON_OFFSET_TH"), mode,
            as_int(a, P + "SHARED_DYNAMIC_TH"), as_int(a, P + "SHARED_STATIC_TH"))


def _rows(store: ObjectStore, oids: Sequence[Sequence[str]], width: int, kind: T, attr: str,
          pool_index: dict[str, int], pools: dict[str, SaiObject]) -> list[np.ndarray[Any, Any]]:
    table = []
    for port in oids:
        row = []
        for i in range(width):
            obj = store.find(kind, port[i]) if i < len(port) else None
            profile = store.find(T.BUFFER_PROFILE, ref(obj.attrs, attr)) if obj else None
            row.append(_profile_row(profile, pool_index, pools))
        table.append(row)
    arr = np.array(table, dtype=np.int64).reshape(len(oids), width, len(EMPTY_ROW))
    return [arr[:, :, c] for c in range(len(EMPTY_ROW))]


def compile_buffers(store: ObjectStore, pg_oids: Sequence[Sequence[str]], queue_oids: Sequence[Sequence[str]],
                    n_pgs: int, n_queues: int) -> BufferTables:
    pools = dict(sorted(store.of_type(T.BUFFER_POOL).items()))
    pool_index = {oid: i for i, oid in enumerate(pools)}
    attrs = [p.attrs for p in pools.values()]
    pg = _rows(store, pg_oids, n_pgs, T.INGRESS_PRIORITY_GROUP, "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE",
               pool_index, pools)
    q = _rows(store, queue_oids, n_queues, T.QUEUE, "SAI_QUEUE_ATTR_BUFFER_PROFILE_ID", pool_index, pools)
    return BufferTables(
        pool_names=tuple(pools),
        pool_size=np.array([as_int(a, "SAI_BUFFER_POOL_ATTR_SIZE") for a in attrs], dtype=np.int64),
        pool_ingress=np.array([a.get("SAI_BUFFER_POOL_ATTR_TYPE") == "SAI_BUFFER_POOL_TYPE_INGRESS" for a in attrs],
                              dtype=bool),
        pool_dynamic=np.array([a.get("SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE") != POOL_STATIC for a in attrs], dtype=bool),
        pool_xoff=np.array([as_int(a, "SAI_BUFFER_POOL_ATTR_XOFF_SIZE") for a in attrs], dtype=np.int64),
        pg_pool=pg[0].astype(np.int32), pg_reserved=pg[1], pg_xoff=pg[2], pg_xon=pg[3], pg_xon_offset=pg[4],
        pg_th_mode=pg[5].astype(np.int8), pg_dynamic_th=pg[6], pg_static_th=pg[7],
        q_pool=q[0].astype(np.int32), q_reserved=q[1], q_th_mode=q[5].astype(np.int8), q_dynamic_th=q[6],
        q_static_th=q[7],
        pool_oids=tuple(pools),
    )
