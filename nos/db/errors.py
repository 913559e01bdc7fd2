"""Errors of the database layer. Redis and OS errors are mapped to these at one edge.

Callers catch ``DbError`` (or a subclass) and never see ``redis.exceptions`` types.
"""

from __future__ import annotations

from types import TracebackType
from typing import Literal

import redis.exceptions


class DbError(Exception):
    """Base class: anything that went wrong talking to the switch's Redis."""


class DbConnectionError(DbError):
    """Raised when Redis cannot be reached, or the connection drops (the switch's database is down)."""


class DbProtocolError(DbError):
    """Raised when Redis answers something the layer does not expect (a script error, a bad reply)."""


class WrongTypeError(DbProtocolError):
    """Raised when a command meets a key holding another Redis type than it works on (Redis' WRONGTYPE:
    a string where a row's hash is expected). Bad data, not a broken database: readers of tables skip
    such a key and report it (``nos.db.baddata``); a handler that meets one gets an INVALID result."""


def is_wrong_type(error: object) -> bool:
    """Whether a reply (an exception in a pipeline's results, say) is Redis' WRONGTYPE error."""
    return isinstance(error, redis.exceptions.ResponseError) and "WRONGTYPE" in str(error)


class map_redis_errors:  # noqa: N801 - used as the function it was (a class: ~3x cheaper than a generator)
    """Translate redis-py exceptions raised inside the block into ``DbError`` subclasses (every Redis call
    of every daemon is in one such block)."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 trace: TracebackType | None) -> Literal[False]:
        if exc is None:
            return False
        if isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError | OSError):
            raise DbConnectionError(f"{self.what}: Redis unreachable: {exc}") from exc
        if isinstance(exc, redis.exceptions.ResponseError) and is_wrong_type(exc):
            raise WrongTypeError(f"{self.what}: {exc}") from exc
        if isinstance(exc, redis.exceptions.RedisError):
            raise DbProtocolError(f"{self.what}: {exc}") from exc
        return False
