"""The Redis TCP guard (``python -m nos.runtime.redis_guard``) in front of a real redis-server: no
password, no reads and no writes; with it, everything (pub/sub and pipelines included); the unix
socket needs none."""

from __future__ import annotations

import subprocess
import sys

import pytest
import redis

from nos.runtime.redis_guard import ensure_password_file, read_password_file
from nos.runtime.redis_server import RedisServer, pick_free_port
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


@pytest.fixture
def guarded(tmp_path):
    server = RedisServer(tmp_path / "redis")
    server.start()
    password_file = tmp_path / "redis.pass"
    assert ensure_password_file(password_file)
    port = pick_free_port()
    guard = subprocess.Popen([sys.executable, "-m", "nos.runtime.redis_guard", "--listen", f"127.0.0.1:{port}",
                              "--unix", str(server.socket_path), "--password-file", str(password_file)],
                             stderr=subprocess.PIPE)
    url = f"redis://127.0.0.1:{port}"

    def listening():
        try:
            redis.Redis.from_url(url, protocol=2).ping()
        except redis.AuthenticationError:
            return True
        except redis.ConnectionError:
            return False
        raise AssertionError("answered without a password")

    wait_until(listening, timeout=10)
    yield url, read_password_file(password_file).decode(), server
    guard.terminate()
    guard.wait(5)
    guard.stderr.close()
    server.stop()


def test_without_the_password_nothing_is_read_or_written(guarded):
    url, _, server = guarded
    unix = redis.Redis(unix_socket_path=str(server.socket_path), decode_responses=True)
    unix.set("secret", "s")
    for password in (None, "wrong"):
        client = redis.Redis.from_url(url, password=password, protocol=2)
        for call in (lambda c: c.get("secret"), lambda c: c.set("x", "1"), lambda c: c.config_get("*"),
                     lambda c: c.keys("*"), lambda c: c.pubsub().subscribe("ch")):
            with pytest.raises(redis.AuthenticationError):
                call(client)
        client.close()
    assert unix.get("x") is None and unix.get("secret") == "s"
    unix.close()


def test_with_the_password_everything_works(guarded):
    url, password, server = guarded
    for protocol in (2, 3):  # AUTH, and HELLO 3 AUTH default <password>
        client = redis.Redis.from_url(url, password=password, protocol=protocol, decode_responses=True)
        client.set(f"k{protocol}", "v")
        assert client.get(f"k{protocol}") == "v"
        pipe = client.pipeline(transaction=True)
        for i in range(500):
            pipe.rpush(f"list{protocol}", i)
        assert pipe.execute()[-1] == 500
        assert client.lrange(f"list{protocol}", 498, -1) == ["498", "499"]
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        pubsub.subscribe("chan")
        wait_until(lambda c=client: c.pubsub_numsub("chan")[0][1] == 1)
        client.publish("chan", "hello")
        message = wait_until(lambda p=pubsub: p.get_message(timeout=0.1))
        assert message["data"] == "hello"
        pubsub.close()
        client.close()
    unix = redis.Redis(unix_socket_path=str(server.socket_path), decode_responses=True)  # no password
    assert unix.get("k2") == "v" and unix.llen("list3") == 500
    unix.close()


def test_the_password_file_is_owner_only_and_replaced_when_it_is_not(tmp_path):
    path = tmp_path / "redis.pass"
    assert ensure_password_file(path) and path.stat().st_mode & 0o777 == 0o600
    first = path.read_text()
    assert not ensure_password_file(path) and path.read_text() == first
    path.chmod(0o644)  # others could have read it: a new one
    assert ensure_password_file(path) and path.read_text() != first and path.stat().st_mode & 0o777 == 0o600
