"""DBConnector: one logical SONiC database (name, id, separator) on the switch's Redis.

A switch has one Redis instance; each logical DB is a Redis DB number. URLs are
``unix:///path/redis.sock`` or ``redis://host:port`` (a bare path is taken as a unix socket).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from nos.db.baddata import BadKey, BadKeys, wrong_type_reason
from nos.db.errors import DbConnectionError, map_redis_errors
from nos.db.keyspace import KeyspaceHub
from nos.db.scripts import DirectConnection, Script
from nos.schema.dbconfig import SonicDBConfig, default_db_config


def normalise_url(url: str) -> str:
    """Accept a bare socket path or ``unix:``/``redis:`` URLs; return a redis-py URL."""
    if url.startswith(("unix://", "redis://", "rediss://")):
        return url
    if url.startswith("/"):
        return f"unix://{url}"
    raise ValueError(f"not a Redis URL: {url!r} (use unix:///path/redis.sock or redis://host:port)")


class DBConnector:
    """A connection to one logical database, as swss-common's ``DBConnector``."""

    def __init__(self, db: str | int, url: str, *, config: SonicDBConfig | None = None,
                 bad_keys: BadKeys | None = None) -> None:
        self.config = config or default_db_config()
        self.bad_keys = bad_keys or BadKeys()  # where readers report the keys they skip (nos.db.baddata)
        self.name = db if isinstance(db, str) else self.config.name_of(db)
        info = self.config.info(self.name)
        self.id = info.id
        self.separator = info.separator
        self.url = normalise_url(url)
        self.client = self.new_client()
        self._hub: KeyspaceHub | None = None
        self.tracking = False  # producers made on this DB while True record the keys they set
        self.producers: list[Any] = []  # those producers (ProducerStateTable), for a restart's sweep

    def new_client(self, **options: Any) -> redis.Redis:
        """A client speaking RESP2, whatever redis-py's default (RESP3 in redis-py 8). Under RESP3
        hiredis builds every HGETALL reply as a map, slower than RESP2's flat array made into a dict
        (all 128 ports' ~100 counters in one pipeline 15 ms instead of 8; a 10-field row 86 us instead
        of 73 with its round trip); and under RESP3 every pub/sub message is a push that redis-py
        formats into a debug string and hands to a logger looked up per message (a drain of 3
        keyspace events 53 us instead of 35). A RESP2 connection also needs no HELLO when it
        connects. No caller uses a reply shape that only RESP3 has.

        Replies are decoded with ``errors="replace"``: a key or value that is not UTF-8 (binary garbage
        written with redis-cli) reads with U+FFFD in place of its bad bytes instead of raising
        UnicodeDecodeError in whichever reader meets it (see ``nos.db.baddata``)."""
        settings: dict[str, Any] = {
            "db": self.id, "decode_responses": True, "encoding_errors": "replace", "health_check_interval": 0,
            "protocol": 2,
            "retry": Retry(NoBackoff(), 0),  # fail fast: a silent reconnect would drop subscriptions' messages
        }
        return redis.Redis.from_url(self.url, **{**settings, **options})  # options win (raw bytes: decode off)

    def __repr__(self) -> str:
        return f"DBConnector({self.name}={self.id}, {self.url})"

    def ping(self) -> None:
        """Raise ``DbConnectionError`` unless Redis answers."""
        with map_redis_errors(f"ping {self.name}"):
            if not self.client.ping():
                raise DbConnectionError(f"{self.name}: PING not answered")

    def row_name(self, table: str, key: str) -> str:
        """The Redis key of a row (an empty key names the table's own hash, as a name map)."""
        return table if key == "" else f"{table}{self.separator}{key}"

    def wrong_types(self, table: str, keys: list[str], expected: str = "hash") -> list[BadKey]:
        """Reports for rows of ``table`` that a command refused with WRONGTYPE, their types read in one
        round trip (the error path only); a key that meanwhile became what was expected, or went, is
        left out."""
        names = [self.row_name(table, key) for key in keys]
        with map_redis_errors(f"type of {len(names)} keys"):
            pipe = self.client.pipeline(transaction=False)
            for name in names:
                pipe.type(name)
            types = pipe.execute()
        return [BadKey(self.name, table, key, wrong_type_reason(self.name, name, kind, expected))
                for key, name, kind in zip(keys, names, types, strict=True) if kind not in (expected, "none")]

    def report_wrong_types(self, table: str, keys: list[str], expected: str = "hash") -> None:
        """``wrong_types``, each reported to ``bad_keys``."""
        for bad in self.wrong_types(table, keys, expected):
            self.bad_keys.report(bad)

    def pubsub(self) -> Any:
        """A new pub/sub connection (keyspace and table channels are server-wide), speaking RESP2."""
        return self.client.pubsub(ignore_subscribe_messages=False)  # type: ignore[no-untyped-call, unused-ignore]  # typed in newer redis-py

    @cached_property
    def scripts(self) -> dict[str, Script]:
        """Cache of registered Lua scripts (by name) on this connection."""
        return {}

    @cached_property
    def direct(self) -> DirectConnection:
        """The connection scripts are called on (see ``nos.db.scripts``)."""
        return DirectConnection(self.client)

    def script(self, name: str, source: str) -> Script:
        """A Lua script called on ``direct`` (EVALSHA, loaded again on NOSCRIPT)."""
        found = self.scripts.get(name)
        if found is None:
            found = self.scripts[name] = Script(self.client, self.direct, source)
        return found

    def keyspace_hub(self) -> KeyspaceHub:
        """The shared keyspace subscription of this DB (created on first use)."""
        if self._hub is None:
            self._hub = KeyspaceHub(self)
        return self._hub

    def close(self) -> None:
        if self._hub is not None:
            self._hub.close()
            self._hub = None
        if "direct" in self.__dict__:
            self.direct.close()
        self.client.close()


class Databases:
    """Factory and cache of ``DBConnector``s of one switch (one Redis URL)."""

    def __init__(self, url: str, config: SonicDBConfig | None = None) -> None:
        self.url = normalise_url(url)
        self.config = config or default_db_config()
        self.bad_keys = BadKeys()  # shared by every connector: one log and one publisher per process
        self._connectors: dict[str, DBConnector] = {}

    def __getitem__(self, name: str) -> DBConnector:
        conn = self._connectors.get(name)
        if conn is None:
            conn = self._connectors[name] = DBConnector(name, self.url, config=self.config, bad_keys=self.bad_keys)
        return conn

    def close(self) -> None:
        for conn in self._connectors.values():
            conn.close()
        self._connectors.clear()
