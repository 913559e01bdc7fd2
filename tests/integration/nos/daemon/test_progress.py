"""The applied barrier's records against real Redis: a daemon records the CONFIG_DB generation it has
handled; one fed through APPL_DB also needs its upstream's output popped first."""

from __future__ import annotations

import pytest

from nos.config.applied import NotApplied, wait_applied
from nos.daemon.consumer import TableConsumer
from nos.daemon.progress import Progress
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ConfigDBConnector, ConsumerStateTable, ProducerStateTable, SubscriberStateTable
from nos.db.configdb import RowChange
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def config_gen(raw, name: str) -> int:
    return int(raw(6).hget(f"NOS_DAEMON_TABLE|{name}", "config_gen") or -1)


def test_a_manager_records_a_generation_once_it_has_handled_its_events(dbs, raw):
    seen = []
    runner = Runner("cfgmgrd", strict=True, retry_interval=0.05)
    Progress(dbs, runner, "cfgmgrd")
    source = SubscriberStateTable(dbs["CONFIG_DB"], "VLAN")
    runner.add_consumer(TableConsumer("CONFIG_DB", "VLAN", source, lambda t: (seen.append(t.key), Result.success())[1]))
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.apply([RowChange("VLAN", "Vlan10", "replace", {"vlanid": "10"})])
    generation = int(raw(4).get("NOS_CONFIG_GENERATION"))
    wait_until(lambda: (runner.step(max_wait=0.02), config_gen(raw, "cfgmgrd") == generation)[1])
    assert seen == ["Vlan10"]


def test_a_consumer_of_the_upstreams_output_waits_for_its_announcement_and_pops_it(dbs, raw):
    handled = []
    runner = Runner("orchagent", strict=True, retry_interval=0.05)
    progress = Progress(dbs, runner, "orchagent", upstream="cfgmgrd")
    source = ConsumerStateTable(dbs["APPL_DB"], "VLAN_TABLE")
    runner.add_consumer(TableConsumer("APPL_DB", "VLAN_TABLE", source, lambda t: (handled.append(t.key),
                                                                                  Result.success())[1]))
    ConfigDBConnector(dbs["CONFIG_DB"]).apply([RowChange("VLAN", "Vlan20", "replace", {"vlanid": "20"})])
    generation = int(raw(4).get("NOS_CONFIG_GENERATION"))
    for _ in range(20):
        runner.step(max_wait=0.01)
    assert config_gen(raw, "orchagent") < generation  # cfgmgrd has not said it wrote its part
    # cfgmgrd writes its output, records and announces the generation
    ProducerStateTable(dbs["APPL_DB"], "VLAN_TABLE").set("Vlan20", {"mtu": "9100"})
    raw(6).hset("NOS_DAEMON_TABLE|cfgmgrd", "config_gen", str(generation))
    raw(6).publish("NOS_PROGRESS", f"cfgmgrd {generation}")
    wait_until(lambda: (runner.step(max_wait=0.02), config_gen(raw, "orchagent") == generation)[1])
    assert handled == ["Vlan20"] and progress.synced == generation


def test_the_waiter_names_the_first_hop_that_lags(dbs, raw):
    raw(4).set("NOS_CONFIG_GENERATION", "7")
    raw(6).hset("NOS_DAEMON_TABLE|cfgmgrd", mapping={"config_gen": "7", "status": "running"})
    raw(6).hset("NOS_DAEMON_TABLE|orchagent", mapping={"status": "running"})  # there, nothing recorded
    with pytest.raises(NotApplied, match="orchagent has not processed any yet"):
        wait_applied(dbs, timeout=0.2)
    raw(6).hset("NOS_DAEMON_TABLE|orchagent", "config_gen", "6")
    with pytest.raises(NotApplied, match="orchagent has processed generation 6"):
        wait_applied(dbs, timeout=0.2)
    raw(6).hset("NOS_DAEMON_TABLE|orchagent", "config_gen", "7")
    assert wait_applied(dbs, timeout=0.2).hops == {"cfgmgrd": 7, "orchagent": 7}
