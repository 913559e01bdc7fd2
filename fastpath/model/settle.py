"""What the two stepping loops (``engine`` for one switch, ``hops`` for several) share once a step's
rates at its start are known: merging flow ends late, and DCQCN over windows of several steps.

* Flow ends merged late (``stretch``): senders that would send their last byte before the step's end
  send the rest evenly over the step instead (slower than they could, never sooner).
* DCQCN windows (``open_window``, ``quiet_step``, ``step_done``): the flows' DCQCN events do not end steps. A
  window of ``RunConfig.dcqcn_window_s`` opens at a step's start: every event each flow would have in
  it is taken at its own time (``dcqcn.advance``) with the marks predicted at its start, and each
  sending flow's cap for every step inside the window is its mean Rc over the window (the bytes its
  Rc allows over the window, spread evenly). Steps end at the window's end; there the DCQCN state is
  advanced over the window again with the marks and bytes the flows really received and sent. A window
  in which no flow's Rc would change is quiet: it lasts one step, however long, and the caps are the
  rates at its start (when an Rc would change inside that step, the step ends there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np

from fastpath.model import dcqcn, nic
from fastpath.model.inputs import DcqcnParams
from fastpath.tables import F64, B

MIN_STEP = 1e-10      # seconds
STRETCH_ROUNDS = 3    # senders sped up past the step's end by a stretch join it, at most this often


class HasSend(Protocol):
    @property
    def send(self) -> F64: ...


R = TypeVar("R", bound=HasSend)


def stretch(fs: nic.FlowState, r: R, caps: F64, dt: float, capped: bool, rates: Callable[[F64], R],
            length: Callable[[R], tuple[float, bool]]) -> tuple[R, float, bool]:
    """Senders whose end this step merges late (at ``r`` they would send their last byte before
    ``dt``) send the rest evenly over the step instead: slower than they could, never sooner. The rates
    are computed again with those caps; senders the others' slowing lets finish before ``dt`` are
    slowed the same way. When something at the new rates still comes before ``dt`` (a queue emptying,
    a threshold), nothing is merged and the step ends at the first sender's end instead."""
    sending = (fs.phase == nic.SENDING) & (r.send > 0)
    t_send = np.divide(fs.remaining, r.send, out=np.full(len(sending), np.inf), where=sending)
    late = sending & (t_send * (1.0 + 1e-9) < dt)
    if not late.any():
        return r, dt, capped
    for _ in range(STRETCH_ROUNDS):
        r2 = rates(np.where(late, np.minimum(caps, fs.remaining / dt), caps))
        sooner = (fs.phase == nic.SENDING) & ~late & (r2.send * dt > fs.remaining * (1.0 + 1e-9))
        if not sooner.any():
            dt2, _ = length(r2)
            if dt2 >= dt * (1.0 - 1e-9):
                return r2, dt, False
            break
        late |= sooner
    return r, max(float(t_send.min()), MIN_STEP), False


@dataclass
class Pending:
    """A DCQCN window in progress: from ``t0`` to ``end`` (inf: quiet, it closes with its step)."""

    t0: float
    end: float
    rc: F64              # each flow's Rc for the window's steps, bit/s (its predicted mean)
    live: B              # flows whose events the window takes
    got: F64             # marked packets the flows received so far in the window
    sent: F64            # wire bytes they sent so far


def live_flows(fs: nic.FlowState) -> B:
    return np.asarray((fs.phase == nic.SENDING) | (fs.phase == nic.TAIL))


def open_window(dq: dcqcn.DcqcnState, params: DcqcnParams, fs: nic.FlowState, marks: F64, send: F64, t0: float,
                span: float) -> Pending:
    """The window from ``t0``: ``marks`` the expected marked packets per second each flow will receive,
    ``send`` its wire bytes per second, as predicted at ``t0``."""
    live = live_flows(fs)
    win = dcqcn.advance(dq, params, live, marks, send, t0, t0 + span)
    quiet = win.first >= win.end
    n = len(marks)
    return Pending(t0=t0, end=np.inf if quiet else win.end, rc=dq.rc if quiet else win.mean_rc, live=live,
                   got=np.zeros(n), sent=np.zeros(n))


def quiet_step(dq: dcqcn.DcqcnState, params: DcqcnParams, pend: Pending | None, marks: Callable[[float], F64],
               send: F64, dt: float, capped: bool) -> tuple[float, bool]:
    """The step of ``dt`` in a quiet window: shortened to where an Rc would first change inside it, with
    the marks (``marks(dt)``, per second) and bytes (``send``) predicted from the step's own rates."""
    if pend is None or np.isfinite(pend.end):
        return dt, capped
    win = dcqcn.advance(dq, params, pend.live, marks(dt), send, pend.t0, pend.t0 + dt)
    if win.first < win.end:
        return max(win.first - pend.t0, MIN_STEP), False
    return dt, capped


def step_done(dq: dcqcn.DcqcnState, params: DcqcnParams, pend: Pending, fs: nic.FlowState, marked: F64,
              sent: F64, t1: float) -> tuple[dcqcn.DcqcnState, Pending | None]:
    """Add a step that ended at ``t1`` (``marked`` packets received, ``sent`` wire bytes sent per flow) to
    the window; at the window's end, the DCQCN state there from what the flows really received and sent
    (the window closes: None)."""
    pend.got += marked
    pend.sent += sent
    if t1 < pend.end - dcqcn.EPS_T and np.isfinite(pend.end):
        return dq, pend
    span = max(t1 - pend.t0, MIN_STEP)
    win = dcqcn.advance(dq, params, pend.live | live_flows(fs), pend.got / span, pend.sent / span, pend.t0, t1)
    return dcqcn.commit(dq, win), None
