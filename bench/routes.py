"""Route programming: APPL_DB ROUTE_TABLE -> orchagent -> syncd_sim ASIC_DB, routes per second.

One run starts a whole switch (``nos up -d``), routes ``ports`` ports through CONFIG_DB (admin up,
``INTERFACE|EthernetN|10.0.i.0/31``, a static ``NEIGH`` peer 10.0.i.1 each), waits until the peers
are next hops in ASIC_DB and the switch has settled (``bench.settle``: orchagent's post-boot buffers and
QoS and the first poll of the 10 s counter groups are done; a routing table arrives at a switch that has
booted), then writes ``n`` IPv4 /24 routes into APPL_DB ROUTE_TABLE with a buffered
ProducerStateTable (as fpmsyncd does), spread over ``sets`` distinct ECMP next-hop sets of 2-8 next
hops. The clock runs from the first write until syncd_sim's object count (ASIC_DB
``NOS_SYNCD_OBJECT_COUNTS``) shows every route created; no ROUTE_TABLE key may be rejected
(STATE_DB ``NOS_REJECTED_TABLE``). The raw Redis rate (pipelined HSET of the same keys and fields) is
measured on the same server in the same run, as the reference.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import redis

from bench.settle import COUNTS_HASH, settle
from nos.db import ProducerStateTable, Table
from nos.db.connector import Databases
from nos.runtime.rundir import RunDir

SKU = "NOS-SIM-128x400G"
SETS = 2000  # distinct ECMP next-hop sets ("a few thousand"): within the SKU's 4096 groups (asic.json)
BATCH = 128
TIMEOUT_S = 300.0


@dataclass(frozen=True)
class RouteRun:
    routes: int
    seconds: float
    raw_hset_per_s: float
    groups: int

    @property
    def per_s(self) -> float:
        return self.routes / self.seconds


def peers(ports: int) -> list[tuple[str, str]]:
    """(interface, peer address) of each routed port."""
    return [(f"Ethernet{4 * i}", f"10.0.{i}.1") for i in range(ports)]


def route_rows(n: int, ports: int, sets: int, seed: int) -> list[tuple[str, dict[str, str]]]:
    """``n`` /24 routes over ``sets`` distinct next-hop sets of 2-8 of the peers (seeded)."""
    rng = random.Random(seed)
    links = peers(ports)
    choices: list[dict[str, str]] = []
    seen: set[tuple[int, ...]] = set()
    while len(choices) < sets:
        picked = tuple(sorted(rng.sample(range(ports), rng.randint(2, min(8, ports)))))
        if picked not in seen:
            seen.add(picked)
            choices.append({"nexthop": ",".join(links[p][1] for p in picked),
                            "ifname": ",".join(links[p][0] for p in picked), "protocol": "bgp"})
    return [(f"{100 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}.0/24", choices[i % sets]) for i in range(n)]


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = TIMEOUT_S, interval: float = 0.005) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(interval)


def configure(dbs: Databases, ports: int) -> None:
    """Routed ports with one static peer each, written to CONFIG_DB as a user would."""
    tables = {name: Table(dbs["CONFIG_DB"], name) for name in ("PORT", "INTERFACE", "NEIGH")}
    for i, (port, peer) in enumerate(peers(ports)):
        tables["PORT"].set(port, {"admin_status": "up"})
        tables["INTERFACE"].set(port, {"NULL": "NULL"})
        tables["INTERFACE"].set(f"{port}|10.0.{i}.0/31", {"NULL": "NULL"})
        tables["NEIGH"].set(f"{port}|{peer}", {"neigh": f"52:54:00:00:{i >> 8:02x}:{i & 255:02x}", "family": "IPv4"})


def count(asic: redis.Redis, object_type: str) -> int:
    return int(asic.hget(COUNTS_HASH, f"SAI_OBJECT_TYPE_{object_type}") or 0)


def raw_hset_rate(client: redis.Redis, rows: list[tuple[str, dict[str, str]]]) -> float:
    """Pipelined HSET of the same keys and fields (flushed every BATCH), then cleaned up."""
    start = time.monotonic()
    pipe = client.pipeline(transaction=False)
    for i, (key, fields) in enumerate(rows):
        pipe.hset(f"NOS_BENCH_RAW:{key}", mapping=fields)
        if (i + 1) % BATCH == 0:
            pipe.execute()
    pipe.execute()
    elapsed = time.monotonic() - start
    keys = [f"NOS_BENCH_RAW:{key}" for key, _ in rows]
    for i in range(0, len(keys), 1000):
        client.delete(*keys[i:i + 1000])
    return len(rows) / elapsed


def program_routes(url: str, n: int, ports: int, sets: int, seed: int, quiet: bool = True) -> RouteRun:
    """Configure, let the switch settle, write the routes, time them into ASIC_DB (the switch at ``url``
    is running)."""
    dbs = Databases(url)
    asic = redis.Redis.from_url(url, db=1, decode_responses=True)
    try:
        configure(dbs, ports)
        wait_for(lambda: count(asic, "NEXT_HOP") >= ports, f"{ports} next hops in ASIC_DB")
        if quiet:
            settle(url)
        rows = route_rows(n, ports, sets, seed)
        baseline, groups = count(asic, "ROUTE_ENTRY"), count(asic, "NEXT_HOP_GROUP")
        producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE", buffered=True)
        start = time.monotonic()
        for i in range(0, n, BATCH):
            producer.set_many(rows[i:i + BATCH])
        producer.flush()
        wait_for(lambda: count(asic, "ROUTE_ENTRY") >= baseline + n, f"{n} routes in ASIC_DB")
        seconds = time.monotonic() - start
        state = redis.Redis.from_url(url, db=6, decode_responses=True)
        rejected = list(state.scan_iter("NOS_REJECTED_TABLE|APPL_DB:ROUTE_TABLE:*", count=1000))
        state.close()
        if rejected:
            raise RuntimeError(f"{len(rejected)} routes rejected, e.g. {rejected[0]}")
        made = count(asic, "NEXT_HOP_GROUP") - groups
        appl = redis.Redis.from_url(url, db=0, decode_responses=True)
        raw = raw_hset_rate(appl, rows)
        appl.close()
        return RouteRun(n, seconds, raw, made)
    finally:
        asic.close()
        dbs.close()


def route_run(n: int = 100_000, ports: int = 32, sets: int = SETS, seed: int = 0, sku: str = SKU) -> RouteRun:
    """One run on a fresh switch started for it (and stopped after)."""
    with tempfile.TemporaryDirectory(prefix="nos-bench-routes-") as tmp:
        nos = [sys.executable, "-m", "nos.cli.main"]
        subprocess.run([*nos, "up", "-d", "--sku", sku, "--run-dir", tmp, "--rest-port", "0", "--redis-port", "0"],
                       check=True, capture_output=True)
        try:
            endpoints = RunDir(Path(tmp)).endpoints() or {}
            return program_routes(endpoints["redis"], n, ports, sets, seed)
        finally:
            subprocess.run([*nos, "down", "--run-dir", tmp], check=True, capture_output=True)


if __name__ == "__main__":
    result = route_run(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    print(f"{result.routes} routes in {result.seconds:.2f} s = {result.per_s:,.0f} routes/s "
          f"({result.groups} groups); raw HSET {result.raw_hset_per_s:,.0f}/s")
