"""What orchagent knows of MC-LAG (MlagOrch's ``m_isl_name`` and ``m_mlagIntfs``), shared through
``OrchDeps``: the peer link and the MCLAG interfaces of CONFIG_DB. FdbOrch asks it whether a port is an
MCLAG interface (its MACs are not flushed when it goes oper down: the peer still reaches them)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class MlagState:
    peer_link: str = ""                                   # MCLAG_DOMAIN peer_link ("" = none)
    interfaces: set[str] = field(default_factory=set)     # MCLAG_INTERFACE <domain>|<name> names

    def is_mclag_interface(self, name: str) -> bool:
        return name in self.interfaces
