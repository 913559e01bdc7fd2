"""Timers for the daemon loop, and a self-pipe that wakes ``select()`` on a signal."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Timer:
    """Calls ``callback`` every ``interval`` seconds (measured on the loop's monotonic clock)."""

    name: str
    interval: float
    callback: Callable[[], None]
    next_due: float = 0.0

    def arm(self, now: float) -> None:
        self.next_due = now + self.interval


@dataclass
class SignalWaker:
    """A selectable that becomes ready when SIGTERM/SIGINT/SIGHUP arrive (``signal.set_wakeup_fd``)."""

    received: list[int] = field(default_factory=list)
    _previous: dict[int, object] = field(default_factory=dict)
    _r: int = -1
    _w: int = -1

    def install(self, signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)) -> None:
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        os.set_blocking(self._w, False)
        signal.set_wakeup_fd(self._w, warn_on_full_buffer=False)
        for sig in signals:
            self._previous[sig] = signal.signal(sig, self._note)

    def _note(self, signum: int, _frame: object) -> None:
        self.received.append(signum)

    def fileno(self) -> int:
        return self._r

    def read_messages(self) -> None:
        try:
            while os.read(self._r, 512):
                pass
        except BlockingIOError:
            pass

    def has_work(self) -> bool:
        return bool(self.received)

    def close(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        self._previous.clear()
        if self._r >= 0:
            signal.set_wakeup_fd(-1)
            os.close(self._r)
            os.close(self._w)
            self._r = self._w = -1
