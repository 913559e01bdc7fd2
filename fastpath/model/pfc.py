"""PFC per ingress PG: XOFF / XON with the pause's delay, headroom, pause time and frames.

State per PG: ON; PENDING (XOFF sent at the XOFF point, reserved + T; the sender keeps sending at its
rate until the pause has crossed the cable, the peer has responded and the last bytes have crossed
back: ``Layout.pause_delay`` = max frame + 2 x cable + 905 quanta x 512 bit at 400G); PAUSED. XON is
sent when the PG falls below the XOFF point less ``xon_offset`` (or to ``xon`` when there is no
offset, or 1 KiB below when neither is set).

Sliding mode (approximation, stated): a PAUSED PG whose NIC obeys is not simulated pause by pause.
Its sender is held to the PG's drain rate, plus a correction that brings the PG back to its XOFF point
within ``tau`` (so the bytes that crossed into headroom drain first, with the sender stopped), which is
the average of the real XOFF/XON duty cycle. From that cycle (XOFF delay D at the unpaused rate a, drain
at d, XON delay D_on, hysteresis h), per PG:

* pause time accrues at 1 - (allowed / a) of the time (the share of each cycle the sender is stopped);
* frames: one XOFF and one XON per cycle, T = D + (rise + h) / d + D_on + (h + d D_on) / (a - d) with
  rise = min((a - d) D, headroom); when d = 0 (nothing drains) or the NIC ignores pause, the switch
  refreshes its pause every half of 65535 quanta;
* headroom: each cycle puts (a - d) D into headroom; what exceeds the headroom left is lost every cycle.

The first XOFF after ON is simulated exactly (the sender keeps sending for D), so the first overshoot
into headroom, its watermark and any loss from too little headroom are real state, not the formula.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastpath.model.buffers import Occupancy
from fastpath.model.fluid import crossing, falling
from fastpath.model.layout import QUANTUM_BITS, Layout
from fastpath.tables import F64, I8, B

ON, PENDING, PAUSED = 0, 1, 2
MIN_HYSTERESIS = 1024.0
DEADBAND = 64.0          # bytes: a held PG this close to its XOFF point is at it
REFRESH_QUANTA = 65535


@dataclass
class PfcState:
    """Mutable per-PG PFC state and its accumulated counters."""

    state: I8
    effective: F64      # when the pending pause takes effect at the ingress
    frozen: F64         # shared threshold held while paused
    frames: F64         # pause frames sent (XOFF + XON + refreshes)
    pause_s: F64        # time the switch held the sender paused
    max_head: F64
    max_shared: F64
    drops: F64          # frame bytes lost to the sliding-mode headroom overshoot (also in flows' drops)

    @classmethod
    def new(cls, n: int) -> PfcState:
        z = np.zeros(n)
        return cls(state=np.zeros(n, dtype=np.int8), effective=np.full(n, np.inf), frozen=np.full(n, np.inf),
                   frames=z.copy(), pause_s=z.copy(), max_head=z.copy(), max_shared=z.copy(), drops=z.copy())

    def paused(self) -> B:
        return np.asarray(self.state != ON)


def refresh_rate(lay: Layout) -> F64:
    """Pause frames per second of a switch that keeps a port paused (refresh at half the quanta)."""
    quanta_s = REFRESH_QUANTA * QUANTUM_BITS / (lay.pg_line * 8.0)
    return np.asarray(2.0 / quanta_s)


def xon_level(lay: Layout, st: PfcState) -> F64:
    """PG occupancy at which XON is sent."""
    held = lay.pg_reserved + st.frozen
    by_offset = held - lay.pg_xon_offset
    by_xon = lay.pg_reserved + np.minimum(lay.pg_xon, st.frozen)
    return np.where(lay.pg_xon_offset > 0, by_offset,
                    np.where(lay.pg_xon > 0, by_xon, held - MIN_HYSTERESIS))


@dataclass(frozen=True)
class Sliding:
    """Per-PG outcome of the sliding-mode rule for one step (frame bytes per second)."""

    offered: F64        # what the paused senders may offer (= demand where not held)
    loss: F64           # of which lost every cycle to headroom overshoot
    frame_rate: F64     # pause frames per second during the step
    fraction: F64       # share of the step the switch holds the sender paused
    peak: F64           # headroom each duty cycle fills (for the watermark)


def cycle(demand: F64, drain: F64, lay: Layout, room: F64) -> tuple[F64, F64]:
    """(cycle period, bytes lost per cycle) of the XOFF/XON duty cycle (see the module docstring)."""
    d = np.maximum(drain, 1e-3)
    excess_rate = np.maximum(demand - d, 1e-3)
    rise = excess_rate * lay.pause_delay
    lost = np.maximum(rise - room, 0.0)
    hyst = np.maximum(lay.pg_xon_offset, MIN_HYSTERESIS)
    period = (lay.pause_delay + (rise - lost + hyst) / d + lay.resume_delay
              + (hyst + d * lay.resume_delay) / excess_rate)
    return period, lost


def sliding(lay: Layout, st: PfcState, occ: Occupancy, drain: F64, demand: F64, tau: float) -> Sliding:
    """The sliding-mode rates of every PG (PGs not held get ``offered = demand``)."""
    if not (st.state != ON).any():
        zero = np.zeros(len(demand))
        return Sliding(offered=demand, loss=zero, frame_rate=zero, fraction=zero, peak=zero)
    held = (st.state == PAUSED) & lay.honours
    target = lay.pg_reserved + st.frozen
    gap = np.where(held, target - occ.pg, 0.0)
    gap = np.where(np.abs(gap) > DEADBAND, gap, 0.0)       # at the point: hold exactly the drain
    allowed = np.minimum(np.maximum(drain + gap / tau, 0.0), demand)
    period, lost = cycle(demand, drain, lay, np.minimum(lay.pg_headroom, occ.room + occ.pg_head))
    cycling = held & (demand > drain) & (drain > 0) & (occ.pg <= target + MIN_HYSTERESIS)
    loss = np.where(cycling, np.minimum(lost / period, np.maximum(demand - allowed, 0.0)), 0.0)
    offered = np.where(held, np.minimum(allowed + loss, demand), demand)
    refresh = refresh_rate(lay)
    frame_rate = np.where(cycling, np.maximum(2.0 / period, refresh), np.where(st.state == PAUSED, refresh, 0.0))
    held_share = np.where(demand > 0, 1.0 - offered / np.maximum(demand, 1e-30), 1.0)
    fraction = np.where(held, held_share, np.where(st.state != ON, 1.0, 0.0))
    peak = np.where(cycling, np.minimum(np.maximum(demand - drain, 0.0) * lay.pause_delay,
                                        lay.pg_headroom), 0.0)
    return Sliding(offered=offered, loss=loss, frame_rate=frame_rate, fraction=fraction, peak=peak)


def event_time(lay: Layout, st: PfcState, occ: Occupancy, pg_rate: F64, th_rate: F64, now: float,
               tol: float) -> float:
    """Time until the next PFC event: an XOFF point reached, a pause taking effect, XON, headroom full."""
    on = (st.state == ON) & lay.lossless
    t_xoff = crossing(occ.pg, np.where(on, pg_rate, 0.0), lay.pg_reserved + occ.pg_th, th_rate, tol)
    if on.all() or not (st.state != ON).any():
        return float(t_xoff.min(initial=np.inf))
    t_eff = np.where(st.state == PENDING, np.maximum(st.effective - now, 0.0), np.inf)
    paused = st.state != ON
    t_xon = falling(occ.pg, np.where(paused, pg_rate, 0.0), xon_level(lay, st), tol)
    room = occ.room
    t_full = np.where(paused & (pg_rate > 0) & (room > tol), room / np.maximum(pg_rate, 1e-30), np.inf)
    return float(min(t_xoff.min(initial=np.inf), t_eff.min(initial=np.inf), t_xon.min(initial=np.inf),
                     t_full.min(initial=np.inf)))


def transition(lay: Layout, st: PfcState, occ: Occupancy, now: float, tol: float) -> bool:
    """Apply XOFF, pause-effective and XON transitions at ``now`` (counting XOFF and XON frames);
    True when a PG changed state."""
    xoff = (st.state == ON) & lay.lossless & (occ.pg >= lay.pg_reserved + occ.pg_th - tol)
    st.state[xoff] = PENDING
    st.effective[xoff] = now + lay.pause_delay[xoff]
    st.frozen[xoff] = occ.pg_th[xoff]
    st.frames[xoff] += 1.0
    if not (st.state != ON).any():
        return False
    arrived = (st.state == PENDING) & (st.effective <= now + 1e-12)
    st.state[arrived] = PAUSED
    xon = (st.state != ON) & ~xoff & (occ.pg <= xon_level(lay, st) + tol)
    st.state[xon] = ON
    st.effective[xon] = np.inf
    st.frozen[xon] = np.inf
    st.frames[xon] += 1.0
    return bool(xoff.any() or arrived.any() or xon.any())


def account(st: PfcState, slide: Sliding, occ: Occupancy, dt: float) -> None:
    """Add one step's pause time and frames; raise the PG watermarks. With no PG paused there are no
    frames, no pause time and nothing in headroom: only the shared watermark can move."""
    if (st.state != ON).any():
        st.frames += slide.frame_rate * dt
        st.pause_s += slide.fraction * dt
        np.maximum(st.max_head, np.maximum(occ.pg_head, slide.peak), out=st.max_head)
    np.maximum(st.max_shared, occ.pg_shared, out=st.max_shared)
