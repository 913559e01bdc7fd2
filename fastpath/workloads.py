"""A scenario expanded into the traffic model's inputs: NICs, flows and the run configuration (pure).

``expand(scenario, tables, cable_m_by_port)`` resolves the hosts on the switch's ports
(``nos.traffic.hosts``), turns every workload into flow rows (``group`` = the workload's index), finds
each flow's path and class (``fastpath.paths``) and returns ``(Nics, Flows, RunConfig,
workload names)``.

What each workload kind becomes (hosts in selector order; flows within a workload in this order):

* ``incast``: one flow per sender to the receiver (a sender that is the receiver is skipped), all at
  ``start``.
* ``permutation``: host i sends to host p(i), p a uniformly random derangement (rejection sampling
  from ``numpy.random.Generator(SeedSequence([seed, workload index]))``), all at ``start``.
* ``all_to_all``: every ordered pair of distinct hosts, sender-major, all at ``start``; with
  ``queue_pairs`` q, each pair is q flows in a row of ceil(size / q) bytes each.
* ``allreduce``: ring g0 -> g1 -> ... -> g(N-1) -> g0. Each iteration is a compute phase then
  S = 2(N-1) steps (reduce-scatter, then all-gather); in every step each GPU sends message/N bytes
  (rounded up) to its successor. Flow (it, s, k) = GPU k's send in step s of iteration it, laid out
  ``[iteration][step][gpu]`` (``fastpath.allreduce``). Its dependencies: the chunk GPU k received in the
  previous step (flow (it, s-1, k-1)) and its own previous send (flow (it, s-1, k)), with gap
  ``step_compute``; the first step of an iteration after the first depends on the previous
  iteration's last step the same way with gap ``compute``; the very first step starts at
  ``start + compute``.
* ``background``: ``from`` and ``to`` paired one to one, the shorter list cycling (pairs of a host with
  itself are skipped). With ``size``: one flow per pair at ``start``. With ``rate``: open loop, one
  chunk of ``rate x interval / 8`` bytes per pair every ``interval`` from ``start`` for ``duration``
  (default: to the scenario's end): the chunks queue up when the network is slower than the rate,
  as an unresponsive sender's would. Background flows never run DCQCN.

NICs: the host's speed (default and cap: the port's speed), cable (default: the port's
CABLE_LENGTH, ``DEFAULT_CABLE_M`` when it has none), pause behaviour and pause storm. Flows take
DCQCN, ECN capability and MTU from their sender's host group.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from fastpath.allreduce import allreduce_index
from fastpath.model import DcqcnParams, Flows, Nics, RunConfig
from fastpath.paths import Paths, find_paths
from fastpath.tables import F64, I32, I64, B, Tables
from nos.traffic.errors import ScenarioError, ScenarioProblem
from nos.traffic.hosts import Host, resolve_hosts, workload_hosts
from nos.traffic.scenario import (
    AllReduce,
    AllToAll,
    Background,
    Incast,
    Permutation,
    Scenario,
    Workload,
    workload_names,
)
from nos.traffic.units import parse_rate, parse_size, parse_time

DEFAULT_CABLE_M = 5.0
UNIT_SUFFIXES = (("_s", parse_time), ("_bps", parse_rate), ("_bytes", parse_size))
MAX_FLOWS = 2_000_000


@dataclass(frozen=True)
class Block:
    """The flows of one workload, dependencies local to the block (CSR)."""

    src: I32
    dst: I32
    size: I64
    start_s: F64
    gap_s: F64
    dep_ptr: I64
    dep_idx: I32
    dscp: int
    dcqcn: bool = True

    @property
    def n(self) -> int:
        return len(self.src)


def _block(src: Sequence[int] | I32, dst: Sequence[int] | I32, size: int | I64, start_s: float | F64,
           dscp: int, dcqcn: bool = True) -> Block:
    """Flows without dependencies."""
    s = np.asarray(src, dtype=np.int32)
    n = len(s)
    return Block(s, np.asarray(dst, dtype=np.int32), np.broadcast_to(np.asarray(size, dtype=np.int64), (n,)).copy(),
                 np.broadcast_to(np.asarray(start_s, dtype=np.float64), (n,)).copy(), np.zeros(n),
                 np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int32), dscp, dcqcn)


def derangement(n: int, rng: np.random.Generator) -> I64:
    """A uniformly random permutation of 0..n-1 without fixed points (n >= 2)."""
    while True:
        perm = rng.permutation(n)
        if not np.any(perm == np.arange(n)):
            return perm


def expand_incast(w: Incast, chosen: Mapping[str, list[int]]) -> Block:
    receiver = chosen["receiver"][0]
    senders = [s for s in chosen["senders"] if s != receiver]
    return _block(senders, [receiver] * len(senders), w.size, w.start, w.dscp)


def expand_permutation(w: Permutation, chosen: Mapping[str, list[int]], seed: int, index: int) -> Block:
    hosts = np.asarray(chosen["hosts"], dtype=np.int32)
    rng = np.random.default_rng(np.random.SeedSequence([seed, index]))
    return _block(hosts, hosts[derangement(len(hosts), rng)], w.size, w.start, w.dscp)


def expand_all_to_all(w: AllToAll, chosen: Mapping[str, list[int]]) -> Block:
    hosts = np.asarray(chosen["hosts"], dtype=np.int32)
    src, dst = np.meshgrid(hosts, hosts, indexing="ij")
    keep = src != dst
    q = w.queue_pairs
    return _block(np.repeat(src[keep], q), np.repeat(dst[keep], q), -(-w.size // q), w.start, w.dscp)


def expand_allreduce(w: AllReduce, chosen: Mapping[str, list[int]]) -> Block:
    gpus = np.asarray(chosen["gpus"], dtype=np.int32)
    n, steps = len(gpus), 2 * (len(gpus) - 1)
    total = w.iterations * steps * n
    flow = np.arange(total, dtype=np.int64)
    gpu, rest = flow % n, flow // n
    step, iteration = rest % steps, rest // steps
    first = flow < n                                  # iteration 0, step 0
    prev_it = np.where(step == 0, iteration - 1, iteration)
    prev_step = np.where(step == 0, steps - 1, step - 1)
    received = allreduce_index(n, prev_it, prev_step, (gpu - 1) % n)
    own = allreduce_index(n, prev_it, prev_step, gpu)
    deps = np.stack([received, own], axis=1)[~first]
    counts = np.where(first, 0, 2)
    dep_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    chunk = math.ceil(w.message / n)
    return Block(src=gpus[gpu], dst=gpus[(gpu + 1) % n], size=np.full(total, chunk, dtype=np.int64),
                 start_s=np.where(first, w.start + w.compute, w.start),
                 gap_s=np.where(step == 0, w.compute, w.step_compute).astype(np.float64),
                 dep_ptr=dep_ptr, dep_idx=deps.reshape(-1).astype(np.int32), dscp=w.dscp)


def expand_background(w: Background, chosen: Mapping[str, list[int]], end_s: float) -> Block:
    senders, receivers = chosen["from"], chosen["to"]
    pairs = [(senders[i % len(senders)], receivers[i % len(receivers)])
             for i in range(max(len(senders), len(receivers)))]
    pairs = [(s, d) for s, d in pairs if s != d]
    src = np.asarray([s for s, _ in pairs], dtype=np.int32)
    dst = np.asarray([d for _, d in pairs], dtype=np.int32)
    if w.size is not None:
        return _block(src, dst, w.size, w.start, w.dscp, dcqcn=False)
    assert w.rate is not None
    duration = w.duration if w.duration is not None else max(end_s - w.start, 0.0)
    chunks = max(math.ceil(duration / w.interval - 1e-9), 1)
    chunk_bytes = max(round(w.rate * w.interval / 8), 1)
    starts = w.start + np.arange(chunks) * w.interval
    return _block(np.repeat(src, chunks), np.repeat(dst, chunks), chunk_bytes, np.tile(starts, len(src)),
                  w.dscp, dcqcn=False)


def expand_workload(scenario: Scenario, index: int, w: Workload, chosen: Mapping[str, list[int]]) -> Block:
    if isinstance(w, Incast):
        return expand_incast(w, chosen)
    if isinstance(w, Permutation):
        return expand_permutation(w, chosen, scenario.seed, index)
    if isinstance(w, AllToAll):
        return expand_all_to_all(w, chosen)
    if isinstance(w, AllReduce):
        return expand_allreduce(w, chosen)
    return expand_background(w, chosen, scenario.duration)


def build_nics(scenario: Scenario, hosts: Sequence[Host], tables: Tables,
               cable_m_by_port: Mapping[str, float]) -> Nics:
    index = {name: i for i, name in enumerate(tables.ports.names)}
    port = np.asarray([index[h.port] for h in hosts], dtype=np.int32)
    groups = [scenario.hosts[h.group] for h in hosts]
    port_speed = tables.ports.speed_bps[port].astype(np.float64)
    speed = np.asarray([g.speed if g.speed is not None else math.inf for g in groups], dtype=np.float64)
    cable = [g.cable if g.cable is not None else cable_m_by_port.get(h.port, DEFAULT_CABLE_M)
             for g, h in zip(groups, hosts, strict=True)]
    storms = [g.pause_storm for g in groups]
    return Nics(
        port=port,
        speed_bps=np.minimum(speed, port_speed),
        cable_m=np.asarray(cable, dtype=np.float64),
        honours_pause=np.asarray([not g.ignores_pause for g in groups], dtype=bool),
        storm_start_s=np.asarray([s.start if s else math.nan for s in storms], dtype=np.float64),
        storm_end_s=np.asarray([s.end if s else math.nan for s in storms], dtype=np.float64),
        storm_priority=np.asarray([s.priority if s else 0 for s in storms], dtype=np.int8),
    )


def dcqcn_value(name: str, value: bool | int | float | str, default: object) -> object:
    """A DCQCN override as its field's type; units by the name's suffix (``_s``, ``_bps``, ``_bytes``)."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError("expected true or false")
        return value
    if isinstance(value, bool):
        raise ValueError("expected a number")
    parse = next((p for suffix, p in UNIT_SUFFIXES if name.endswith(suffix)), float)
    number = parse(value) if isinstance(value, str) else float(value)
    if isinstance(default, int):
        if not float(number).is_integer():
            raise ValueError("expected a whole number")
        return int(number)
    return float(number)


def dcqcn_params(scenario: Scenario) -> DcqcnParams:
    """The model's DCQCN parameters with the scenario's overrides; ``ScenarioError`` naming each bad one."""
    defaults = {f.name: getattr(DcqcnParams(), f.name) for f in fields(DcqcnParams)}
    values: dict[str, Any] = {}
    bad: list[ScenarioProblem] = []
    for name, value in scenario.dcqcn.items():
        if name not in defaults:
            bad.append(ScenarioProblem(f"dcqcn.{name}", f"not a DCQCN parameter (known: {', '.join(defaults)})",
                                       value))
            continue
        try:
            values[name] = dcqcn_value(name, value, defaults[name])
        except ValueError as exc:
            bad.append(ScenarioProblem(f"dcqcn.{name}", str(exc), value))
    if bad:
        raise ScenarioError(scenario.name, bad)
    return replace(DcqcnParams(), **values)


def concat(blocks: Sequence[Block]) -> tuple[Block, I32, I32]:
    """All blocks as one (dependencies re-based), with each flow's group and DSCP."""
    bases = np.cumsum([0] + [b.n for b in blocks])
    dep_bases = np.cumsum([0] + [len(b.dep_idx) for b in blocks])
    dep_ptr = np.concatenate([b.dep_ptr[:-1] + dep_bases[i] for i, b in enumerate(blocks)] + [[dep_bases[-1]]])
    merged = Block(
        src=np.concatenate([b.src for b in blocks]), dst=np.concatenate([b.dst for b in blocks]),
        size=np.concatenate([b.size for b in blocks]), start_s=np.concatenate([b.start_s for b in blocks]),
        gap_s=np.concatenate([b.gap_s for b in blocks]), dep_ptr=dep_ptr.astype(np.int64),
        dep_idx=np.concatenate([b.dep_idx + bases[i] for i, b in enumerate(blocks)]).astype(np.int32),
        dscp=0)
    group = np.repeat(np.arange(len(blocks), dtype=np.int32), [b.n for b in blocks])
    dscp = np.repeat(np.asarray([b.dscp for b in blocks], dtype=np.int32), [b.n for b in blocks])
    return merged, group, dscp


def build_flows(scenario: Scenario, hosts: Sequence[Host], merged: Block, group: I32, dcqcn_of_group: B,
                paths: Paths) -> Flows:
    """Flow rows; DCQCN, ECN capability and MTU come from the sender's host group."""
    sender = np.asarray([h.group for h in hosts], dtype=np.int32)[merged.src]
    groups = scenario.hosts
    return Flows(
        src=merged.src, dst=merged.dst,
        in_port=paths.in_port, out_port=paths.out_port, tc=paths.tc, queue=paths.queue, pg=paths.pg,
        size=merged.size, start_s=merged.start_s, dep_ptr=merged.dep_ptr, dep_idx=merged.dep_idx,
        gap_s=merged.gap_s,
        dcqcn=np.asarray([g.dcqcn for g in groups], dtype=bool)[sender] & dcqcn_of_group[group],
        ecn_capable=np.asarray([g.ecn for g in groups], dtype=bool)[sender],
        mtu=np.asarray([g.mtu for g in groups], dtype=np.int64)[sender],
        group=group,
    )


def expand_workloads(scenario: Scenario, hosts: Sequence[Host]) -> list[Block]:
    """Every workload's flows over ``hosts``; ``ScenarioError`` for a selector that matches nothing or
    more than ``MAX_FLOWS`` flows in all."""
    chosen = workload_hosts(scenario, hosts)
    blocks = [expand_workload(scenario, i, w, chosen[i]) for i, w in enumerate(scenario.workloads)]
    total = sum(b.n for b in blocks)
    if total > MAX_FLOWS:
        raise ScenarioError(scenario.name, [ScenarioProblem("workloads", f"expand to {total} flows; at most "
                                                            f"{MAX_FLOWS}", None)])
    return blocks


def expand(scenario: Scenario, tables: Tables,
           cable_m_by_port: Mapping[str, float]) -> tuple[Nics, Flows, RunConfig, list[str]]:
    """The model's inputs for ``scenario`` on the switch whose compiled tables are ``tables``;
    ``ScenarioError`` when a port, a selector or a parameter does not fit this switch."""
    hosts = resolve_hosts(scenario, tables.ports.names)
    blocks = expand_workloads(scenario, hosts)
    merged, group, dscp = concat(blocks)
    paths = find_paths(scenario, hosts, tables, merged.src, merged.dst, dscp)
    nics = build_nics(scenario, hosts, tables, cable_m_by_port)
    flows = build_flows(scenario, hosts, merged, group, np.asarray([b.dcqcn for b in blocks], dtype=bool), paths)
    cfg = RunConfig(max_time_s=scenario.duration, sample_s=scenario.sample_interval, seed=scenario.seed,
                    dcqcn=dcqcn_params(scenario))
    return nics, flows, cfg, workload_names(scenario)


__all__ = ["derangement", "expand"]
