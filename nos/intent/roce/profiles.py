"""RoCE profiles as data: what each field of ``ROCE|global`` defaults to, plus the parts of a profile a
row cannot override (the map entries for other DSCPs and traffic classes).

* ``nvidia``: Cumulus Linux's ``nv set qos roce`` defaults (reference ecosystem.md 2.3,
  model-defaults.md 2.3/2.4): RoCE DSCP 26 -> priority 3, lossless; CNP DSCP 48 -> TC 6, strict; ETS
  DWRR 50/50 between RoCE and the rest; ECN 150,000 B to 1,500,000 B at 100 %; PFC watchdog 200 ms /
  200 ms, drop. Every other DSCP goes to TC 0.
* ``sonic``: SONiC's own AZURE defaults (``qos_config.j2``; ecosystem.md 2.5): DSCP 3 and 4 lossless on
  priorities 3 and 4, 5 -> 2, 8 -> 0, 46 -> 5, 48 -> 6, the rest -> 1; TC 7 -> PG 7; DWRR 15 for the
  lossless queues and 14 for the others; WRED/ECN 1 MiB to 2 MiB at 5 %. One change, stated: the CNP
  traffic class (6) is strict, where SONiC schedules it DWRR 14 like the lossy queues, because the
  lossless check asks that CNPs be prioritised.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class Profile:
    """A profile's defaults for every ``ROCE|global`` field, and its fixed map entries."""

    name: str
    roce_dscp: tuple[int, ...]
    roce_priority: tuple[int, ...]
    cnp_dscp: int
    cnp_tc: int
    ecn_min: int
    ecn_max: int
    ecn_probability: int
    roce_weight: int
    lossy_weight: int
    dscp_default_tc: int = 0
    dscp_to_tc: Mapping[int, int] = field(default_factory=dict)  # other DSCPs (RoCE and CNP come on top)
    tc_to_pg: Mapping[int, int] = field(default_factory=dict)  # other TCs (the lossless ones map to themselves)
    mode: str = "lossless"
    pfcwd: bool = True
    pfcwd_detection_ms: int = 200
    pfcwd_restoration_ms: int = 200
    pfcwd_action: str = "drop"


NVIDIA = Profile(
    name="nvidia", roce_dscp=(26,), roce_priority=(3,), cnp_dscp=48, cnp_tc=6,
    ecn_min=150000, ecn_max=1500000, ecn_probability=100, roce_weight=50, lossy_weight=50,
)
SONIC = Profile(
    name="sonic", roce_dscp=(3, 4), roce_priority=(3, 4), cnp_dscp=48, cnp_tc=6,
    ecn_min=1048576, ecn_max=2097152, ecn_probability=5, roce_weight=15, lossy_weight=14,
    dscp_default_tc=1, dscp_to_tc=MappingProxyType({5: 2, 8: 0, 46: 5}), tc_to_pg=MappingProxyType({7: 7}),
)
PROFILES: Mapping[str, Profile] = MappingProxyType({p.name: p for p in (NVIDIA, SONIC)})
DEFAULT_PROFILE = NVIDIA.name
