"""The supervisor's journal of CONFIG_DB, so that an accepted change survives a Redis restart.

Why a journal of our own and not Redis persistence: Redis' AOF and RDB cover the whole instance, and
the instance also carries the route path (100K APPL_DB routes/s through APPL_DB and ASIC_DB) and the
counters; an AOF would write all of that to disk to keep a few thousand CONFIG_DB rows. One Redis per
switch is a fixed contract, so a second instance for CONFIG_DB is out too.

How it is kept. Every transactional write (``ConfigDBConnector.apply``: REST, gNMI, the CLI, config
load/reload) runs ``config_apply.lua``, which PUBLISHes the rows it leaves on ``NOS_CONFIG_JOURNAL``
in the same script. Redis writes that message to this subscriber in the same event-loop turn as the
writer's reply, so by the time a REST PATCH is answered its rows are on their way here even if Redis
is killed at once: the kernel still delivers what Redis had written before the socket closes
(precisely: once Redis has answered anything after the apply; see the integration test). Writes
that bypass the transaction (redis-cli HSET, a daemon's ``Table.set``) are caught from CONFIG_DB's
keyevent channels (``__keyevent@4__:hset`` and the like: exact channels, so the route path pays no
pattern matching) and read back at once; one that Redis loses within that read (a millisecond or so)
is lost with it. FLUSHDB / FLUSHALL / SWAPDB send no per-key events and are not seen.

What is written: each batch of messages becomes one line of ``config_journal.jsonl`` (written at
once, fdatasync'd within a second: Redis dying does not touch the page cache) and, every
``COMPACT_EVERY`` lines, a new ``config_snapshot.json`` (see ``journal_files``). After a Redis
restart the supervisor writes what the files hold back into CONFIG_DB (``restore``) before any
client can connect, then resumes the journal on the new server.
"""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
from collections.abc import Callable
from typing import Any, cast

import hiredis
import redis
from redis.connection import parse_url

from nos.db.lua import lua
from nos.runtime.journal_files import SYNC_EVERY_S, JournalFiles, State, Value, apply_changes
from nos.schema.dbconfig import CONFIG_DB, default_db_config
from nos.schema.tables import CONFIG_DB_GENERATION_KEY, CONFIG_DB_JOURNAL_CHANNEL

log = logging.getLogger(__name__)

COMPACT_EVERY = 2000  # journal lines between snapshots
DIRTY_GRACE_S = 0.002  # after a keyevent, wait this long for the apply message that may cover it
# Keyevents that change a key (Redis 6.2 notify.c callers); unknown names cost nothing.
KEYEVENTS = (
    "hset", "hdel", "hincrby", "hincrbyfloat", "del", "set", "setrange", "incrby", "incrbyfloat", "append",
    "expire", "expired", "evicted", "persist", "rename_from", "rename_to", "move_from", "move_to", "copy_to",
    "restore", "lpush", "rpush", "lpop", "rpop", "linsert", "lset", "lrem", "ltrim", "sadd", "srem", "spop",
    "sinterstore", "sunionstore", "sdiffstore", "smove", "zadd", "zincr", "zrem", "zremrangebyscore",
    "zremrangebyrank", "zremrangebylex", "zinterstore", "zunionstore", "zdiffstore", "zrangestore", "zpopmin",
    "zpopmax", "xadd", "xtrim", "xdel", "xsetid", "xgroup-create", "xgroup-destroy", "xgroup-setid",
    "xgroup-createconsumer", "xgroup-delconsumer", "setbit", "pfadd", "sortstore", "georadiusstore",
)

Client = redis.Redis  # bytes in, bytes out (decode_responses off: DUMP payloads are binary)
Connect = Callable[[], Client]


def keyevent_channels(db_id: int) -> list[str]:
    return [f"__keyevent@{db_id}__:{event}" for event in KEYEVENTS]


def _text(raw: bytes) -> str:
    return raw.decode("utf-8")


def _fields(flat: list[bytes]) -> dict[str, str]:
    return {_text(flat[i]): _text(flat[i + 1]) for i in range(0, len(flat), 2)}


def parse_typed(reply: list[Any]) -> tuple[dict[str, Value | None], list[str]]:
    """``read_typed.lua``'s reply as journal values, and the keys whose hash or string is not UTF-8
    text (pure): those are to be kept as a DUMP, raw bytes cannot go into JSON."""
    out: dict[str, Value | None] = {}
    binary: list[str] = []
    for i in range(0, len(reply), 3):
        try:
            key = _text(reply[i])
        except UnicodeDecodeError:
            log.warning("journal.skipped key=%r reason='not UTF-8'", reply[i])
            continue
        kind, raw = _text(reply[i + 1]), reply[i + 2]
        try:
            if kind == "hash":
                out[key] = ("hash", _fields(raw))
            elif kind == "string":
                out[key] = ("string", _text(raw))
            elif kind == "none":
                out[key] = None
            else:
                out[key] = ("dump", base64.b64encode(raw).decode("ascii"))
        except UnicodeDecodeError:
            binary.append(key)
    return out, binary


def parse_apply_message(data: bytes) -> dict[str, Value | None]:
    """A ``config_apply.lua`` journal message, ``[generation, key, fields | false, ...]`` (pure).
    An empty Lua table comes out of cjson as ``{}``: a row left with no fields is gone."""
    items = json.loads(data)
    changes: dict[str, Value | None] = {CONFIG_DB_GENERATION_KEY: ("string", str(items[0]))}
    for i in range(1, len(items), 2):
        flat = items[i + 1]
        changes[items[i]] = ("hash", dict(zip(flat[::2], flat[1::2], strict=True))) if flat else None
    return changes


def restore(client: Client, state: State) -> int:
    """Write ``state`` into the (empty) CONFIG_DB of ``client`` in one MULTI; returns the keys written."""
    pipe = client.pipeline(transaction=True)
    for key, (kind, value) in state.items():
        pipe.delete(key)
        if kind == "hash":
            pipe.hset(key, mapping=value)
        elif kind == "string":
            pipe.set(key, value)
        else:
            pipe.restore(key, 0, base64.b64decode(value), replace=True)
    pipe.execute()
    return len(state)


def journal_client(url: str) -> Client:
    """A CONFIG_DB client for the journal: RESP2, bytes, no silent reconnect (it would miss messages)."""
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    db_id = default_db_config().info(CONFIG_DB).id
    return redis.Redis.from_url(url, db=db_id, protocol=2, health_check_interval=0, retry=Retry(NoBackoff(), 0))


class Subscriber:
    """A bare pub/sub connection: one recv hands every message that came in one go to hiredis (in C).
    redis-py's ``PubSub.get_message`` cost ~140 us of CPU per message here, this ~50 us per wake-up,
    and a PATCH's rows arrive with their keyevents in one wake-up."""

    def __init__(self, url: str, channels: list[str]) -> None:
        where: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        if "path" in where:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            address: Any = where["path"]
        else:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            address = (where.get("host", "127.0.0.1"), int(where.get("port", 6379)))
        self.sock.settimeout(5.0)
        self.sock.connect(address)
        self.reader = hiredis.Reader()
        if where.get("password"):
            self.sock.sendall(hiredis.pack_command(cast(Any, ("AUTH", where["password"]))))
            self._expect(b"OK")
        self.sock.sendall(hiredis.pack_command(cast(Any, ("SUBSCRIBE", *channels))))
        confirmed = 0
        while confirmed < len(channels):
            confirmed += sum(1 for m in self.read(5.0) if m[0] == b"subscribe")

    def _expect(self, reply: bytes) -> None:
        got = self.read(5.0)
        if got != [reply]:
            raise redis.ConnectionError(f"journal subscription refused: {got!r}")

    def read(self, timeout: float) -> list[Any]:
        """Every complete message available within ``timeout`` seconds ([] when none came)."""
        out = self._parsed()
        if out:
            return out
        self.sock.settimeout(timeout if timeout > 0 else 0.0)
        try:
            data = self.sock.recv(1 << 20)
        except (TimeoutError, BlockingIOError):
            return []
        if not data:
            raise redis.ConnectionError("Connection closed by server.")
        self.reader.feed(data)
        return self._parsed()

    def _parsed(self) -> list[Any]:
        out = []
        while (item := self.reader.gets()) is not False:
            if isinstance(item, hiredis.ReplyError):
                raise redis.ConnectionError(f"journal subscription: {item}")
            out.append(item)
        return out

    def close(self) -> None:
        self.sock.close()


class ConfigJournal:
    """Follows CONFIG_DB into the journal files from a thread of its own."""

    def __init__(self, files: JournalFiles, url: Callable[[], str], compact_every: int = COMPACT_EVERY) -> None:
        self.files = files
        self.url = url  # asked at each start: a restarted server listens on a staging socket first
        self.connect: Connect = lambda: journal_client(self.url())
        self.compact_every = compact_every
        self.lost = threading.Event()      # the subscription broke (Redis went away)
        self.error: str | None = None      # the last failure to write the files (None: healthy)
        self._state: State = {}
        self._seq = 0
        self._lines = 0
        self._client: Client | None = None
        self._pubsub: Subscriber | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._read = lua("read_typed")

    # -- life cycle --------------------------------------------------------------------------------
    def start(self) -> None:
        """Subscribe, take CONFIG_DB whole as the new baseline (snapshot), then follow it. Subscribing
        first means no change between the two is missed. Raises redis errors if Redis does not answer."""
        self.lost.clear()
        self._client = self.connect()
        db_id = default_db_config().info(CONFIG_DB).id
        url = self.url()
        self._pubsub = Subscriber(url, [CONFIG_DB_JOURNAL_CHANNEL, *keyevent_channels(db_id)])
        self._state = {k: v for k, v in self._read_keys([]).items() if v is not None}
        self._compact()
        self._thread = threading.Thread(target=self._run, name="config-journal", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._close()

    def remove_files(self) -> None:
        self.files.remove()

    def state(self) -> State:
        """What the files hold (read back from disk: that is what a restore writes)."""
        return self.files.load()[0]

    # -- the thread --------------------------------------------------------------------------------
    def _run(self) -> None:
        assert self._pubsub is not None
        try:
            while not self._stopping.is_set():
                messages = self._pubsub.read(SYNC_EVERY_S)
                if messages:
                    self._batch(messages)
                else:
                    self.files.sync()
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            log.warning("journal.lost error=%s", exc)
        except Exception:  # a bug must not go unseen: the journal is then not kept
            log.exception("journal.crashed")
            self.error = "the journal thread crashed (see logs/supervisor.log)"
        finally:
            self._close()
            self._sync()
            self.lost.set()

    def _batch(self, messages: list[Any]) -> None:
        """``messages`` and every message already waiting, as one journal line."""
        assert self._pubsub is not None
        changes: dict[str, Value | None] = {}
        dirty: set[str] = set()
        try:
            while messages:
                for message in messages:
                    self._take(message, changes, dirty)
                messages = self._pubsub.read(0.0) or (self._pubsub.read(DIRTY_GRACE_S) if dirty else [])
            if dirty:
                changes.update(self._read_keys(sorted(dirty)))
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            # Redis went away: keep what it had said (the keys only named by keyevents are lost with it)
            if changes:
                self._write(changes)
            raise
        if changes:
            self._write(changes)

    @staticmethod
    def _take(message: list[Any], changes: dict[str, Value | None], dirty: set[str]) -> None:
        if message[0] != b"message":
            return
        if message[1] == CONFIG_DB_JOURNAL_CHANNEL.encode():
            applied = parse_apply_message(message[2])
            changes.update(applied)
            dirty.difference_update(applied)
        else:
            dirty.add(_text(message[2]))

    def _read_keys(self, keys: list[str]) -> dict[str, Value | None]:
        assert self._client is not None
        values, binary = parse_typed(self._client.eval(self._read, 0, *keys))
        for key in binary:  # text that is not UTF-8: keep Redis' own encoding of it
            payload = self._client.dump(key)
            values[key] = None if payload is None else ("dump", base64.b64encode(payload).decode("ascii"))
        return values

    def _write(self, changes: dict[str, Value | None]) -> None:
        apply_changes(self._state, changes)
        self._seq += 1
        self._lines += 1
        try:
            if self._lines >= self.compact_every:
                self._compact()
            else:
                self.files.append(self._seq, changes)
            self.error = None
        except OSError as exc:
            self.error = f"cannot write {self.files.journal_path}: {exc.strerror or exc}"
            log.error("journal.write_failed error=%s", self.error)

    def _sync(self) -> None:
        try:
            self.files.sync()
        except OSError as exc:
            self.error = f"cannot write {self.files.journal_path}: {exc.strerror or exc}"

    def _compact(self) -> None:
        self.files.write_snapshot(self._state, self._seq)
        self._lines = 0

    def _close(self) -> None:
        for closing in (self._pubsub, self._client):
            if closing is not None:
                try:
                    closing.close()
                except (redis.RedisError, OSError):
                    pass
        self._pubsub = self._client = None
