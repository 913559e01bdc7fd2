"""In-process events between orchs (SONiC's Subject/Observer): a publisher does not know its observers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class OperChanged:
    """An interface (port or LAG) went oper up or down."""

    name: str
    up: bool


@dataclass(frozen=True)
class MtuChanged:
    """An interface's MTU changed (its router interface follows)."""

    name: str
    mtu: int


@dataclass(frozen=True)
class NextHopChanged:
    """A next hop (ip@ifname, in a VRF) appeared (oid set) or went away (oid empty)."""

    vrf: str
    ip: str
    ifname: str
    oid: str


@dataclass(frozen=True)
class PfcAsymChanged:
    """A port's asymmetric PFC mode changed (PORT ``pfc_asym``): ``separate`` is SAI's SEPARATE mode."""

    name: str
    separate: bool


@dataclass(frozen=True)
class PfcEnableChanged:
    """A port's PORT_QOS_MAP ``pfc_enable`` / ``pfcwd_sw_enable`` bitmasks changed (QosOrch; the
    PFC watchdog watches the lossless priorities)."""

    name: str
    pfc_enable: int
    pfcwd_sw_enable: int


@dataclass
class EventBus:
    observers: dict[type, list[Callable[[Any], None]]] = field(default_factory=lambda: defaultdict(list))

    def subscribe(self, event_type: type, callback: Callable[[Any], None]) -> None:
        self.observers[event_type].append(callback)

    def publish(self, event: object) -> None:
        for callback in self.observers.get(type(event), ()):
            callback(event)
