"""Select: wait until one of several selectables has work, as swss-common's ``Select``.

A selectable exposes the socket of its subscription (``fileno``), consumes what arrived on it
(``read_messages``) and says whether it has work (``has_work``): notifications received, or data
left over from a previous bounded pop.
"""

from __future__ import annotations

import select as _select
from typing import Protocol, runtime_checkable


@runtime_checkable
class Selectable(Protocol):
    """Anything a ``Select`` can wait on."""

    def fileno(self) -> int:
        """The subscription socket to wait on."""
        ...

    def read_messages(self) -> None:
        """Consume whatever arrived on the subscription, without blocking."""
        ...

    def has_work(self) -> bool:
        """True when a ``pops()`` would (or may) return something."""
        ...


class Select:
    """Multiplexes selectables over their subscription sockets."""

    def __init__(self) -> None:
        self._items: list[Selectable] = []

    def add(self, item: Selectable) -> None:
        if item not in self._items:
            self._items.append(item)
            item.read_messages()

    def remove(self, item: Selectable) -> None:
        if item in self._items:
            self._items.remove(item)

    @property
    def items(self) -> tuple[Selectable, ...]:
        return tuple(self._items)

    def select(self, timeout: float | None) -> list[Selectable]:
        """Selectables with work, waiting up to ``timeout`` seconds (None = forever) for some.

        Every read drains its subscription completely (parser buffer included), so a socket that
        select() does not report readable has nothing buffered. When some already have work (a
        backlog left by a bounded pop), the others' sockets are still looked at, without waiting: a
        table with 100,000 routes queued must not keep a port's link notification unread.
        """
        if not self._items:
            return []
        if any(item.has_work() for item in self._items):
            timeout = 0
        fds = {fd: item for item in self._items if (fd := item.fileno()) >= 0}  # -1: a source without a socket
        readable, _, _ = _select.select(list(fds), [], [], timeout) if fds else ([], [], [])
        for fd in readable:
            fds[fd].read_messages()
        return [item for item in self._items if item.has_work()]
