"""SONiC breakout modes: parse the mode grammar and expand a parent port into its child ports.

Pure: no files, no Redis. The rules follow SONiC's ``portconfig.py`` ``BreakoutCfg`` (reference
sonic-internals.md 5.3):

* A mode is one or more groups joined by ``+``; a group is ``<n>x<speed>[<alt,...>](<lanes>)``, e.g.
  ``4x100G``, ``1x400G[200G,100G]``, ``2x25G(2)+1x50G(2)``. Speeds are in G (the ``G`` may be left out,
  as SONiC's regex allows); ``(<lanes>)`` is how many of the parent's lanes the group uses, all of
  them when absent.
* Inside a group the lanes are divided evenly. The i-th child is named ``Ethernet<base + lane offset>``
  (base = the parent's number), takes its alias from the mode's alias list in order, its index from
  its first lane, the group's default speed, subport 0 when the mode has one port else 1..n, and RS
  FEC when its speed per lane is at least 50G.

Two mode strings are the same mode when they parse to the same groups (SONiC compares the parsed
entries, so the order of alternate speeds does not matter).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PORT_PREFIX = "Ethernet"
RS_FEC = "rs"
RS_FEC_MIN_LANE_SPEED = 50_000  # Mb/s per lane from which a child gets RS FEC automatically

_SPEED = r"\d{1,6}G?"
_GROUP_RE = re.compile(rf"(\d{{1,6}})x({_SPEED})(?:\[({_SPEED}(?:,{_SPEED})*)\])?(?:\((\d{{1,6}})\))?")
_PORT_RE = re.compile(rf"{PORT_PREFIX}(\d+)")


class InvalidBreakoutMode(ValueError):
    """Raised when a breakout mode does not parse, does not fit the parent's lanes, is not offered by the
    platform for that port, or its alias list does not have one alias per child port."""


@dataclass(frozen=True)
class BreakoutGroup:
    """One ``<n>x<speed>[<alt>](<lanes>)`` group of a mode. Speeds are in Mb/s."""

    num_ports: int
    default_speed: int
    speeds: frozenset[int]  # the default speed and the alternates
    num_lanes: int | None  # lanes given to this group; None = all of the parent's lanes


@dataclass(frozen=True)
class BreakoutMode:
    """A parsed breakout mode: its groups in order."""

    groups: tuple[BreakoutGroup, ...]

    @property
    def num_ports(self) -> int:
        return sum(g.num_ports for g in self.groups)


@dataclass(frozen=True)
class ChildPort:
    """One port that a parent becomes under a breakout mode."""

    name: str
    lanes: tuple[int, ...]
    alias: str
    index: int
    speed: int  # Mb/s
    subport: int  # 0 when the mode has a single port, else 1..n
    fec: str | None  # "rs" when speed per lane >= 50G, else None (left to the platform)


@dataclass(frozen=True)
class _Slot:
    """Where one child sits in the parent's lane list, before names and aliases are known."""

    offset: int
    num_lanes: int
    speed: int


def _speed_to_mbps(text: str) -> int:
    return int(text.removesuffix("G")) * 1000


def _parse_group(text: str, mode: str) -> BreakoutGroup:
    match = _GROUP_RE.fullmatch(text)
    if match is None:
        raise InvalidBreakoutMode(f"breakout mode {mode!r}: cannot parse group {text!r}")
    count, speed, alternates, lanes = match.groups()
    default_speed = _speed_to_mbps(speed)
    speeds = {default_speed}
    if alternates:
        speeds.update(_speed_to_mbps(s) for s in alternates.split(","))
    group = BreakoutGroup(int(count), default_speed, frozenset(speeds), int(lanes) if lanes else None)
    if group.num_ports == 0 or 0 in group.speeds or group.num_lanes == 0:
        raise InvalidBreakoutMode(f"breakout mode {mode!r}: zero ports, speed or lanes in {text!r}")
    return group


def parse_mode(mode: str) -> BreakoutMode:
    """Parse a mode string such as ``2x25G(2)+1x50G(2)``; raises InvalidBreakoutMode."""
    if not mode:
        raise InvalidBreakoutMode("empty breakout mode")
    return BreakoutMode(tuple(_parse_group(part, mode) for part in mode.split("+")))


def _as_mode(mode: str | BreakoutMode) -> BreakoutMode:
    return mode if isinstance(mode, BreakoutMode) else parse_mode(mode)


def mode_speeds(mode: str | BreakoutMode) -> tuple[frozenset[int], ...]:
    """The speeds (Mb/s) each group of the mode allows: its default speed and its alternates."""
    return tuple(g.speeds for g in _as_mode(mode).groups)


def same_mode(a: str | BreakoutMode, b: str | BreakoutMode) -> bool:
    """Whether two modes are the same once parsed (SONiC's comparison)."""
    return _as_mode(a) == _as_mode(b)


def match_mode(mode: str, offered: Iterable[str]) -> str:
    """The offered mode string that is the same mode as ``mode``; raises InvalidBreakoutMode if none."""
    wanted = parse_mode(mode)
    for candidate in offered:
        if parse_mode(candidate) == wanted:
            return candidate
    raise InvalidBreakoutMode(f"breakout mode {mode!r} is not offered for this port")


def port_number(name: str) -> int:
    """The number N of a port named ``EthernetN``; raises ValueError for other names."""
    match = _PORT_RE.fullmatch(name)
    if match is None:
        raise ValueError(f"not a front-panel port name: {name!r}")
    return int(match.group(1))


def _slots(mode: BreakoutMode, parent_lanes: int, text: str) -> list[_Slot]:
    used = sum(g.num_lanes or parent_lanes for g in mode.groups)
    if used > parent_lanes:
        raise InvalidBreakoutMode(f"breakout mode {text!r} needs {used} lanes, the port has {parent_lanes}")
    slots: list[_Slot] = []
    offset = 0
    for group in mode.groups:
        lanes = group.num_lanes or parent_lanes
        if lanes % group.num_ports:
            raise InvalidBreakoutMode(
                f"breakout mode {text!r}: {lanes} lanes do not split {group.num_ports} ways"
            )
        per_port = lanes // group.num_ports
        for _ in range(group.num_ports):
            slots.append(_Slot(offset, per_port, group.default_speed))
            offset += per_port
    return slots


def child_names(parent: str, num_lanes: int, mode: str) -> list[str]:
    """The names of the children ``mode`` makes of a parent with ``num_lanes`` lanes, in order."""
    base = port_number(parent)
    return [f"{PORT_PREFIX}{base + s.offset}" for s in _slots(parse_mode(mode), num_lanes, mode)]


def expand(
    parent: str, lanes: Sequence[int], index: Sequence[int], mode: str, aliases: Sequence[str]
) -> list[ChildPort]:
    """The child ports of ``parent`` (lanes and per-lane front-panel index) under ``mode``.

    ``aliases`` is the mode's alias list from platform.json, one per child. Raises
    InvalidBreakoutMode when the mode does not parse or fit, ValueError when the parent data is
    inconsistent (bad name, index list not one entry per lane).
    """
    if len(index) != len(lanes):
        raise ValueError(f"{parent}: {len(index)} index entries for {len(lanes)} lanes")
    parsed = parse_mode(mode)
    slots = _slots(parsed, len(lanes), mode)
    if len(aliases) != len(slots):
        raise InvalidBreakoutMode(
            f"breakout mode {mode!r} makes {len(slots)} ports, got {len(aliases)} aliases"
        )
    base = port_number(parent)
    single = len(slots) == 1
    children: list[ChildPort] = []
    for position, (slot, alias) in enumerate(zip(slots, aliases, strict=True)):
        per_lane = slot.speed // slot.num_lanes
        children.append(
            ChildPort(
                name=f"{PORT_PREFIX}{base + slot.offset}",
                lanes=tuple(lanes[slot.offset : slot.offset + slot.num_lanes]),
                alias=alias,
                index=index[slot.offset],
                speed=slot.speed,
                subport=0 if single else position + 1,
                fec=RS_FEC if per_lane >= RS_FEC_MIN_LANE_SPEED else None,
            )
        )
    return children
