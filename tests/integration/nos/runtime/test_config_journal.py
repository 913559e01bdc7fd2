"""CONFIG_DB's journal against a real redis-server: it follows transactional applies and redis-cli
writes, keeps what Redis said before a SIGKILL, and writes it back into a new server."""

from __future__ import annotations

import os
import signal

import pytest
import redis

from nos.db import ConfigDBConnector, Databases, RowChange
from nos.runtime.config_journal import ConfigJournal, journal_client, restore
from nos.runtime.journal_files import JournalFiles
from nos.runtime.redis_server import RedisServer
from nos.schema.tables import CONFIG_DB_GENERATION_KEY
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


@pytest.fixture
def server(tmp_path):
    srv = RedisServer(tmp_path / "redis")
    srv.start()
    yield srv
    srv.stop()


def journal_for(server, directory):
    journal = ConfigJournal(JournalFiles(directory), lambda: server.listen_url)
    journal.start()
    return journal


def config_db(url):
    return redis.Redis.from_url(url, db=4, decode_responses=True)


def dump(client):
    out = {}
    for key in client.keys("*"):
        kind = client.type(key)
        out[key] = client.hgetall(key) if kind == "hash" else client.get(key) if kind == "string" else kind
    return out


def test_the_journal_follows_applies_and_direct_writes_and_restores_them(server, tmp_path):
    dbs = Databases(server.url)
    cfg = ConfigDBConnector(dbs["CONFIG_DB"])
    cfg.apply([RowChange("PORT", "Ethernet0", "replace", {"lanes": "0,1,2,3", "mtu": "9100"})])
    journal = journal_for(server, tmp_path)
    try:
        cfg.apply([RowChange("PORT", "Ethernet0", "merge", {"mtu": "4000"}),
                   RowChange("VLAN", "Vlan10", "replace", {"vlanid": "10"})])
        cfg.apply([RowChange("VLAN", "Vlan10", "delete")])
        raw = config_db(server.url)
        raw.hset("PORT|Ethernet4", mapping={"lanes": "4", "mtu": "1500"})  # redis-cli style: no generation bump
        raw.set("WEIRD", "a string")
        raw.rpush("LISTY", "a", "b")
        wanted = dump(raw)
        wait_until(lambda: {"LISTY", "WEIRD", "PORT|Ethernet4"} <= journal.state().keys())
        state = journal.state()
        assert state["PORT|Ethernet0"] == ("hash", {"lanes": "0,1,2,3", "mtu": "4000"})
        assert "VLAN|Vlan10" not in state and state[CONFIG_DB_GENERATION_KEY] == ("string", "3")
        assert state["LISTY"][0] == "dump"
    finally:
        journal.stop()
        dbs.close()
    fresh = RedisServer(tmp_path / "fresh")
    fresh.start()
    try:
        client = journal_client(fresh.url)
        assert restore(client, JournalFiles(tmp_path).load()[0]) == len(wanted)
        client.close()
        again = config_db(fresh.url)
        assert dump(again) == wanted
        assert again.lrange("LISTY", 0, -1) == ["a", "b"]
        again.close()
    finally:
        fresh.stop()


def test_applies_answered_before_redis_is_killed_are_in_the_journal(server, tmp_path):
    """An apply's rows go out to the journal in the event-loop turn that answers it, so once Redis
    has answered anything after it (here a PING on another connection; a REST PATCH's answer takes
    longer than that turn) the rows are the supervisor's even if Redis is killed at once. (Killed
    within microseconds of the apply's own reply, the last apply can be lost: Redis writes the
    writer's reply before the subscriber's message in that turn.)"""
    dbs = Databases(server.url)
    cfg = ConfigDBConnector(dbs["CONFIG_DB"])
    journal = journal_for(server, tmp_path)
    other = redis.Redis(unix_socket_path=str(server.socket_path))
    try:
        for i in range(20):
            cfg.apply([RowChange("PORT", f"Ethernet{i}", "replace", {"mtu": str(1000 + i)})])
        other.ping()
        os.kill(server.proc.pid, signal.SIGKILL)
        assert journal.lost.wait(5)
        state = JournalFiles(tmp_path).load()[0]
        assert all(state[f"PORT|Ethernet{i}"] == ("hash", {"mtu": str(1000 + i)}) for i in range(20))
    finally:
        other.close()
        journal.stop()
        dbs.close()


def test_journal_messages_are_published_without_subscribers_too(server):
    """The apply script always publishes; with nobody listening that is harmless."""
    dbs = Databases(server.url)
    try:
        cfg = ConfigDBConnector(dbs["CONFIG_DB"])
        assert cfg.apply([RowChange("PORT", "Ethernet0", "replace", {"mtu": "1"})]) == 1
        assert cfg.get_entry("PORT", "Ethernet0") == {"mtu": "1"}
    finally:
        dbs.close()
