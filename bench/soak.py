"""The soak (issue 19, ``python -m bench --only soak``): one whole 128x400G switch (``nos up -d``) serving
100 REST clients and 20 gNMI ON_CHANGE subscribers for 60 s while 10,000 routes churn, everything on
loopback. Figures are printed with their targets, not asserted.

The load (``bench.soak_load``; each part in a process of its own, so that one part's GIL does not hold
up another's measurements; they are Python on the same two cores as the switch, so every figure is an
upper bound):

* **churn**: the fpmsyncd stand-in of ``bench.routes`` (APPL_DB ROUTE_TABLE through a buffered
  ProducerStateTable, as a BGP speaker's routes arrive on SONiC): 10,000 IPv4 /24 routes over ``SETS``
  ECMP sets of the 32 routed ports' static peers, added until syncd_sim holds all of them (ASIC_DB
  object counts), then deleted until it holds none, over and over: bounded loops with deadlines, never
  more than 10,000 routes of backlog, orchagent and syncd_sim never idle. The cycle under way when the
  window ends is finished. ``python -m bench.soak SECONDS POLL_HZ CHURN_RATE`` paces the writes at
  CHURN_RATE routes a second instead (a batch of 128 at a time), to see how the figures move with the
  churn offered.
* **counters**: ``GET_CLIENTS`` keep-alive clients ``GET /api/v1/counters/interfaces`` (all 128 ports,
  ``Accept-Encoding: gzip`` as httpx sends it) in a closed loop: each sends its next request when the
  last answer is in, as ``bench.rest``'s 50-client figure (the REST server is saturated: its figures
  are its throughput shared out). ``run`` adds one soak with each reader polling at ``POLL_HZ``
  instead, what collectors do.
* **patches**: ``PATCH_CLIENTS`` keep-alive clients (the rest of the 100), each owning a port that is not
  routed: one JSON Patch of its mtu (9000 and 9100 in turn, ``PATCH /api/v1/config``), then wait until
  ASIC_DB ``ASIC_STATE`` shows it (keyspace notification, then HGET, as ``bench.rest``), ``PATCH_PAUSE_S``
  of pause, again. *Accepted* = the answer is in; *applied* = that notification; both from the send.
* **subscribers**: ``SUBSCRIBERS`` pygnmi clients (threads of one process), each with a STREAM
  ON_CHANGE subscription of one patched port's CONFIG_DB row (``sonic-db:/CONFIG_DB/localhost/PORT/<port>``),
  two per port. Delivery = from the PATCH's send to the update's arrival; an update is matched to the
  latest PATCH of that port and mtu sent before it arrived. A PATCH whose change a subscriber got only
  folded into a later update (the server sends a stream that is behind what changed meanwhile in one
  re-read) is counted apart, as ``missed``.
* **references** (the bench's own process, every ``PROBE_S``): the bare HTTP round trip (``GET
  /api/v1/health``) and a raw ``HGETALL`` of one port's ``COUNTERS`` hash on the switch's Redis: what the
  machine gives any request under the same load.
* **memory**: the resident set of every process of the switch (the supervisor and each of its children)
  when the window starts, at the end of every churn cycle (its routes all removed) and at the end, once
  the switch has settled. Growth is stated per process: end minus start, and last minus first cycle end
  (what is left once the first cycle has warmed every cache).

Errors are every failure a client saw (an HTTP status other than 200, a connection error, a PATCH not in
ASIC_DB within 10 s, a gNMI stream that failed, a route rejected or not programmed in time): none are
allowed.
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil
import redis

from bench import soak_load
from bench.rest import Client, summary
from bench.routes import configure, count, wait_for
from bench.settle import settle, settled
from bench.stats import median_at
from nos.db.connector import Databases
from nos.runtime.forkserver import argv_of
from nos.runtime.rundir import RunDir

SKU = "NOS-SIM-128x400G"
NOS = [sys.executable, "-m", "nos.cli.main"]
SECONDS = 60.0
REST_CLIENTS = 100
PATCH_CLIENTS = 10      # of the REST clients; the others read counters
SUBSCRIBERS = 20
ROUTES = 10_000
ROUTED_PORTS = 32       # Ethernet0..124, a static peer each (bench.routes.configure)
SETS = 200              # distinct ECMP next-hop sets of the churned routes (50 routes a set, as bench.routes)
PATCH_PAUSE_S = 0.1
POLL_HZ = 10.0          # the second soak's counter readers: one GET every 0.1 s each (900 req/s offered)
PROBE_S = 0.05
TARGETS = {"counters_p99_ms": 50.0, "applied_p99_ms": 50.0, "errors": 0}
LABELS = {"nos.cli.main": "supervisor (nos up)", "nos.cfgmgr": "cfgmgrd", "nos.api.rest": "REST",
          "nos.api.gnmi": "gNMI", "nos.runtime.redis_guard": "redis TCP guard"}


# ---- the switch and its processes -----------------------------------------------------------------

@contextmanager
def running_switch(sku: str = SKU) -> Iterator[tuple[RunDir, dict[str, str]]]:
    """A fresh switch on free ports in a temporary run directory (stopped after)."""
    with tempfile.TemporaryDirectory(prefix="nos-bench-soak-") as tmp:
        subprocess.run([*NOS, "up", "-d", "--sku", sku, "--run-dir", tmp, "--rest-port", "0", "--redis-port", "0",
                        "--gnmi-port", "0"], check=True, capture_output=True)
        try:
            run = RunDir(Path(tmp))
            yield run, run.endpoints() or {}
        finally:
            subprocess.run([*NOS, "down", "--run-dir", tmp], capture_output=True)


def label(proc: psutil.Process) -> str:
    """What a switch process is: its module (``-m``), or its program's name (redis-server)."""
    argv = argv_of(proc.cmdline())  # a forked daemon's title is one string
    if "-m" in argv[:-1]:
        module = argv[argv.index("-m") + 1]
        return LABELS.get(module, module)
    return proc.name()  # redis-server (which rewrites its command line)


def switch_processes(supervisor: int) -> dict[str, psutil.Process]:
    """The supervisor and each of its children, by label."""
    root = psutil.Process(supervisor)
    out: dict[str, psutil.Process] = {}
    for proc in [root, *root.children(recursive=True)]:
        try:
            name = label(proc)
        except psutil.Error:
            continue
        out[name if name not in out else f"{name} ({proc.pid})"] = proc
    return out


def memory(supervisor: int) -> dict[str, float]:
    """Resident MB of the supervisor and each of its children, by label."""
    out: dict[str, float] = {}
    for name, proc in switch_processes(supervisor).items():
        try:
            out[name] = round(proc.memory_info().rss / 1e6, 1)
        except psutil.Error:
            continue
    return out


def cpu_seconds(procs: dict[str, psutil.Process]) -> dict[str, float]:
    """User + system CPU seconds each process has used so far."""
    out: dict[str, float] = {}
    for name, proc in procs.items():
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        out[name] = times.user + times.system
    return out


# ---- the references, sampled in this process ------------------------------------------------------

def probe(endpoints: dict[str, str], oid: str, stop: float, out: dict[str, list[float]]) -> None:
    """Every PROBE_S until ``stop``: one bare HTTP round trip and one raw HGETALL of a COUNTERS hash."""
    client = Client(endpoints["rest"])
    counters = redis.Redis.from_url(endpoints["redis"], db=2, decode_responses=True, protocol=2)
    key = f"COUNTERS:{oid}"
    while time.monotonic() < stop:
        began = time.monotonic()
        status, _ = client.request("GET", "/api/v1/health")
        answered = time.monotonic()
        if status == 200:
            out["http"].append(answered - began)
        counters.hgetall(key)
        out["redis"].append(time.monotonic() - answered)
        time.sleep(max(0.0, began + PROBE_S - time.monotonic()))
    client.close()
    counters.close()


# ---- one soak --------------------------------------------------------------------------------------

def patch_names() -> list[str]:
    """The writers' ports: not routed (Ethernet256 on)."""
    return [f"Ethernet{4 * (64 + i)}" for i in range(PATCH_CLIENTS)]


def patch_ports(oids: dict[str, str]) -> dict[str, str]:
    """Each writer's port with its ASIC_STATE key."""
    return {name: f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oids[name]}" for name in patch_names()}


def subscribed_ports(ports: list[str]) -> list[str]:
    """The port of each subscriber: the writers' ports in turn, ``SUBSCRIBERS // len(ports)`` each."""
    return [ports[i % len(ports)] for i in range(SUBSCRIBERS)]


def prepare(url: str) -> dict[str, str]:
    """Routed ports with their peers in the ASIC, the switch settled; the port name map."""
    dbs = Databases(url)
    asic = redis.Redis.from_url(url, db=1, decode_responses=True)
    try:
        configure(dbs, ROUTED_PORTS)
        wait_for(lambda: count(asic, "NEXT_HOP") >= ROUTED_PORTS, f"{ROUTED_PORTS} next hops in ASIC_DB")
        settle(url)
        return dict(redis.Redis.from_url(url, db=2, decode_responses=True).hgetall("COUNTERS_PORT_NAME_MAP"))
    finally:
        asic.close()
        dbs.close()


def start_load(endpoints: dict[str, str], supervisor: int, ports: dict[str, str], seconds: float, rate_hz: float,
               churn_rate: float = 0.0,
               ) -> tuple[dict[str, Any], soak_load.Window, list[multiprocessing.process.BaseProcess]]:
    """Start every part of the load, wait until each is ready, open the window; returns the queue's
    future results (filled by ``collect``), the window and the processes."""
    ctx = multiprocessing.get_context("spawn")
    out, go, window = ctx.Queue(), ctx.Event(), ctx.Array("d", 2)
    subscribed = subscribed_ports(list(ports))
    parts: list[tuple[Callable[..., None], tuple[Any, ...]]] = [
        (soak_load.churn, (endpoints["redis"], ROUTES, ROUTED_PORTS, SETS, supervisor, churn_rate)),
        (soak_load.counter_readers, (endpoints["rest"], REST_CLIENTS - PATCH_CLIENTS, rate_hz)),
        (soak_load.patch_writers, (endpoints["rest"], endpoints["redis"], ports, PATCH_PAUSE_S)),
        (soak_load.subscribers, (endpoints["gnmi"], subscribed)),
    ]
    procs = [ctx.Process(target=target, args=(*args, out, go, window), name=target.__name__, daemon=True)
             for target, args in parts]
    for proc in procs:
        proc.start()
    ready = 0
    while ready < len(procs):
        kind, _ = out.get(timeout=120)
        ready += kind == "ready"
    start = time.monotonic() + 0.2
    window[0], window[1] = start, start + seconds
    go.set()
    return {"queue": out}, soak_load.Window(start, start + seconds), procs


def collect(queue: Any, procs: list[multiprocessing.process.BaseProcess], timeout: float) -> dict[str, Any]:
    results: dict[str, Any] = {}
    while len(results) < len(procs):
        name, result = queue.get(timeout=timeout)
        results[name] = result
    for proc in procs:
        proc.join(timeout=10)
    return results


def run_once(seconds: float = SECONDS, sku: str = SKU, rate_hz: float = 0.0, churn_rate: float = 0.0) -> dict[str, Any]:
    """One soak on a fresh switch: the figures of the module docstring; the counter readers in a closed
    loop (``rate_hz`` 0) or each polling at ``rate_hz``; the churn as fast as the switch takes it
    (``churn_rate`` 0) or paced at ``churn_rate`` routes a second."""
    with running_switch(sku) as (run, endpoints):
        supervisor = int((run.boot_state() or {})["pid"])
        oids = prepare(endpoints["redis"])
        ports = patch_ports(oids)
        before = memory(supervisor)
        load, window, procs = start_load(endpoints, supervisor, ports, seconds, rate_hz, churn_rate)
        sleep = max(0.0, window.start - time.monotonic())
        time.sleep(sleep)
        start_rss = memory(supervisor)
        watched = switch_processes(supervisor) | {f"bench {p.name}": psutil.Process(p.pid) for p in procs if p.pid}
        cpu_start = cpu_seconds(watched)
        probes: dict[str, list[float]] = {"http": [], "redis": []}
        prober = threading.Thread(target=probe, args=(endpoints, oids["Ethernet0"], window.stop, probes))
        prober.start()
        prober.join()
        cpu_end = cpu_seconds(watched)
        results = collect(load["queue"], procs, timeout=seconds + soak_load.CHURN_TIMEOUT_S * 2 + 60)
        asic = redis.Redis.from_url(endpoints["redis"], db=1, decode_responses=True)
        settled(asic)
        asic.close()
        end_rss = memory(supervisor)
    out = figures(results, window, probes, {"before": before, "start": start_rss, "end": end_rss})
    out["rate_hz"] = rate_hz
    out["churn_rate"] = churn_rate
    out["cpu_cores"] = {name: round((cpu_end[name] - cpu_start[name]) / seconds, 2) for name in cpu_end
                        if name in cpu_start}
    return out


# ---- figures ---------------------------------------------------------------------------------------

def in_window(samples: list[tuple[float, float]], window: soak_load.Window) -> list[float]:
    return [latency for sent, latency in samples if window.start <= sent < window.stop]


def deliveries(log: list[soak_load.Write], arrivals: list[tuple[int, str, int, float]],
               streams: dict[str, int]) -> tuple[list[float], int]:
    """ON_CHANGE delivery times (each PATCH's first update at each subscriber, from the send) and how
    many (PATCH, subscriber of its port) pairs never got one."""
    writes: dict[str, list[tuple[float, int]]] = {}
    for port, mtu, sent, *_ in log:
        writes.setdefault(port, []).append((sent, mtu))
    for entries in writes.values():
        entries.sort()
    first: dict[tuple[int, str, float], float] = {}
    for index, port, mtu, seen in arrivals:
        match = [sent for sent, value in writes.get(port, []) if value == mtu and sent <= seen]
        if match:
            key = (index, port, match[-1])
            first[key] = min(first.get(key, seen), seen)
    times = [seen - sent for (_, _, sent), seen in first.items()]
    expected = sum(len(entries) * streams.get(port, 0) for port, entries in writes.items())
    return times, expected - len(first)


def rss_growth(memory_at: dict[str, dict[str, float]], cycles: list[dict[str, float]]) -> dict[str, Any]:
    start, end = memory_at["start"], memory_at["end"]
    per = {name: {"start_mb": start[name], "end_mb": end.get(name, 0.0),
                  "growth_mb": round(end.get(name, 0.0) - start[name], 1)} for name in start}
    if len(cycles) >= 2:
        for name in per:
            per[name]["cycles_growth_mb"] = round(cycles[-1].get(name, 0.0) - cycles[0].get(name, 0.0), 1)
    return {"per_process": per, "total_start_mb": round(sum(start.values()), 1),
            "total_end_mb": round(sum(end.values()), 1), "before_load": memory_at["before"],
            "cycles": len(cycles)}


def figures(results: dict[str, Any], window: soak_load.Window, probes: dict[str, list[float]],
            memory_at: dict[str, dict[str, float]]) -> dict[str, Any]:
    counters, patches = results["counters"], results["patches"]
    subs, churn = results["subscribers"], results["churn"]
    log = [entry for entry in patches["log"] if window.start <= entry[2] < window.stop]
    per_port = Counter(subscribed_ports(list(patch_names())))
    on_change, missed = deliveries(log, subs["arrivals"], dict(per_port))
    errors = Counter()
    for part in (counters, patches, subs, churn):
        errors.update(part["errors"])
    cycles = churn["cycles"]
    churned = 2 * churn["routes"] * len(cycles)
    churn_s = sum(c["add_s"] + c["remove_s"] for c in cycles)
    served = in_window(counters["samples"], window)
    return {
        "seconds": window.stop - window.start, "load": _load_average(),
        "counters_get": {**summary(served), "per_s": len(served) / (window.stop - window.start)},
        "patch_accepted": summary([w[3] - w[2] for w in log]),
        "patch_applied": summary([w[4] - w[2] for w in log]),
        "patch_hops": {"to_appl_db": summary([w[5] - w[2] for w in log]),
                       "waiting_for_orchagent": summary([w[6] - w[5] for w in log]),
                       "orchagent_to_asic_db": summary([w[4] - w[6] for w in log])},
        "on_change": {**summary(on_change), "missed": missed} if on_change else {"n": 0, "missed": missed},
        "requests_served": len(served) + len(log), "errors": dict(errors), "error_count": sum(errors.values()),
        "warmup_errors": counters["warmup_errors"] + patches["warmup_errors"],
        "http_rtt": summary(probes["http"]), "redis_hgetall": summary(probes["redis"]),
        "churn": {"cycles": len(cycles), "routes_per_s": churned / churn_s if churn_s else 0.0,
                  "add_s": [round(c["add_s"], 2) for c in cycles],
                  "remove_s": [round(c["remove_s"], 2) for c in cycles]},
        "memory": rss_growth(memory_at, churn["rss"]),
    }


def _load_average() -> list[float]:
    return [round(x, 2) for x in psutil.getloadavg()]


# ---- runs and report -------------------------------------------------------------------------------

MEDIANS = {"counters_p50_ms": ("counters_get", "p50_ms"), "counters_p99_ms": ("counters_get", "p99_ms"),
           "counters_per_s": ("counters_get", "per_s"), "accepted_p50_ms": ("patch_accepted", "p50_ms"),
           "accepted_p99_ms": ("patch_accepted", "p99_ms"), "applied_p50_ms": ("patch_applied", "p50_ms"),
           "applied_p99_ms": ("patch_applied", "p99_ms"), "on_change_p50_ms": ("on_change", "p50_ms"),
           "on_change_p99_ms": ("on_change", "p99_ms"), "http_p50_ms": ("http_rtt", "p50_ms"),
           "http_p99_ms": ("http_rtt", "p99_ms"), "redis_p50_ms": ("redis_hgetall", "p50_ms"),
           "redis_p99_ms": ("redis_hgetall", "p99_ms"), "requests_served": ("requests_served",),
           "churn_routes_per_s": ("churn", "routes_per_s"),
           **{f"hop_{short}_{p}_ms": ("patch_hops", hop, f"{p}_ms") for short, hop in
              (("appl", "to_appl_db"), ("wait", "waiting_for_orchagent"), ("asic", "orchagent_to_asic_db"))
              for p in ("p50", "p99")}}


def run(runs: int = 3, seconds: float = SECONDS, sku: str = SKU) -> dict[str, Any]:
    """``run_once`` on ``runs`` fresh switches, each figure's median over them, every run kept; then one
    soak with the counter readers polling at ``POLL_HZ`` each instead of in a closed loop."""
    done = [run_once(seconds, sku) for _ in range(runs)]
    polling = run_once(seconds, sku, POLL_HZ)
    return {"runs": done, "median": {name: median_at(done, path) for name, path in MEDIANS.items()},
            "polling": {name: median_at([polling], path) for name, path in MEDIANS.items()} | {"run": polling},
            "targets": TARGETS, "clients": {"rest": REST_CLIENTS, "patch": PATCH_CLIENTS, "gnmi": SUBSCRIBERS},
            "routes": ROUTES, "seconds": seconds}


def report(out: dict[str, Any]) -> None:
    m, runs = out["median"], out["runs"]
    errors = [r["error_count"] for r in runs]
    print(f"Soak on {SKU}: {out['clients']['rest']} REST clients ({out['clients']['rest'] - out['clients']['patch']} "
          f"reading counters, {out['clients']['patch']} patching), {out['clients']['gnmi']} gNMI ON_CHANGE "
          f"subscribers, {out['routes']:,} routes churning, {out['seconds']:.0f} s; median of {len(runs)} runs "
          f"(load averages at the end: {', '.join(str(r['load'][0]) for r in runs)}):")
    print(f"  requests served {m['requests_served']:,.0f}   errors {errors} (target {TARGETS['errors']})   route "
          f"churn {m['churn_routes_per_s']:,.0f} routes/s (adds and deletes)")
    rows = [("GET all-port counters", "counters", f"(target p99 < {TARGETS['counters_p99_ms']:.0f} ms) "
             f"{m['counters_per_s']:,.0f} req/s"),
            ("PATCH one field, accepted", "accepted", ""),
            ("PATCH one field, in ASIC_DB", "applied", f"(target p99 < {TARGETS['applied_p99_ms']:.0f} ms)"),
            ("  send -> APPL_DB (REST, cfgmgrd)", "hop_appl", ""),
            ("  in APPL_DB until orchagent pops", "hop_wait", ""),
            ("  orchagent pop -> ASIC_DB", "hop_asic", "(orchagent, syncd_sim)"),
            ("gNMI ON_CHANGE delivery", "on_change", "(from the PATCH's send)"),
            ("GET health, bare round trip", "http", "(reference, same load)"),
            ("raw Redis HGETALL, one port", "redis", "(reference, same load)")]
    for text, key, note in rows:
        print(f"  {text:<34} p50 {m[f'{key}_p50_ms']:7.2f} ms  p99 {m[f'{key}_p99_ms']:7.2f} ms   {note}")
    if "polling" in out:
        p = out["polling"]
        print(f"  the same with the counter readers polling at {POLL_HZ:.0f} Hz each (one run; load average "
              f"{p['run']['load'][0]}): errors {p['run']['error_count']}")
        for text, key, _ in rows:
            print(f"    {text:<32} p50 {p[f'{key}_p50_ms']:7.2f} ms  p99 {p[f'{key}_p99_ms']:7.2f} ms")
    last = runs[-1]["memory"]
    print(f"  memory (last run), MB at start -> end (growth; last - first churn cycle end over "
          f"{last['cycles']} cycles):")
    for name, row in last["per_process"].items():
        cycles = f"; {row['cycles_growth_mb']:+.1f}" if "cycles_growth_mb" in row else ""
        print(f"    {name:<22} {row['start_mb']:7.1f} -> {row['end_mb']:7.1f}  ({row['growth_mb']:+.1f}{cycles})")
    print(f"    {'whole switch':<22} {last['total_start_mb']:7.1f} -> {last['total_end_mb']:7.1f}")
    print("  CPU in the window (last run), cores: " + ", ".join(f"{name} {cores:.2f}"
                                                              for name, cores in runs[-1]["cpu_cores"].items()))
    for r in runs:
        if r["error_count"] or r["on_change"].get("missed"):
            print(f"  run errors: {r['errors']}; ON_CHANGE: {r['on_change'].get('missed')} PATCHes whose update a "
                  "subscriber got only folded into a later one (the stream was behind)")


if __name__ == "__main__":
    # python -m bench.soak [SECONDS [POLL_HZ [CHURN_RATE]]]: one soak (closed-loop readers, or polling at
    # POLL_HZ; the churn as fast as taken, or paced at CHURN_RATE routes a second)
    once = run_once(float(sys.argv[1]) if len(sys.argv) > 1 else SECONDS,
                    rate_hz=float(sys.argv[2]) if len(sys.argv) > 2 else 0.0,
                    churn_rate=float(sys.argv[3]) if len(sys.argv) > 3 else 0.0)
    report({"runs": [once], "median": {name: median_at([once], path) for name, path in MEDIANS.items()},
            "targets": TARGETS, "clients": {"rest": REST_CLIENTS, "patch": PATCH_CLIENTS, "gnmi": SUBSCRIBERS},
            "routes": ROUTES, "seconds": once["seconds"]})
