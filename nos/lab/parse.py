"""Reading a topology file's structure (pure): keys, types and values, into specs still to be checked
against SKUs and each other (``nos.lab.checks``).

Every problem is collected as ``"<where>: <what>"`` with ``where`` a path in the file
(``topology.links[3].endpoints[1]``); nothing stops at the first. YAML mappings that give a key twice
(two nodes of one name) are caught by the loader and reported with their line.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from nos.lab.model import DEFAULT_CABLE_M, DEFAULT_KIND, DEFAULT_SKU, HOST_KINDS, SWITCH_KINDS, Endpoint
from nos.traffic.scenario import check_port_item, split_list
from nos.traffic.units import parse_length, parse_rate

TOP_KEYS = frozenset({"name", "topology"})
TOPOLOGY_KEYS = frozenset({"defaults", "nodes", "links", "hosts", "mclag"})
MCLAG_KEYS = frozenset({"domain", "peers", "peer_link", "keepalive", "session_timeout"})
DEFAULT_KEYS = frozenset({"kind", "sku", "roce"})
SWITCH_NODE_KEYS = frozenset({"kind", "sku", "role", "startup-config", "roce"})
HOST_NODE_KEYS = frozenset({"kind", "speed", "mac", "ip", "gateway"})
LINK_KEYS = frozenset({"endpoints", "cable"})
HOST_KEYS = frozenset({"name", "node", "ports", "speed", "mac", "ip", "gateway", "cable"})
ROLES = frozenset({"leaf", "spine"})
AUTO = "auto"
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]*$")
HOST_PATTERN = re.compile(r"^[A-Za-z{][A-Za-z0-9_.\-{}]*$")
PLACEHOLDERS = ("{node}", "{i}", "{port}")
MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


class Problems:
    """The problems found so far, each ``"<where>: <what>"``."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, what: str) -> None:
        self.items.append(f"{where}: {what}")


@dataclass
class NodeSpec:
    """A ``topology.nodes`` entry as written (a switch, or a containerlab host node)."""

    name: str
    kind: str
    where: str
    sku: str = DEFAULT_SKU
    role: str = ""
    startup_config: Path | None = None
    roce: bool = False
    host: dict[str, Any] = field(default_factory=dict)   # speed/mac/ip/gateway of a host node

    @property
    def is_switch(self) -> bool:
        return self.kind in SWITCH_KINDS


@dataclass
class LinkSpec:
    """A ``topology.links`` entry: its two ends (None where unreadable) and cable length."""

    ends: list[Endpoint | None]
    cable_m: float
    where: str


@dataclass
class HostSpec:
    """One host before its addresses are resolved (None: auto / the port's value)."""

    name: str
    node: str
    port: str
    where: str
    speed_bps: float | None = None
    mac: str | None = None
    ip: ipaddress.IPv4Interface | None = None
    gateway: ipaddress.IPv4Address | None = None
    cable_m: float = DEFAULT_CABLE_M
    peer: str = ""               # dual-homed: the second switch (the same port)


@dataclass
class HostGroupSpec:
    """A compact ``topology.hosts`` entry: names (a pattern or a list) on a list of ports or ranges;
    ``node: [a, b]`` makes them dual-homed to an MC-LAG pair (``peer`` = b)."""

    names: str | list[str]
    node: str
    ports: list[str]
    where: str
    values: dict[str, Any] = field(default_factory=dict)
    peer: str = ""


@dataclass
class McLagSpec:
    """A ``topology.mclag`` entry as written (checked against the nodes and links in ``checks``)."""

    domain: int
    peers: list[str]
    peer_link: list[str] | None        # None: every link between the two peers
    keepalive: int
    session_timeout: int
    where: str


@dataclass
class Specs:
    name: str = ""
    nodes: list[NodeSpec] = field(default_factory=list)
    links: list[LinkSpec] = field(default_factory=list)
    groups: list[HostGroupSpec] = field(default_factory=list)
    mclag: list[McLagSpec] = field(default_factory=list)


class _Loader(yaml.SafeLoader):
    """A SafeLoader that records mapping keys given twice (``yaml.safe_load`` keeps the last silently)."""

    duplicates: list[str]


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[object] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, str | int | float) and key in seen:
            loader.duplicates.append(f"line {key_node.start_mark.line + 1}: {key!r} given twice")
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_yaml(text: str) -> tuple[object, list[str]]:
    """The document and the keys given twice; ``yaml.YAMLError`` if it is not YAML."""
    loader = _Loader(text)
    loader.duplicates = []
    try:
        return loader.get_single_data(), loader.duplicates
    finally:
        loader.dispose()


def _keys(data: Mapping[str, Any], allowed: frozenset[str], where: str, problems: Problems) -> None:
    for key in data:
        if key not in allowed:
            problems.add(where, f"unknown key {key!r} (known: {', '.join(sorted(allowed))})")


def _mapping(value: object, where: str, problems: Problems) -> Mapping[str, Any] | None:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    problems.add(where, f"must be a mapping, not {type(value).__name__}")
    return None


def _list(value: object, where: str, problems: Problems) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    problems.add(where, f"must be a list, not {type(value).__name__}")
    return []


def _text(value: object, where: str, problems: Problems) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    problems.add(where, f"must be a non-empty string, got {value!r}")
    return None


def parse_value(key: str, value: object, where: str, problems: Problems) -> object:
    """One of the shared host/link fields (speed, cable, mac, ip, gateway) parsed, or None (auto/bad)."""
    here = f"{where}.{key}"
    if value is None or value == AUTO:
        return None
    try:
        if key == "speed":
            return parse_rate(value)  # type: ignore[arg-type]
        if key == "cable":
            return parse_length(value)  # type: ignore[arg-type]
        if key == "mac":
            if not isinstance(value, str) or not MAC.match(value):
                raise ValueError(f"{value!r} is not a MAC address (aa:bb:cc:dd:ee:ff) or auto")
            return value.lower()
        if key == "ip":
            return ipaddress.IPv4Interface(str(value) if "/" in str(value) else f"{value}/24")
        if key == "gateway":
            return ipaddress.IPv4Address(str(value))
    except ValueError as exc:
        problems.add(here, str(exc))
    return None


def _flag(value: object, where: str, problems: Problems) -> bool:
    if not isinstance(value, bool):
        problems.add(where, f"{value!r} is not true or false")
        return False
    return value


def _defaults(raw: Mapping[str, Any], problems: Problems) -> tuple[str, str, bool]:
    data = _mapping(raw.get("defaults"), "topology.defaults", problems) or {}
    _keys(data, DEFAULT_KEYS, "topology.defaults", problems)
    kind = _text(data.get("kind", DEFAULT_KIND), "topology.defaults.kind", problems) or DEFAULT_KIND
    sku = _text(data.get("sku", DEFAULT_SKU), "topology.defaults.sku", problems) or DEFAULT_SKU
    return kind, sku, _flag(data.get("roce", False), "topology.defaults.roce", problems)


def _node(name: object, raw: object, defaults: tuple[str, str, bool], base_dir: Path,
          problems: Problems) -> NodeSpec | None:
    where = f"topology.nodes.{name}"
    if not isinstance(name, str) or not NAME.match(name):
        problems.add(where, "a node name starts with a letter and holds letters, digits, _ . - (no ':')")
        return None
    data = _mapping(raw, where, problems)
    if data is None:
        return None
    kind = _text(data.get("kind", defaults[0]), f"{where}.kind", problems) or defaults[0]
    spec = NodeSpec(name, kind, where)
    if kind in HOST_KINDS:
        _keys(data, HOST_NODE_KEYS, where, problems)
        spec.host = {k: parse_value(k, data.get(k), where, problems) for k in HOST_NODE_KEYS - {"kind"}}
        return spec
    if kind not in SWITCH_KINDS:
        known = ", ".join(sorted(SWITCH_KINDS | HOST_KINDS))
        problems.add(f"{where}.kind", f"unknown kind {kind!r} (known: {known})")
        return None
    _keys(data, SWITCH_NODE_KEYS, where, problems)
    spec.sku = _text(data.get("sku", defaults[1]), f"{where}.sku", problems) or defaults[1]
    role = data.get("role", "")
    if role and role not in ROLES:
        problems.add(f"{where}.role", f"unknown role {role!r} (known: {', '.join(sorted(ROLES))})")
    spec.role = role if role in ROLES else ""
    spec.roce = _flag(data.get("roce", defaults[2]), f"{where}.roce", problems)
    if "startup-config" in data:
        text = _text(data["startup-config"], f"{where}.startup-config", problems)
        path = (base_dir / text) if text else None
        if path is not None and not path.is_file():
            problems.add(f"{where}.startup-config", f"no such file {str(path)!r}")
        spec.startup_config = path
    return spec


def _link(index: int, raw: object, problems: Problems) -> LinkSpec | None:
    where = f"topology.links[{index}]"
    data = _mapping(raw, where, problems)
    if data is None:
        return None
    _keys(data, LINK_KEYS, where, problems)
    ends_raw = _list(data.get("endpoints"), f"{where}.endpoints", problems)
    if len(ends_raw) != 2:
        problems.add(f"{where}.endpoints", f"a link has two endpoints, got {len(ends_raw)}")
        return None
    ends: list[Endpoint | None] = []
    for side, text in enumerate(ends_raw):
        try:
            ends.append(Endpoint.parse(str(text)))
        except ValueError as exc:
            problems.add(f"{where}.endpoints[{side}]", str(exc))
            ends.append(None)
    cable = parse_value("cable", data.get("cable"), where, problems)
    return LinkSpec(ends, cable if isinstance(cable, float) else DEFAULT_CABLE_M, where)


def _names(value: object, where: str, problems: Problems) -> str | list[str] | None:
    if isinstance(value, list):
        names = [str(v) for v in value]
        bad = [n for n in names if not NAME.match(n)]
        if bad or not names:
            problems.add(where, f"host names are letters, digits, _ . - (got {bad or names!r})")
            return None
        return names
    if not isinstance(value, str) or not HOST_PATTERN.match(value) or any(
        p in value for p in ("{", "}")) and not _placeholders_ok(value):
        problems.add(where, f"{value!r} is not a host name or pattern (placeholders {', '.join(PLACEHOLDERS)})")
        return None
    return value


def _placeholders_ok(pattern: str) -> bool:
    rest = pattern
    for placeholder in PLACEHOLDERS:
        rest = rest.replace(placeholder, "")
    return "{" not in rest and "}" not in rest


def _host_group(index: int, raw: object, problems: Problems) -> HostGroupSpec | None:
    where = f"topology.hosts[{index}]"
    data = _mapping(raw, where, problems)
    if data is None:
        return None
    _keys(data, HOST_KEYS, where, problems)
    names = _names(data.get("name"), f"{where}.name", problems)
    peer = ""
    raw_node = data.get("node")
    if isinstance(raw_node, list):
        if len(raw_node) != 2 or not all(isinstance(n, str) and n for n in raw_node) or raw_node[0] == raw_node[1]:
            problems.add(f"{where}.node", f"a dual-homed host is on two switches [a, b], got {raw_node!r}")
            raw_node = None
        else:
            raw_node, peer = raw_node
    node = _text(raw_node, f"{where}.node", problems)
    ports: list[str] = []
    items = split_list(data.get("ports"))
    for item in items if isinstance(items, list) else []:
        try:
            ports.append(check_port_item(str(item)))
        except ValueError as exc:
            problems.add(f"{where}.ports", str(exc))
    if not isinstance(items, list) or not items:
        got = data.get("ports")
        problems.add(f"{where}.ports", f"needs a port, a list or a range like Ethernet0-Ethernet28, got {got!r}")
    values = {k: parse_value(k, data.get(k), where, problems) for k in ("speed", "mac", "ip", "gateway", "cable")}
    if names is None or node is None:
        return None
    return HostGroupSpec(names, node, ports, where, values, peer)


def _int(value: object, default: int, lo: int, hi: int, where: str, problems: Problems) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        problems.add(where, f"{value!r} is not an integer in {lo}..{hi}")
        return default
    return value


def _mclag(index: int, raw: object, problems: Problems) -> McLagSpec | None:
    where = f"topology.mclag[{index}]"
    data = _mapping(raw, where, problems)
    if data is None:
        return None
    _keys(data, MCLAG_KEYS, where, problems)
    peers = _list(data.get("peers"), f"{where}.peers", problems)
    if len(peers) != 2 or not all(isinstance(p, str) and p for p in peers) or peers[0] == peers[1]:
        problems.add(f"{where}.peers", f"an MC-LAG pair is two switches [a, b], got {data.get('peers')!r}")
        return None
    link = None if data.get("peer_link") is None else [str(p) for p in _list(data.get("peer_link"),
                                                                               f"{where}.peer_link", problems)]
    keepalive = _int(data.get("keepalive"), 1, 1, 60, f"{where}.keepalive", problems)
    timeout = _int(data.get("session_timeout"), 3, 3, 3600, f"{where}.session_timeout", problems)
    if timeout < 3 * keepalive:
        problems.add(f"{where}.session_timeout", f"{timeout} must be >= 3 x keepalive ({keepalive} s)")
    return McLagSpec(_int(data.get("domain"), 1, 1, 4095, f"{where}.domain", problems), list(peers), link,
                     keepalive, timeout, where)


def parse_specs(data: Mapping[str, Any], base_dir: Path, problems: Problems) -> Specs:
    """The file's nodes, links and host groups as written, with every structural problem recorded."""
    specs = Specs()
    _keys(data, TOP_KEYS, "<top>", problems)
    specs.name = _text(data.get("name"), "name", problems) or ""
    if specs.name and not NAME.match(specs.name):
        problems.add("name", f"{specs.name!r}: a lab name holds letters, digits, _ . - and starts with a letter")
    raw = _mapping(data.get("topology"), "topology", problems)
    if raw is None:
        return specs
    _keys(raw, TOPOLOGY_KEYS, "topology", problems)
    defaults = _defaults(raw, problems)
    nodes = _mapping(raw.get("nodes"), "topology.nodes", problems) or {}
    specs.nodes = [n for name, body in nodes.items() if (n := _node(name, body, defaults, base_dir, problems))]
    links = _list(raw.get("links"), "topology.links", problems)
    specs.links = [s for i, body in enumerate(links) if (s := _link(i, body, problems))]
    groups = _list(raw.get("hosts"), "topology.hosts", problems)
    specs.groups = [g for i, body in enumerate(groups) if (g := _host_group(i, body, problems))]
    pairs = _list(raw.get("mclag"), "topology.mclag", problems)
    specs.mclag = [m for i, body in enumerate(pairs) if (m := _mclag(i, body, problems))]
    if not any(n.is_switch for n in specs.nodes):
        problems.add("topology.nodes", "a lab needs at least one switch node")
    return specs
