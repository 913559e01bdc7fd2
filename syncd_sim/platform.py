"""What the simulated ASIC can do, read from the SKU's ``asic.json`` (SKUs are data).

A switch whose hwsku is not a known SKU gets generic capabilities (100G lanes, 8 queues and PGs).
``speeds`` (optional) lists the port speeds the ASIC offers; a port supports those its lanes can carry.
The virtual-switch SKU lists 100M and 1G too: SONiC's vs tests set them (test_port_an, test_port).
``lane_names``: the port name each lane starts (``syncd_sim.links.names_by_first_lane`` over the SKU's
platform.json cages), empty without a SKU.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from nos.platform.sku import INTERFACES, Sku, UnknownSku, load_sku
from syncd_sim.links import names_by_first_lane

STANDARD_SPEEDS = (1000, 10000, 25000, 40000, 50000, 100000, 200000, 400000, 800000)


@dataclass(frozen=True)
class Platform:
    name: str
    lane_speed_mbps: int = 100000
    queues_per_port: int = 8
    priority_groups_per_port: int = 8
    mmu_size_bytes: int = 0
    max_headroom_size: int = 0
    ecmp_groups: int = 1024
    max_forwarding_classes: int = 64
    speeds: tuple[int, ...] = STANDARD_SPEEDS
    lane_names: Mapping[int, str] = field(default_factory=dict, hash=False, compare=False)

    def supported_speeds(self, lanes: int) -> list[int]:
        """Speeds a port on ``lanes`` lanes can run at (at most lanes x the lane speed)."""
        return [s for s in self.speeds if s <= lanes * self.lane_speed_mbps]


def load_platform(hwsku: str | None) -> Platform:
    try:
        sku = load_sku(hwsku or "")
    except UnknownSku:
        return Platform(name=hwsku or "generic")
    asic = sku.asic
    return Platform(
        name=sku.name,
        lane_speed_mbps=int(asic.get("lane_speed_mbps", 100000)),
        queues_per_port=int(asic.get("queues_per_port", 8)),
        priority_groups_per_port=int(asic.get("priority_groups_per_port", 8)),
        mmu_size_bytes=int(asic.get("mmu_size_bytes", 0)),
        max_headroom_size=int(asic.get("max_headroom_size", 0)),
        ecmp_groups=int(asic.get("ecmp_groups", 1024)),
        max_forwarding_classes=int(asic.get("max_forwarding_classes", 64)),
        speeds=tuple(sorted(int(s) for s in asic.get("speeds", STANDARD_SPEEDS))),
        lane_names=names_by_first_lane(_cage_lanes(sku)),
    )


def _cage_lanes(sku: Sku) -> dict[str, list[int]]:
    cages: dict[str, dict[str, str]] = sku.platform_json.get(INTERFACES, {})
    return {name: [int(x) for x in cage.get("lanes", "").split(",") if x.strip().isdigit()]
            for name, cage in cages.items()}
