"""Shared fixtures: a real redis-server started for the test session (never a fake)."""

from __future__ import annotations

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")  # before anything imports grpc: tests fork children

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from nos.db import Databases
from nos.runtime.redis_server import RedisServer

SHARED = Path(__file__).resolve().parents[2] / "shared"


GNMI_READER = "(enqueue_updates)"  # the name pygnmi's stream reader threads get (Thread-N (enqueue_updates))
READER_GRACE_S = 5.0


@pytest.fixture(scope="module", autouse=True)
def gnmi_readers_end_in_their_module() -> Iterator[None]:
    """A pygnmi stream's reader thread re-raises CANCELLED a moment after its channel is closed. Left
    alone, it may die while the next module's first test runs, and be reported there (as an unhandled
    thread exception, an error under ``filterwarnings = error``) instead of in the module that opened
    it and says whether that is expected. At the module's end its readers are waited for (only those
    whose channel is closed end; a stream still open is reported by name)."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + READER_GRACE_S
    readers = [t for t in threading.enumerate() if t not in before and t.name.endswith(GNMI_READER)]
    for thread in readers:
        thread.join(max(0.0, deadline - time.monotonic()))
    alive = [t.name for t in readers if t.is_alive()]
    assert not alive, f"gNMI streams left open at the end of the module: {alive}"


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"), port=0)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session server's URL, with every DB flushed before the test."""
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url


@pytest.fixture
def dbs(redis_url: str) -> Iterator[Databases]:
    databases = Databases(redis_url)
    yield databases
    databases.close()


@pytest.fixture
def raw(redis_url: str) -> Callable[[int], redis.Redis]:
    """A plain redis-py client on DB n, to observe exactly what the layer wrote."""
    clients: list[redis.Redis] = []

    def make(db: int) -> redis.Redis:
        client = redis.Redis.from_url(redis_url, db=db, decode_responses=True)
        clients.append(client)
        return client

    yield make  # type: ignore[misc]
    for client in clients:
        client.close()


def wait_until(predicate: Callable[[], object], timeout: float = 5.0, interval: float = 0.01) -> object:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"condition not met within {timeout}s: {predicate}")
        time.sleep(interval)
