"""The switch's Redis TCP port needs the run dir's password; its unix socket does not."""

from __future__ import annotations

import os
import signal

import psutil
import pytest
import redis

from tests.conftest import wait_until
from tests.e2e.conftest import nos, start_switch

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def sw(tmp_path_factory):
    switch = start_switch(tmp_path_factory.mktemp("tcp"), "--sku", "Force10-S6000", "--gnmi-port", "0")
    yield switch
    switch.close()
    switch.nos("down", check=False)


def test_tcp_without_the_password_cannot_read_or_write(sw):
    url = sw.endpoints["redis_tcp"]
    for password in (None, "not-it"):
        with redis.Redis.from_url(url, db=4, password=password, protocol=2) as tcp:
            with pytest.raises(redis.AuthenticationError):
                tcp.hget("PORT|Ethernet0", "lanes")
            with pytest.raises(redis.AuthenticationError):
                tcp.hset("PORT|Ethernet0", "mtu", "1")
    assert sw.db(4).hget("PORT|Ethernet0", "mtu") != "1"


def test_tcp_with_the_password_works_for_commands_pipelines_and_pubsub(sw):
    password_file = sw.run_dir / "redis.pass"
    assert sw.endpoints["redis_password_file"] == str(password_file)
    assert password_file.stat().st_mode & 0o777 == 0o600
    password = password_file.read_text().strip()
    with redis.Redis.from_url(sw.endpoints["redis_tcp"], db=4, password=password, decode_responses=True) as tcp:
        assert tcp.hget("PORT|Ethernet0", "lanes") == "25,26,27,28"
        pipe = tcp.pipeline(transaction=False)
        for i in range(100):
            pipe.hget(f"PORT|Ethernet{4 * (i % 32)}", "lanes")
        assert all(pipe.execute())
        pubsub = tcp.pubsub(ignore_subscribe_messages=True)
        pubsub.psubscribe("__keyspace@4__:PORT|Ethernet8")
        wait_until(lambda: tcp.execute_command("PUBSUB", "NUMPAT") >= 1)
        sw.db(4).hset("PORT|Ethernet8", "description", "via the unix socket")
        message = wait_until(lambda: pubsub.get_message(timeout=0.1))
        assert message["channel"] == "__keyspace@4__:PORT|Ethernet8" and message["data"] == "hset"
        pubsub.close()


def test_the_unix_socket_and_nos_redis_cli_need_no_password(sw):
    assert sw.endpoints["redis"].startswith("unix://")
    assert sw.db(4).hget("PORT|Ethernet0", "lanes") == "25,26,27,28"  # a plain client on the socket
    out = nos("redis-cli", "--run-dir", str(sw.run_dir), "-n", "4", "hget", "PORT|Ethernet0", "lanes")
    assert out.stdout.strip() == "25,26,27,28"
    assert oct((sw.run_dir / "redis.sock").stat().st_mode & 0o777) == oct(0o700)


def test_a_killed_guard_comes_back_on_the_same_port(sw):
    supervisor = psutil.Process(int((sw.run_dir / "supervisor.pid").read_text()))
    guard = next(p for p in supervisor.children() if "nos.runtime.redis_guard" in p.cmdline())
    os.kill(guard.pid, signal.SIGKILL)
    password = (sw.run_dir / "redis.pass").read_text().strip()

    def answers() -> bool:
        try:
            with redis.Redis.from_url(sw.endpoints["redis_tcp"], password=password) as tcp:
                return bool(tcp.ping())
        except redis.ConnectionError:
            return False

    wait_until(answers, timeout=20, interval=0.1)
    assert sw.db(6).hget("NOS_DAEMON_TABLE|redis_guard", "last_exit") == "killed by SIGKILL"
