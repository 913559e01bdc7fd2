"""``python -m syncd_sim --redis URL``: the simulated ASIC's syncd."""

from __future__ import annotations

import sys

from nos.daemon.main import daemon_main
from nos.daemon.progress import Progress
from nos.daemon.runner import Runner
from nos.db.connector import Databases
from syncd_sim.syncd import Syncd

NAME = "syncd"


def build(dbs: Databases, runner: Runner) -> None:
    Progress(dbs, runner, NAME)  # what syncd reads of CONFIG_DB itself (counters, cables, the SKU)
    Syncd(dbs).register(runner)


if __name__ == "__main__":
    sys.exit(daemon_main(NAME, build))
