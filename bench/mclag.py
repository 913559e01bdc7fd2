"""MC-LAG: failover time and MAC sync rate (``python -m bench --only mclag``).

* **Failover** on configs/labs/mclag.yaml (three real switches): a host MAC known on leaf1's
  PortChannel1 (provisioned in APPL_DB FDB_TABLE, as a learnt one would be), then Ethernet0 (the member
  toward the host) set admin down in CONFIG_DB at t0. Traffic for the host is restored when both halves
  are in the ASICs: leaf1's FDB entry points at the peer link's bridge port (iccpd moved the MAC there,
  FdbOrch programmed it) and leaf2's isolation group no longer holds PortChannel1 (what comes over the
  peer link may go out to the host). Median over runs; each run restores the member and the MAC first.
* **MAC sync**: two iccpd daemons (processes, ``python -m iccpd``), each on its own redis-server, with a
  session up over loopback TCP; 10,000 MACs written into one switch's STATE_DB FDB_TABLE (one pipeline:
  what FdbOrch writes as it learns), timed until the other's APPL_DB MCLAG_FDB_TABLE holds all of them
  (mclagsyncd's output, staged for its orchagent). Raw Redis HSET rate beside it for scale.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from nos.db import Databases, ProducerStateTable, Table
from nos.runtime.procs import spawn, stop
from nos.runtime.redis_server import RedisServer

LAB = Path(__file__).resolve().parents[1] / "configs" / "labs" / "mclag.yaml"
NOS = [sys.executable, "-m", "nos.cli.main"]
HOST_MAC = "02:00:00:00:aa:01"
MACS = 10_000


def _wait(predicate: Any, timeout: float, step: float = 0.002) -> float:
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise TimeoutError(f"not within {timeout} s")
        time.sleep(step)
    return time.monotonic()


# ---- failover on the lab -------------------------------------------------------------------------

def _client(state: dict[str, Any], node: str, db: int) -> redis.Redis:
    return redis.Redis.from_url(state["nodes"][node]["endpoints"]["redis"], db=db, decode_responses=True)


def _bridge_port_of(asic: redis.Redis, counters: redis.Redis, lag: str) -> str:
    lag_oid = counters.hget("COUNTERS_LAG_NAME_MAP", lag)
    for key in asic.keys("ASIC_STATE:SAI_OBJECT_TYPE_BRIDGE_PORT:*"):
        if asic.hget(key, "SAI_BRIDGE_PORT_ATTR_PORT_ID") == lag_oid:
            return str(key).split(":", 2)[2]
    return ""


def _fdb_port(asic: redis.Redis) -> str:
    for key in asic.keys("ASIC_STATE:SAI_OBJECT_TYPE_FDB_ENTRY:*"):
        if HOST_MAC.upper() in key:
            return str(asic.hget(key, "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID") or "")
    return ""


def _isolated(asic: redis.Redis, bridge_port: str) -> bool:
    return any(asic.hget(k, "SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_OBJECT") == bridge_port
               for k in asic.keys("ASIC_STATE:SAI_OBJECT_TYPE_ISOLATION_GROUP_MEMBER:*"))


def failover(runs: int = 3) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="nos-bench-mclag-") as tmp:
        env = {**os.environ, "NOS_LABS_DIR": tmp}
        subprocess.run([*NOS, "lab", "up", str(LAB)], check=True, capture_output=True, env=env, timeout=300)
        try:
            state = json.loads((Path(tmp) / "mclag" / "lab.json").read_text())
            return _failover_runs(state, runs)
        finally:
            subprocess.run([*NOS, "lab", "down", "--lab", "mclag"], capture_output=True, env=env, timeout=120)


def _failover_runs(state: dict[str, Any], runs: int) -> dict[str, Any]:
    asic1, asic2 = _client(state, "leaf1", 1), _client(state, "leaf2", 1)
    local, peer_link = (_bridge_port_of(asic1, _client(state, "leaf1", 2), lag) for lag in ("PortChannel1",
                                                                                             "PortChannel999"))
    remote_member = _bridge_port_of(asic2, _client(state, "leaf2", 2), "PortChannel1")
    dbs = Databases(state["nodes"]["leaf1"]["endpoints"]["redis"])
    fdb, ports = ProducerStateTable(dbs["APPL_DB"], "FDB_TABLE"), Table(dbs["CONFIG_DB"], "PORT")
    results = []
    try:
        for _ in range(runs):
            fdb.set(f"Vlan1000:{HOST_MAC}", {"port": "PortChannel1", "type": "dynamic"})
            _wait(lambda: _fdb_port(asic1) == local and _isolated(asic2, remote_member), 30)
            t0 = time.monotonic()
            ports.set("Ethernet0", {"admin_status": "down"})
            t_fdb = _wait(lambda: _fdb_port(asic1) == peer_link, 30)
            t_iso = _wait(lambda: not _isolated(asic2, remote_member), 30)
            results.append({"fdb_s": t_fdb - t0, "isolation_s": t_iso - t0, "restored_s": max(t_fdb, t_iso) - t0})
            ports.set("Ethernet0", {"admin_status": "up"})
            _wait(lambda: _isolated(asic2, remote_member), 30)
            fdb.delete(f"Vlan1000:{HOST_MAC}")
            time.sleep(0.5)
    finally:
        dbs.close()
    return {"runs": results, "restored_median": statistics.median(r["restored_s"] for r in results),
            "fdb_median": statistics.median(r["fdb_s"] for r in results),
            "isolation_median": statistics.median(r["isolation_s"] for r in results)}


# ---- MAC sync between two iccpd processes --------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _configure(url: str, source: str, peer: str, mac: str) -> None:
    dbs = Databases(url)
    try:
        cfg = dbs["CONFIG_DB"]
        Table(cfg, "DEVICE_METADATA").set("localhost", {"mac": mac})
        Table(cfg, "MCLAG_DOMAIN").set("1", {"source_ip": source, "peer_ip": peer, "peer_link": "PortChannel99",
                                             "keepalive_interval": "1", "session_timeout": "3"})
        Table(cfg, "MCLAG_INTERFACE").set("1|PortChannel1", {"if_type": "PortChannel"})
        for lag in ("PortChannel1", "PortChannel99"):
            Table(dbs["STATE_DB"], "LAG_TABLE").set(lag, {"oper_status": "up"})
    finally:
        dbs.close()


def mac_sync(n: int = MACS) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="nos-bench-iccp-") as tmp:
        for name in ("a", "b"):
            (Path(tmp) / name).mkdir()
        servers = [RedisServer(Path(tmp) / name, port=0) for name in ("a", "b")]
        hosts = Path(tmp) / "hosts.json"
        hosts.write_text(json.dumps({"10.0.0.1": "127.0.0.1", "10.0.0.2": "127.0.0.1"}))
        env = {**os.environ, "NOS_ICCP_HOSTS": str(hosts), "NOS_ICCP_PORT": str(_free_port())}
        procs = []
        try:
            for server, (src, peer, mac) in zip(servers, (("10.0.0.1", "10.0.0.2", "02:00:00:00:00:0a"),
                                                          ("10.0.0.2", "10.0.0.1", "02:00:00:00:00:0b")), strict=True):
                server.start()
                _configure(server.url, src, peer, mac)
                procs.append(spawn([sys.executable, "-m", "iccpd", "--redis", server.url], env=env,
                                   log_path=Path(tmp) / f"iccpd-{src}.log"))
            a_state = redis.Redis.from_url(servers[0].url, db=6, decode_responses=True)
            b_state = redis.Redis.from_url(servers[1].url, db=6, decode_responses=True)
            b_appl = redis.Redis.from_url(servers[1].url, db=0, decode_responses=True)
            _wait(lambda: b_state.hget("MCLAG_TABLE|1", "oper_status") == "up", 30, 0.01)
            start = time.monotonic()
            pipe = a_state.pipeline(transaction=False)
            for i in range(n):
                mac = f"00:10:{(i >> 16) & 255:02x}:{(i >> 8) & 255:02x}:{i & 255:02x}:01"
                pipe.hset(f"FDB_TABLE|Vlan1000:{mac}", mapping={"port": "PortChannel1", "type": "dynamic"})
            pipe.execute()
            written = time.monotonic()
            done = _wait(lambda: b_appl.scard("MCLAG_FDB_TABLE_KEY_SET") >= n, 120, 0.005)
            raw = _raw_rate(a_state, n)
            return {"macs": n, "seconds": done - start, "per_s": n / (done - start), "write_s": written - start,
                    "raw_hset_per_s": raw}
        finally:
            for proc in procs:
                stop(proc)
            for server in servers:
                server.stop()


def _raw_rate(client: redis.Redis, n: int) -> float:
    start = time.monotonic()
    pipe = client.pipeline(transaction=False)
    for i in range(n):
        pipe.hset(f"BENCH_RAW|{i}", mapping={"port": "PortChannel1", "type": "dynamic"})
    pipe.execute()
    return n / (time.monotonic() - start)


def run(runs: int = 3) -> dict[str, Any]:
    sync = [mac_sync() for _ in range(runs)]
    return {"failover": failover(runs), "mac_sync": sync,
            "sync_median_per_s": statistics.median(s["per_s"] for s in sync),
            "sync_median_s": statistics.median(s["seconds"] for s in sync),
            "raw_median_per_s": statistics.median(s["raw_hset_per_s"] for s in sync)}


def report(r: dict[str, Any]) -> None:
    f = r["failover"]
    print(f"MC-LAG ({LAB.name}, 3 switches; {len(f['runs'])} runs, medians):")
    print(f"  member link down -> traffic restored  {f['restored_median'] * 1e3:>8.0f} ms  (leaf1 FDB on the peer link "
          f"{f['fdb_median'] * 1e3:.0f} ms, leaf2 isolation lifted {f['isolation_median'] * 1e3:.0f} ms)")
    print(f"  MAC sync, {MACS} MACs peer to peer      {r['sync_median_s']:>8.2f} s   ({r['sync_median_per_s']:,.0f} "
          f"MACs/s; raw Redis HSET {r['raw_median_per_s']:,.0f}/s)")
