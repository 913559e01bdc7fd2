"""A pub/sub connection that a selectable owns: subscribe (confirmed), drain, expose its socket.

Each selectable has its own subscription connection, as in swss-common, so it can be used alone
or inside a ``Select``. Channels and keyspace notifications are server-wide (not per DB).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from nos.db.errors import DbConnectionError, DbProtocolError, map_redis_errors

if TYPE_CHECKING:
    from nos.db.connector import DBConnector

_CONFIRM_TIMEOUT_S = 5.0


class Message(NamedTuple):
    """One delivered pub/sub message (``pattern`` set for keyspace-pattern deliveries). A NamedTuple:
    every daemon builds one per keyspace event, and a frozen dataclass's ``__init__`` costs several
    times as much."""

    channel: str
    data: str
    pattern: str | None = None


def _message(msg: dict[str, object] | None) -> Message | None:
    """A redis-py message dict as a Message; None for anything but a published message."""
    if msg is None or msg["type"] not in ("message", "pmessage"):
        return None
    pattern = msg.get("pattern")
    return Message(str(msg["channel"]), str(msg["data"]), str(pattern) if pattern else None)


class Subscription:
    """Subscribes to channels/patterns on its own connection and hands back data messages."""

    def __init__(self, db: DBConnector) -> None:
        self.db = db
        self._pubsub = db.pubsub()
        self._backlog: list[Message] = []

    def subscribe(self, channels: Iterable[str] = (), patterns: Iterable[str] = ()) -> None:
        """Subscribe and wait until Redis confirms, so no later publish can be missed."""
        channels, patterns = list(channels), list(patterns)
        with map_redis_errors(f"subscribe {channels + patterns}"):
            if channels:
                self._pubsub.subscribe(*channels)
            if patterns:
                self._pubsub.psubscribe(*patterns)
            self._await_confirmations(len(channels) + len(patterns))

    def _await_confirmations(self, expected: int) -> None:
        deadline = time.monotonic() + _CONFIRM_TIMEOUT_S
        confirmed = 0
        while confirmed < expected:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DbProtocolError(f"subscription not confirmed within {_CONFIRM_TIMEOUT_S}s")
            msg = self._next(left)
            if msg is None:
                continue
            if msg["type"] in ("subscribe", "psubscribe"):
                confirmed += 1
            else:
                self._keep(msg)

    def _keep(self, msg: dict[str, object]) -> None:
        message = _message(msg)
        if message is not None:
            self._backlog.append(message)

    def _connection(self) -> Any:
        conn = self._pubsub.connection
        if conn is None:
            raise DbConnectionError("subscription connection is closed")
        return conn

    def fileno(self) -> int:
        """The socket to wait on in ``select()``."""
        conn = self._connection()
        if conn._sock is None:  # redis-py keeps the socket private
            raise DbConnectionError("subscription connection is closed")
        fd: int = conn._sock.fileno()
        return fd

    def _next(self, timeout: float) -> dict[str, object] | None:
        """The next complete message if one starts within ``timeout`` seconds, else None.

        Data is waited for first (parser buffer or socket), then the message is read blocking:
        a burst of notifications reaches the socket in parts, and redis-py's timed read would
        give up on a message that arrived in part and reconnect, losing the part already read."""
        conn = self._connection()
        with map_redis_errors("read subscription"):
            if not conn.can_read(timeout=timeout):
                return None
            msg: dict[str, object] | None = self._pubsub.get_message(timeout=None)
        return msg

    def drain(self) -> list[Message]:
        """Every message already received, without blocking (parser buffer emptied too).

        Published messages are read off the connection directly (redis-py's ``get_message`` builds a
        dict and looks up handlers for each: ~4x the cost); anything else (a subscription
        confirmation, a pong) goes through redis-py's own handling, which keeps its state."""
        out, self._backlog = self._backlog, []
        conn = self._connection()
        with map_redis_errors("read subscription"):
            while conn.can_read(timeout=0):
                # no timeout argument: the socket's own (blocking) applies, without the two ioctls of
                # setting and restoring one around every read
                reply = conn.read_response(disconnect_on_error=False, push_request=True)
                kind = reply[0] if isinstance(reply, list) else None
                if kind == "pmessage" and len(reply) == 4:
                    out.append(Message(reply[2], reply[3], reply[1]))
                elif kind == "message" and len(reply) == 3:
                    out.append(Message(reply[1], reply[2]))
                elif (message := _message(self._pubsub.handle_message(reply))) is not None:
                    out.append(message)
        return out

    def wait(self, timeout: float) -> list[Message]:
        """Block up to ``timeout`` seconds for at least one message, then drain."""
        if self._backlog:
            return self.drain()
        msg = self._next(timeout)
        if msg is not None:
            self._keep(msg)
        return self.drain()

    def close(self) -> None:
        try:
            self._pubsub.close()
        except Exception:  # closing a dead connection is not an error worth reporting
            pass
