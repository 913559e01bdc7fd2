"""A lab as a docker-compose file (``nos lab compose FILE``): each switch as the four containers of
``docker/docker-compose.yml``, and one ``links`` container that joins their links as ``nos lab up`` does.

Per switch ``N`` (the i-th switch of the topology): ``N-database``, ``N-syncd``, ``N-swss``, ``N-mgmt``, each
``python -m nos.runtime.container ROLE`` with the same healthcheck and ``depends_on`` conditions as the
single switch, sharing the run directory ``DIR/nodes/N`` (the volume); the database boots from the
switch's generated startup config ``DIR/configs/N.json`` (``nos lab config``'s: the SKU default, the
lab's addressing and routes, the node's own startup-config), mounted read-only, so the lab boots from
its topology every time as ``nos lab up`` does. REST, gNMI and the Redis TCP guard are published on
loopback at ``base + i``. The ``links`` container runs ``nos.lab.linkkeeper`` over every switch's Redis
socket (the nodes' run directories mounted), with ``DIR/cuts.json`` as its list of cut links.

What a compose lab does not have (yet): MC-LAG pairs (iccpd's sessions between containers are not
wired: refused), ``nos lab status|traffic run|link`` and ``--node`` (they read a lab supervisor's state:
attach each switch's run dir with ``nos attach`` instead). Pure: ``compose_file`` builds the document.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from nos.lab.model import Topology

IMAGE = "nos-sim:latest"
RUN_DIR = "/var/run/nos"           # the run dir volume inside every container (nos.runtime.container)
STARTUP = "/etc/nos/startup.json"  # a compose lab's generated startup config inside its database container
HEALTH_FILE = "/run/nos-health.json"
HEALTHCHECK: dict[str, Any] = {
    "test": ["CMD-SHELL", f"find {HEALTH_FILE} -newermt '-5 seconds' | grep -q ."],
    "interval": "2s", "timeout": "5s", "retries": 60,
}
CONTAINER = ["python", "-m", "nos.runtime.container"]
ROLE_PORTS = {"redis": 6379, "rest": 8000, "gnmi": 8080}  # inside the containers


class ComposeError(ValueError):
    """The topology cannot be run in docker-compose (the message says what and why)."""


@dataclass(frozen=True)
class Published:
    """Where the lab's ports are published: switch i gets each base + i."""

    address: str = "127.0.0.1"
    rest: int = 8000
    gnmi: int = 8080
    redis: int = 6379

    def ports(self, index: int) -> dict[str, int]:
        return {"rest": self.rest + index, "gnmi": self.gnmi + index, "redis": self.redis + index}


def _common(image: str, run_dir: str) -> dict[str, Any]:
    return {"image": image, "init": True, "restart": "unless-stopped", "volumes": [f"{run_dir}:{RUN_DIR}"],
            "healthcheck": dict(HEALTHCHECK)}


def switch_services(prefix: str, run_dir: str, published: Published, index: int = 0, *, image: str = IMAGE,
                    startup: str | None = None) -> dict[str, dict[str, Any]]:
    """The four services of one switch (pure). ``prefix``: their names' (``leaf1-``; empty for one switch);
    ``startup``: a host file the database boots from (default: the run dir's saved config)."""
    ports = published.ports(index)
    host = published.address
    healthy = {"condition": "service_healthy"}
    database = {**_common(image, run_dir),
                "command": [*CONTAINER, "database", "--redis-port", str(ROLE_PORTS["redis"]),
                            *(["--config", STARTUP] if startup else [])],
                "ports": [f"{host}:{ports['redis']}:{ROLE_PORTS['redis']}"]}
    if startup:
        database["volumes"] = [*database["volumes"], f"{startup}:{STARTUP}:ro"]
    return {
        f"{prefix}database": database,
        f"{prefix}syncd": {**_common(image, run_dir), "command": [*CONTAINER, "syncd"], "network_mode": "none",
                           "depends_on": {f"{prefix}database": healthy}},
        f"{prefix}swss": {**_common(image, run_dir), "command": [*CONTAINER, "swss"],
                          "depends_on": {f"{prefix}database": healthy, f"{prefix}syncd": healthy}},
        f"{prefix}mgmt": {**_common(image, run_dir),
                          "command": [*CONTAINER, "mgmt", "--rest-port", str(ROLE_PORTS["rest"]),
                                      "--gnmi-port", str(ROLE_PORTS["gnmi"])],
                          "environment": {"NOS_PUBLISHED_ON": host},
                          "ports": [f"{host}:{ports['rest']}:{ROLE_PORTS['rest']}",
                                    f"{host}:{ports['gnmi']}:{ROLE_PORTS['gnmi']}"],
                          "depends_on": {f"{prefix}database": healthy}},
    }


def attach_command(topo: Topology, node: str, lab_dir: Path, published: Published) -> str:
    """The ``nos attach`` that points the commands at switch ``node`` of the compose lab (pure)."""
    ports = published.ports(topo.switches().index(topo.node(node)))
    host = "127.0.0.1" if published.address in ("0.0.0.0", "::") else published.address
    return (f"nos attach --run-dir {lab_dir / 'nodes' / node} --rest http://{host}:{ports['rest']} "
            f"--gnmi {host}:{ports['gnmi']} --redis-tcp redis://{host}:{ports['redis']}")


def check_composable(topo: Topology) -> None:
    """Raise ComposeError for what a compose lab cannot run."""
    if topo.mclag:
        raise ComposeError(f"lab {topo.name} has MC-LAG pairs: iccpd's sessions between containers are not wired "
                           "in docker-compose yet; run it with 'nos lab up'")


def compose_file(topo: Topology, lab_dir: Path, topology_file: Path, published: Published = Published(),
                 image: str = IMAGE) -> dict[str, Any]:
    """The compose document (the compose specification's layout, no ``version``, as docker-compose 1.29
    reads it) for ``topo``, whose files live in ``lab_dir`` (absolute) and whose topology is
    ``topology_file`` (absolute; its directory is mounted read-only into the links container)."""
    check_composable(topo)
    services: dict[str, dict[str, Any]] = {}
    switches = [n.name for n in topo.switches()]
    for index, name in enumerate(switches):
        services.update(switch_services(f"{name}-", str(lab_dir / "nodes" / name), published, index, image=image,
                                        startup=str(lab_dir / "configs" / f"{name}.json")))
    nodes = [f"{name}=unix:///lab/nodes/{name}/redis.sock" for name in switches]
    services["links"] = {
        "image": image, "init": True, "restart": "unless-stopped", "network_mode": "none",
        "volumes": [f"{lab_dir}:/lab", f"{topology_file.parent}:/topology:ro"],
        "command": ["python", "-m", "nos.lab.linkkeeper", f"/topology/{topology_file.name}",
                    *[arg for node in nodes for arg in ("--node", node)], "--cuts", "/lab/cuts.json",
                    "--health-file", HEALTH_FILE],
        "healthcheck": dict(HEALTHCHECK),
        "depends_on": {f"{name}-database": {"condition": "service_healthy"} for name in switches},
    }
    return {"services": services}


class _Dumper(yaml.SafeDumper):
    """Plain YAML: no anchors and aliases for the rows that repeat (the healthcheck, the conditions)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def render(topo: Topology, lab_dir: Path, published: Published, doc: dict[str, Any]) -> str:
    """The compose file's text: the header, then the document (short lists on one line)."""
    body = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=120)
    return header(topo, lab_dir, published) + body


def header(topo: Topology, lab_dir: Path, published: Published) -> str:
    """The comment at the top of the generated file: what it is and how to use it (pure)."""
    lines = [f"Lab {topo.name} in docker-compose, generated by 'nos lab compose' (nos/lab/compose.py).",
             f"Files: {lab_dir}/configs/<node>.json (startup configs), {lab_dir}/nodes/<node>/ (run dirs),",
             f"{lab_dir}/cuts.json (cut links, read by the links container). Image: make docker-image.",
             "Start: docker-compose -f THIS_FILE up -d; then point the nos commands at each switch:"]
    lines += [f"  {attach_command(topo, n.name, lab_dir, published)}" for n in topo.switches()]
    return "".join(f"# {line}\n" for line in lines)
