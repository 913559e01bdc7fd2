"""A traffic run's result document (``fastpath.report``) as rich tables on a console.

Tables: the workloads (class, flows done, drops, ECN marks), their flow completion times (p50, p99,
max) and goodput, AllReduce (iteration
times, GPU wait share), PFC pause per port and priority, queues (drops, marks, deepest point), buffer
pools, and the PFC watchdog's events; then the warnings. Sections with nothing to show are left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from nos.traffic.units import format_rate, format_size, format_time

MAX_QUEUE_ROWS = 20


def _t(value: float | None) -> str:
    return "-" if value is None else format_time(value)


def _rate(value: float | None) -> str:
    return "-" if value is None else format_rate(value)


def class_text(cls: Mapping[str, Any]) -> str:
    if cls.get("tc") is None:
        return f"DSCP {cls['dscp']}: no path"
    kind = "lossless" if cls.get("lossless") else "lossy"
    return f"DSCP {cls['dscp']}: TC{cls['tc']} Q{cls['queue']} PG{cls['pg']} {kind}"


def workloads_table(doc: Mapping[str, Any]) -> Table:
    table = Table(title="Workloads", title_justify="left")
    for header in ("Workload", "Class", "Flows done", "Dropped", "Resent", "ECN marked"):
        table.add_column(header, justify="left" if header in ("Workload", "Class") else "right")
    for w in doc["workloads"]:
        name = w["name"] if w["name"] == w["kind"] else f"{w['name']} ({w['kind']})"
        table.add_row(name, class_text(w["class"]), f"{w['finished']}/{w['flows']}", format_size(w["dropped_bytes"]),
                      format_size(w["retransmitted_bytes"]), str(w["ecn_marked_pkts"]))
    return table


def completion_table(doc: Mapping[str, Any]) -> Table:
    table = Table(title="Flow completion times and goodput (all flows of a workload together)", title_justify="left")
    for header in ("Workload", "FCT p50", "FCT p99", "FCT max", "Last done", "Goodput"):
        table.add_column(header, justify="left" if header == "Workload" else "right")
    for w in doc["workloads"]:
        fct = w["fct_s"]
        table.add_row(w["name"], _t(fct["p50"]), _t(fct["p99"]), _t(fct["max"]), _t(w["last_finish_s"]),
                      _rate(w["goodput_bps"]))
    return table


def allreduce_table(doc: Mapping[str, Any]) -> Table | None:
    rows = [w for w in doc["workloads"] if "allreduce" in w]
    if not rows:
        return None
    table = Table(title="AllReduce", title_justify="left")
    for header in ("Workload", "GPUs", "Message", "Compute", "Iteration times", "GPU wait share"):
        table.add_column(header, justify="left" if header in ("Workload", "Iteration times") else "right")
    for w in rows:
        ar = w["allreduce"]
        share = ar["gpu_wait_share"]
        table.add_row(w["name"], str(ar["gpus"]), format_size(ar["message_bytes"]), format_time(ar["compute_s"]),
                      ", ".join(_t(v) for v in ar["iteration_s"]), "-" if share is None else f"{share:.1%}")
    return table


def pause_table(doc: Mapping[str, Any]) -> Table | None:
    rows = [(port, prio, pfc) for port, p in doc["ports"].items() for prio, pfc in p["pfc"].items()]
    if not rows:
        return None
    table = Table(title="PFC pause (tx: the switch paused its peer; rx: the peer paused the switch)",
                  title_justify="left")
    for header in ("Port", "Priority", "Tx frames", "Tx pause", "Rx frames", "Rx pause"):
        table.add_column(header, justify="left" if header == "Port" else "right")
    for port, prio, pfc in rows:
        table.add_row(port, prio, str(pfc["tx_frames"]), format_time(pfc["tx_pause_s"]), str(pfc["rx_frames"]),
                      format_time(pfc["rx_pause_s"]))
    return table


def queue_rows(doc: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    rows = [(port, q, row) for port, p in doc["ports"].items() for q, row in p["queues"].items()
            if row["drop_pkts"] or row["ecn_marked_pkts"] or row["max_bytes"]]
    return sorted(rows, key=lambda r: (-r[2]["drop_pkts"], -r[2]["max_bytes"], r[0], r[1]))


def queue_table(doc: Mapping[str, Any]) -> tuple[Table | None, int]:
    rows = queue_rows(doc)
    if not rows:
        return None, 0
    table = Table(title="Queues (drops, ECN marks, deepest point)", title_justify="left")
    for header in ("Port", "Queue", "Tx", "Dropped pkts", "ECN marked", "Max depth"):
        table.add_column(header, justify="left" if header == "Port" else "right")
    for port, q, row in rows[:MAX_QUEUE_ROWS]:
        table.add_row(port, q, format_size(row["tx_bytes"]), str(row["drop_pkts"]), str(row["ecn_marked_pkts"]),
                      format_size(row["max_bytes"]))
    return table, max(len(rows) - MAX_QUEUE_ROWS, 0)


def pool_table(doc: Mapping[str, Any]) -> Table | None:
    if not doc.get("pools"):
        return None
    table = Table(title="Buffer pools", title_justify="left")
    for header in ("Pool", "Size", "Peak", "Peak %"):
        table.add_column(header, justify="left" if header == "Pool" else "right")
    for name, pool in doc["pools"].items():
        share = pool["max_bytes"] / pool["size_bytes"] if pool["size_bytes"] else 0.0
        table.add_row(name, format_size(pool["size_bytes"]), format_size(pool["max_bytes"]), f"{share:.2%}")
    return table


def watchdog_table(doc: Mapping[str, Any]) -> Table | None:
    if not doc.get("watchdog"):
        return None
    table = Table(title="PFC watchdog", title_justify="left")
    for header in ("Time", "Port", "Queue", "Event"):
        table.add_column(header)
    for event in doc["watchdog"]:
        table.add_row(format_time(event["time_s"]), event["port"], str(event["queue"]), event["event"])
    return table


def headline(doc: Mapping[str, Any]) -> str:
    s = doc["summary"]
    return (f"[bold]{escape(doc['scenario']['name'])}[/bold]: {s['finished']}/{s['flows']} flows finished, "
            f"{format_size(s['delivered_bytes'])} delivered in {format_time(s['sim_time_s'])} simulated "
            f"({s['wall_s']:.2f} s wall); drops {s['drop_pkts']} pkts, ECN marks {s['ecn_marked_pkts']}, "
            f"pause sent {format_time(s['pause_tx_s'])} in {s['pfc_tx_frames']} frames; deepest queue "
            f"{format_size(s['max_queue']['bytes'])}"
            + (f" ({s['max_queue']['port']} q{s['max_queue']['queue']})" if s["max_queue"]["port"] else ""))


def render(doc: Mapping[str, Any], console: Console | None = None) -> None:
    """Print the result document's tables."""
    out = console or Console()
    out.print(headline(doc))
    out.print(workloads_table(doc))
    out.print(completion_table(doc))
    for table in (allreduce_table(doc), pause_table(doc)):
        if table is not None:
            out.print(table)
    queues, more = queue_table(doc)
    if queues is not None:
        out.print(queues)
        if more:
            out.print(f"... and {more} more queues (--json shows them all)")
    for table in (pool_table(doc), watchdog_table(doc)):
        if table is not None:
            out.print(table)
    for warning in doc.get("warnings", []):
        out.print(f"[yellow]warning:[/yellow] {escape(warning)}")


__all__ = ["render"]
