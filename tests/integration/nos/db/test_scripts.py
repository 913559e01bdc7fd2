"""Scripts on the DB's own connection (nos.db.scripts): the reply as redis-py's Script gives it, a flushed
script loaded again, an error reply leaving the connection usable, a killed connection made anew."""

from __future__ import annotations

import threading

import pytest
import redis

from nos.db import Databases
from nos.schema.dbconfig import APPL_DB

ECHO = "return {KEYS[1], ARGV[1], #ARGV}"
SET = "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])"


def test_a_call_answers_what_redis_py_answers_on_the_same_db(dbs: Databases) -> None:
    db = dbs[APPL_DB]
    script = db.script("nos_test_echo", ECHO)
    assert script(keys=["k"], args=["a", 2]) == db.client.register_script(ECHO)(keys=["k"], args=["a", 2])
    assert db.script("nos_test_set", SET)(keys=["NOS_TEST_SCRIPT"], args=["v"]) == "v"
    assert db.client.get("NOS_TEST_SCRIPT") == "v"  # the connection is on this DB, not on DB 0


def test_a_flushed_script_is_loaded_again(dbs: Databases) -> None:
    db = dbs[APPL_DB]
    script = db.script("nos_test_echo", ECHO)
    script(keys=["k"], args=["a"])
    db.client.script_flush()
    assert script(keys=["k"], args=["b"]) == ["k", "b", 1]


def test_an_error_reply_is_raised_and_the_connection_still_works(dbs: Databases) -> None:
    db = dbs[APPL_DB]
    failing = db.script("nos_test_fail", "return redis.error_reply('nos test refusal')")
    with pytest.raises(redis.exceptions.ResponseError, match="nos test refusal"):
        failing()
    assert db.script("nos_test_echo", ECHO)(keys=["k"], args=["c"]) == ["k", "c", 1]


def test_a_killed_connection_fails_one_call_and_the_next_reconnects(dbs: Databases) -> None:
    db = dbs[APPL_DB]
    script = db.script("nos_test_echo", ECHO)
    script(keys=["k"], args=["d"])
    db.client.client_kill_filter(_type="normal", skipme=True)  # every other normal connection
    with pytest.raises((redis.exceptions.ConnectionError, ConnectionError)):
        script(keys=["k"], args=["e"])
    assert script(keys=["k"], args=["f"]) == ["k", "f", 1]


def test_threads_share_the_connection_one_call_at_a_time(dbs: Databases) -> None:
    db = dbs[APPL_DB]
    script = db.script("nos_test_echo", ECHO)
    results: list[list[object]] = []

    def calls(name: str) -> None:
        results.extend(script(keys=[name], args=[str(i)]) for i in range(200))

    threads = [threading.Thread(target=calls, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(map(tuple, results)) == sorted((f"t{n}", str(i), 1) for n in range(4) for i in range(200))
