"""What a traffic run returns: per-flow outcomes, the switch's counters and watermarks, the time series.

Units: bytes are L2 frame bytes (payload + headers + FCS, no preamble/IFG) for port, queue, PG and pool
counters, as SAI counts them, and payload bytes for the ``flow_*`` columns; packets are per flow
``ceil(frame bytes / (mtu + header_bytes))`` summed; times are seconds; rates bits per second of frames.
``pfc_tx_*`` is pause the switch sent (per ingress port and priority), ``pfc_rx_*`` pause it received.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fastpath.tables import F64, B


@dataclass(frozen=True)
class Series:
    """Samples every ``t[1] - t[0]`` seconds: ``queue_bytes`` [T, n_ports, n_queues] (frame bytes),
    ``port_tx_bps`` [T, n_ports] (mean over the step holding the sample), ``pause`` [T, n_ports, 8]
    (the switch asserts pause on that ingress port and priority)."""

    t: F64
    queue_bytes: F64
    port_tx_bps: F64
    pause: B


@dataclass(frozen=True)
class Result:
    """Everything one run produced (numpy arrays; see the module docstring for units)."""

    flow_start_s: F64              # when the flow's first byte left its NIC (NaN: never started)
    flow_finish_s: F64             # when its last byte reached the receiver (NaN: unfinished)
    flow_delivered: F64            # payload bytes delivered in order
    flow_dropped: F64              # payload bytes lost in the switch (ingress and egress)
    flow_retransmitted: F64        # payload bytes sent again (go-back-N)
    flow_ecn_marked_pkts: F64
    port_rx_bytes: F64             # [n_ports]
    port_rx_pkts: F64
    port_tx_bytes: F64
    port_tx_pkts: F64
    pfc_tx_frames: F64             # [n_ports, 8]
    pfc_rx_frames: F64
    pfc_tx_pause_s: F64
    pfc_rx_pause_s: F64
    queue_tx_bytes: F64            # [n_ports, n_queues]
    queue_tx_pkts: F64
    queue_drop_bytes: F64
    queue_drop_pkts: F64
    queue_ecn_marked_pkts: F64
    queue_max_bytes: F64
    pg_rx_bytes: F64               # [n_ports, 8]
    pg_rx_pkts: F64
    pg_max_shared: F64
    pg_max_headroom: F64
    pg_drop_pkts: F64
    pool_max_bytes: F64            # [n_pools]
    series: Series
    sim_time_s: float
    steps: int
    wall_s: float
    watchdog_events: list[tuple[float, int, int, str]] = field(default_factory=list)
