"""What orchagent's init made and every orch may use: the switch context and the dependency bundle."""

from __future__ import annotations

from dataclasses import dataclass, field

from nos.db.connector import Databases
from orchagent.core.events import EventBus
from orchagent.core.l3 import L3State
from orchagent.core.mlag import MlagState
from orchagent.core.registry import Registry
from orchagent.sairedis import SaiRedis


@dataclass
class SwitchContext:
    """Ids of the switch's built-in objects and switch-wide settings."""

    switch_id: str
    cpu_port: str
    default_vr: str
    default_vlan: str
    default_bridge: str
    loopback_rif: str
    src_mac: str
    ordered_ecmp: bool = False
    ecmp_groups: int = 1024


@dataclass
class OrchDeps:
    """Injected into every orch's constructor (wired once, in orchagent.main)."""

    dbs: Databases
    sai: SaiRedis
    switch: SwitchContext
    registry: Registry = field(default_factory=Registry)
    bus: EventBus = field(default_factory=EventBus)
    l3: L3State = field(default_factory=L3State)
    mlag: MlagState = field(default_factory=MlagState)
