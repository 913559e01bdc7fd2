"""``nos lab status``: a lab's state, each switch's own status (``nos.runtime.status``) and its links.

A lab is ``ready`` when its supervisor runs, said ``ready``, and every switch's own status is ready;
each link shows the carrier both ends were told and their ports' oper status (STATE_DB
``NOS_LINK_TABLE`` and APPL_DB ``PORT_TABLE``); a switch of an MC-LAG pair shows its session (STATE_DB
``MCLAG_TABLE``: ``up active``, ``down standby``, ...).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from redis import RedisError

from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.db.table import Table
from nos.lab.labdir import LabDir
from nos.lab.links import LINK_TABLE, link_id
from nos.lab.model import Endpoint
from nos.lab.topology import TopologyError, load_topology
from nos.runtime.rundir import RunDir
from nos.runtime.status import collect_status

ENDPOINT_NAMES = ("rest", "gnmi", "redis_tcp")


def _port_view(dbs: Databases, port: str) -> dict[str, str]:
    link = Table(dbs["STATE_DB"], LINK_TABLE).get(port) or {}
    row = Table(dbs["APPL_DB"], "PORT_TABLE").get(port) or {}
    return {"carrier": link.get("carrier", "?"), "oper": row.get("oper_status", "?")}


def _mclag(endpoints: dict[str, Any]) -> str:
    """``<oper_status> <role>`` of the switch's MC-LAG session, "" when it has none (or cannot be read)."""
    url = endpoints.get("redis")
    if not url:
        return ""
    dbs = Databases(url)
    try:
        rows = Table(dbs["STATE_DB"], "MCLAG_TABLE").get_all()
    except (DbError, RedisError, OSError):
        return ""
    finally:
        dbs.close()
    return " ".join(f"{r.get('oper_status', '?')} {r.get('role', '?')}" for _, r in sorted(rows.items()))


def _ends(nodes: dict[str, dict[str, Any]], end: Endpoint) -> dict[str, str]:
    url = nodes.get(end.node, {}).get("endpoints", {}).get("redis")
    if not url:
        return {"carrier": "?", "oper": "?"}
    dbs = Databases(url)
    try:
        return _port_view(dbs, end.port)
    except (DbError, RedisError, OSError):
        return {"carrier": "?", "oper": "?"}
    finally:
        dbs.close()


def lab_status(lab: LabDir) -> dict[str, Any]:
    state = lab.state() or {}
    pid = lab.supervisor_pid()
    nodes: dict[str, dict[str, Any]] = dict(state.get("nodes") or {})
    with ThreadPoolExecutor(max_workers=max(1, min(8, len(nodes)))) as pool:
        statuses = dict(zip(nodes, pool.map(lambda n: collect_status(RunDir.resolve(nodes[n]["run_dir"])), nodes),
                            strict=True))
    rows = []
    for name, info in nodes.items():
        own = statuses[name]
        endpoints = (own.get("endpoints") or info.get("endpoints") or {}) if own["state"] != "down" else {}
        rows.append({"node": name, "role": info.get("role", ""), "state": own["state"], "ready": own["ready"],
                     "restarts": info.get("restarts", 0), "mclag": _mclag(endpoints),
                     "run_dir": info["run_dir"], **{k: endpoints.get(k, "") for k in ENDPOINT_NAMES}})
    lab_state = state.get("state", "down") if pid is not None else ("failed" if state.get("state") == "failed"
                                                                      else "down")
    ready = pid is not None and lab_state == "ready" and all(r["ready"] for r in rows)
    return {"name": lab.name, "state": lab_state, "ready": ready, "pid": pid, "topology": state.get("topology"),
            "error": state.get("error"), "boot_seconds": state.get("boot_seconds"), "nodes": rows,
            "links": _links(state, nodes, lab) if pid is not None else []}


def _links(state: dict[str, Any], nodes: dict[str, dict[str, Any]], lab: LabDir) -> list[dict[str, Any]]:
    try:
        topo = load_topology(lab_topology(state))
    except (TopologyError, OSError):
        return []
    cuts = lab.cuts()
    out = []
    for link in topo.links:
        a, b = _ends(nodes, link.a), _ends(nodes, link.b)
        out.append({"link": link_id(link), "a": str(link.a), "b": str(link.b), "cut": link_id(link) in cuts,
                    "a_carrier": a["carrier"], "a_oper": a["oper"], "b_carrier": b["carrier"], "b_oper": b["oper"]})
    return out


def lab_topology(state: dict[str, Any]) -> Path:
    """The topology file a lab was started from (from its ``lab.json``)."""
    return Path(str(state.get("topology", "")))
