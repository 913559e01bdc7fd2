"""``python -m iccpd --redis URL``: the MC-LAG control plane (iccpd + mclagsyncd) of one switch.

``NOS_ICCP_HOSTS`` may name a JSON file {address: management address} (see the package docstring);
``NOS_ICCP_PORT`` overrides the ICCP TCP port (8888), for tests that run pairs side by side."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

from iccpd.daemon import Iccpd
from iccpd.protocol import ICCP_TCP_PORT
from nos.daemon.main import daemon_main
from nos.daemon.runner import Runner
from nos.db.connector import Databases

NAME = "iccpd"
log = logging.getLogger(__name__)


def hosts_map() -> dict[str, str]:
    path = os.environ.get("NOS_ICCP_HOSTS")
    if not path:
        return {}
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        log.error("iccpd.bad_hosts_file path=%s error=%s (addresses are used as they are)", path, exc)
        return {}
    return {str(k): str(v) for k, v in doc.items()} if isinstance(doc, dict) else {}


def build(dbs: Databases, runner: Runner) -> None:
    Iccpd(dbs, hosts_map(), int(os.environ.get("NOS_ICCP_PORT", ICCP_TCP_PORT))).register(runner)


if __name__ == "__main__":
    sys.exit(daemon_main(NAME, build))
