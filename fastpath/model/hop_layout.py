"""The fixed structure of a run whose flows cross several switches (``Flows.hops``).

Two ``Layout``s are built with ``build_layout`` over the merged tables (every switch's ports in one
index space, ``fastpath.fabric.merge``):

* the *flow* layout: one row per flow, for what belongs to the endpoints (NIC sharing, DCQCN, start,
  finish, go-back-N): its ``in_port`` is the first hop's, its ``out_port`` the last hop's;
* the *segment* layout: one row per (flow, hop), for everything inside the switches (queues, PGs,
  buffers, PFC, marking): a segment is the flow's bytes between one switch's ingress and its egress.
  ``qid``/``pgid``/``pausable`` come out per hop of ``build_layout`` itself; the PG pause delays,
  whether the sender on the PG's port obeys pause and the line rate into it are taken from the link
  when the port faces another switch (its cable; the peer port's ``pfc_rx``; the slower port).

``Chain`` says how segments follow each other. Latency adds up per hop: a flow's ``d_out`` in the flow
layout is (hops - 1) x cut-through + the inter-switch cables + the receiver's cable, so that the
engine's ``finish = last byte out + cut-through + d_out`` is the whole path's delay.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from fastpath.model.inputs import LIGHT_MPS, Flows, Links, Nics, RunConfig
from fastpath.model.layout import QUANTUM_BITS, Layout, build_layout, response_quanta
from fastpath.tables import F64, I64, N_TC, B, Tables


@dataclass(frozen=True)
class Chain:
    """Segment bookkeeping: every flow has at least one segment."""

    n_segs: int
    max_hops: int
    seg_flow: I64      # [S] flow of each segment
    hop: I64           # [S] its hop index along the path
    first: I64         # [F] first segment of each flow
    n_hops: I64        # [F]
    inner: I64         # segments that are not a first hop
    prev: I64          # [len(inner)] the segment feeding each of them
    by_hop: tuple[I64, ...]   # the inner segments of hop 1, 2, ... (each an index array)
    has_next: B        # [S] the segment feeds another one


@dataclass(frozen=True)
class Level:
    """The segments whose egress port is at one level of the fabric's port graph, with the ports and
    every queue of those ports (``queues``: global ids, port-major; ``local`` = each segment's queue as
    an index into them)."""

    segs: I64
    local: I64
    queues: I64
    ports: I64
    next_of: I64       # positions in ``segs`` of the segments that have a successor
    nxt: I64           # those successors


def port_levels(seg: Layout, ch: Chain, runnable: B) -> tuple[Level, ...] | None:
    """The runnable segments grouped by the longest chain of ports feeding their egress port: every
    segment's predecessor is at a lower level, so one pass in level order resolves the chain. None
    when the port graph has a cycle (routing loops through a switch twice)."""
    out = seg.out_port
    inner = ch.inner[runnable[ch.inner]]
    level = np.zeros(seg.n_ports, dtype=np.int64)
    for _ in range(ch.max_hops + 1):
        new = level.copy()
        np.maximum.at(new, out[inner], level[out[inner - 1]] + 1)
        if np.array_equal(new, level):
            break
        level = new
    else:
        return None
    segs_all = np.flatnonzero(runnable)
    lv = level[out[segs_all]]
    has_next = np.zeros(ch.n_segs, dtype=bool)
    has_next[ch.prev] = True
    levels = []
    for value in np.unique(lv):
        segs = segs_all[lv == value]
        ports = np.unique(out[segs])
        nq = seg.n_queues
        local = np.searchsorted(ports, out[segs]) * nq + seg.qid[segs] % nq
        queues = (ports[:, None] * nq + np.arange(nq)[None, :]).ravel()
        next_of = np.flatnonzero(has_next[segs])
        levels.append(Level(segs=segs, local=local.astype(np.int64), queues=queues, ports=ports,
                            next_of=next_of, nxt=segs[next_of] + 1))
    return tuple(levels)


def chain_of(ptr: I64) -> Chain:
    counts = np.diff(ptr).astype(np.int64)
    n = int(ptr[-1])
    seg_flow = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    hop = np.arange(n, dtype=np.int64) - ptr[:-1].astype(np.int64)[seg_flow]
    inner = np.flatnonzero(hop > 0).astype(np.int64)
    max_hops = int(counts.max(initial=1))
    by_hop = tuple(np.flatnonzero(hop == h).astype(np.int64) for h in range(1, max_hops))
    has_next = np.zeros(n, dtype=bool)
    has_next[inner - 1] = True
    return Chain(n_segs=n, max_hops=max_hops, seg_flow=seg_flow, hop=hop, first=ptr[:-1].astype(np.int64),
                 n_hops=counts, inner=inner, prev=inner - 1, by_hop=by_hop, has_next=has_next)


def _segment_flows(flows: Flows, ch: Chain) -> Flows:
    h = flows.hops
    assert h is not None
    f = ch.seg_flow
    n = ch.n_segs
    return Flows(src=flows.src[f], dst=flows.dst[f], in_port=h.in_port, out_port=h.out_port, tc=flows.tc[f],
                 queue=h.queue, pg=h.pg, size=flows.size[f], start_s=flows.start_s[f],
                 dep_ptr=np.zeros(n + 1, dtype=np.int64), dep_idx=np.zeros(0, dtype=np.int32),
                 gap_s=flows.gap_s[f], dcqcn=flows.dcqcn[f], ecn_capable=flows.ecn_capable[f], mtu=flows.mtu[f],
                 group=flows.group[f])


def _endpoint_flows(flows: Flows, ch: Chain) -> Flows:
    h = flows.hops
    assert h is not None
    last = ch.first + ch.n_hops - 1
    return replace(flows, in_port=h.in_port[ch.first], out_port=h.out_port[last], queue=h.queue[ch.first],
                   pg=h.pg[ch.first], hops=None)


def _port_links(tables: Tables, nics: Nics, links: Links) -> tuple[F64, B, F64, B]:
    """Per port: (cable s, faces a switch, line rate into it in B/s, the sender on it obeys pause [P, 8])."""
    n = tables.ports.n
    speed = tables.ports.speed_bps.astype(np.float64)
    nic_of = np.full(n, -1, dtype=np.int64)
    nic_of[nics.port.astype(np.int64)] = np.arange(nics.n)
    has = nic_of >= 0
    safe = np.maximum(nic_of, 0)
    peer = links.peer.astype(np.int64)
    wired = peer >= 0
    safe_peer = np.maximum(peer, 0)
    cable = np.where(wired, links.cable_m, np.where(has, nics.cable_m[safe], 0.0)) / LIGHT_MPS
    line = np.where(wired, np.minimum(speed, speed[safe_peer]), np.where(has, np.minimum(nics.speed_bps[safe], speed),
                                                                          speed)) / 8.0
    obeys = np.where(wired[:, None], tables.qos.pfc_rx[safe_peer],
                     np.where(has, nics.honours_pause[safe], True)[:, None])
    return cable, wired, line, obeys


def _pg_link_arrays(tables: Tables, nics: Nics, links: Links, cfg: RunConfig, seg: Layout) -> dict[str, object]:
    speed = tables.ports.speed_bps.astype(np.float64)
    cable, _, line, obeys = _port_links(tables, nics, links)
    quanta = np.full(len(speed), float(cfg.pause_quanta)) if cfg.pause_quanta else response_quanta(speed)
    frame = tables.ports.mtu.astype(np.float64) * 8.0 / speed
    pause = frame + 2.0 * cable + quanta * QUANTUM_BITS / speed
    pg_obeys = (seg.pg_prios.reshape(len(speed), N_TC, N_TC) & obeys[:, None, :]).any(axis=2).ravel()
    honours = np.where(seg.lossless, pg_obeys, np.repeat(obeys.all(axis=1), N_TC))
    return dict(pause_delay=np.repeat(pause, N_TC), resume_delay=np.repeat(frame + 2.0 * cable, N_TC),
                honours=honours, pg_line=np.repeat(line, N_TC))


def build_hop_layouts(tables: Tables, nics: Nics, flows: Flows, links: Links,
                      cfg: RunConfig) -> tuple[Layout, Layout, Chain, tuple[Level, ...] | None]:
    """(flow layout, segment layout, chain, port levels) for ``flows`` with ``hops`` over the merged ``tables``."""
    h = flows.hops
    assert h is not None
    ch = chain_of(h.ptr.astype(np.int64))
    up = tables.ports.admin_up & tables.ports.oper_up
    out = h.out_port.astype(np.int64)
    ok_seg = (out >= 0) & up[h.in_port.astype(np.int64)] & up[np.maximum(out, 0)]
    ok = np.bincount(ch.seg_flow, weights=(~ok_seg).astype(np.float64), minlength=flows.n) == 0
    ok &= flows.size > 0
    seg = build_layout(tables, nics, _segment_flows(flows, ch), cfg)
    flow = build_layout(tables, nics, _endpoint_flows(flows, ch), cfg)
    inner_cable = np.zeros(ch.n_segs)
    inner_cable[ch.inner] = links.cable_m[h.in_port[ch.inner].astype(np.int64)] / LIGHT_MPS
    per_flow: F64 = np.bincount(ch.seg_flow, weights=inner_cable, minlength=flows.n).astype(np.float64)
    d_out = flow.d_out + (ch.n_hops - 1) * cfg.cut_through_s + per_flow
    flow = replace(flow, runnable=np.asarray(ok), d_out=d_out, latency=flow.d_in + cfg.cut_through_s + d_out,
                   out_bin=np.where(ok, flow.out_bin, flow.n_ports), tx_weight=np.where(ok, flow.tx_weight, 0.0))
    run_seg: B = ok[ch.seg_flow]
    seg = replace(seg, runnable=run_seg, d_in=flow.d_in[ch.seg_flow], d_out=d_out[ch.seg_flow],
                  latency=flow.latency[ch.seg_flow],
                  out_bin=np.where(run_seg, seg.out_port, seg.n_ports),
                  tx_weight=np.where(run_seg, 8.0 * seg.pkt_frame / seg.pkt_wire, 0.0),
                  **_pg_link_arrays(tables, nics, links, cfg, seg))  # type: ignore[arg-type]
    return flow, seg, ch, port_levels(seg, ch, run_seg)
