"""ProducerStateTable / ConsumerStateTable against a real redis-server: swss-common's exact wire format."""

from __future__ import annotations

import pytest

from nos.db import ConsumerStateTable, KeyOpFieldsValues, ProducerStateTable, Select
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def channel_messages(pubsub):
    out = []
    while (msg := pubsub.get_message(timeout=0.2)) is not None:
        if msg["type"] == "message":
            out.append((msg["channel"], msg["data"]))
    return out


def test_producer_set_writes_key_set_state_hash_and_publishes_g(dbs, raw):
    appl = raw(0)
    watcher = appl.pubsub(ignore_subscribe_messages=True)
    watcher.subscribe("ROUTE_TABLE_CHANNEL@0")
    watcher.get_message(timeout=1)  # subscribe confirmation
    producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE")

    producer.set("10.1.0.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0"})

    assert appl.smembers("ROUTE_TABLE_KEY_SET") == {"10.1.0.0/24"}
    assert appl.hgetall("_ROUTE_TABLE:10.1.0.0/24") == {"nexthop": "10.0.0.1", "ifname": "Ethernet0"}
    assert not appl.exists("ROUTE_TABLE:10.1.0.0/24")
    assert channel_messages(watcher) == [("ROUTE_TABLE_CHANNEL@0", "G")]

    # a second set of a key already pending merges fields and publishes nothing
    producer.set("10.1.0.0/24", {"protocol": "bgp"})
    assert appl.hgetall("_ROUTE_TABLE:10.1.0.0/24")["protocol"] == "bgp"
    assert channel_messages(watcher) == []


def test_producer_del_uses_del_set_and_drops_pending_fields(dbs, raw):
    appl = raw(0)
    producer = ProducerStateTable(dbs["APPL_DB"], "VLAN_TABLE")
    producer.set("Vlan100", {"admin_status": "up"})
    producer.delete("Vlan100")
    assert appl.smembers("VLAN_TABLE_KEY_SET") == {"Vlan100"}
    assert appl.smembers("VLAN_TABLE_DEL_SET") == {"Vlan100"}
    assert not appl.exists("_VLAN_TABLE:Vlan100")


def test_consumer_pops_moves_fields_into_the_row(dbs, raw):
    appl = raw(0)
    producer = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    consumer = ConsumerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    producer.set("Ethernet0", {"speed": "400000", "mtu": "9100"})

    popped = consumer.pops()

    assert popped == [KeyOpFieldsValues.set("Ethernet0", {"speed": "400000", "mtu": "9100"})]
    assert appl.hgetall("PORT_TABLE:Ethernet0") == {"speed": "400000", "mtu": "9100"}
    assert not appl.exists("_PORT_TABLE:Ethernet0")
    assert appl.scard("PORT_TABLE_KEY_SET") == 0
    assert consumer.pops() == []


def test_set_then_set_merges_and_del_then_set_gives_del_then_set(dbs, raw):
    appl = raw(0)
    producer = ProducerStateTable(dbs["APPL_DB"], "INTF_TABLE")
    consumer = ConsumerStateTable(dbs["APPL_DB"], "INTF_TABLE")
    producer.set("Ethernet0", {"vrf_name": "Vrf1", "mtu": "9100"})
    consumer.pops()

    producer.delete("Ethernet0")
    producer.set("Ethernet0", {"mtu": "1500"})
    popped = consumer.pops()

    assert [p.op for p in popped] == ["DEL", "SET"]
    assert popped[1].fields == {"mtu": "1500"}
    # the delete cleared the row first: the old vrf_name is gone
    assert appl.hgetall("INTF_TABLE:Ethernet0") == {"mtu": "1500"}


def test_pop_script_answers_one_flat_array(dbs):
    """key, n, then n field/value strings per entry; no nested arrays (Redis 6.2 writes every nested Lua
    table of a reply with a write(2) of its own: ~3 syscalls per popped key)."""
    producer = ProducerStateTable(dbs["APPL_DB"], "NEIGH_TABLE")
    consumer = ConsumerStateTable(dbs["APPL_DB"], "NEIGH_TABLE")
    producer.set("Vlan100:10.0.0.1", {"neigh": "52:54:00:00:00:01", "family": "IPv4"})
    consumer.pops()
    producer.delete("Vlan100:10.0.0.1")
    producer.set("Vlan100:10.0.0.1", {"family": "IPv4"})

    reply = consumer._pop_now()

    assert reply == ["Vlan100:10.0.0.1", 0, "Vlan100:10.0.0.1", 2, "family", "IPv4"]
    assert consumer._parse(reply) == ([KeyOpFieldsValues.delete("Vlan100:10.0.0.1"),
                                       KeyOpFieldsValues("Vlan100:10.0.0.1", "SET", (("family", "IPv4"),))], [])


def test_set_then_del_gives_del(dbs, raw):
    producer = ProducerStateTable(dbs["APPL_DB"], "LAG_TABLE")
    consumer = ConsumerStateTable(dbs["APPL_DB"], "LAG_TABLE")
    producer.set("PortChannel1", {"mtu": "9100"})
    producer.delete("PortChannel1")
    assert consumer.pops() == [KeyOpFieldsValues.delete("PortChannel1")]
    assert not raw(0).exists("LAG_TABLE:PortChannel1")


def test_pops_are_batched_at_128_and_work_stays_flagged(dbs):
    producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE", buffered=True)
    consumer = ConsumerStateTable(dbs["APPL_DB"], "ROUTE_TABLE")
    producer.set_many([(f"10.0.{i}.0/24", {"nexthop": "10.0.0.1"}) for i in range(300)])
    producer.flush()
    select = Select()
    select.add(consumer)

    sizes = []
    while select.select(timeout=1.0):
        sizes.append(len(consumer.pops()))
    assert sizes == [128, 128, 44]
    assert not consumer.has_work()


def test_prefetch_pops_the_next_full_batch_early_and_loses_nothing(dbs, raw):
    """A full pop sends the next one at once: when the reader comes back, that batch has already left
    the key set and is in the table; every key comes out exactly once, with its latest fields."""
    producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE", buffered=True)
    consumer = ConsumerStateTable(dbs["APPL_DB"], "ROUTE_TABLE", prefetch=True)
    producer.set_many([(f"10.0.{i}.0/24", {"nexthop": "10.0.0.1"}) for i in range(300)])
    producer.flush()
    first = consumer.pops()
    assert len(first) == 128
    appl = raw(0)
    wait_until(lambda: appl.scard("ROUTE_TABLE_KEY_SET") == 300 - 256, 3.0)  # the second pop ran meanwhile
    popped = {k.key for k in first}
    late = next(f"10.0.{i}.0/24" for i in range(300) if f"10.0.{i}.0/24" not in popped)
    producer.set(late, {"nexthop": "10.0.0.9"})                # popped by now or still pending: not lost
    producer.flush()
    appl.script_flush()          # the third pop (sent by the next pops) meets NOSCRIPT and is made again
    second = consumer.pops()
    assert len(second) == 128
    rest = []
    while consumer.has_work():
        rest += consumer.pops()
    assert {k.key for k in first + second + rest} == {f"10.0.{i}.0/24" for i in range(300)}
    assert len(first + second + rest) in (300, 301)             # the late key once more if popped before
    assert [k.fvs for k in second + rest if k.key == late][-1] == (("nexthop", "10.0.0.9"),)
    assert not consumer.has_work() and consumer.pops() == []
    assert appl.hgetall(f"ROUTE_TABLE:{late}") == {"nexthop": "10.0.0.9"}
    consumer.close()


def test_consumer_started_after_producer_sees_pending_keys(dbs):
    producer = ProducerStateTable(dbs["APPL_DB"], "NEIGH_TABLE")
    producer.set("Ethernet0:10.0.0.1", {"neigh": "00:11:22:33:44:55", "family": "IPv4"})
    consumer = ConsumerStateTable(dbs["APPL_DB"], "NEIGH_TABLE")
    assert consumer.has_work()
    assert [p.key for p in consumer.pops()] == ["Ethernet0:10.0.0.1"]


def test_select_wakes_on_publish_from_another_connection(dbs, raw):
    consumer = ConsumerStateTable(dbs["APPL_DB"], "FDB_TABLE")
    select = Select()
    select.add(consumer)
    assert select.select(timeout=0.05) == []
    # a foreign producer speaking the raw protocol (as the conformance runner does)
    appl = raw(0)
    pipe = appl.pipeline(transaction=True)
    pipe.hset("_FDB_TABLE:Vlan2:52:54:00:25:06:e9", mapping={"port": "Ethernet0", "type": "dynamic"})
    pipe.sadd("FDB_TABLE_KEY_SET", "Vlan2:52:54:00:25:06:e9")
    pipe.publish("FDB_TABLE_CHANNEL@0", "G")
    pipe.execute()
    assert wait_until(lambda: select.select(timeout=0.5)) == [consumer]
    assert consumer.pops()[0].fields == {"port": "Ethernet0", "type": "dynamic"}


def test_empty_set_is_refused_by_producer(dbs):
    producer = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    with pytest.raises(ValueError, match="at least one field"):
        producer.set("Ethernet0", {})


def test_clear_and_count(dbs, raw):
    producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE")
    producer.set("a", {"x": "1"})
    producer.delete("b")
    assert producer.count() == 2
    producer.clear()
    appl = raw(0)
    assert producer.count() == 0
    assert not appl.exists("ROUTE_TABLE_DEL_SET") and not appl.exists("_ROUTE_TABLE:a")
