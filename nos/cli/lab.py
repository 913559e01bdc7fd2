"""``nos lab check|config|compose|up|down|status|link``: labs of switches from a topology file (``nos.lab``).

``check`` validates a topology, ``config`` prints one switch's generated startup config, ``compose``
prints a docker-compose file running the lab's switches as containers (``nos.lab.compose``), ``up``
starts every switch (``nos.lab.supervisor`` in the background) and returns once all are ready,
``down`` stops them, ``status`` lists the switches with their endpoints and the links, ``link
down|up A:PORT B:PORT`` cuts or mends a cable. ``nos --lab NAME --node NODE <command>`` runs any
command against one switch of a lab (``nos.cli.main``)."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import click

from nos.cli.common import fail, json_option, print_json, print_table
from nos.cli.fabric import lab_traffic_run
from nos.db.connector import Databases
from nos.db.table import Table
from nos.lab import compose
from nos.lab.addressing import LabPlan, plan, role_of, startup_config, startup_configs
from nos.lab.labdir import LabDir, LabNotFound, find_lab
from nos.lab.links import LINK_TABLE, find_link, link_id
from nos.lab.status import lab_status, lab_topology
from nos.lab.topology import Topology, TopologyError, check_fits, estimate_memory_bytes, load_topology
from nos.runtime import procs

EXIT_INVALID = 2


def _load(path: Path) -> Topology:
    """The topology at ``path``, or exit 2 with every problem listed (its switches' generated configs
    included: each must be one ``nos up`` boots)."""
    try:
        topo = load_topology(path)
        check_fits(topo)
        startup_configs(topo, plan(topo))
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


@lab.command("compose")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--dir", "lab_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the switches' startup configs and run dirs go (default ./<lab name>-compose).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the compose file here instead of printing it.")
@click.option("--image", default=compose.IMAGE, show_default=True, help="The image (make docker-image).")
@click.option("--publish", default="127.0.0.1", show_default=True,
              help="Address the ports are published at; beyond loopback the switches need credentials.")
@click.option("--rest-port", default=8000, show_default=True, help="REST port of the first switch (then +1 each).")
@click.option("--gnmi-port", default=8080, show_default=True, help="gNMI port of the first switch (then +1 each).")
@click.option("--redis-port", default=6379, show_default=True, help="Redis TCP port of the first switch (+1 each).")
def compose_cmd(file: Path, lab_dir: Path | None, output: Path | None, image: str, publish: str, rest_port: int,
                gnmi_port: int, redis_port: int) -> None:
    """A docker-compose file that runs FILE's switches as containers (four each, as docker/docker-compose.yml)
    with their links joined; writes each switch's startup config and run dir under --dir."""
    topo = _load(file)
    where = (lab_dir or Path(f"{topo.name}-compose")).resolve()
    published = compose.Published(publish, rest_port, gnmi_port, redis_port)
    try:
        doc = compose.compose_file(topo, where, file.resolve(), published, image)
    except compose.ComposeError as exc:
        fail(str(exc), code=EXIT_INVALID)
    for name, config_doc in startup_configs(topo, plan(topo)).items():
        (where / "nodes" / name).mkdir(parents=True, exist_ok=True)
        target = where / "configs" / f"{name}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(config_doc, indent=2, sort_keys=True) + "\n")
    text = compose.render(topo, where, published, doc)
    if output is None:
        click.echo(text, nl=False)
        return
    output.write_text(text)
    click.echo(f"Wrote {output} ({len(doc['services'])} services); startup configs and run dirs in {where}.")


def lab_dir_of(name: str | None) -> LabDir:
    """The lab called ``name`` (default: the only one running), or exit 1 saying why not."""
    try:
        return find_lab(name)
    except LabNotFound as exc:
        fail(str(exc))
    raise AssertionError  # fail() exits


_lab = lab_dir_of


lab_option = click.option("--lab", "lab_name", envvar="NOS_LAB", help="The lab (default: the only one running).")


@lab.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--timeout", default=180.0, show_default=True, help="Seconds to wait for every switch.")
def up(file: Path, timeout: float) -> None:
    """Start every switch of FILE (each its own Redis, daemons, REST and gNMI) and wait until all are
    ready; a lab that fails halfway stops what it started."""
    topo = _load(file)
    here = LabDir.named(topo.name)
    if here.supervisor_pid() is not None:
        fail(f"lab {topo.name} is already running (pid {here.supervisor_pid()}); 'nos lab down --lab {topo.name}'")
    here.path.mkdir(parents=True, exist_ok=True)
    here.state_file.unlink(missing_ok=True)
    here.cuts_file.unlink(missing_ok=True)
    (here.path / "logs").mkdir(exist_ok=True)
    child = procs.spawn([sys.executable, "-m", "nos.lab.supervisor", str(file.resolve()), str(here.path)],
                        log_path=here.path / "logs" / "supervisor.out", tie_to_parent=False)
    deadline = time.monotonic() + timeout
    while True:
        state = here.state() or {}
        if state.get("pid") == child.pid and state.get("state") == "ready":
            break
        if state.get("pid") == child.pid and state.get("state") == "failed":
            fail(f"lab {topo.name} failed: {state.get('error')}")
        if child.poll() is not None:
            fail(f"lab {topo.name}: the lab supervisor exited with status {child.returncode}; see {here.log_file}")
        if time.monotonic() > deadline:
            os.kill(child.pid, signal.SIGTERM)
            fail(f"lab {topo.name} not ready within {timeout:.0f} s; stopping it (see {here.log_file})")
        time.sleep(0.05)
    click.echo(f"Lab {topo.name} ready in {state.get('boot_seconds')} s "
               f"({len(state['nodes'])} switches, pid {child.pid})")
    _print_nodes(lab_status(here)["nodes"])


def _print_nodes(rows: list[dict[str, Any]]) -> None:
    mclag = any(r.get("mclag") for r in rows)
    print_table(["Node", "Role", "State", *(["MC-LAG"] if mclag else []), "REST", "gNMI", "Redis"],
                [[r["node"], r["role"], r["state"], *([r.get("mclag") or "-"] if mclag else []), r["rest"], r["gnmi"],
                  r["redis_tcp"]] for r in rows])


@lab.command()
@lab_option
@click.option("--timeout", default=60.0, show_default=True, help="Seconds to wait for a clean stop.")
def down(lab_name: str | None, timeout: float) -> None:
    """Stop every switch of the lab."""
    here = _lab(lab_name)
    pid = here.supervisor_pid()
    if pid is None:
        click.echo(f"Lab {here.name} is not running.")
        return
    if not procs.terminate_and_wait(pid, timeout):
        fail(f"lab {here.name} (pid {pid}) did not stop within {timeout:.0f} s")
    click.echo(f"Lab {here.name} stopped.")


@lab.command()
@lab_option
@json_option
def status(lab_name: str | None, as_json: bool) -> None:
    """The lab's switches (state, endpoints) and links (carrier and oper status at both ends). Exit 0
    when the lab and every switch are ready, 1 when it is not running, 2 otherwise."""
    info = lab_status(_lab(lab_name))
    if as_json:
        print_json(info)
    else:
        head = f"Lab {info['name']}: {info['state']}"
        if info["pid"]:
            head += f" (pid {info['pid']}, {len(info['nodes'])} switches)"
        click.echo(head + (f": {info['error']}" if info.get("error") else ""))
        if info["nodes"]:
            _print_nodes(info["nodes"])
        if info["links"]:
            click.echo()
            print_table(["A", "B", "Cut", "A carrier/oper", "B carrier/oper"],
                        [[li["a"], li["b"], "yes" if li["cut"] else "no", f"{li['a_carrier']}/{li['a_oper']}",
                          f"{li['b_carrier']}/{li['b_oper']}"] for li in info["links"]])
    sys.exit(0 if info["ready"] else 1 if info["state"] in ("down", "failed") else 2)


@lab.command()
@click.argument("action", type=click.Choice(["down", "up"]))
@click.argument("a")
@click.argument("b")
@lab_option
@click.option("--timeout", default=10.0, show_default=True, help="Seconds to wait for both ends.")
def link(action: str, a: str, b: str, lab_name: str | None, timeout: float) -> None:
    """Cut (down) or mend (up) the cable between A and B (node:port each, e.g. leaf1:Ethernet248
    spine1:Ethernet0); returns once both ends were told."""
    here = _lab(lab_name)
    state = here.state() or {}
    if here.supervisor_pid() is None:
        fail(f"lab {here.name} is not running")
    try:
        topo = load_topology(lab_topology(state))
        cable = find_link(topo, a, b)
    except (TopologyError, ValueError) as exc:
        fail(str(exc), code=EXIT_INVALID)
    name = link_id(cable)
    cuts = here.cuts()
    here.write_cuts(cuts | {name} if action == "down" else cuts - {name})
    _await_carrier(state, (cable.a, cable.b), action, timeout)
    click.echo(f"Link {cable.a} -- {cable.b} {action}.")


def _switch_dbs(state: dict[str, Any], node: str) -> Databases:
    url = ((state.get("nodes") or {}).get(node, {}).get("endpoints") or {}).get("redis")
    if not url:
        fail(f"{node}: not running (no endpoints in the lab's state; 'nos lab status')")
    return Databases(url)


def _admin_up(state: dict[str, Any], end: Any) -> bool:
    dbs = _switch_dbs(state, end.node)
    try:
        return (Table(dbs["APPL_DB"], "PORT_TABLE").get(end.port) or {}).get("admin_status") == "up"
    finally:
        dbs.close()


def _await_carrier(state: dict[str, Any], ends: tuple[Any, Any], action: str, timeout: float) -> None:
    """Wait until both ends' NOS_LINK_TABLE say what the cut means and each switch has acted on it: its
    port's oper status (APPL_DB ``PORT_TABLE``, written once orchagent has handled the port's state
    change, next hops included) follows, unless either end is admin down (a mended link then stays
    dark, rightly)."""
    deadline = time.monotonic() + timeout
    for end, far in (ends, ends[::-1]):
        dbs = _switch_dbs(state, end.node)
        try:
            links, ports = Table(dbs["STATE_DB"], LINK_TABLE), Table(dbs["APPL_DB"], "PORT_TABLE")
            while True:
                carrier = (links.get(end.port) or {}).get("carrier")
                port = ports.get(end.port) or {}
                dark_anyway = action == "up" and (port.get("admin_status") != "up" or not _admin_up(state, far))
                if carrier is not None and (dark_anyway or (carrier == action and port.get("oper_status") == action)):
                    break
                if time.monotonic() > deadline:
                    fail(f"{end}: carrier {carrier}, oper status {port.get('oper_status')} after {timeout:.0f} s")
                time.sleep(0.02)
        finally:
            dbs.close()


@lab.group("traffic")
def lab_traffic() -> None:
    """Traffic across every switch of a lab (one fluid model over all of them)."""


lab_traffic.add_command(lab_traffic_run)
