"""Lab topology files (containerlab's shape plus a compact ``hosts:`` list): load, validate, normalise.

``load_topology(path)`` reads YAML; ``parse_topology(data, base_dir)`` takes the parsed document (paths
in it, such as ``startup-config``, are relative to ``base_dir``). Both return a :class:`Topology` or raise
:class:`TopologyError` listing every problem with where it is (``configs/labs/README.md`` describes the
format). Structure is checked in ``nos.lab.parse``, ports, speeds, names and addresses in
``nos.lab.checks``, memory in ``nos.lab.memory``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from nos.lab.checks import Resolver
from nos.lab.errors import LabTooBig, TopologyError
from nos.lab.memory import check_fits, estimate_memory_bytes
from nos.lab.model import Endpoint, Host, Link, Node, Topology, router_mac
from nos.lab.parse import Problems, parse_specs, read_yaml

__all__ = ["Endpoint", "Host", "LabTooBig", "Link", "Node", "Topology", "TopologyError", "check_fits",
           "estimate_memory_bytes", "load_topology", "parse_topology", "router_mac"]


def load_topology(path: Path) -> Topology:
    """Read and validate the topology file at ``path``."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise TopologyError([f"cannot read the file: {exc}"], str(path)) from None
    try:
        data, duplicates = read_yaml(text)
    except yaml.YAMLError as exc:
        raise TopologyError([f"not YAML: {exc}"], str(path)) from None
    if not isinstance(data, Mapping):
        raise TopologyError([f"<top>: must be a mapping with name and topology, not {type(data).__name__}"],
                            str(path))
    return _build(data, Path(path).parent, duplicates, str(path))


def parse_topology(data: Mapping[str, Any], base_dir: Path) -> Topology:
    """Validate an already parsed topology document."""
    if not isinstance(data, Mapping):
        raise TopologyError([f"<top>: must be a mapping, not {type(data).__name__}"])
    return _build(data, base_dir, [], "")


def _build(data: Mapping[str, Any], base_dir: Path, duplicates: list[str], source: str) -> Topology:
    problems = Problems()
    problems.items += duplicates
    specs = parse_specs(data, base_dir, problems)
    topo = Resolver(specs, problems).run()
    if problems.items:
        raise TopologyError(problems.items, source)
    return topo
