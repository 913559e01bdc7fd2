"""Will a lab fit this machine? A rough per-switch memory figure against available memory.

``SWITCH_BYTES`` was measured on this machine (2026-12-02): an idle ``NOS-SIM-128x400G`` switch
started with ``nos up`` (supervisor, Redis, redis guard, syncd_sim, orchagent, cfgmgrd, REST, gNMI)
had 457 MiB RSS summed over its eight processes (340 MiB USS: shared library pages counted once per
process in RSS). We charge the RSS figure, rounded up, since a switch with routes and a traffic run grows
(syncd_sim's compiled tables). ``LAB_BYTES`` is the lab supervisor and link watcher, a guess of one
Python process. A lab fits when its estimate leaves ``MARGIN`` of the available memory free.
"""

from __future__ import annotations

import psutil

from nos.lab.errors import LabTooBig
from nos.lab.model import Topology

MIB = 1024 ** 2
SWITCH_BYTES = 460 * MIB   # measured, see the module docstring
LAB_BYTES = 80 * MIB       # the lab's own supervisor process (estimate)
MARGIN = 0.2               # keep a fifth of the available memory free


def estimate_memory_bytes(topo: Topology) -> int:
    """Rough resident memory of the whole lab running: every switch plus the lab's own process."""
    return len(topo.switches()) * SWITCH_BYTES + LAB_BYTES


def check_fits(topo: Topology, available_bytes: int | None = None) -> None:
    """Raise ``LabTooBig`` (naming the figures) unless the lab fits in ``available_bytes`` (default:
    ``psutil.virtual_memory().available``) with the margin left free."""
    available = psutil.virtual_memory().available if available_bytes is None else available_bytes
    need = estimate_memory_bytes(topo)
    usable = int(available * (1 - MARGIN))
    if need > usable:
        switches = len(topo.switches())
        raise LabTooBig([
            f"topology: {switches} switches need about {need // MIB} MiB ({SWITCH_BYTES // MIB} MiB each), "
            f"but only {usable // MIB} MiB of the {available // MIB} MiB available may be used "
            f"({MARGIN:.0%} kept free); use fewer switches or `nos fabric run` (no daemons)"
        ], topo.name)
