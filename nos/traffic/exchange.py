"""A switch's compiled tables out, and a fabric run's counters in: the client side of syncd_sim's
``export`` and ``import`` traffic jobs (protocol in ``syncd_sim.fastpath_shell``).

A fabric run (``nos lab traffic run``) needs every switch's tables at one moment: ``export_tables``
waits until the configuration each switch accepted has reached its ASIC, then asks its syncd_sim for
its compiled tables; ``import_counters`` gives each switch its share of the run, which its syncd_sim
adds to its own counters as it does after a run of its own (then ``show``, REST, gNMI and /metrics
see it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from nos.db.connector import Databases
from nos.db.errors import map_redis_errors
from nos.schema.dbconfig import STATE_DB
from nos.traffic.client import applied_first, traffic_client
from nos.traffic.errors import JobFailed

KIND_EXPORT, KIND_IMPORT = "export", "import"


@dataclass(frozen=True)
class Exported:
    """One switch's compiled tables (``fastpath.tables.Tables``) and its cable lengths (port -> m)."""

    tables: Any
    cables: dict[str, float]
    version: str = ""      # syncd_sim's compile version of these tables
    at: float = 0.0        # (a ``now`` export) the epoch second of the store they were compiled from


def export_tables(dbs: Databases, *, timeout_s: float = 30.0, applied: bool = True,
                  since: Exported | None = None) -> Exported:
    """The switch's compiled tables once what it accepted is in its ASIC (``applied``), or as they are
    this moment (``applied=False``: a look at a data plane whose control plane is still reacting, ``at``
    the moment); ``since`` itself (``at`` now) when the switch's tables are still the version it holds
    (nothing sent)."""
    from fastpath.tables_codec import CodecError, decode

    if applied:
        applied_first(dbs)
    client = traffic_client(dbs)
    job_id = client.submit({"kind": KIND_EXPORT, "progress": "0", **({} if applied else {"now": "1"}),
                            **({"since": since.version} if since is not None and since.version else {})})
    fields = client.wait(job_id, timeout_s, poll_s=0.01)
    if since is not None and fields.get("unchanged") == "1":
        return replace(since, at=_at(fields))
    db = dbs[STATE_DB]
    raw = db.new_client(decode_responses=False)
    try:
        with map_redis_errors(f"get {fields.get('export')}"):
            data = raw.get(fields.get("export", ""))
            raw.delete(fields.get("export", ""))
    finally:
        raw.close()
    if not isinstance(data, bytes):
        raise JobFailed(f"export {job_id}: the tables are gone ({fields.get('export')!r} not found)")
    try:
        tables = decode(data)
        cables = {str(k): float(v) for k, v in json.loads(fields.get("cables", "{}")).items()}
    except (CodecError, ValueError, AttributeError) as exc:
        raise JobFailed(f"export {job_id}: {exc}") from None
    return Exported(tables, cables, fields.get("version", ""), _at(fields))


def _at(fields: dict[str, str]) -> float:
    try:
        return float(fields.get("at", "0") or 0)
    except ValueError:
        return 0.0


def import_counters(dbs: Databases, updates: Sequence[tuple[str, str, int, str]],
                    watchdog: Sequence[tuple[str, str]] = (), learned: Sequence[tuple[str, str, str]] = (), *,
                    timeout_s: float = 30.0) -> int:
    """Hand ``updates`` ``(oid, stat, value, mode)``, watchdog events and learnt MACs ``(bvid, mac, bridge
    port)`` to the switch (its syncd adds the MACs to its FDB and reports them, as a run of its own
    would); how many counter updates it applied."""
    client = traffic_client(dbs)
    job_id = client.submit({"kind": KIND_IMPORT, "progress": "0",
                            "updates": json.dumps([list(u) for u in updates]),
                            "watchdog": json.dumps([list(w) for w in watchdog]),
                            "learned": json.dumps([list(m) for m in learned])})
    return int(client.wait(job_id, timeout_s, poll_s=0.01).get("applied", "0"))
