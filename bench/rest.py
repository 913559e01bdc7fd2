"""REST API benchmarks on a whole 128 x 400G switch (``nos up -d``), medians and p99 over many samples.

* ``counters``: ``GET /api/v1/counters/interfaces`` (all 128 ports, ~100 SAI stats each) from 50
  concurrent keep-alive clients, closed loop (each sends its next request when the last answer is in),
  and, as a second figure, 50 clients each polling at a fixed rate (open loop, what 50 collectors do).
  Clients send ``Accept-Encoding: gzip`` as httpx and requests do; a sample ends when the whole body is
  received (not parsed). If syncd_sim has not written port counters, the bench writes ~100 stats per
  port itself (``counters_source`` says which).
* ``health_rtt``: ``GET /api/v1/health`` on the same server with the same client as the patches: the bare
  loopback HTTP round trip.
* ``patch_one``: a one-field JSON Patch (a port's mtu), after a few unmeasured ones: accepted (the response
  is in, so CONFIG_DB is committed) and applied (ASIC_DB ``ASIC_STATE`` shows ``SAI_PORT_ATTR_MTU``, seen by a keyspace
  notification and confirmed with HGET).
* ``patch_all``: one JSON Patch changing the mtu of all 128 ports, until every port's ASIC_STATE shows it.

Every figure is taken once the fresh switch has finished its post-boot work (``settle``): steady state,
not boot, which ``bench.boot`` measures. The clients are Python on the same two cores as the switch:
they take CPU from the server, so the figures are upper bounds. ``run_once()`` takes every figure on
one fresh switch; ``run()`` does that on three (``--runs`` in ``python -m bench``) and reports each
figure's median over them, every run's ratio printed beside it (on two shared cores one run's p99
moves by up to 2x). Targets are printed, not asserted.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import redis

from bench.settle import exist, settle
from bench.stats import median_at

SKU = "NOS-SIM-128x400G"
MTU_OVERHEAD = 22  # SAI_PORT_ATTR_MTU = mtu + Ethernet header, FCS and one VLAN tag (portsorch)
NOS = [sys.executable, "-m", "nos.cli.main"]
WARMUP_PATCHES = 5
TARGETS = {"counters_p99_ms": 20.0, "accepted_p99_x_rtt": 5.0, "applied_p99_ms": 20.0, "all_ports_applied_ms": 50.0}
_SIZES = ("64", "65_TO_127", "128_TO_255", "256_TO_511", "512_TO_1023", "1024_TO_1518", "1519_TO_2047",
          "2048_TO_4095", "4096_TO_9216", "9217_TO_16383")


def summary(seconds: list[float]) -> dict[str, float]:
    """n, p50, p99 and max in milliseconds."""
    ordered = sorted(seconds)
    return {"n": len(ordered), "p50_ms": 1e3 * statistics.median(ordered),
            "p99_ms": 1e3 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], "max_ms": 1e3 * ordered[-1]}


@contextmanager
def running_switch(sku: str = SKU) -> Iterator[dict[str, str]]:
    """A fresh switch in a temporary run directory; yields its endpoints."""
    with tempfile.TemporaryDirectory(prefix="nos-bench-rest-") as tmp:
        subprocess.run([*NOS, "up", "-d", "--sku", sku, "--run-dir", tmp, "--rest-port", "0", "--redis-port", "0"],
                       check=True, capture_output=True)
        try:
            endpoints = json.loads((Path(tmp) / "endpoints.json").read_text())
            settle(endpoints["redis"])
            yield endpoints
        finally:
            subprocess.run([*NOS, "down", "--run-dir", tmp], capture_output=True)


# ---- counters -------------------------------------------------------------------------------------

def port_stat_names() -> list[str]:
    """About the stats SONiC's port flex counter group reads (portsorch's port_stat_ids), ~100 names."""
    names = ["IF_IN_OCTETS", "IF_IN_UCAST_PKTS", "IF_IN_NON_UCAST_PKTS", "IF_IN_DISCARDS", "IF_IN_ERRORS",
             "IF_IN_UNKNOWN_PROTOS", "IF_OUT_OCTETS", "IF_OUT_UCAST_PKTS", "IF_OUT_NON_UCAST_PKTS", "IF_OUT_DISCARDS",
             "IF_OUT_ERRORS", "IF_OUT_QLEN", "IF_IN_MULTICAST_PKTS", "IF_IN_BROADCAST_PKTS", "IF_OUT_MULTICAST_PKTS",
             "IF_OUT_BROADCAST_PKTS", "ETHER_RX_OVERSIZE_PKTS", "ETHER_TX_OVERSIZE_PKTS", "PAUSE_RX_PKTS",
             "PAUSE_TX_PKTS", "IN_DROPPED_PKTS", "OUT_DROPPED_PKTS", "IF_IN_FEC_CORRECTABLE_FRAMES",
             "IF_IN_FEC_NOT_CORRECTABLE_FRAMES", "IF_IN_FEC_SYMBOL_ERRORS", "WRED_DROPPED_PACKETS"]
    names += [f"ETHER_{d}_PKTS_{s}_OCTETS" for d in ("IN", "OUT") for s in _SIZES]
    names += [f"PFC_{p}_{d}_PKTS" for d in ("RX", "TX") for p in range(8)]
    names += [f"PFC_{p}_{d}_PAUSE_DURATION_US" for d in ("RX", "TX") for p in range(8)]
    names += [f"IF_IN_FEC_CODEWORD_ERRORS_S{i}" for i in range(16)]
    return ["SAI_PORT_STAT_" + name for name in names]


def ensure_counters(url: str, wait_s: float = 3.0) -> str:
    """``syncd_sim`` when it wrote every port's counters within ``wait_s``; else write them ("seeded")."""
    client = redis.Redis.from_url(url, db=2, decode_responses=True)
    try:
        oids = client.hgetall("COUNTERS_PORT_NAME_MAP")
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if all(exist(client, [f"COUNTERS:{oid}" for oid in oids.values()])):
                return "syncd_sim"
            time.sleep(0.1)
        rng = random.Random(0)
        pipe = client.pipeline(transaction=False)
        for oid in oids.values():
            pipe.hset(f"COUNTERS:{oid}", mapping={n: str(rng.randrange(10**12)) for n in port_stat_names()})
        pipe.execute()
        return "seeded"
    finally:
        client.close()


async def _get_loop(host: str, port: int, path: str, requests: int, delays: list[float], out: list[float],
                    start: asyncio.Event) -> None:
    """One keep-alive client: ``requests`` GETs, waiting ``delays[i]`` before each (0 = closed loop)."""
    reader, writer = await asyncio.open_connection(host, port)
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip\r\n\r\n".encode()
    await start.wait()
    next_at = time.perf_counter()
    for i in range(requests):
        next_at += delays[i]
        if delays[i]:
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        sent = time.perf_counter()
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length"))
        await reader.readexactly(length)
        out.append(time.perf_counter() - sent)
    writer.close()


async def _load(base: str, path: str, clients: int, requests: int, rate_hz: float) -> tuple[list[float], float]:
    parts = urlsplit(base)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    rng = random.Random(1)
    out: list[float] = []
    start = asyncio.Event()
    tasks = []
    for _ in range(clients):
        delays = [rng.expovariate(rate_hz) if rate_hz else 0.0 for _ in range(requests)]
        tasks.append(asyncio.create_task(_get_loop(host, port, path, requests, delays, out, start)))
    await asyncio.sleep(0.2)  # every connection open
    began = time.perf_counter()
    start.set()
    await asyncio.gather(*tasks)
    return out, time.perf_counter() - began


def get_load(base: str, path: str, clients: int = 50, requests: int = 40, rate_hz: float = 0.0) -> dict[str, float]:
    """Latency of ``path`` under ``clients`` clients: closed loop (``rate_hz`` 0) or Poisson at ``rate_hz`` each."""
    asyncio.run(_load(base, path, clients, 2, rate_hz))  # warm up (first build of kept bodies, connections)
    samples, elapsed = asyncio.run(_load(base, path, clients, requests, rate_hz))
    return {**summary(samples), "requests_per_s": len(samples) / elapsed, "clients": clients, "rate_hz": rate_hz}


# ---- round trip and patches -----------------------------------------------------------------------

class Client:
    """One keep-alive HTTP/1.1 connection (http.client sets TCP_NODELAY)."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=30)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json-patch+json"} if payload else {}
        self.conn.request(method, path, body=payload, headers=headers)
        reply = self.conn.getresponse()
        return reply.status, reply.read()

    def close(self) -> None:
        self.conn.close()


def health_samples(client: Client, n: int) -> list[float]:
    """``n`` bare round trips (``GET /api/v1/health``), in seconds."""
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        status, _ = client.request("GET", "/api/v1/health")
        samples.append(time.perf_counter() - started)
        if status != 200:
            raise RuntimeError(f"GET /api/v1/health answered {status}")
    return samples


def round_trip(client: Client, n: int = 1000) -> dict[str, float]:
    return summary(health_samples(client, n))


class AsicPorts:
    """Watches ASIC_STATE port objects (keyspace notifications) for SAI_PORT_ATTR_MTU values."""

    def __init__(self, url: str, ports: list[str]) -> None:
        counters = redis.Redis.from_url(url, db=2, decode_responses=True)
        oids = counters.hgetall("COUNTERS_PORT_NAME_MAP")
        counters.close()
        self.keys = {f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oids[p]}": p for p in ports}
        self.asic = redis.Redis.from_url(url, db=1, decode_responses=True)
        self.pubsub = self.asic.pubsub()  # not ignore_subscribe_messages: the confirmations are awaited here
        self.pubsub.subscribe(*(f"__keyspace@1__:{key}" for key in self.keys))
        confirmed, deadline = 0, time.monotonic() + 10
        while confirmed < len(self.keys):  # every subscription is live before the first sample
            message = self.pubsub.get_message(timeout=max(0.0, deadline - time.monotonic()))
            if message is None and time.monotonic() > deadline:
                raise RuntimeError(f"{len(self.keys) - confirmed} ASIC_STATE subscriptions never confirmed")
            confirmed += message is not None and message["type"] == "subscribe"

    def mtus(self, keys: list[str]) -> list[str | None]:
        pipe = self.asic.pipeline(transaction=False)
        for key in keys:
            pipe.hget(key, "SAI_PORT_ATTR_MTU")
        return pipe.execute()

    def wait(self, mtu: int, timeout: float = 10.0) -> float:
        """perf_counter() at the notification after which every watched port shows ``mtu``."""
        want = str(mtu + MTU_OVERHEAD)
        pending = [k for k, value in zip(self.keys, self.mtus(list(self.keys)), strict=True) if value != want]
        seen = time.perf_counter()
        deadline = time.monotonic() + timeout
        while pending:
            message = self.pubsub.get_message(timeout=max(0.0, deadline - time.monotonic()))
            if message is None:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{len(pending)} ports never showed mtu {mtu} in ASIC_DB")
                continue
            seen = time.perf_counter()
            while self.pubsub.get_message(timeout=0) is not None:  # a burst: check once after it
                pass
            pending = [k for k, value in zip(pending, self.mtus(pending), strict=True) if value != want]
        return seen

    def close(self) -> None:
        self.pubsub.close()
        self.asic.close()


def patch_mtu(client: Client, asic: AsicPorts, ports: list[str], n: int,
              warmup: int = WARMUP_PATCHES) -> dict[str, Any]:
    """``n`` patches setting every port of ``ports`` to an alternating mtu: accepted and applied times,
    after ``warmup`` unmeasured ones (the first run of each server code path: the first few take 2-3x)."""
    accepted, applied = [], []
    for i in range(-warmup, n):
        mtu = 9000 if i % 2 == 0 else 9100
        ops = [{"op": "replace", "path": f"/PORT/{port}/mtu", "value": str(mtu)} for port in ports]
        started = time.perf_counter()
        status, body = client.request("PATCH", "/api/v1/config", ops)
        answered = time.perf_counter()
        if status != 200:
            raise RuntimeError(f"PATCH refused ({status}): {body[:300]!r}")
        done = asic.wait(mtu)
        if i >= 0:
            applied.append(done - started)
            accepted.append(answered - started)
    return {"accepted": summary(accepted), "applied": summary(applied)}


def run_once(sku: str = SKU, clients: int = 50, one_field: int = 500, all_ports: int = 30) -> dict[str, Any]:
    """Every figure of the module docstring on one fresh switch, with the targets."""
    with running_switch(sku) as endpoints:
        rest, url = endpoints["rest"], endpoints["redis"]
        source = ensure_counters(url)
        path = "/api/v1/counters/interfaces"
        closed = get_load(rest, path, clients, requests=40)
        polling = get_load(rest, path, clients, requests=40, rate_hz=10.0)
        health_50 = get_load(rest, "/api/v1/health", clients, requests=40)
        client = Client(rest)
        counters = redis.Redis.from_url(url, db=2, decode_responses=True)
        ports = sorted(counters.hkeys("COUNTERS_PORT_NAME_MAP"), key=lambda p: int(p.removeprefix("Ethernet")))
        counters.close()
        rtt = round_trip(client)
        one = AsicPorts(url, ports[:1])
        every = AsicPorts(url, ports)
        try:
            single = patch_mtu(client, one, ports[:1], one_field)
            bulk = patch_mtu(client, every, ports, all_ports)
        finally:
            one.close()
            every.close()
            client.close()
    return {"sku": sku, "counters_source": source, "ports": len(ports), "counters_closed_loop": closed,
            "counters_polling_10hz": polling, "health_closed_loop": health_50, "health_rtt": rtt,
            "patch_one": single, "patch_all": bulk, "targets": TARGETS,
            "accepted_p99_x_rtt": single["accepted"]["p99_ms"] / rtt["p99_ms"]}


def run(sku: str = SKU, repeats: int = 3) -> dict[str, Any]:
    """``run_once`` on ``repeats`` fresh switches; each figure's median over them (one run's p99 moves
    by up to 2x on two shared cores), every run kept."""
    runs = [run_once(sku) for _ in range(repeats)]
    picks = {"counters_closed_loop": ("counters_closed_loop",), "counters_polling_10hz": ("counters_polling_10hz",),
             "health_rtt": ("health_rtt",), "patch_one_accepted": ("patch_one", "accepted"),
             "patch_one_applied": ("patch_one", "applied"), "patch_all_applied": ("patch_all", "applied")}
    median: dict[str, Any] = {name: {key: median_at(runs, (*path, key)) for key in ("p50_ms", "p99_ms")}
                              for name, path in picks.items()}
    median["requests_per_s"] = median_at(runs, ("counters_closed_loop", "requests_per_s"))
    median["accepted_p99_x_rtt"] = median_at(runs, ("accepted_p99_x_rtt",))
    return {"sku": sku, "ports": runs[0]["ports"], "counters_source": runs[0]["counters_source"],
            "clients": runs[0]["counters_closed_loop"]["clients"], "targets": TARGETS, "runs": runs,
            "median": median}


def report(out: dict[str, Any]) -> None:
    def line(label: str, s: dict[str, float], target: str = "") -> None:
        print(f"  {label:<38} p50 {s['p50_ms']:7.2f} ms  p99 {s['p99_ms']:7.2f} ms   {target}")

    m, runs = out["median"], out["runs"]
    ratios = ", ".join(f"{r['accepted_p99_x_rtt']:.1f}" for r in runs)
    print(f"REST on {out['sku']} ({out['ports']} ports, counters by {out['counters_source']}), "
          f"median of {len(runs)} runs (each on a fresh switch):")
    line(f"GET all-port counters, {out['clients']} clients", m["counters_closed_loop"],
         f"(target p99 < {TARGETS['counters_p99_ms']:.0f} ms) {m['requests_per_s']:.0f} req/s")
    line(f"  same, {out['clients']} clients polling at 10 Hz", m["counters_polling_10hz"])
    line("GET health, bare round trip (reference)", m["health_rtt"])
    line("PATCH one field, accepted", m["patch_one_accepted"],
         f"= {m['accepted_p99_x_rtt']:.1f} x RTT p99 (target <= {TARGETS['accepted_p99_x_rtt']:.0f} x; runs: {ratios})")
    line("PATCH one field, in ASIC_DB", m["patch_one_applied"], f"(target p99 < {TARGETS['applied_p99_ms']:.0f} ms)")
    line(f"PATCH all {out['ports']} ports, in ASIC_DB", m["patch_all_applied"],
         f"(target < {TARGETS['all_ports_applied_ms']:.0f} ms)")


if __name__ == "__main__":
    report(run())
