"""A fake syncd_sim for the request protocol: a thread that answers ``NOS_TRAFFIC_REQUEST`` /
``NOS_TRACE_REQUEST`` with what a test tells it, on the session's real Redis; a run directory and the
128x400G SKU's CONFIG_DB for the CLI and REST."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator

import pytest
import redis

from tests.integration.nos.cli.conftest import run_dir, sku_config  # noqa: F401  (the same fixtures)

STATE_DB_ID = 6
Handler = Callable[[redis.Redis, str], None]


class Responder:
    """Answers each request id published on a channel by calling ``handle(client, id)`` on its thread."""

    def __init__(self, url: str, channel: str, handle: Handler) -> None:
        self.client = redis.Redis.from_url(url, db=STATE_DB_ID, decode_responses=True)
        self.pubsub = self.client.pubsub()
        self.pubsub.subscribe(channel)
        confirmed = self.pubsub.get_message(timeout=5)
        assert confirmed and confirmed["type"] == "subscribe", confirmed
        self.handle = handle
        self.ids: list[str] = []
        self.errors: list[BaseException] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop.is_set():
            message = self.pubsub.get_message(timeout=0.02)
            if message and message["type"] == "message":
                self.ids.append(message["data"])
                try:
                    self.handle(self.client, message["data"])
                except BaseException as exc:  # reported by the fixture
                    self.errors.append(exc)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.pubsub.close()
        self.client.close()


@pytest.fixture
def responder(redis_url: str) -> Iterator[Callable[[str, Handler], Responder]]:
    made: list[Responder] = []

    def start(channel: str, handle: Handler) -> Responder:
        made.append(Responder(redis_url, channel, handle))
        return made[-1]

    yield start
    for one in made:
        one.close()
    errors = [e for one in made for e in one.errors]
    assert not errors, errors


def finish_with(document: dict[str, object]) -> Handler:
    """A handler that runs the job at once: state running, then done with ``document`` as the result."""

    def handle(client: redis.Redis, job_id: str) -> None:
        key = f"NOS_TRAFFIC_JOB|{job_id}"
        client.hset(key, mapping={"state": "running", "progress": "0.5"})
        client.hset(key, mapping={"state": "done", "progress": "1", "result": json.dumps(document)})

    return handle
