"""One traffic run or packet trace, from its request text to its answer (no Redis: the shell does IO).

``run_traffic`` parses and expands a scenario against the compiled tables, runs the model, reports
progress and the result through a callback (the job's STATE_DB fields) and returns what the run did to
the ASIC: counter updates and, with ``forwarding: programmed``, the source MACs the bridge learnt
(``syncd_sim.learning``). ``answer_trace`` explains one packet.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fastpath import report, workloads
from fastpath.model import run
from fastpath.run_counters import Update, counter_updates
from fastpath.tables import Tables
from fastpath.trace import trace
from nos.traffic.hosts import resolve_hosts
from nos.traffic.scenario import Scenario, ScenarioError, parse_scenario
from syncd_sim import learning
from syncd_sim.traffic_requests import JobError

PROGRESS_EVERY_S = 0.2  # wall seconds between progress writes


@dataclass(frozen=True)
class RunOutput:
    """What a run did to the ASIC: its counter updates and the MACs its bridge learnt."""

    updates: list[Update]
    learned: list[learning.LearntMac] = field(default_factory=list)
    watchdog: list[tuple[str, str]] = field(default_factory=list)  # (queue oid, "storm"|"restore"), in order


def watchdog_events(tables: Tables, events: list[tuple[float, int, int, str]]) -> list[tuple[str, str]]:
    """The model's watchdog events as the daemon's watchdog reports them: (queue oid, event), in time order."""
    queues = tables.ports.queue_oids
    out = []
    for _, port, queue, event in sorted(events, key=lambda e: e[0]):
        if port < len(queues) and queue < len(queues[port]) and queues[port][queue]:
            out.append((queues[port][queue], event))
    return out


def answer_trace(tables: Tables, packet_text: str) -> dict[str, Any]:
    try:
        packet = json.loads(packet_text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than the parser goes
        raise JobError(f"packet: not JSON: {exc}") from None
    if not isinstance(packet, dict):
        raise JobError("packet: expected a JSON object of header fields")
    try:
        return trace(tables, packet)
    except (KeyError, ValueError) as exc:
        raise JobError(f"packet: {exc}") from None


def run_traffic(scenario_text: str, tables: Tables, cables: Mapping[str, float],
                publish: Callable[[dict[str, str]], None]) -> RunOutput:
    """Run one scenario; ``publish`` receives the job's changing fields (progress, then the result)."""
    try:
        scenario = parse_scenario(scenario_text)
        nics, flows, cfg, names = workloads.expand(scenario, tables, cables)
    except (ScenarioError, ValueError, KeyError) as exc:
        raise JobError(str(exc)) from None
    last = [0.0]

    def progress(fraction: float) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_S:
            last[0] = now
            publish({"progress": f"{fraction:.3f}", "sim_time_s": f"{fraction * cfg.max_time_s:.6f}"})

    result = run(tables, nics, flows, cfg, progress=progress)
    document = report.to_json(scenario, tables, nics, flows, names, result)
    publish({"result": json.dumps(document, separators=(",", ":")), "sim_time_s": f"{result.sim_time_s:.6f}",
             "progress": "1"})
    return RunOutput(counter_updates(tables, result), learnt_macs(scenario, tables),
                     watchdog_events(tables, result.watchdog_events))


def learnt_macs(scenario: Scenario, tables: Tables) -> list[learning.LearntMac]:
    """The source MACs the switch learns from the scenario's hosts (none unless ``forwarding: programmed``:
    only then do the hosts' frames go through the bridge)."""
    if scenario.forwarding != "programmed":
        return []
    hosts = resolve_hosts(scenario, tables.ports.names)
    return learning.resolve(tables, learning.learnt_from_hosts(tables, hosts))
