"""``nos lab traffic run SCENARIO --across CHANGE``: the command's side of ``nos.lab.across_run`` (the
changes parsed, the run made, its loss window and phases printed). Exit codes as ``lab traffic run``'s:
1 a switch did not answer or the change could not be made, 2 invalid input."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from nos.cli.common import fail, print_json

INVALID = 2


def _phase(name: str, doc: dict[str, Any] | None) -> str:
    if doc is None:
        return f"{name:<7} -"
    done = doc["completion_s"]
    return (f"{name:<7} delivered {doc['delivered_bytes']:,} of {doc['bytes']:,} bytes, {doc['finished']} of "
            f"{doc['flows']} flows finished" + (f", last at {done * 1e6:.1f} us" if done is not None else "")
            + (f"; unroutable {sum(doc['unroutable'].values())}" if doc["unroutable"] else ""))


def print_across(doc: dict[str, Any], echo: Callable[[str], None] = click.echo) -> None:
    from nos.cli.fabric import _print_summary

    echo(f"Lab {doc['lab']}, scenario {doc['scenario']}, across: {'; '.join(doc['changes'])}")
    if doc["losing_takes"]:
        echo(f"Loss window: {doc['loss_window_min_s'] * 1e3:.0f}-{doc['loss_window_s'] * 1e3:.0f} ms after the "
             f"change ({doc['losing_takes']} of {doc['takes']} looks lost flows, at most {doc['most_flows_lost']})"
             + ("" if doc["restored"] else "; NOT restored"))
    else:
        echo(f"Loss window: none ({doc['takes']} looks over {doc['observed_s']:.1f} s, every flow delivered)"
             + ("" if doc["restored"] else "; NOT restored"))
    echo(f"Lost in it: {doc['flows_lost']} flows, {doc['lost_bytes']:,} bytes at their rate before the change")
    if doc["macs_checked"]:
        sync = doc["mac_sync_s"]
        echo(f"MC-LAG MAC sync: {doc['macs_checked']} MACs known to the peer "
             + (f"within {sync * 1e3:.0f} ms" if sync is not None else f"NOT within the wait ({doc['macs_missing']} "
                                                                       f"missing)"))
    for name in ("before", "during", "after"):
        echo(_phase(name, doc[name]))
    if doc["after"] is not None:
        echo("")
        _print_summary(doc["after"], echo)


def run_across_cli(here: Any, topo: Any, lab_scenario: Any, texts: Sequence[str], nodes: Mapping[str, Any],
                   down: Sequence[str], *, observe_s: float | None, timeout_s: float, as_json: bool,
                   runner: Callable[[Any], tuple[Any, dict[str, Any]]]) -> None:
    from fastpath.fabric import FabricError
    from nos.lab import across
    from nos.lab.across_run import ChangeFailed, UnknownTarget, default_observe_s, run_across
    from nos.lab.errors import TopologyError
    from nos.lab.exchange import LabExchangeError
    from nos.lab.fabric_run import flows_of
    from nos.traffic.errors import ScenarioError

    try:
        changes = [across.parse_change(text, topo) for text in texts]
        planned = flows_of(lab_scenario)
    except (ValueError, ScenarioError) as exc:
        fail(str(exc), INVALID)
    look = default_observe_s(topo) if observe_s is None else observe_s
    try:
        doc = run_across(here, topo, lab_scenario, planned, changes, nodes, runner, observe_s=look,
                         timeout_s=max(60.0, look), exchange_timeout_s=timeout_s)
    except UnknownTarget as exc:
        fail(f"lab {here.name}: {exc}", INVALID)
    except (ChangeFailed, LabExchangeError) as exc:
        fail(f"lab {here.name}: {exc}")
    except (TopologyError, FabricError) as exc:
        fail(f"lab {here.name}: the fabric does not fit the scenario: {exc}", INVALID)
    doc = {"lab": here.name, "scenario": lab_scenario.scenario.name, "switches_down": list(down), **doc}
    if as_json:
        print_json(doc)
    else:
        print_across(doc)
