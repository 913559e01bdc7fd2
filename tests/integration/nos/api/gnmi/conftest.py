"""gNMI servers in the test process (real grpc, real Redis) and pygnmi clients against them."""

from __future__ import annotations

import nos.api.gnmi  # noqa: F401 - first: turns gRPC's fork handlers off before grpc loads (this runner forks)

# isort: split
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from pygnmi.client import gNMIclient

from nos.api.gnmi.server import GnmiServer, ServerOptions
from nos.config.apply import reload_config
from nos.db import ConfigDBConnector, Databases
from nos.schema.dbconfig import CONFIG_DB

PORTS = {f"Ethernet{4 * i}": {"lanes": ",".join(str(4 * i + n) for n in range(4)), "speed": "400000",
                              "mtu": "9100", "admin_status": "up", "alias": f"etp{i + 1}"} for i in range(4)}
START = {"PORT": PORTS, "VLAN": {"Vlan100": {"vlanid": "100"}},
         "VLAN_MEMBER": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"}}}
PORT_OIDS = {name: f"oid:0x10000000000{i + 2:02x}" for i, name in enumerate(PORTS)}


def seed_counters(client: redis.Redis, *, value: int = 0) -> None:
    """COUNTERS_DB as orchagent and syncd write it: name maps and counter hashes."""
    client.hset("COUNTERS_PORT_NAME_MAP", mapping=PORT_OIDS)
    for i, (name, oid) in enumerate(PORT_OIDS.items()):
        client.hset(f"COUNTERS:{oid}", mapping={"SAI_PORT_STAT_IF_IN_OCTETS": str(value + i),
                                                "SAI_PORT_STAT_PFC_3_RX_PKTS": str(value * 2 + i)})
        for q in range(2):
            qoid = f"oid:0x15{i:04x}{q:04x}"
            client.hset("COUNTERS_QUEUE_NAME_MAP", f"{name}:{q}", qoid)
            client.hset(f"COUNTERS:{qoid}", mapping={"SAI_QUEUE_STAT_PACKETS": str(10 * q + i)})
        pg = f"oid:0x1a{i:04x}0003"
        client.hset("COUNTERS_PG_NAME_MAP", f"{name}:3", pg)
        client.hset(f"PERIODIC_WATERMARKS:{pg}", "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES", "64")


@pytest.fixture
def seeded(dbs: Databases, raw) -> Databases:
    reload_config(ConfigDBConnector(dbs[CONFIG_DB]), START)
    seed_counters(raw(2))
    return dbs


@pytest.fixture
def start_server(redis_url: str, tmp_path: Path) -> Iterator[Callable[..., GnmiServer]]:
    started: list[GnmiServer] = []

    def start(**options: object) -> GnmiServer:
        defaults: dict[str, object] = {"port": 0, "run_dir": tmp_path / "run"}
        server = GnmiServer(ServerOptions(redis_url, **{**defaults, **options}))  # type: ignore[arg-type]
        server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop(0.2)


@pytest.fixture
def server(seeded: Databases, start_server: Callable[..., GnmiServer]) -> GnmiServer:
    return start_server()


@pytest.fixture
def client(server: GnmiServer) -> Iterator[gNMIclient]:
    with gNMIclient(target=("127.0.0.1", server.port), insecure=True, gnmi_timeout=5) as gc:
        yield gc
