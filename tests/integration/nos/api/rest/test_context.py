"""The REST context's cached connector warmed as the server does at start (``ConfigDBConnector.warm``):
CONFIG_DB read into the write path's cache, so the first write needs no full read; best effort when
Redis is not there; released when the context closes."""

from __future__ import annotations

from pathlib import Path

from nos.api.rest.context import ApiContext
from nos.db import ConfigDBConnector, Databases


def test_warm_fills_the_cache_the_first_write_plans_on(dbs: Databases, cdb: ConfigDBConnector) -> None:
    ctx = ApiContext(dbs)
    try:
        assert ctx.cdb.recent_snapshot() is None  # nothing read yet: the first write would read it all
        assert ctx.cdb.warm()
        recent = ctx.cdb.recent_snapshot()
        assert recent is not None
        config, generation = recent
        assert config["PORT"]["Ethernet0"]["mtu"] == "9100"
        assert generation == cdb.generation()
    finally:
        ctx.close()
    assert ctx.cdb.recent_snapshot() is None  # closing the context released the cache


def test_warm_without_redis_reports_instead_of_raising(tmp_path: Path) -> None:
    dbs = Databases(f"unix://{tmp_path}/no-such.sock")
    ctx = ApiContext(dbs)
    try:
        assert not ctx.cdb.warm()
        assert ctx.cdb.recent_snapshot() is None
    finally:
        ctx.close()
        dbs.close()
