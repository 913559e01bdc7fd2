"""Errors of the database layer. Redis and OS errors are mapped to these at one edge.

Callers catch ``DbError`` (or a subclass) and never see ``redis.exceptions`` types.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import redis.exceptions


class DbError(Exception):
    """Base class: anything that went wrong talking to the switch's Redis."""


class DbConnectionError(DbError):
    """Raised when Redis cannot be reached, or the connection drops (the switch's database is down)."""


class DbProtocolError(DbError):
    """Raised when Redis answers something the layer does not expect (a script error, a bad reply)."""


@contextlib.contextmanager
def map_redis_errors(what: str) -> Iterator[None]:
    """Translate redis-py exceptions raised inside the block into ``DbError`` subclasses."""
    try:
        yield
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
        raise DbConnectionError(f"{what}: Redis unreachable: {exc}") from exc
    except redis.exceptions.RedisError as exc:
        raise DbProtocolError(f"{what}: {exc}") from exc
