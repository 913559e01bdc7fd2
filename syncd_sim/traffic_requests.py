"""The light half of the fast path's request handling (no numpy): request ids, queued jobs, cable lengths.

syncd imports this at start; the model, compiler and forwarding (numpy) load on the first compile or job.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_CABLE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*m?\s*$")


KIND_RUN, KIND_EXPORT, KIND_IMPORT = "run", "export", "import"   # NOS_TRAFFIC_JOB kind (default run)
MODES = ("add", "max")   # fastpath.run_counters: a counter added to, a watermark raised to


class JobError(Exception):
    """Raised when a request cannot be run: bad scenario, bad packet, nothing to run on."""


@dataclass(frozen=True)
class Imported:
    """An import job's counter updates ``[oid, stat, value, mode]``, watchdog events ``[queue, event]`` and
    MACs the run's frames taught the bridge ``[bvid, mac, bridge port]`` (a lab run's, for each switch)."""

    updates: list[list[Any]]
    watchdog: list[list[str]]
    learned: list[list[str]]


def parse_import(row: Mapping[str, str]) -> Imported:
    """The ``updates`` and ``watchdog`` of an import job, every row checked; JobError naming the first
    bad one (nothing of a bad import is applied)."""
    updates = _json_list(row, "updates")
    for i, item in enumerate(updates):
        ok = (isinstance(item, list) and len(item) == 4 and all(isinstance(x, str) for x in (item[0], item[1], item[3]))
              and isinstance(item[2], int) and not isinstance(item[2], bool) and item[2] >= 0 and item[3] in MODES)
        if not ok:
            raise JobError(f"updates[{i}]: {str(item)[:80]} is not [oid, stat, value >= 0, add|max]")
    watchdog = _json_list(row, "watchdog")
    for i, item in enumerate(watchdog):
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise JobError(f"watchdog[{i}]: {str(item)[:80]} is not [queue oid, event]")
    learned = _json_list(row, "learned")
    for i, item in enumerate(learned):
        if not (isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) and x for x in item)):
            raise JobError(f"learned[{i}]: {str(item)[:80]} is not [bvid, mac, bridge port]")
    return Imported(updates, watchdog, learned)


def _json_list(row: Mapping[str, str], name: str) -> list[Any]:
    text = row.get(name, "[]")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise JobError(f"{name}: not JSON ({exc})") from None
    if not isinstance(value, list):
        raise JobError(f"{name}: not a JSON list")
    return value


def job_id_of(data: str) -> str:
    """A request's job id: a bare id, or the data field of a swss-common notification ``[op, id, ...]``."""
    text = data.strip()
    if text.startswith("["):
        try:
            items = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
            return ""
        return str(items[1]) if isinstance(items, list) and len(items) > 1 else ""
    return text


def queued_jobs(table: Any) -> list[str]:
    """Ids of jobs still waiting (asked for while syncd was not running), oldest key first."""
    return sorted(key for key, row in table.get_all().items() if row.get("state") == "queued")  # one pipeline


def parse_cables(row: Mapping[str, str]) -> dict[str, float]:
    """CONFIG_DB ``CABLE_LENGTH|AZURE``: port -> metres (unparsable lengths are left out)."""
    out = {}
    for port, text in row.items():
        match = _CABLE.match(text)
        if match:
            out[port] = float(match.group(1))
    return out
