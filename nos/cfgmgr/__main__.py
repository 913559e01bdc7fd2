"""``python -m nos.cfgmgr --redis URL``: the config-manager daemon (cfgmgrd)."""

from __future__ import annotations

import sys

from nos.cfgmgr.port import PortMgr
from nos.daemon.main import daemon_main
from nos.daemon.runner import Runner
from nos.db.connector import Databases

NAME = "cfgmgrd"


def build(dbs: Databases, runner: Runner) -> None:
    ports = PortMgr(dbs)
    ports.boot()
    ports.register(dbs, runner)


if __name__ == "__main__":
    sys.exit(daemon_main(NAME, build))
