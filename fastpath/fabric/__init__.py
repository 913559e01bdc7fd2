"""One traffic model across a fabric of switches (pure: numpy and fastpath only).

A ``Fabric`` (``spec``) is switches, each with its own compiled ``Tables`` (a lab's switches as their
syncd_sim compiled them, or built from plain data by ``topo``), the cables between their ports and
the hosts on the others. ``run(fabric, flows, cfg)``:

1. ``spec.wire``: validates the description (every problem named) and compiles the wiring;
2. ``route.find_hops``: each flow's path hop by hop, forwarded by every switch's own tables (ECMP and
   LAG hashing included);
3. ``merge.merge_tables``: the switches in one index space (global port = switch offset + port; pools
   kept apart per switch);
4. ``fastpath.model.run`` with ``Flows.hops``: the fluid model, one segment per hop
   (``fastpath.model.hops`` states its simplifications);

and returns a ``FabricResult`` whose counters split back per switch (``FabricResult.counters``).
``hotspots`` ranks the links and queues that paused or marked most.
``connection_matrix`` reads and writes htsim's connection matrices (the same flows on htsim and here);
``flows.chain_allreduce`` is htsim's ``gen_allreduce.py`` for a seed.

Cost: routing is one ``forward`` call per switch holding flows per hop round (0.05 s for 1,920 flows
on the K = 8 fat tree); the model's step costs a fixed number of numpy operations over segments (flows
x hops), queues and PGs (ports x 8), plus one pass per level of the port graph (3 in a leaf-spine, 5
in a fat tree): 0.8-2.4 ms per step measured on 20-80 switches and up to 9,600 segments. Steps grow
with distinct events as in the single-switch model (about two per flow: its end, and its successors'
start one path latency later), so a chained workload of many short flows costs most (README,
Benchmarks).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fastpath.fabric.errors import FabricError
from fastpath.fabric.flows import FabricFlows, chain_allreduce, ring_allreduce
from fastpath.fabric.merge import merge_tables
from fastpath.fabric.result import FabricResult, SwitchCounters
from fastpath.fabric.route import DELIVERED, Hops, find_hops
from fastpath.fabric.spec import Fabric, Host, Link, Wiring, validate, wire
from fastpath.model import FlowHops, Flows, Links, Nics, RunConfig
from fastpath.model import run as run_model
from fastpath.tables import Tables


def _check_flows(fabric: Fabric, flows: FabricFlows) -> None:
    n = len(fabric.hosts)
    problems = [f"flow {i}: no host {int(h)} (the fabric has {n})"
                for i, h in enumerate(np.concatenate([flows.src, flows.dst])) if not 0 <= h < n]
    problems += [f"flow {i}: sends to its own host" for i in np.flatnonzero(flows.src == flows.dst)]
    if problems:
        raise FabricError(problems[:20])


def model_inputs(fabric: Fabric, wiring: Wiring, flows: FabricFlows, hops: Hops,
                 merged: Tables) -> tuple[Nics, Flows, Links]:
    """The model's NICs, flows (with global hops) and links."""
    owners = [fabric.hosts[int(h)] for h in wiring.nic_host]     # a NIC link per host, then bonds' others
    nics = Nics.of(wiring.nic_port, speed_bps=[h.speed_bps for h in owners], cable_m=[h.cable_m for h in owners],
                   honours_pause=[h.honours_pause for h in owners])
    glob_in = wiring.offset[hops.switch] + hops.in_port
    glob_out = np.where(hops.out_port >= 0, wiring.offset[hops.switch] + hops.out_port, -1)
    ok = hops.delivered
    bad = np.flatnonzero(~ok)
    ptr = hops.ptr.copy()
    empty = np.diff(ptr) == 0
    if empty.any():
        raise FabricError([f"flow {int(i)}: no hop recorded" for i in np.flatnonzero(empty)[:20]])
    out = glob_out.copy()
    out[ptr[bad + 1] - 1] = -1          # an undelivered flow never runs
    first = ptr[:-1]
    fh = FlowHops(ptr=ptr, in_port=glob_in.astype(np.int32), out_port=out.astype(np.int32),
                  queue=hops.queue, pg=hops.pg)
    last_out = out[ptr[1:] - 1]
    src_nic = wiring.nic_at[glob_in[first]]                      # the link the flow left by
    dst_nic = np.where(last_out >= 0, wiring.nic_at[np.maximum(last_out, 0)], flows.dst)
    model_flows = Flows(src=src_nic.astype(np.int32), dst=np.where(dst_nic >= 0, dst_nic, flows.dst).astype(np.int32),
                        in_port=glob_in[first].astype(np.int32),
                        out_port=out[ptr[1:] - 1].astype(np.int32), tc=hops.tc[first], queue=hops.queue[first],
                        pg=hops.pg[first], size=flows.size, start_s=flows.start_s, dep_ptr=flows.dep_ptr,
                        dep_idx=flows.dep_idx, gap_s=flows.gap_s, dcqcn=flows.dcqcn, ecn_capable=flows.ecn_capable,
                        mtu=flows.mtu, group=flows.group, hops=fh)
    return nics, model_flows, Links(peer=wiring.peer, cable_m=wiring.cable_m)


def run(fabric: Fabric, flows: FabricFlows, cfg: RunConfig,
        progress: Callable[[float], None] | None = None) -> FabricResult:
    """Run ``flows`` over ``fabric`` (see the package docstring); ``FabricError`` names what does not fit."""
    wiring = wire(fabric)
    _check_flows(fabric, flows)
    hops = find_hops(fabric, wiring, flows.src.astype(np.int64), flows.dst.astype(np.int64), flows.dscp,
                     flows.l4_src)
    merged = merge_tables(fabric.switches)
    nics, model_flows, links = model_inputs(fabric, wiring, flows, hops, merged)
    result = run_model(merged, nics, model_flows, cfg, progress, links=links)
    return FabricResult(fabric=fabric, wiring=wiring, flows=flows, hops=hops, result=result)


__all__ = ["DELIVERED", "Fabric", "FabricError", "FabricFlows", "FabricResult", "Hops", "Host", "Link", "model_inputs",
           "SwitchCounters", "chain_allreduce", "find_hops", "merge_tables", "ring_allreduce", "run", "validate",
           "wire"]
