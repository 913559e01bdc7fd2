"""ConfigCache: snapshots follow every write, API or redis-cli, and never change once handed out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from nos.config.apply import reload_config
from nos.config.transaction import apply_patch
from nos.db import ConfigDBConnector, Databases, DbError
from nos.schema.dbconfig import CONFIG_DB

START = {"PORT": {"Ethernet0": {"lanes": "0,1,2,3", "speed": "100000", "mtu": "9100"}},
         "VLAN": {"Vlan5": {"vlanid": "5"}}}


def test_snapshots_follow_writes_that_bypass_the_layer(dbs: Databases, raw: Callable[[int], redis.Redis]) -> None:
    cdb = ConfigDBConnector(dbs[CONFIG_DB], cached=True)
    try:
        reload_config(cdb, START)
        first, generation = cdb.snapshot()
        assert first == START and generation == cdb.generation()
        config_db = raw(4)
        config_db.hset("PORT|Ethernet0", "mtu", "1500")       # as redis-cli would
        config_db.delete("VLAN|Vlan5")
        config_db.hset("VLAN|Vlan7", mapping={"vlanid": "7", "members@": "Ethernet0"})
        config_db.set("NOT_A_ROW", "x")                        # no separator: not a row
        second, _ = cdb.snapshot()
        assert second == {"PORT": {"Ethernet0": {"lanes": "0,1,2,3", "speed": "100000", "mtu": "1500"}},
                          "VLAN": {"Vlan7": {"vlanid": "7", "members": ["Ethernet0"]}}}
        assert first == START  # a snapshot handed out earlier is not modified
        apply_patch(cdb, [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9000"}])
        third, generation = cdb.snapshot()
        assert third["PORT"]["Ethernet0"]["mtu"] == "9000" and generation == cdb.generation()
        assert third == cdb.get_config()
    finally:
        cdb.close()


def test_a_lost_subscription_costs_one_error_then_a_full_read(dbs: Databases,
                                                              raw: Callable[[int], redis.Redis]) -> None:
    """Events written while the subscription is gone would be missed: the cache must not trust itself then."""
    cdb = ConfigDBConnector(dbs[CONFIG_DB], cached=True)
    try:
        reload_config(cdb, START)
        assert cdb.snapshot()[0] == START
        config_db = raw(4)
        assert config_db.client_kill_filter(_type="pubsub") >= 1
        config_db.hset("PORT|Ethernet0", "mtu", "1500")  # its event goes nowhere
        outcomes = []
        for _ in range(2):
            try:
                outcomes.append(cdb.snapshot()[0]["PORT"]["Ethernet0"]["mtu"])
            except DbError as exc:
                outcomes.append(type(exc).__name__)
        assert outcomes in (["DbConnectionError", "1500"], ["1500", "1500"])
    finally:
        cdb.close()


def test_the_cache_subscribes_at_first_use_so_redis_may_start_later(tmp_path: Path) -> None:
    missing = Databases(f"unix://{tmp_path}/redis.sock")
    cdb = ConfigDBConnector(missing[CONFIG_DB], cached=True)  # no connection is made here
    try:
        with pytest.raises(DbError, match="unreachable"):
            cdb.snapshot()
    finally:
        cdb.close()
        missing.close()


def test_a_quiet_snapshot_is_one_round_trip_and_a_written_row_is_read_with_it(
        dbs: Databases, raw: Callable[[int], redis.Redis], monkeypatch: pytest.MonkeyPatch) -> None:
    cdb = ConfigDBConnector(dbs[CONFIG_DB], cached=True)
    try:
        reload_config(cdb, START)
        cdb.snapshot()
        assert cdb.cache is not None
        pipelines: list[int] = []
        original = redis.client.Pipeline.execute

        def counted(self: redis.client.Pipeline, *args: object, **kwargs: object) -> object:
            pipelines.append(len(self.command_stack))
            return original(self, *args, **kwargs)

        monkeypatch.setattr(redis.client.Pipeline, "execute", counted)
        config, generation = cdb.snapshot()
        assert config == START and len(pipelines) == 1  # GET generation + PUBLISH token
        raw(4).hset("PORT|Ethernet0", "mtu", "1500")        # its event arrives before the next snapshot...
        pipelines.clear()
        config, same = cdb.snapshot()
        assert config["PORT"]["Ethernet0"]["mtu"] == "1500" and same == generation
        assert 1 <= len(pipelines) <= 2  # ...so the row is read with the token (or, if late, in one more round)
        apply_patch(cdb, [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9000"}])
        config, newer = cdb.snapshot()  # the generation key's own event counts too
        assert config["PORT"]["Ethernet0"]["mtu"] == "9000" and newer == generation + 1 == cdb.generation()
    finally:
        cdb.close()
