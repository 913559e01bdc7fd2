"""How long a step runs and at which sending caps, once its rates at the start are known: shared by the
single-switch loop (``engine``) and the multi-hop one (``hops``).

* Flow ends merged late (``stretch``): senders that would send their last byte before the step's end
  send the rest evenly over the step instead (slower than they could, never sooner).
* DCQCN inside the step (``settle``): each flow's DCQCN events in the step are taken at their own times
  (``dcqcn.advance``) and the flow's cap for the step is its mean Rc over the step. The rates are
  computed again at those caps; when something at the new rates (a queue emptying, a threshold, a flow
  end) comes sooner, the step is shortened to it and the DCQCN window taken again over the shorter step,
  up to ``SETTLE_ROUNDS`` times; failing that, the step ends where DCQCN first changes a rate (the rates
  at the step's start then hold until its end, exactly).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import numpy as np

from fastpath.model import dcqcn, nic
from fastpath.model.inputs import DcqcnParams
from fastpath.tables import F64

MIN_STEP = 1e-10      # seconds
STRETCH_ROUNDS = 3    # senders sped up past the step's end by a stretch join it, at most this often
SETTLE_ROUNDS = 3     # shorter steps tried for a DCQCN window before ending at its first rate change


class HasSend(Protocol):
    @property
    def send(self) -> F64: ...


R = TypeVar("R", bound=HasSend)


@dataclass(frozen=True)
class Plan(Generic[R]):
    """One step: its rates, length, whether the cap set it, and DCQCN's window over it (None: no DCQCN)."""

    rates: R
    dt: float
    capped: bool
    window: dcqcn.Window | None


def stretch(fs: nic.FlowState, r: R, caps: F64, dt: float, capped: bool, rates: Callable[[F64], R],
            length: Callable[[R], tuple[float, bool]], strict: bool = False) -> tuple[R, float, bool] | float:
    """Senders whose end this step merges late (at ``r`` they would send their last byte before
    ``dt``) send the rest evenly over the step instead: slower than they could, never sooner. The rates
    are computed again with those caps; senders the others' slowing lets finish before ``dt`` are
    slowed the same way. When something at the new rates still comes before ``dt`` (a queue emptying,
    a threshold), nothing is merged and the step ends at the first sender's end instead (``strict``:
    the time of that sooner event, or of the first sender's end, is returned instead)."""
    sending = (fs.phase == nic.SENDING) & (r.send > 0)
    t_send = np.divide(fs.remaining, r.send, out=np.full(len(sending), np.inf), where=sending)
    late = sending & (t_send * (1.0 + 1e-9) < dt)
    if not late.any():
        return r, dt, capped
    first_end = max(float(t_send.min()), MIN_STEP)
    for _ in range(STRETCH_ROUNDS):
        r2 = rates(np.where(late, np.minimum(caps, fs.remaining / dt), caps))
        sooner = (fs.phase == nic.SENDING) & ~late & (r2.send * dt > fs.remaining * (1.0 + 1e-9))
        if not sooner.any():
            dt2, _ = length(r2)
            if dt2 >= dt * (1.0 - 1e-9):
                return r2, dt, False
            if strict:
                return max(dt2, first_end)
            break
        late |= sooner
    return first_end if strict else (r, first_end, False)


def _plain(fs: nic.FlowState, r: R, caps: F64, dt: float, capped: bool, rates: Callable[[F64], R],
           length: Callable[[R], tuple[float, bool]]) -> tuple[R, float, bool]:
    got = stretch(fs, r, caps, dt, capped, rates, length)
    assert not isinstance(got, float)
    return got


def settle(fs: nic.FlowState, dq: dcqcn.DcqcnState | None, params: DcqcnParams, line: F64, t0: float, r0: R,
           caps0: F64, dt: float, capped: bool, rates: Callable[[F64], R],
           length: Callable[[R], tuple[float, bool]], marks: Callable[[float], F64]) -> Plan[R]:
    """The step from ``t0`` whose rates at the start, at ``caps0``, are ``r0`` and whose nearest event at
    those rates is ``dt`` away (see the module docstring). ``marks(dt)``: the expected marked packets
    per second each flow receives over a step of ``dt``; ``line``: each flow's line rate, wire B/s."""
    if dq is None:
        r, dt, capped = _plain(fs, r0, caps0, dt, capped, rates, length)
        return Plan(r, dt, capped, None)
    live = (fs.phase == nic.SENDING) | (fs.phase == nic.TAIL)
    sending = fs.phase == nic.SENDING

    def window(dt: float, m: F64) -> dcqcn.Window:
        return dcqcn.advance(dq, params, live, m, r0.send, t0, t0 + dt)

    for _ in range(SETTLE_ROUNDS):
        m = marks(dt)
        win = window(dt, m)
        if win.end < t0 + dt:            # a flow had too many events: the window ends at the first left
            dt, capped = win.end - t0, False
        if win.first >= win.end:          # no Rc changes inside the step: the rates at the start hold
            r, dt2, capped = _plain(fs, r0, caps0, dt, capped, rates, length)
            return Plan(r, dt2, capped, win if dt2 == dt else window(dt2, m))
        caps = np.where(sending, np.minimum(win.mean_rc / 8.0, line), 0.0)
        r1 = rates(caps)
        dt1, capped1 = length(r1)
        if dt1 >= dt * (1.0 - 1e-9):
            got = stretch(fs, r1, caps, dt, capped, rates, length, strict=True)
            if not isinstance(got, float):
                return Plan(got[0], got[1], got[2], win)
            dt1, capped1 = got, False
        dt, capped = max(dt1, MIN_STEP), capped1
    # End where DCQCN first changes a rate: the rates at the start hold until then. The window keeps the
    # marks it found that change with, so the change falls at the step's end.
    m = marks(dt)
    win = window(dt, m)
    if win.first < win.end:
        dt = max(win.first - t0, MIN_STEP)
    r, dt, capped = _plain(fs, r0, caps0, dt, False, rates, length)
    return Plan(r, dt, capped, window(dt, m))
