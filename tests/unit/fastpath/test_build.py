"""build_tables: the hand-made tables carry the TH5 / SONiC defaults and take overrides by field name."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.build import build_tables
from fastpath.tables import NO_POOL, SCHED_DWRR, SCHED_STRICT, TH_DYNAMIC, TH_STATIC


def test_defaults_are_the_th5_sku_buffers_and_sonic_qos():
    t = build_tables()
    b, q = t.buffers, t.qos
    assert t.ports.names == ("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12")
    assert list(t.ports.speed_bps) == [400_000_000_000] * 4
    assert list(b.pool_size) == [165_660_324, 165_660_324] and list(b.pool_xoff) == [29_423_360, 0]
    assert list(b.pool_ingress) == [True, False]
    # lossless PGs 3, 4: pg_profile_lookup.ini's 400G row; size < xoff, so size is the reserve
    assert list(b.pg_reserved[0]) == [0, 0, 0, 18_796, 18_796, 0, 0, 0]
    assert list(b.pg_xoff[0, 3:5]) == [612_140, 612_140] and list(b.pg_xon_offset[0, 3:5]) == [3_556, 3_556]
    assert list(b.pg_th_mode[0, [0, 3, 4]]) == [TH_STATIC, TH_DYNAMIC, TH_DYNAMIC]
    assert b.pg_static_th[0, 0] == 167_546_528 and b.pg_dynamic_th[0, 3] == 0
    assert list(b.pg_pool[0]) == [0, NO_POOL, NO_POOL, 0, 0, NO_POOL, NO_POOL, NO_POOL]
    assert list(b.q_th_mode[0, [0, 3]]) == [TH_DYNAMIC, TH_STATIC] and list(b.q_reserved[0, [0, 3]]) == [1_778, 0]
    assert b.q_pool[0, 7] == NO_POOL and b.q_pool[0, 0] == 1
    # AZURE maps
    assert [int(q.dscp_to_tc[0, d]) for d in (3, 4, 46, 48, 8, 0, 26)] == [3, 4, 5, 6, 0, 1, 1]
    assert list(q.tc_to_queue[0]) == list(range(8)) and list(q.tc_to_pg[0]) == [0, 0, 0, 3, 4, 0, 0, 7]
    assert list(np.flatnonzero(q.pfc_tx[0])) == [3, 4] and list(np.flatnonzero(q.pfc_rx[0])) == [3, 4]
    assert list(q.sched_weight[0]) == [14, 14, 14, 15, 15, 14, 14, 1] and (q.sched_kind == SCHED_DWRR).all()
    assert not q.wred_ecn.any() and list(q.wred_min[0, 3:5]) == [1_048_576] * 2
    assert not t.watchdog.enabled.any()


def test_overrides_broadcast_and_cast_to_the_default_dtype():
    t = build_tables(2, speed_bps=[100e9, 400e9], sched_kind=SCHED_STRICT, wred_ecn=np.array([False] * 3 + [True] * 2
                                                                                            + [False] * 3))
    assert list(t.ports.speed_bps) == [100_000_000_000, 400_000_000_000]
    assert t.qos.sched_kind.shape == (2, 8) and (t.qos.sched_kind == SCHED_STRICT).all()
    assert t.qos.sched_kind.dtype == np.int8
    assert list(np.flatnonzero(t.qos.wred_ecn[1])) == [3, 4]


def test_an_override_of_another_shape_is_taken_as_given():
    t = build_tables(pool_names=("a", "b", "c"), pool_size=[1, 2, 3], pool_xoff=[0, 0, 0],
                     pool_ingress=[True, False, True], pool_dynamic=[True, True, False])
    assert t.buffers.pool_names == ("a", "b", "c") and list(t.buffers.pool_size) == [1, 2, 3]


def test_unknown_override_is_refused_and_tables_are_read_only():
    with pytest.raises(TypeError, match="nope"):
        build_tables(nope=1)
    t = build_tables()
    with pytest.raises(ValueError):
        t.qos.dscp_to_tc[0, 0] = 3
