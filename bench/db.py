"""Database layer: ProducerStateTable -> ConsumerStateTable keys/s against raw pipelined HSET.

Both are measured on the same redis-server in the same run. The state-table figure is end to end:
from the producer's first write to the consumer process having popped the last key.
"""

from __future__ import annotations

import subprocess
import sys
import time

import redis

from nos.db import ProducerStateTable
from nos.db.connector import Databases

FIELDS = {"nexthop": "10.0.0.1", "ifname": "Ethernet0"}
BATCH = 128


def keys(n: int, run: int) -> list[str]:
    return [f"10.{run}.{i // 256 % 256}.{i % 256}/32#{i}" for i in range(n)]


def raw_hset_rate(url: str, n: int, run: int) -> float:
    client = redis.Redis.from_url(url, db=0)
    client.flushdb()
    start = time.monotonic()
    pipe = client.pipeline(transaction=False)
    for i, key in enumerate(keys(n, run)):
        pipe.hset(f"ROUTE_TABLE:{key}", mapping=FIELDS)
        if (i + 1) % BATCH == 0:
            pipe.execute()
    pipe.execute()
    elapsed = time.monotonic() - start
    client.flushdb()
    client.close()
    return n / elapsed


def state_table_rate(url: str, n: int, run: int) -> float:
    table = f"BENCH{run}_TABLE"
    consumer = subprocess.Popen(
        [sys.executable, "-m", "bench.db_consumer", "--redis", url, "--table", table, "--count", str(n)],
        stdout=subprocess.PIPE, text=True)
    assert consumer.stdout is not None
    if consumer.stdout.readline().strip() != "ready":
        raise RuntimeError("benchmark consumer did not start")
    dbs = Databases(url)
    producer = ProducerStateTable(dbs["APPL_DB"], table, buffered=True)
    all_keys = keys(n, run)
    start = time.monotonic()
    for i in range(0, n, BATCH):
        producer.set_many([(key, FIELDS) for key in all_keys[i:i + BATCH]])
    producer.flush()
    line = consumer.stdout.readline().split()
    consumer.wait(30)
    dbs.close()
    if not line or line[0] != "done":
        raise RuntimeError(f"benchmark consumer failed: {line}")
    return n / (float(line[1]) - start)
