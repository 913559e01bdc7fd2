"""The interface registry: every port, LAG, VLAN and loopback orchagent knows (SONiC's ``Port``
objects in PortsOrch), shared by the orchs that create them and the orchs that use them.

An orch that makes an object refer to an interface takes a reference (``ref``) and gives it back
(``unref``); removing an interface that is still referenced waits (NEED_RETRY), as in SONiC.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field


class Kind(enum.Enum):
    PORT = "port"
    LAG = "lag"
    VLAN = "vlan"
    LOOPBACK = "loopback"
    SUBPORT = "subport"


@dataclass
class Interface:
    name: str
    kind: Kind
    oid: str = ""                 # port / LAG / VLAN object id
    admin_up: bool = False
    oper_up: bool = False
    mtu: int = 9100
    speed: int = 0
    bridge_port: str = ""         # bridge port oid while it is in a VLAN
    lag: str = ""                 # the LAG a port belongs to
    vlans: dict[int, str] = field(default_factory=dict)   # vlan id -> tagging mode
    pvid: int = 0
    rif: str = ""                 # router interface oid when routed
    vrf: str = ""                 # the VRF name of its router interface
    hostif: str = ""              # the port's host interface (netdev)
    pfc_asym: bool = False        # asymmetric PFC (SAI PRIORITY_FLOW_CONTROL_MODE SEPARATE)
    learn_mode: str = ""          # SAI FDB learning mode of its bridge port ("" = hardware, the default)


@dataclass
class Registry:
    interfaces: dict[str, Interface] = field(default_factory=dict)
    refs: Counter[str] = field(default_factory=Counter)
    by_oid: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> Interface | None:
        return self.interfaces.get(name)

    def add(self, entry: Interface) -> Interface:
        self.interfaces[entry.name] = entry
        if entry.oid:
            self.by_oid[entry.oid] = entry.name
        return entry

    def remove(self, name: str) -> None:
        entry = self.interfaces.pop(name, None)
        if entry is not None:
            self.by_oid.pop(entry.oid, None)
        self.refs.pop(name, None)

    def name_of(self, oid: str) -> str | None:
        return self.by_oid.get(oid)

    def ref(self, name: str) -> None:
        self.refs[name] += 1

    def unref(self, name: str) -> None:
        self.refs[name] -= 1
        if self.refs[name] <= 0:
            del self.refs[name]

    def in_use(self, name: str) -> int:
        return self.refs.get(name, 0)

    def of_kind(self, kind: Kind) -> list[Interface]:
        return [i for i in self.interfaces.values() if i.kind is kind]
