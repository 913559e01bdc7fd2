"""``python -m orchagent --redis URL``."""

from __future__ import annotations

import sys

from nos.daemon.main import daemon_main
from nos.daemon.runner import Runner
from nos.db.connector import Databases
from orchagent.main import NAME, build


def _build(dbs: Databases, runner: Runner) -> None:
    build(dbs, runner)


if __name__ == "__main__":
    sys.exit(daemon_main(NAME, _build))
