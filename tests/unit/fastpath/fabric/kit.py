"""Helpers for the fabric tests: paths of flows, and flows steered onto chosen spines."""

from __future__ import annotations

import numpy as np

from fastpath.fabric import Fabric, FabricFlows, Hops, find_hops, wire


def hops_of(fabric: Fabric, flows: FabricFlows) -> Hops:
    return find_hops(fabric, wire(fabric), flows.src.astype(np.int64), flows.dst.astype(np.int64), flows.dscp,
                     flows.l4_src)


def spine_of(fabric: Fabric, hops: Hops) -> list[str]:
    """The second switch of every flow's path (the spine in a leaf-spine)."""
    names = fabric.names()
    return [names[int(hops.switch[hops.ptr[i] + 1])] if hops.ptr[i + 1] - hops.ptr[i] > 1 else ""
            for i in range(len(hops.ptr) - 1)]


def l4_via(fabric: Fabric, src: int, dst: int, spine: str, start: int = 49152) -> int:
    """A UDP source port whose packets from host ``src`` to ``dst`` cross ``spine`` (searched in order)."""
    ports = np.arange(start, start + 512, dtype=np.int32)
    flows = FabricFlows.of(np.full(len(ports), src), dst, 1, l4_src=ports)
    got = spine_of(fabric, hops_of(fabric, flows))
    return int(ports[got.index(spine)])
