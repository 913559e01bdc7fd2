"""Waiting out a fresh switch's post-boot work before a benchmark measures it: what ``nos up`` calls
ready still has orchagent creating the ports' buffers and QoS for ~2 s, and the first poll of the 10 s
flex counter groups (queues, PGs) writes ~2,000 COUNTERS hashes ~8 s after it. Benchmarks of a running
switch measure its steady state; ``bench.boot`` measures the boot.
"""

from __future__ import annotations

import time

import redis

COUNTS_HASH = "NOS_SYNCD_OBJECT_COUNTS"  # syncd_sim's object counts per type (ASIC_DB)
SETTLE_S = 1.0  # no ASIC object created or removed for this long: orchagent's post-boot work is done


def settled(asic: redis.Redis, quiet_s: float = SETTLE_S, timeout: float = 300.0) -> None:
    """Wait until syncd_sim's object counts have not moved for ``quiet_s``: orchagent has finished what
    the boot and the configuration asked of it (``ready`` does not wait for the ports' buffers and QoS)."""
    last, since = asic.hgetall(COUNTS_HASH), time.monotonic()
    deadline = since + timeout
    while time.monotonic() - since < quiet_s:
        if time.monotonic() > deadline:
            raise RuntimeError("the switch never settled")
        time.sleep(0.05)
        now = asic.hgetall(COUNTS_HASH)
        if now != last:
            last, since = now, time.monotonic()


def settle(url: str, timeout: float = 30.0) -> None:
    """Wait out a fresh switch's post-boot work, which ``bench.boot`` measures: orchagent's buffers and QoS
    (ASIC object counts still for a second) and the first poll of the 10 s flex counter groups (every
    queue and PG has its ``COUNTERS`` hash; that poll writes ~2,000 hashes ~8 s after ``nos up``)."""
    asic = redis.Redis.from_url(url, db=1, decode_responses=True)
    settled(asic)
    asic.close()
    counters = redis.Redis.from_url(url, db=2, decode_responses=True)
    try:
        deadline = time.monotonic() + timeout
        for name_map in ("COUNTERS_QUEUE_NAME_MAP", "COUNTERS_PG_NAME_MAP"):
            oids = list(counters.hgetall(name_map).values())
            while not all(exist(counters, [f"COUNTERS:{oid}" for oid in oids])):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the first poll of {name_map}'s counters never came")
                time.sleep(0.1)
    finally:
        counters.close()


def exist(client: redis.Redis, keys: list[str]) -> list[bool]:
    """Whether each key exists (one pipelined round trip)."""
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.exists(key)
    return [bool(found) for found in pipe.execute()]
