"""ConfigCache and a transaction's own writes: taken without reading them back, planned on with no
round trip, and never at the cost of another writer's change (the generation check catches it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest
import redis

from nos.config.apply import reload_config
from nos.config.transaction import apply_patch
from nos.db import ConfigDBConnector, Databases
from nos.db.configdb import Config, ConfigConflict
from nos.db.scripts import DirectConnection
from nos.schema.dbconfig import CONFIG_DB
from tests.conftest import wait_until

START: Config = {"PORT": {"Ethernet0": {"lanes": "0,1,2,3", "speed": "100000", "mtu": "9100", "admin_status": "up"},
                  "Ethernet4": {"lanes": "4,5,6,7", "speed": "100000", "mtu": "9100"}},
         "VLAN": {"Vlan5": {"vlanid": "5"}}}


@pytest.fixture
def cached(dbs: Databases) -> Iterator[ConfigDBConnector]:
    """A connector with a cache, as the REST and gNMI servers hold one."""
    connector = ConfigDBConnector(dbs[CONFIG_DB], cached=True)
    reload_config(connector, START)
    connector.snapshot()
    yield connector
    connector.close()


@pytest.fixture
def other(dbs: Databases) -> ConfigDBConnector:
    """Another writer through the layer (the CLI, or the REST server in its own process)."""
    return ConfigDBConnector(dbs[CONFIG_DB])


def mtu(mtu: str, port: str = "Ethernet0") -> list[dict[str, Any]]:
    return [{"op": "replace", "path": f"/PORT/{port}/mtu", "value": mtu}]


def round_trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every command or pipeline sent from now on (subscription reads are not commands)."""
    sent: list[str] = []
    command, pipeline = cast(Any, redis.Redis.execute_command), cast(Any, redis.client.Pipeline.execute)

    def counted_command(self: redis.Redis, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(args[0]))
        return command(self, *args, **kwargs)

    def counted_pipeline(self: redis.client.Pipeline, *args: Any, **kwargs: Any) -> Any:
        sent.append(f"pipeline of {len(self.command_stack)}")
        return pipeline(self, *args, **kwargs)

    def counted_direct(self: DirectConnection, *args: Any) -> Any:
        sent.append(str(args[0]))
        return direct(self, *args)

    direct = DirectConnection.execute
    monkeypatch.setattr(redis.Redis, "execute_command", counted_command)
    monkeypatch.setattr(redis.client.Pipeline, "execute", counted_pipeline)
    monkeypatch.setattr(DirectConnection, "execute", counted_direct)  # scripts (nos.db.scripts)
    return sent


def hold_events_once(cdb: ConfigDBConnector) -> None:
    """The cache's next drain reads nothing, as if the events already sent were still on their way."""
    assert cdb.cache is not None and cdb.cache._sub is not None
    sub = cdb.cache._sub

    def held() -> list[Any]:
        del sub.drain  # back to the class's
        return []

    sub.drain = held  # type: ignore[method-assign]


def known(cdb: ConfigDBConnector) -> tuple[Config, int]:
    """The cache's copy once it is known again (its own apply's events read)."""
    got = wait_until(cdb.recent_snapshot)
    assert isinstance(got, tuple)
    return got


def full_reads(cdb: ConfigDBConnector, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per whole read of CONFIG_DB from now on."""
    reads: list[int] = []
    read_all = cdb._read_all

    def counted() -> tuple[Config, int]:
        reads.append(1)
        return read_all()

    monkeypatch.setattr(cdb, "_read_all", counted)
    return reads


def conflicts(cdb: ConfigDBConnector, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The generations of applies refused because CONFIG_DB had moved on."""
    refused: list[int] = []
    apply = cdb.apply

    def recorded(changes: Any, *, expect_generation: int | None = None, result: Any = None) -> int:
        try:
            return apply(changes, expect_generation=expect_generation, result=result)
        except ConfigConflict:
            refused.append(-1 if expect_generation is None else expect_generation)
            raise

    monkeypatch.setattr(cdb, "apply", recorded)
    return refused


def test_after_its_own_commit_the_next_plan_needs_no_round_trip(
        cached: ConfigDBConnector, monkeypatch: pytest.MonkeyPatch) -> None:
    result = apply_patch(cached, mtu("1500"))
    sent = round_trips(monkeypatch)
    config, generation = known(cached)
    assert sent == []  # the committed rows were taken as written: nothing read back
    monkeypatch.undo()
    assert generation == result.generation == cached.generation()
    assert config == cached.get_config() and config["PORT"]["Ethernet0"]["mtu"] == "1500"


def test_a_snapshot_after_its_own_commit_does_not_read_the_rows_back(
        cached: ConfigDBConnector, monkeypatch: pytest.MonkeyPatch) -> None:
    apply_patch(cached, mtu("1500"))
    sent = round_trips(monkeypatch)
    config, generation = cached.snapshot()
    assert sent == ["pipeline of 2"]  # GET generation + PUBLISH token: no HGETALL of PORT|Ethernet0
    monkeypatch.undo()
    assert config == cached.get_config() and generation == cached.generation()


def test_a_transaction_counts_one_round_trip_its_apply(cached: ConfigDBConnector,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    apply_patch(cached, mtu("1500"))
    known(cached)
    sent = round_trips(monkeypatch)
    apply_patch(cached, mtu("9000"))
    assert sent == ["EVALSHA"]


def test_a_value_redis_cannot_hold_as_given_is_kept_as_redis_reads_it_back(cached: ConfigDBConnector) -> None:
    """A list item with a comma is stored joined (``servers@``) and reads back as two items (a table the
    schema does not model, so kept unchecked): the copy a transaction's target becomes must say what
    CONFIG_DB says."""
    apply_patch(cached, [{"op": "add", "path": "/NOS_TEST_UNMODELLED", "value": {"x": {"servers": ["a,b"]}}}])
    config, generation = known(cached)
    assert config == cached.get_config() and config["NOS_TEST_UNMODELLED"]["x"]["servers"] == ["a", "b"]


def test_deletes_and_lists_are_taken_as_redis_holds_them(cached: ConfigDBConnector) -> None:
    member = {"Vlan9|Ethernet0": {"tagging_mode": "tagged"}}
    apply_patch(cached, [{"op": "remove", "path": "/VLAN/Vlan5"},
                         {"op": "add", "path": "/VLAN/Vlan9", "value": {"vlanid": "9", "members": ["Ethernet0"]}},
                         {"op": "add", "path": "/VLAN_MEMBER", "value": member}])
    config, generation = known(cached)
    assert config == cached.get_config() and generation == cached.generation()
    assert "Vlan5" not in config["VLAN"] and config["VLAN"]["Vlan9"]["members"] == ["Ethernet0"]


def test_a_writer_in_between_two_commits_is_caught_by_the_generation(
        cached: ConfigDBConnector, other: ConfigDBConnector, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worst case: the other writer's events have not arrived when the second commit plans, so it
    plans on a copy without that write. Its apply is refused (generation), it plans again on a snapshot,
    and the other writer's change survives (a replace of the whole row would otherwise undo it)."""
    apply_patch(cached, mtu("1500"))
    wait_until(cached.recent_snapshot)
    apply_patch(other, [{"op": "replace", "path": "/PORT/Ethernet0/admin_status", "value": "down"}])
    hold_events_once(cached)
    refused = conflicts(cached, monkeypatch)
    result = apply_patch(cached, mtu("9000"))
    assert refused == [result.generation - 2]  # planned on the copy at the generation of its own commit
    assert result.applied and cached.get_entry("PORT", "Ethernet0") == {
        "lanes": "0,1,2,3", "speed": "100000", "mtu": "9000", "admin_status": "down"}
    assert cached.snapshot() == (cached.get_config(), cached.generation())


def test_a_write_that_bypasses_the_layer_is_seen_once_its_event_is_in(
        cached: ConfigDBConnector, raw: Callable[[int], redis.Redis]) -> None:
    apply_patch(cached, mtu("1500"))
    wait_until(cached.recent_snapshot)
    raw(4).hset("PORT|Ethernet0", "admin_status", "down")  # redis-cli: no generation bump
    wait_until(lambda: cached.recent_snapshot() is None)  # its event: the copy is no longer known
    apply_patch(cached, mtu("9000"))
    assert cached.get_entry("PORT", "Ethernet0")["admin_status"] == "down"
    config, generation = known(cached)
    assert config == cached.get_config() and generation == cached.generation()


def test_a_build_error_on_an_unconfirmed_copy_is_checked_on_a_snapshot(
        cached: ConfigDBConnector, other: ConfigDBConnector) -> None:
    apply_patch(cached, mtu("1500"))
    wait_until(cached.recent_snapshot)
    apply_patch(other, [{"op": "add", "path": "/INTERFACE", "value": {"Ethernet0": {}}}])
    hold_events_once(cached)  # the copy has no INTERFACE table: the patch cannot add a row to it there
    result = apply_patch(cached, [{"op": "add", "path": "/INTERFACE/Ethernet0|10.0.0.0~131", "value": {}}])
    assert result.applied and cached.get_keys("INTERFACE") == ["Ethernet0", "Ethernet0|10.0.0.0/31"]


def test_a_validation_error_on_an_unconfirmed_copy_is_checked_on_a_snapshot(
        cached: ConfigDBConnector, other: ConfigDBConnector) -> None:
    apply_patch(cached, [{"op": "add", "path": "/INTERFACE", "value": {"Ethernet4": {}}}])
    wait_until(cached.recent_snapshot)
    apply_patch(other, [{"op": "add", "path": "/INTERFACE/Ethernet0", "value": {}}])
    hold_events_once(cached)  # the copy has no INTERFACE|Ethernet0: an address on it is invalid there
    result = apply_patch(cached, [{"op": "add", "path": "/INTERFACE/Ethernet0|10.0.0.0~131", "value": {}}])
    assert result.applied and cached.get_keys("INTERFACE") == ["Ethernet0", "Ethernet0|10.0.0.0/31", "Ethernet4"]


def test_a_no_op_on_an_unconfirmed_copy_is_checked_on_a_snapshot(
        cached: ConfigDBConnector, other: ConfigDBConnector) -> None:
    apply_patch(cached, mtu("1500"))
    wait_until(cached.recent_snapshot)
    apply_patch(other, mtu("9100"))
    hold_events_once(cached)  # the copy still says 1500: setting 1500 looks like nothing to do
    result = apply_patch(cached, mtu("1500"))
    assert result.applied and cached.get_entry("PORT", "Ethernet0")["mtu"] == "1500"


def test_a_write_that_bypasses_the_layer_just_before_an_apply_is_not_taken_for_its_own(
        cached: ConfigDBConnector, raw: Callable[[int], redis.Redis]) -> None:
    """A redis-cli write whose event comes in after the transaction planned (the stated gap: it is not
    in that plan) still comes before the apply's own events: the copy stops being known and the
    next snapshot reads the row."""
    apply_patch(cached, mtu("1500"))
    wait_until(cached.recent_snapshot)
    raw(4).hset("PORT|Ethernet4", "admin_status", "down")
    hold_events_once(cached)
    apply_patch(cached, mtu("9000"))
    assert cached.cache is not None
    wait_until(lambda: cached.recent_snapshot() is None and cached.cache is not None and cached.cache._own is None)
    assert cached.recent_snapshot() is None
    config, generation = cached.snapshot()
    assert config["PORT"]["Ethernet4"]["admin_status"] == "down" and config == cached.get_config()
    assert known(cached) == (config, generation)


def test_an_apply_whose_events_were_already_read_is_not_taken_as_its_own(
        cached: ConfigDBConnector, other: ConfigDBConnector, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads: one applies, the other takes a snapshot (reading that apply's events as anyone's)
    before the first tells the cache. The later apply of another writer must not pass for its own."""
    assert cached.cache is not None
    applied = cached.cache.applied

    def late(*args: Any) -> None:
        cached.snapshot()  # the other thread, in between
        applied(*args)

    monkeypatch.setattr(cached.cache, "applied", late)
    apply_patch(cached, mtu("1500"))
    monkeypatch.undo()
    apply_patch(other, [{"op": "replace", "path": "/PORT/Ethernet0/admin_status", "value": "down"}])
    reads = full_reads(cached, monkeypatch)
    config, generation = cached.snapshot()
    assert reads == []  # not even the safety net of a lost marker was needed
    monkeypatch.undo()
    assert config == cached.get_config() and config["PORT"]["Ethernet0"]["admin_status"] == "down"


def test_a_marker_that_never_comes_costs_a_full_read(cached: ConfigDBConnector, other: ConfigDBConnector,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    assert cached.cache is not None
    config, generation = cached.snapshot()
    cached.cache.applied([("PORT|Ethernet0", {"mtu": "1"})], generation, "apply:never-published")
    apply_patch(other, [{"op": "replace", "path": "/PORT/Ethernet0/admin_status", "value": "down"}])
    reads = full_reads(cached, monkeypatch)
    config, generation = cached.snapshot()  # the other writer's events might have passed for that apply's
    assert reads == [1]
    monkeypatch.undo()
    assert config == cached.get_config() and generation == cached.generation()


def test_a_merge_is_read_back_like_anyone_elses_write(cached: ConfigDBConnector) -> None:
    cached.mod_entry("PORT", "Ethernet0", {"mtu": "1234"})  # no expected generation: not a transaction
    wait_until(lambda: cached.recent_snapshot() is None)
    config, generation = cached.snapshot()
    assert config["PORT"]["Ethernet0"]["mtu"] == "1234" and generation == cached.generation()
    assert known(cached) == (config, generation)


def test_an_apply_after_redis_lost_its_scripts_loads_it_again(cached: ConfigDBConnector,
                                                             raw: Callable[[int], redis.Redis]) -> None:
    raw(4).script_flush()  # as after a Redis restart: EVALSHA answers NOSCRIPT
    result = apply_patch(cached, mtu("1500"))
    assert result.applied and cached.get_entry("PORT", "Ethernet0")["mtu"] == "1500"
    assert known(cached) == (cached.get_config(), cached.generation())
