"""The REST server's event loop keeps answering while a write waits for a busy Redis (issue 19: under a
route churn Redis stalls for tens of milliseconds at a time, and a write run on the loop held every
other request for as long)."""

from __future__ import annotations

import socket
import threading
from contextlib import ExitStack

import pytest
import redis

from nos.api.rest.app import create_app
from nos.db import ConfigDBConnector, Databases
from tests.conftest import wait_until
from tests.integration.nos.api.rest.servers import serving

pytestmark = pytest.mark.integration

REDIS_STALL_S = 3  # DEBUG SLEEP: Redis serves nobody meanwhile, as while a long script runs


def http(port: int, request: bytes, sockets: ExitStack) -> socket.socket:
    conn = sockets.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
    conn.sendall(request)
    return conn


def patch(mtu: str) -> bytes:
    body = f'[{{"op": "replace", "path": "/mtu", "value": "{mtu}"}}]'.encode()
    return (b"PATCH /api/v1/config/PORT/Ethernet0 HTTP/1.1\r\nHost: t\r\nContent-Type: application/json-patch+json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)


def asleep(url: str) -> bool:
    """Whether Redis is stalled (a PING from a fresh connection gets no answer within 50 ms)."""
    probe = redis.Redis.from_url(url, socket_timeout=0.05)
    try:
        probe.ping()
        return False
    except (redis.TimeoutError, redis.ConnectionError):
        return True
    finally:
        probe.close()


class Stall:
    """``with Stall(url):`` Redis is stalled inside the block (DEBUG SLEEP from a thread, joined after)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.thread = threading.Thread(target=lambda: redis.Redis.from_url(url).execute_command(
            "DEBUG", "SLEEP", str(REDIS_STALL_S)))

    def __enter__(self) -> None:
        self.thread.start()
        wait_until(lambda: asleep(self.url), timeout=2, interval=0.001)

    def __exit__(self, *exc: object) -> None:
        self.thread.join()


def test_a_write_waiting_for_redis_does_not_hold_the_other_requests(dbs: Databases, cdb: ConfigDBConnector,
                                                                    redis_url: str) -> None:
    app = create_app(dbs)
    ctx = app.state.ctx
    with serving(app) as (port, _server), ExitStack() as sockets:
        other = http(port, b"GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n", sockets)  # warm
        other.recv(4096)
        # a request in flight: a write whose body has not all come yet
        slow = http(port, b"PATCH /api/v1/config/PORT/Ethernet4 HTTP/1.1\r\nHost: t\r\n"
                          b"Content-Type: application/json-patch+json\r\nContent-Length: 64\r\n\r\n[", sockets)
        wait_until(lambda: ctx.active.requests == 1)
        with Stall(redis_url):
            write = http(port, patch("4000"), sockets)
            wait_until(ctx.write_lock.locked)  # the write's commit has begun: it waits for Redis
            other.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n")
            answer = other.recv(4096)
            still_waiting = ctx.write_lock.locked()
        assert answer.startswith(b"HTTP/1.1 200") and still_waiting, "health waited for the write's Redis calls"
        assert write.recv(4096).startswith(b"HTTP/1.1 200")
        slow.close()
    assert cdb.get_entry("PORT", "Ethernet0")["mtu"] == "4000"
