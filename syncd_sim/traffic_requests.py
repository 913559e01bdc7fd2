"""The light half of the fast path's request handling (no numpy): request ids, queued jobs, cable lengths.

syncd imports this at start; the model, compiler and forwarding (numpy) load on the first compile or job.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_CABLE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*m?\s*$")


class JobError(Exception):
    """Raised when a request cannot be run: bad scenario, bad packet, nothing to run on."""


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
