"""``config pfcwd start|stop|interval`` as edits of the config document (sonic-utilities pfcwd/main.py).

* ``start [--action drop|forward|alert] [--restoration-time ms] <ports|all> <detection ms>``: for each
  port (``all``: every port) that has a PORT_QOS_MAP ``pfc_enable``, ``PFC_WD|<port>`` is replaced by
  ``detection_time``, ``restoration_time`` (default twice the detection time) and ``action`` if given;
  ports without PFC are skipped with SONiC's warning, unknown ports refused ("invalid options").
* ``stop [ports]``: ``PFC_WD|<port>`` removed for the ports (default: every port).
* ``interval <ms>``: ``PFC_WD|GLOBAL`` ``POLL_INTERVAL``, refused when larger than a configured
  detection or restoration time (SONiC's message).
"""

from __future__ import annotations

from collections.abc import Sequence

from nos.cli.edits.common import Refused, rows, table
from nos.db.configdb import Config
from nos.schema import tables as tbl

GLOBAL = "GLOBAL"


def _ports(config: Config) -> list[str]:
    return list(rows(config, tbl.CFG_PORT_TABLE_NAME))


def start(config: Config, ports: Sequence[str], detection_ms: int, action: str | None = None,
          restoration_ms: int | None = None, warnings: list[str] | None = None) -> Config:
    all_ports = _ports(config)
    invalid = sorted(set(ports) - {"all"} - set(all_ports))
    if invalid:
        raise Refused("Failed to run command, invalid options:\n" + "\n".join(invalid))
    chosen = all_ports if not ports or "all" in ports else list(dict.fromkeys(ports))
    row = {"detection_time": str(detection_ms),
           "restoration_time": str(restoration_ms if restoration_ms is not None else 2 * detection_ms)}
    if action is not None:
        row["action"] = action
    qos = rows(config, tbl.CFG_PORT_QOS_MAP_TABLE_NAME)
    for port in chosen:
        if "pfc_enable" not in qos.get(port, {}):
            if warnings is not None:
                warnings.append(f"SKIPPED: PFC is not enabled on port: {port}")
            continue
        table(config, tbl.CFG_PFC_WD_TABLE_NAME)[port] = dict(row)
    return config


def stop(config: Config, ports: Sequence[str]) -> Config:
    wd = rows(config, tbl.CFG_PFC_WD_TABLE_NAME)
    for port in ports or _ports(config):
        wd.pop(port, None)
    return config


def interval(config: Config, poll_ms: int) -> Config:
    wd = rows(config, tbl.CFG_PFC_WD_TABLE_NAME)
    smallest, what = 3000, ""
    for key, row in wd.items():
        if not key.startswith("Ethernet"):
            continue
        for name, label in (("detection_time", "detection time"), ("restoration_time", "restoration time")):
            value = row.get(name)
            if isinstance(value, str) and value.isdigit() and int(value) < smallest:
                smallest, what = int(value), label
    if smallest < poll_ms:
        raise Refused(f"unable to use polling interval = {poll_ms}ms, value is bigger than one of the configured "
                      f"{what} values, please choose a smaller polling_interval")
    table(config, tbl.CFG_PFC_WD_TABLE_NAME).setdefault(GLOBAL, {})["POLL_INTERVAL"] = str(poll_ms)
    return config
