"""NotificationProducer/Consumer: JSON [op, data, f, v, ...] on a plain channel."""

from __future__ import annotations

import pytest

from nos.db import Notification, NotificationConsumer, NotificationProducer

pytestmark = pytest.mark.integration


def test_payload_is_swss_json_array(dbs, raw):
    watcher = raw(1).pubsub(ignore_subscribe_messages=True)
    watcher.subscribe("NOTIFICATIONS")
    watcher.get_message(timeout=1)
    producer = NotificationProducer(dbs["ASIC_DB"], "NOTIFICATIONS")
    data = '[{"port_id":"oid:0x1000000000002","port_state":"SAI_PORT_OPER_STATUS_UP"}]'

    receivers = producer.send("port_state_change", data, {"extra": "1"})

    assert receivers == 1
    msg = watcher.get_message(timeout=1)
    assert msg["channel"] == "NOTIFICATIONS"
    assert msg["data"] == '["port_state_change","[{\\"port_id\\":\\"oid:0x1000000000002\\",' \
        '\\"port_state\\":\\"SAI_PORT_OPER_STATUS_UP\\"}]","extra","1"]'


def test_consumer_receives_and_filters_ops(dbs):
    consumer = NotificationConsumer(dbs["ASIC_DB"], "NOTIFICATIONS", ops=["fdb_event"])
    producer = NotificationProducer(dbs["ASIC_DB"], "NOTIFICATIONS")
    producer.send("port_state_change", "[]")
    producer.send("fdb_event", "[1]", {"a": "b"})
    assert consumer.wait(1.0) == [Notification("fdb_event", "[1]", (("a", "b"),))]


def test_malformed_payload_is_skipped_not_fatal(dbs, raw):
    consumer = NotificationConsumer(dbs["APPL_DB"], "PFC_WD_ACTION")
    raw(0).publish("PFC_WD_ACTION", "not json at all")
    raw(0).publish("PFC_WD_ACTION", '["oid:0x15000000000001","storm"]')
    assert consumer.wait(1.0) == [Notification("oid:0x15000000000001", "storm")]
