"""Two iccpd daemons, each on its own real redis-server, talking ICCP-lite over loopback TCP: the session
comes up with the roles and the active's system MAC, MACs and ARP entries of one appear on the other, a member
going down moves the peer's MACs to the peer link and lifts the isolation, and a peer that stops talking
is timed out (and comes back)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import redis

from iccpd.daemon import Iccpd
from nos.daemon.runner import Runner
from nos.db import Databases, Table
from nos.runtime.redis_server import RedisServer
from tests.conftest import wait_until

pytestmark = pytest.mark.integration

MAC_A, MAC_B = "02:00:00:00:00:0A", "02:00:00:00:00:0B"
HOST = "00:00:00:00:00:AA"


@pytest.fixture(scope="module")
def second_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis_b"), port=0)
    server.start()
    yield server
    server.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Node:
    dbs: Databases
    iccpd: Iccpd
    runner: Runner
    appl_db: redis.Redis
    state_db: redis.Redis

    def step(self) -> None:
        self.runner.step(max_wait=0.005)

    def state(self, table: str, key: str) -> dict[str, str]:
        return self.state_db.hgetall(f"{table}|{key}")

    def appl(self, table: str, key: str) -> dict[str, str]:
        """The row as iccpd produced it (no orchagent consumes it here: ProducerStateTable's staged row)."""
        return self.appl_db.hgetall(f"_{table}:{key}")

    def close(self) -> None:
        self.iccpd.close()
        self.dbs.close()
        self.appl_db.close()
        self.state_db.close()


def configure(dbs: Databases, source: str, peer: str, mac: str) -> None:
    cfg, state = dbs["CONFIG_DB"], dbs["STATE_DB"]
    Table(cfg, "DEVICE_METADATA").set("localhost", {"mac": mac.lower()})
    Table(cfg, "MCLAG_DOMAIN").set("1", {"source_ip": source, "peer_ip": peer, "peer_link": "PortChannel99",
                                         "keepalive_interval": "1", "session_timeout": "3"})
    Table(cfg, "MCLAG_INTERFACE").set("1|PortChannel1", {"if_type": "PortChannel"})
    Table(cfg, "VLAN_INTERFACE").set("Vlan10", {"NULL": "NULL"})
    for lag in ("PortChannel1", "PortChannel99"):
        Table(state, "LAG_TABLE").set(lag, {"oper_status": "up"})


def start(url: str, port: int) -> Node:
    dbs = Databases(url)
    daemon = Iccpd(dbs, {"10.0.0.1": "127.0.0.1", "10.0.0.2": "127.0.0.1"}, port)
    runner = Runner("iccpd-test", strict=True, retry_interval=0.05)
    daemon.register(runner)
    return Node(dbs, daemon, runner, redis.Redis.from_url(url, db=0, decode_responses=True),
                redis.Redis.from_url(url, db=6, decode_responses=True))


@pytest.fixture
def pair(redis_url: str, second_redis: RedisServer) -> Iterator[tuple[Node, Node, int, str]]:
    flush = redis.Redis.from_url(second_redis.url)
    flush.flushall()
    flush.close()
    port = free_port()
    for url, (src, peer, mac) in ((redis_url, ("10.0.0.1", "10.0.0.2", MAC_A)),
                                  (second_redis.url, ("10.0.0.2", "10.0.0.1", MAC_B))):
        dbs = Databases(url)
        configure(dbs, src, peer, mac)
        dbs.close()
    a, b = start(redis_url, port), start(second_redis.url, port)
    yield a, b, port, second_redis.url
    for node in (a, b):
        node.close()


def drive(nodes: tuple[Node, ...], predicate, timeout: float = 10.0):  # type: ignore[no-untyped-def]
    def turn():  # type: ignore[no-untyped-def]
        for node in nodes:
            node.step()
        return predicate()
    return wait_until(turn, timeout, interval=0)


def test_the_pair_comes_up_syncs_macs_and_follows_a_member_down(pair) -> None:
    a, b, _, _ = pair
    drive((a, b), lambda: a.state("MCLAG_TABLE", "1").get("oper_status") == "up"
          and b.state("MCLAG_TABLE", "1").get("oper_status") == "up")
    assert a.state("MCLAG_TABLE", "1") == {"oper_status": "up", "role": "active", "system_mac": MAC_A.lower(),
                                           "peer_mac": MAC_B.lower()}
    assert b.state("MCLAG_TABLE", "1") == {"oper_status": "up", "role": "standby", "system_mac": MAC_A.lower(),
                                           "peer_mac": MAC_A.lower()}
    drive((a, b), lambda: b.appl("ISOLATION_GROUP_TABLE", "MCLAG_ISO_GRP"))
    assert b.appl("ISOLATION_GROUP_TABLE", "MCLAG_ISO_GRP") == {
        "DESCRIPTION": "Isolation group for MCLAG", "TYPE": "bridge-port", "PORTS": "PortChannel99",
        "MEMBERS": "PortChannel1"}
    assert b.appl("LAG_TABLE", "PortChannel99") == {"learn_mode": "disable"}
    assert b.appl("INTF_TABLE", "Vlan10") == {"mac_addr": MAC_A.lower()}     # the standby takes the active's MAC
    assert b.state("MCLAG_REMOTE_INTF_TABLE", "1|PortChannel1") == {"oper_status": "up"}
    assert b.state("MCLAG_LOCAL_INTF_TABLE", "PortChannel1") == {"port_isolate_peer_link": "true"}

    # a MAC learnt on A's MCLAG interface, and one on an orphan port
    fdb = Table(a.dbs["STATE_DB"], "FDB_TABLE")
    fdb.set(f"Vlan10:{HOST.lower()}", {"port": "PortChannel1", "type": "dynamic"})
    fdb.set("Vlan10:00:00:00:00:00:bb", {"port": "Ethernet8", "type": "dynamic"})
    drive((a, b), lambda: b.appl("MCLAG_FDB_TABLE", "Vlan10:00:00:00:00:00:BB"))
    assert b.appl("MCLAG_FDB_TABLE", f"Vlan10:{HOST}") == {"port": "PortChannel1", "type": "dynamic_local"}
    assert b.appl("MCLAG_FDB_TABLE", "Vlan10:00:00:00:00:00:BB") == {"port": "PortChannel99", "type": "dynamic"}

    # B's member goes down: the host is reached over the peer link, nothing is isolated any more
    Table(b.dbs["STATE_DB"], "LAG_TABLE").set("PortChannel1", {"oper_status": "down"})
    drive((a, b), lambda: b.appl("MCLAG_FDB_TABLE", f"Vlan10:{HOST}").get("port") == "PortChannel99")
    drive((a, b), lambda: not b.appl("ISOLATION_GROUP_TABLE", "MCLAG_ISO_GRP")
          and not a.appl("ISOLATION_GROUP_TABLE", "MCLAG_ISO_GRP"))
    assert a.state("MCLAG_REMOTE_INTF_TABLE", "1|PortChannel1") == {"oper_status": "down"}
    # the MAC leaves A: it leaves B
    fdb.delete(f"Vlan10:{HOST.lower()}")
    drive((a, b), lambda: not b.appl("MCLAG_FDB_TABLE", f"Vlan10:{HOST}"))


def test_a_silent_peer_times_out_and_a_restarted_one_reconciles(pair) -> None:
    a, b, port, url_b = pair
    Table(a.dbs["STATE_DB"], "FDB_TABLE").set(f"Vlan10:{HOST.lower()}", {"port": "PortChannel1", "type": "dynamic"})
    drive((a, b), lambda: b.appl("MCLAG_FDB_TABLE", f"Vlan10:{HOST}"))
    # A stops talking (not stepped): B gives up after the 3 s session timeout and is alone, as active
    drive((b,), lambda: b.state("MCLAG_TABLE", "1").get("oper_status") == "down", timeout=6)
    assert b.state("MCLAG_TABLE", "1") == {"oper_status": "down", "role": "active", "system_mac": MAC_B.lower(),
                                           "peer_mac": ""}
    assert not b.appl("MCLAG_FDB_TABLE", f"Vlan10:{HOST}") and not b.appl("ISOLATION_GROUP_TABLE", "MCLAG_ISO_GRP")
    assert b.appl("INTF_TABLE", "Vlan10") == {"mac_addr": MAC_B.lower()}
    # B's iccpd is killed and started again: the session and the peer's MACs come back
    b.iccpd.close()
    b2 = start(url_b, port)
    try:
        drive((a, b2), lambda: b2.appl("MCLAG_FDB_TABLE", f"Vlan10:{HOST}")
              and b2.state("MCLAG_TABLE", "1").get("oper_status") == "up")
    finally:
        b2.close()


def test_an_inconsistent_peer_is_refused(pair) -> None:
    a, b, _, _ = pair
    domains = Table(b.dbs["CONFIG_DB"], "MCLAG_DOMAIN")
    domains.delete("1")
    domains.set("2", {"source_ip": "10.0.0.2", "peer_ip": "10.0.0.1", "peer_link": "PortChannel99"})
    drive((a, b), lambda: "refused the session: domain 1 is not 2" in a.iccpd.session.problem)
    assert a.state("MCLAG_TABLE", "1").get("oper_status") == "down"
    assert b.state("MCLAG_TABLE", "2").get("oper_status") == "down" and not b.state("MCLAG_TABLE", "1")


def test_arp_entries_of_one_peer_reach_the_other(pair) -> None:
    a, b, _, _ = pair
    neigh = Table(a.dbs["CONFIG_DB"], "NEIGH")
    neigh.set("Vlan10|10.1.0.9", {"neigh": "00:00:00:00:00:99", "family": "IPv4"})
    drive((a, b), lambda: b.appl("NEIGH_TABLE", "Vlan10:10.1.0.9"))
    assert b.appl("NEIGH_TABLE", "Vlan10:10.1.0.9") == {"neigh": "00:00:00:00:00:99", "family": "IPv4"}
    neigh.delete("Vlan10|10.1.0.9")
    drive((a, b), lambda: not b.appl("NEIGH_TABLE", "Vlan10:10.1.0.9"))


def test_garbage_on_the_iccp_port_does_not_end_the_session(pair) -> None:
    a, b, port, _ = pair
    drive((a, b), lambda: b.state("MCLAG_TABLE", "1").get("oper_status") == "up")
    strangers = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
    strangers[0].sendall(b"\x00\xffnot json\n")
    strangers[1].sendall(b'{"kind":"heartbeat"}\n')
    strangers[2].sendall(b'{"kind":"hello","domain":"1","source_ip":"10.9.9.9","peer_ip":"10.0.0.2"}\n')
    try:
        for _ in range(50):
            a.step()
            b.step()
        assert b.state("MCLAG_TABLE", "1").get("oper_status") == "up" and not b.iccpd.pending
        for sock in strangers:                      # each was refused and closed
            sock.settimeout(2)
            assert b"refused" in sock.recv(4096)
    finally:
        for sock in strangers:
            sock.close()
