"""The RoCE endpoints' side of each flow: when it starts (time or dependencies plus compute gap), what
it still has to send, when its last byte arrives, and go-back-N retransmission after a loss.

A flow is WAITING, SENDING, in its TAIL (all sent, its last bytes still in the switch), DONE, or NEVER
(unroutable or over a port that is down: it never runs). Times inside the model are the switch's: a
flow's bytes reach the ingress ``d_in`` after its NIC sends them; its finish time is when its last byte
reaches the receiver (+ cut-through + ``d_out``).

FIFO completion: the last byte of a flow leaves its queue once the queue has sent (or flushed)
everything that had arrived before that byte (``mark``), whatever the content-share split says.

Go-back-N (approximation, stated): the first loss of a flow opens an episode; the receiver's NAK
reaches the sender one round trip (2 x path latency) plus the queue's delay at the loss later (on the
timer grid); the sender then resends everything it had sent since the loss began (at least what was
lost): the lost bytes and those behind them, which the receiver discarded. Losses during an open
episode are part of it (one NAK per episode). A loss with nothing sent after it (a tail loss) is
recovered the same way, without the retransmission timeout a real NIC would wait for.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.model.inputs import Flows
from fastpath.model.layout import Layout
from fastpath.tables import F64, I8, I64, B

WAITING, SENDING, TAIL, DONE, NEVER = 0, 1, 2, 3, 4
EPS_T = 1e-12


@dataclass
class FlowState:
    """Per-flow endpoint state and counters (wire bytes unless said)."""

    phase: I8
    start_at: F64         # first byte at the switch (inf: not yet known)
    started: F64          # first byte left the NIC
    finished: F64         # last byte reached the receiver
    deps_left: I64
    dep_done: F64         # latest finish among the dependencies done so far
    remaining: F64
    sent: F64
    content: F64          # bytes of this flow in the switch
    mark: F64             # queue's cumulative arrivals when this flow's last byte arrived
    lost_open: B
    sent_at_loss: F64
    lost_episode: F64
    nak_at: F64
    retrans: F64
    arrived: F64          # at the ingress
    in_drop: F64
    out_drop: F64
    departed: F64
    marks: F64            # ECN-marked packets
    rev_ptr: I64          # dependents, CSR
    rev_idx: I64


def segments(ptr: I64, idx: I64, which: I64) -> tuple[I64, I64]:
    """For each ``i`` in ``which``, the entries ``idx[ptr[i]:ptr[i+1]]``: (position in which, entry)."""
    starts, ends = ptr[which], ptr[which + 1]
    lens = ends - starts
    total = int(lens.sum())
    owner = np.repeat(np.arange(len(which)), lens)
    offsets = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
    return owner.astype(np.int64), idx[np.repeat(starts, lens) + offsets].astype(np.int64)


def new_flows(lay: Layout, flows: Flows) -> FlowState:
    """Initial state: flows without dependencies are due at their start time."""
    n = flows.n
    counts = np.diff(flows.dep_ptr).astype(np.int64)
    owner = np.repeat(np.arange(n, dtype=np.int64), counts)
    order = np.argsort(flows.dep_idx, kind="stable")
    rev_ptr = np.zeros(n + 1, dtype=np.int64)
    rev_ptr[1:] = np.cumsum(np.bincount(flows.dep_idx.astype(np.int64), minlength=n))
    phase = np.where(lay.runnable, WAITING, NEVER).astype(np.int8)
    start_at = np.where(lay.runnable & (counts == 0), flows.start_s + lay.d_in, np.inf)
    z = np.zeros(n)
    return FlowState(
        phase=phase, start_at=start_at, started=np.full(n, np.nan), finished=np.full(n, np.nan),
        deps_left=counts, dep_done=np.full(n, -np.inf), remaining=z.copy(), sent=z.copy(), content=z.copy(),
        mark=np.full(n, np.inf), lost_open=np.zeros(n, dtype=bool), sent_at_loss=z.copy(),
        lost_episode=z.copy(), nak_at=np.full(n, np.inf), retrans=z.copy(), arrived=z.copy(), in_drop=z.copy(),
        out_drop=z.copy(), departed=z.copy(), marks=z.copy(), rev_ptr=rev_ptr, rev_idx=owner[order])


def next_start(fs: FlowState) -> float:
    waiting = fs.start_at[fs.phase == WAITING]
    return float(waiting.min(initial=np.inf))


def begin(fs: FlowState, lay: Layout, now: float) -> None:
    """Flows whose first byte reaches the switch by ``now`` start sending."""
    go = (fs.phase == WAITING) & (fs.start_at <= now + EPS_T)
    fs.phase[go] = SENDING
    fs.started[go] = fs.start_at[go] - lay.d_in[go]
    fs.remaining[go] = lay.total_wire[go]


def slack(fs: FlowState, now: float, merge_abs: float, merge_rel: float) -> F64:
    """How late each flow's end may be taken (see ``RunConfig.merge_abs_s``)."""
    age = np.where(np.isfinite(fs.start_at), now - fs.start_at, 0.0)
    return np.asarray(np.maximum(merge_abs, merge_rel * age))


def end_sending(fs: FlowState, lay: Layout, q_arrived: F64, tol: float) -> None:
    """Senders that have sent everything: their last byte is in the queue (``mark``)."""
    over = (fs.phase == SENDING) & (fs.remaining <= tol)
    fs.remaining[over] = 0.0
    fs.phase[over] = TAIL
    fs.mark[over] = q_arrived[lay.qid[over]]


def completing(fs: FlowState, lay: Layout, q_removed: F64, tol: float) -> B:
    """TAIL flows whose last byte has left the switch by now (FIFO), with no loss pending."""
    return np.asarray((fs.phase == TAIL) & ~fs.lost_open & (q_removed[lay.qid] >= fs.mark - tol))


def complete(fs: FlowState, lay: Layout, flows: Flows, done: B, now: float, cut_through: float) -> None:
    """Mark ``done`` flows finished at the receiver; release the flows that wait for them."""
    which = np.flatnonzero(done)
    fs.phase[which] = DONE
    fs.finished[which] = now + cut_through + lay.d_out[which]
    fs.content[which] = 0.0
    owner, dependents = segments(fs.rev_ptr, fs.rev_idx, which)
    if len(dependents) == 0:
        return
    np.maximum.at(fs.dep_done, dependents, fs.finished[which][owner])
    np.subtract.at(fs.deps_left, dependents, 1)
    ready = np.unique(dependents[fs.deps_left[dependents] == 0])
    ready = ready[fs.phase[ready] == WAITING]
    fs.start_at[ready] = np.maximum(flows.start_s[ready], fs.dep_done[ready] + flows.gap_s[ready]) + lay.d_in[ready]


def open_losses(fs: FlowState, lost: F64, sent0: F64, delay: F64, now: float, grid: float) -> None:
    """Flows that lost ``lost`` bytes this step: open an episode (or add to the open one)."""
    hit = lost > 0
    new = hit & ~fs.lost_open
    fs.lost_open |= hit
    fs.sent_at_loss[new] = sent0[new]
    fs.nak_at[new] = np.ceil((now + delay[new]) / grid - 1e-9) * grid
    fs.lost_episode += lost


def nak_due(fs: FlowState) -> float:
    return float(fs.nak_at[fs.lost_open].min(initial=np.inf))


def naks(fs: FlowState, now: float) -> None:
    """NAKs arriving by ``now``: go back and resend."""
    back = fs.lost_open & (fs.nak_at <= now + EPS_T)
    if not back.any():
        return
    again = np.maximum(fs.sent[back] - fs.sent_at_loss[back], fs.lost_episode[back])
    fs.remaining[back] += again
    fs.retrans[back] += again
    fs.lost_open[back] = False
    fs.lost_episode[back] = 0.0
    fs.nak_at[back] = np.inf
    fs.phase[back] = np.where(fs.phase[back] == TAIL, SENDING, fs.phase[back])
    fs.mark[back] = np.inf
