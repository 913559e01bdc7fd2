"""The load of the soak (``bench.soak``), one function per worker process: route churn, counter readers,
patch writers, gNMI ON_CHANGE subscribers. Each is started with multiprocessing's ``spawn`` (no gRPC
state forked), connects and warms up, puts ``("ready", name)`` on its queue, waits for ``go`` and reads
the window (``start``, ``stop``: ``time.monotonic()`` seconds, one clock for every process on Linux),
runs until ``stop`` and puts ``(name, result)``. Every failure a client sees is counted in ``errors``
by kind (an HTTP status, a timeout, an exception's class), never raised past the worker.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from typing import Any
from urllib.parse import urlsplit

COUNTERS_PATH = "/api/v1/counters/interfaces"
MTU_OVERHEAD = 22  # SAI_PORT_ATTR_MTU = mtu + 22 (bench.rest)
MTUS = (9000, 9100)
APPLIED_TIMEOUT_S = 10.0
CHURN_TIMEOUT_S = 120.0
GNMI_ORIGIN = "sonic-db:/CONFIG_DB/localhost"


Write = tuple[str, int, float, float, float, float, float]  # port, mtu, sent, answered, applied, queued, popped


@dataclass(frozen=True)
class Window:
    start: float
    stop: float


def wait_window(name: str, out: Queue[Any], go: Event, window: Any) -> Window:
    """Say ready, wait for the start signal, return the measured window."""
    out.put(("ready", name))
    go.wait()
    return Window(window[0], window[1])


def sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))


# ---- HTTP over raw asyncio streams (bench.rest's client) -------------------------------------------

class HttpConnection:
    """One keep-alive HTTP/1.1 connection; ``exchange`` sends a request and reads the whole answer."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def exchange(self, request: bytes) -> tuple[int, bytes]:
        if self.reader is None or self.writer is None:
            await self.open()
        assert self.reader is not None and self.writer is not None
        self.writer.write(request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length"))
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def get_request(host: str, path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip\r\n\r\n".encode()


def patch_request(host: str, port: str, mtu: int) -> bytes:
    body = json.dumps([{"op": "replace", "path": f"/PORT/{port}/mtu", "value": str(mtu)}]).encode()
    return (f"PATCH /api/v1/config HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json-patch+json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


async def guarded_exchange(conn: HttpConnection, request: bytes, errors: Counter[str]) -> tuple[int, bytes] | None:
    """The answer, or None (counted in ``errors``, the connection reopened next time) when the exchange failed."""
    try:
        status, body = await conn.exchange(request)
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, StopIteration, ValueError) as exc:
        errors[type(exc).__name__] += 1
        conn.close()
        return None
    if status != 200:
        errors[f"HTTP {status}"] += 1
        return None
    return status, body


# ---- counter readers ------------------------------------------------------------------------------

async def _reader(base: str, rate_hz: float, window_at: asyncio.Future[Window], samples: list[tuple[float, float]],
                  errors: Counter[str]) -> None:
    """One reader: closed loop (``rate_hz`` 0), or one request every 1/``rate_hz`` s from a random phase
    (sent at once when the previous answer came late, never in a burst to catch up)."""
    conn = HttpConnection(base)
    request = get_request(conn.host, COUNTERS_PATH)
    for _ in range(2):  # warm-up: the connection, the server's kept body
        await guarded_exchange(conn, request, errors)
    window = await window_at
    period = 1.0 / rate_hz if rate_hz else 0.0
    due = window.start + random.random() * period
    while (sent := time.monotonic()) < window.stop:
        if period:
            if due > sent:
                await asyncio.sleep(due - sent)
                sent = time.monotonic()
            due = max(due + period, sent)
        if await guarded_exchange(conn, request, errors) is not None:
            samples.append((sent, time.monotonic() - sent))
    conn.close()


async def _readers(base: str, clients: int, rate_hz: float, name: str, out: Queue[Any], go: Event,
                   window: Any) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    window_at: asyncio.Future[Window] = loop.create_future()
    samples: list[tuple[float, float]] = []
    errors: Counter[str] = Counter()
    tasks = [asyncio.create_task(_reader(base, rate_hz, window_at, samples, errors)) for _ in range(clients)]
    await asyncio.sleep(0.5)  # connections open, warm-up requests answered
    warmup_errors = sum(errors.values())
    window_at.set_result(await loop.run_in_executor(None, wait_window, name, out, go, window))
    await asyncio.gather(*tasks)
    return {"samples": samples, "errors": dict(errors), "warmup_errors": warmup_errors}


def counter_readers(base: str, clients: int, rate_hz: float, out: Queue[Any], go: Event, window: Any) -> None:
    """``clients`` readers of every port's counters, closed-loop (``rate_hz`` 0) or each at ``rate_hz``."""
    out.put(("counters", asyncio.run(_readers(base, clients, rate_hz, "counters", out, go, window))))


# ---- patch writers --------------------------------------------------------------------------------

class AsicWatch:
    """ASIC_STATE port objects through keyspace notifications: resolves a port's expected MTU with the
    time of the notification after which ASIC_STATE shows it (bench.rest.AsicPorts, asynchronous)."""

    def __init__(self, url: str, keys: dict[str, str]) -> None:
        import redis.asyncio as aioredis

        self.client = aioredis.Redis.from_url(url, db=1, decode_responses=True, protocol=2)
        self.keys = keys  # ASIC_STATE key -> port
        self.expected: dict[str, tuple[str, asyncio.Future[float]]] = {}
        # the hops on the way, by port: (time, what) of cfgmgrd's write of the APPL_DB PORT_TABLE row
        # (``_PORT_TABLE:<port>`` set) and of orchagent's pop of it (``PORT_TABLE:<port>`` set)
        self.appl = {f"__keyspace@0__:{prefix}PORT_TABLE:{port}": (port, hop)
                     for port in keys.values() for prefix, hop in (("_", "queued"), ("", "popped"))}
        self.hops: dict[str, list[tuple[float, str]]] = {port: [] for port in keys.values()}

    async def start(self) -> None:
        self.pubsub = self.client.pubsub()
        await self.pubsub.subscribe(*(f"__keyspace@1__:{key}" for key in self.keys), *self.appl)
        self.task = asyncio.create_task(self._run())

    def hop_times(self, port: str, sent: float, seen: float) -> tuple[float, float]:
        """When, after ``sent``, cfgmgrd wrote the port's APPL_DB row and orchagent popped it (``seen`` if not seen)."""
        queued = next((t for t, hop in self.hops[port] if hop == "queued" and t >= sent), seen)
        popped = next((t for t, hop in self.hops[port] if hop == "popped" and t >= queued), seen)
        self.hops[port] = [entry for entry in self.hops[port] if entry[0] > seen]
        return queued, popped

    def expect(self, port: str, mtu: int) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.expected[port] = (str(mtu + MTU_OVERHEAD), future)
        return future

    async def _run(self) -> None:
        async for message in self.pubsub.listen():
            seen = time.monotonic()
            if message["type"] != "message":
                continue
            hop = self.appl.get(message["channel"])
            if hop is not None:
                if message["data"] == "hset":
                    self.hops[hop[0]].append((seen, hop[1]))
                continue
            key = message["channel"].split(":", 1)[1]
            port = self.keys.get(key)
            wanted = self.expected.get(port) if port else None
            if wanted is None or wanted[1].done():
                continue
            if await self.client.hget(key, "SAI_PORT_ATTR_MTU") == wanted[0]:
                wanted[1].set_result(seen)

    async def close(self) -> None:
        self.task.cancel()
        await self.pubsub.aclose()
        await self.client.aclose()


async def _patch_once(conn: HttpConnection, watch: AsicWatch, port: str, mtu: int,
                      errors: Counter[str]) -> Write | None:
    """(port, mtu, sent, answered, applied, queued, popped) of one PATCH, or None when it failed (counted)."""
    applied = watch.expect(port, mtu)
    sent = time.monotonic()
    if await guarded_exchange(conn, patch_request(conn.host, port, mtu), errors) is None:
        return None
    answered = time.monotonic()
    try:
        seen = await asyncio.wait_for(applied, APPLIED_TIMEOUT_S)
    except TimeoutError:
        errors[f"not in ASIC_DB within {APPLIED_TIMEOUT_S:.0f} s"] += 1
        return None
    return (port, mtu, sent, answered, seen, *watch.hop_times(port, sent, seen))


async def _writer(base: str, port: str, watch: AsicWatch, pause_s: float, window_at: asyncio.Future[Window],
                  log: list[Write], errors: Counter[str], warm: list[str]) -> None:
    conn = HttpConnection(base)
    for i in range(2):  # warm-up
        await _patch_once(conn, watch, port, MTUS[i % 2], errors)
    warm.append(port)
    window = await window_at
    i = 0
    while time.monotonic() < window.stop:
        done = await _patch_once(conn, watch, port, MTUS[i % 2], errors)
        i += 1
        if done is not None:
            log.append(done)
        await asyncio.sleep(pause_s)
    conn.close()


async def _writers(base: str, url: str, ports: dict[str, str], pause_s: float, out: Queue[Any], go: Event,
                   window: Any) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    watch = AsicWatch(url, {key: port for port, key in ports.items()})
    await watch.start()
    window_at: asyncio.Future[Window] = loop.create_future()
    log: list[Write] = []
    errors: Counter[str] = Counter()
    warm: list[str] = []
    tasks = [asyncio.create_task(_writer(base, port, watch, pause_s, window_at, log, errors, warm))
             for port in ports]
    while len(warm) < len(ports):
        await asyncio.sleep(0.05)  # every writer's warm-up patches applied (or failed)
    warmup_errors = sum(errors.values())
    window_at.set_result(await loop.run_in_executor(None, wait_window, "patches", out, go, window))
    await asyncio.gather(*tasks)
    await watch.close()
    return {"log": log, "errors": dict(errors), "warmup_errors": warmup_errors}


def patch_writers(base: str, url: str, ports: dict[str, str], pause_s: float, out: Queue[Any], go: Event,
                  window: Any) -> None:
    """One writer per port of ``ports`` (port -> its ASIC_STATE key): PATCH, wait until applied, pause."""
    out.put(("patches", asyncio.run(_writers(base, url, ports, pause_s, out, go, window))))


# ---- gNMI ON_CHANGE subscribers -------------------------------------------------------------------

def _mtus(message: dict[str, Any]) -> list[str]:
    """The mtu values an ON_CHANGE update carries (a whole row, or the field itself)."""
    found = []
    for update in message.get("update", {}).get("update", []):
        value = update.get("val")
        if isinstance(value, dict) and "mtu" in value:
            found.append(str(value["mtu"]))
        elif str(update.get("path", "")).endswith("mtu") and value is not None:
            found.append(str(value))
    return found


def _subscriber(gnmi: str, index: int, port: str, subscribed: threading.Barrier, finish: threading.Event,
                arrivals: list[tuple[int, str, int, float]], errors: Counter[str]) -> None:
    from pygnmi.client import gNMIclient

    host, number = gnmi.rsplit(":", 1)
    try:
        with gNMIclient(target=(host, int(number)), insecure=True, gnmi_timeout=10) as gc:
            sub = gc.subscribe2(subscribe={"mode": "stream", "encoding": "json_ietf", "updates_only": True,
                                           "subscription": [{"path": f"{GNMI_ORIGIN}/PORT/{port}",
                                                             "mode": "on_change"}]})
            sub.get_update(timeout=10)  # sync_response
            subscribed.wait()
            while not finish.is_set():
                try:
                    message = sub.get_update(timeout=0.5)
                except TimeoutError:
                    continue
                seen = time.monotonic()
                arrivals.extend((index, port, int(mtu), seen) for mtu in _mtus(message))
    except Exception as exc:  # noqa: BLE001 - a stream that fails is an error of the soak, counted
        errors[f"gNMI {type(exc).__name__}"] += 1
        if not subscribed.broken and subscribed.n_waiting < subscribed.parties:
            subscribed.abort()


def subscribers(gnmi: str, ports: list[str], out: Queue[Any], go: Event, window: Any) -> None:
    """One pygnmi client per entry of ``ports`` (a port may be listed more than once), each in a thread
    with a STREAM ON_CHANGE subscription of that port's CONFIG_DB row."""
    import nos.api.gnmi  # noqa: F401 - first: gRPC's fork handlers off before grpc loads
    from bench.gnmi import _quiet_closed_streams  # pygnmi's reader threads end with CANCELLED at the close

    threading.excepthook = _quiet_closed_streams

    subscribed = threading.Barrier(len(ports) + 1)
    finish = threading.Event()
    arrivals: list[tuple[int, str, int, float]] = []
    errors: Counter[str] = Counter()
    threads = [threading.Thread(target=_subscriber, args=(gnmi, i, port, subscribed, finish, arrivals, errors),
                                daemon=True) for i, port in enumerate(ports)]
    for thread in threads:
        thread.start()
    try:
        subscribed.wait(timeout=60)
    except threading.BrokenBarrierError:
        errors["gNMI subscription not set up"] += 1
    span = wait_window("subscribers", out, go, window)
    sleep_until(span.stop + 1.0)  # the last patches' updates
    finish.set()
    for thread in threads:
        thread.join(timeout=5)
    out.put(("subscribers", {"arrivals": arrivals, "errors": dict(errors), "streams": len(ports)}))


# ---- route churn ----------------------------------------------------------------------------------

def churn(url: str, routes: int, ports: int, sets: int, supervisor: int, rate: float, out: Queue[Any], go: Event,
          window: Any) -> None:
    """The fpmsyncd stand-in (bench.routes): ``routes`` routes into APPL_DB ROUTE_TABLE, until syncd_sim
    holds them all, then deleted until it holds none of them, again and again until the window ends
    (the cycle under way is finished). ``rate`` (routes a second; 0: as fast as the switch takes them)
    paces the writes, a batch at a time, as a BGP speaker's updates arrive. The switch's memory is taken
    at every cycle's end."""
    import redis

    from bench.routes import BATCH, count, route_rows
    from bench.soak import memory
    from nos.db import ProducerStateTable
    from nos.db.connector import Databases

    dbs = Databases(url)
    asic = redis.Redis.from_url(url, db=1, decode_responses=True)
    rows = route_rows(routes, ports, sets, seed=0)
    keys = [key for key, _ in rows]
    producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE", buffered=True)
    baseline = count(asic, "ROUTE_ENTRY")
    span = wait_window("churn", out, go, window)
    sleep_until(span.start)
    cycles: list[dict[str, float]] = []
    rss: list[dict[str, float]] = []
    errors: Counter[str] = Counter()
    while time.monotonic() < span.stop:
        began = time.monotonic()
        for i in range(0, routes, BATCH):
            _pace(producer, began, i, rate)
            producer.set_many(rows[i:i + BATCH])
        producer.flush()
        added = _until(lambda: count(asic, "ROUTE_ENTRY") >= baseline + routes, errors, "routes not added")
        for i in range(0, routes, BATCH):
            _pace(producer, added, i, rate)
            producer.delete_many(keys[i:i + BATCH])
        producer.flush()
        removed = _until(lambda: count(asic, "ROUTE_ENTRY") <= baseline, errors, "routes not removed")
        cycles.append({"began": began, "add_s": added - began, "remove_s": removed - added})
        rss.append(memory(supervisor))
    state = redis.Redis.from_url(url, db=6, decode_responses=True)
    rejected = sum(1 for _ in state.scan_iter("NOS_REJECTED_TABLE|APPL_DB:ROUTE_TABLE:*", count=1000))
    if rejected:
        errors["routes rejected"] += rejected
    state.close()
    asic.close()
    dbs.close()
    out.put(("churn", {"cycles": cycles, "rss": rss, "errors": dict(errors), "routes": routes}))


def _pace(producer: Any, began: float, done: int, rate: float) -> None:
    """At ``rate`` routes a second, wait until ``done`` routes are due since ``began`` (what is buffered
    is sent first)."""
    if rate > 0 and time.monotonic() < began + done / rate:
        producer.flush()
        sleep_until(began + done / rate)


def _until(predicate: Any, errors: Counter[str], what: str) -> float:
    deadline = time.monotonic() + CHURN_TIMEOUT_S
    while not predicate():
        if time.monotonic() > deadline:
            errors[f"{what} within {CHURN_TIMEOUT_S:.0f} s"] += 1
            break
        time.sleep(0.005)
    return time.monotonic()
