"""A subscription read never mistakes a message that arrived in part for a lost connection."""

from __future__ import annotations

import threading
import time

from nos.db import Databases
from nos.db.subscription import Subscription
from nos.schema.dbconfig import APPL_DB

BIG = 8 * 1024 * 1024  # far beyond a socket buffer, so it reaches the reader in several parts


def test_drain_survives_a_message_split_across_socket_reads(dbs: Databases) -> None:
    db = dbs[APPL_DB]
    sub = Subscription(db)
    sub.subscribe(channels=["nos-test-big"])
    payloads = ["x" * BIG, "y" * BIG, "z" * BIG]
    publisher = threading.Thread(target=lambda: [db.client.publish("nos-test-big", p) for p in payloads])
    publisher.start()
    got: list[str] = []
    polls = 0
    deadline = time.monotonic() + 30.0
    try:
        while len(got) < len(payloads) and time.monotonic() < deadline:
            got.extend(m.data for m in sub.drain())  # never blocks: sees each message in parts
            polls += 1
    finally:
        publisher.join()
        sub.close()
    assert [len(p) for p in got] == [BIG] * 3
    assert [p[0] for p in got] == ["x", "y", "z"]
    assert polls > 3


def test_drain_returns_channel_and_pattern_messages_in_order_and_skips_other_replies(dbs: Databases) -> None:
    db = dbs[APPL_DB]
    sub = Subscription(db)
    sub.subscribe(channels=["nos-test-plain"], patterns=[f"__keyspace@{db.id}__:NOS_TEST_SUB|*"])
    try:
        db.client.publish("nos-test-plain", "one")
        db.client.hset("NOS_TEST_SUB|a", "f", "v")
        sub._pubsub.ping()  # a pong on the same connection: redis-py's own handling, not a message
        db.client.publish("nos-test-plain", "two")
        got = []
        deadline = time.monotonic() + 5.0
        while len(got) < 3 and time.monotonic() < deadline:
            got += sub.drain()
        assert [(m.channel, m.data, m.pattern) for m in got] == [
            ("nos-test-plain", "one", None),
            (f"__keyspace@{db.id}__:NOS_TEST_SUB|a", "hset", f"__keyspace@{db.id}__:NOS_TEST_SUB|*"),
            ("nos-test-plain", "two", None)]
        assert sub.drain() == []
    finally:
        db.client.delete("NOS_TEST_SUB|a")
        sub.close()
