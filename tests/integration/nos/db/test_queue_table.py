"""ProducerTable / ConsumerTable (the ASIC_STATE and GETRESPONSE queues) against a real redis-server:
order, garbage on the queue, and the in-flight copy a killed consumer finds again."""

from __future__ import annotations

import pytest

from nos.db.queue_table import ConsumerTable, ProducerTable

pytestmark = pytest.mark.integration


def test_operations_come_out_in_order_with_their_fields(dbs):
    producer, consumer = ProducerTable(dbs["ASIC_DB"], "ASIC_STATE"), ConsumerTable(dbs["ASIC_DB"], "ASIC_STATE")
    producer.send([("SAI_OBJECT_TYPE_PORT:oid:0x1", "create", (("A", "1"),)), ("K2", "remove", ())])
    got = consumer.pops()
    assert [(op.key, op.op, op.fvs, op.error) for op in got] == [
        ("SAI_OBJECT_TYPE_PORT:oid:0x1", "create", (("A", "1"),), ""), ("K2", "remove", (), "")]


def test_an_element_that_is_not_a_whole_operation_is_reported_and_the_queue_realigns(dbs, raw):
    asic = raw(1)
    producer, consumer = ProducerTable(dbs["ASIC_DB"], "ASIC_STATE"), ConsumerTable(dbs["ASIC_DB"], "ASIC_STATE")
    producer.send([("first", "create", (("A", "1"),))])
    asic.lpush("ASIC_STATE_KEY_VALUE_OP_QUEUE", "garbage")           # one stray element
    asic.lpush("ASIC_STATE_KEY_VALUE_OP_QUEUE", "k", "[not json", "Screate")  # a triple whose value is not JSON
    producer.send([("last", "set", (("B", "2"),))])
    got = consumer.pops()
    assert [op.key for op in got] == ["first", "", "k", "last"]
    assert got[1].error.startswith("not an operation") and "garbage" in got[1].error
    assert "not JSON" in got[2].error and got[2].fvs == ()
    assert got[3].fvs == (("B", "2"),) and not got[3].error
    assert asic.llen("ASIC_STATE_KEY_VALUE_OP_QUEUE") == 0


def test_a_value_of_the_wrong_shape_is_an_error_not_an_exception(dbs, raw):
    raw(1).lpush("ASIC_STATE_KEY_VALUE_OP_QUEUE", "k", '["odd"]', "Screate", "k2", '[1, 2]', "Sset")
    got = ConsumerTable(dbs["ASIC_DB"], "ASIC_STATE").pops()
    assert all(op.error for op in got) and [op.key for op in got] == ["k", "k2"]


def test_popped_operations_wait_in_the_inflight_list_until_the_consumer_deletes_it(dbs, raw):
    producer = ProducerTable(dbs["ASIC_DB"], "ASIC_STATE")
    consumer = ConsumerTable(dbs["ASIC_DB"], "ASIC_STATE", inflight="INFLIGHT")
    producer.send([("a", "create", (("A", "1"),)), ("b", "create", (("B", "2"),))])
    assert [op.key for op in consumer.pops()] == ["a", "b"]
    # killed here: the successor finds the batch again, in order
    successor = ConsumerTable(dbs["ASIC_DB"], "ASIC_STATE", inflight="INFLIGHT")
    assert [(op.key, op.fvs) for op in successor.recover()] == [("a", (("A", "1"),)), ("b", (("B", "2"),))]
    raw(1).delete("INFLIGHT")
    assert successor.recover() == [] and successor.pops() == []
