"""``nos lab check FILE`` and ``nos lab config FILE NODE``: a lab's topology validated and the startup
configuration generated for one of its switches (``nos.lab``). Starting a lab's switches (``nos lab
up``) is not built yet (issue 17)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from nos.cli.common import fail, json_option, print_json, print_table
from nos.lab.addressing import LabPlan, plan, role_of, startup_config
from nos.lab.topology import Topology, TopologyError, check_fits, estimate_memory_bytes, load_topology

EXIT_INVALID = 2


def _load(path: Path) -> Topology:
    """The topology at ``path``, or exit 2 with every problem listed."""
    try:
        topo = load_topology(path)
        check_fits(topo)
    except TopologyError as exc:
        fail(str(exc), code=EXIT_INVALID)
    return topo


def _summary(topo: Topology, lab: LabPlan) -> list[dict[str, Any]]:
    return [{"node": n.name, "role": role_of(topo, n.name), "sku": n.sku, "router_mac": lab.router_mac[n.name],
             "links": len(topo.links_of(n.name)), "hosts": len(topo.hosts_on(n.name)),
             "static_routes": len(lab.configs[n.name].get("STATIC_ROUTE", {}))} for n in topo.switches()]


@click.group()
def lab() -> None:
    """Multi-switch labs from a topology file (configs/labs/README.md)."""


@lab.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option
def check(file: Path, as_json: bool) -> None:
    """Validate FILE (every problem named, exit 2) and list its switches with what is generated."""
    topo = _load(file)
    rows = _summary(topo, plan(topo))
    if as_json:
        print_json({"name": topo.name, "switches": rows, "hosts": len(topo.hosts), "links": len(topo.links),
                    "memory_bytes": estimate_memory_bytes(topo)})
        return
    print_table(["Node", "Role", "SKU", "Router MAC", "Links", "Hosts", "Static routes"],
                [[r["node"], r["role"], r["sku"], r["router_mac"], r["links"], r["hosts"], r["static_routes"]]
                 for r in rows])
    click.echo(f"\nLab {topo.name}: {len(rows)} switches, {len(topo.links)} links, {len(topo.hosts)} hosts, "
               f"about {estimate_memory_bytes(topo) / 2**30:.1f} GiB to run.")


@lab.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("node")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the config_db.json here instead of printing it.")
def config(file: Path, node: str, output: Path | None) -> None:
    """The startup config_db.json of NODE (SKU default + generated tables + its startup-config), for
    `nos up --config`."""
    topo = _load(file)
    names = [n.name for n in topo.switches()]
    if node not in names:
        fail(f"{node}: no such switch in {topo.name} (switches: {', '.join(names)})", code=EXIT_INVALID)
    doc = startup_config(topo, node, plan(topo))
    if output is None:
        print_json(doc)
        return
    output.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    click.echo(f"Wrote {output} ({sum(len(rows) for rows in doc.values())} rows in {len(doc)} tables).")
