"""Lua scripts called over a connection of their own: one send and one read per call.

A call through redis-py's ``Script`` goes through the client's connection pool (a lock and a
checkout each way), its retry wrapper and, in redis-py 8, the observability hooks of every command:
~60 us of CPU per EVALSHA on the development VM, against ~23 us for the same EVALSHA sent with the
connection's own ``send_command`` and read with ``read_response``. Scripts are what the hot paths
call (a CONFIG_DB apply, ProducerStateTable sets, ConsumerStateTable pops), so each ``DBConnector``
keeps one ``DirectConnection`` for them, made from its client's pool settings (same URL, DB, protocol
and fail-fast policy: no retry, a broken connection is reconnected by the next call).

A call inside a redis-py pipeline (``client=pipe``) still goes through redis-py's ``Script``, which
loads the script on NOSCRIPT for the pipeline.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Sequence
from typing import Any, cast

import hiredis
import redis
from redis.exceptions import NoScriptError

Arg = str | int | float | bytes


_LIVE: weakref.WeakSet[DirectConnection] = weakref.WeakSet()


def _forget_all_after_fork() -> None:
    for direct in list(_LIVE):
        direct._forget()


os.register_at_fork(after_in_child=_forget_all_after_fork)  # rather than a getpid (a syscall) per call


class DirectConnection:
    """One connection outside the pool, for short request/reply commands (thread-safe: one at a time)."""

    def __init__(self, client: redis.Redis) -> None:
        self._pool = client.connection_pool
        self._lock = threading.Lock()
        self._conn: Any = None
        _LIVE.add(self)

    def execute(self, *args: Arg) -> Any:
        """Send one command and read its reply; redis-py's exceptions as the client raises them (an
        error reply leaves the connection usable; a broken connection is dropped and made anew next time)."""
        packed = hiredis.pack_command(cast(Any, args))  # what redis-py's packer ends in, without its checks
        with self._lock:
            conn = self._connection()
            conn.send_packed_command([packed], check_health=False)
            return conn.read_response()

    def _connection(self) -> Any:  # a redis-py Connection
        if self._conn is None:
            self._conn = self._pool.make_connection()
        return self._conn

    def _forget(self) -> None:
        self._conn, self._lock = None, threading.Lock()  # the parent's socket and lock are not this process's

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.disconnect()
                self._conn = None


class Script:
    """A Lua script by its SHA1: ``script(keys=[...], args=[...])`` (EVALSHA, loaded again on NOSCRIPT)."""

    def __init__(self, client: redis.Redis, direct: DirectConnection, source: str) -> None:
        self._registered = client.register_script(source)  # for pipelines, and the SHA1
        self._direct = direct
        self.script = source
        self.sha: str = self._registered.sha

    def __call__(self, keys: Sequence[Arg] = (), args: Sequence[Arg] = (), client: Any = None) -> Any:
        if client is not None:
            return self._registered(keys=cast(Any, keys), args=cast(Any, args), client=client)
        try:
            return self._direct.execute("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:  # Redis restarted or SCRIPT FLUSH: nothing ran; load it and run it once
            self._direct.execute("SCRIPT", "LOAD", self.script)
            return self._direct.execute("EVALSHA", self.sha, len(keys), *keys, *args)


__all__ = ["DirectConnection", "Script"]
