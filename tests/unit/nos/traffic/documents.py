"""A hand-made traffic result document in the layout of ``fastpath.report.to_json``
(tests/unit/fastpath/test_report.py checks that the real one has the same keys)."""

from __future__ import annotations

from typing import Any


def sample_document(*, pauses: bool = True, allreduce: bool = True) -> dict[str, Any]:
    workloads: list[dict[str, Any]] = [{
        "name": "incast", "kind": "incast", "flows": 4, "finished": 4, "unroutable": 0,
        "class": {"dscp": 26, "tc": 3, "queue": 3, "pg": 3, "lossless": True},
        "bytes": 4_000_000, "delivered_bytes": 4_000_000, "dropped_bytes": 0, "retransmitted_bytes": 0,
        "ecn_marked_pkts": 12, "fct_s": {"p50": 40e-6, "p99": 81e-6, "max": 82e-6, "mean": 50e-6},
        "first_start_s": 0.0, "last_finish_s": 82e-6, "goodput_bps": 390e9}]
    if allreduce:
        workloads.append({
            "name": "ring", "kind": "allreduce", "flows": 36, "finished": 36, "unroutable": 0,
            "class": {"dscp": 26, "tc": 1, "queue": 1, "pg": 0, "lossless": False},
            "bytes": 9_000_000, "delivered_bytes": 9_000_000, "dropped_bytes": 1000, "retransmitted_bytes": 1000,
            "ecn_marked_pkts": 0, "fct_s": {"p50": 5e-6, "p99": 9e-6, "max": 9.5e-6, "mean": 5.5e-6},
            "first_start_s": 50e-6, "last_finish_s": 400e-6, "goodput_bps": 200e9,
            "allreduce": {"gpus": 4, "iterations": 2, "compute_s": 50e-6, "message_bytes": 1_000_000,
                          "iteration_s": [120e-6, 118e-6], "wait_s": [70e-6, 68e-6], "gpu_wait_share": 0.5812}})
    pfc = {"3": {"tx_frames": 40, "rx_frames": 0, "tx_pause_s": 30e-6, "rx_pause_s": 0.0}} if pauses else {}
    return {
        "version": 1,
        "scenario": {"name": "sample", "description": "", "duration_s": 0.001, "seed": 0, "forwarding": "attachment",
                     "hosts": 5, "workloads": [w["name"] for w in workloads]},
        "summary": {"sim_time_s": 400e-6, "wall_s": 0.05, "steps": 100, "flows": 4, "finished": 4, "unroutable": 0,
                    "bytes": 4_000_000, "delivered_bytes": 4_000_000, "dropped_bytes": 0, "retransmitted_bytes": 0,
                    "drop_pkts": 3, "ecn_marked_pkts": 12, "pfc_tx_frames": 40 if pauses else 0, "pfc_rx_frames": 0,
                    "pause_tx_s": 30e-6 if pauses else 0.0, "pause_rx_s": 0.0,
                    "max_queue": {"port": "Ethernet0", "queue": 3, "bytes": 700_000}, "last_finish_s": 400e-6},
        "workloads": workloads,
        "ports": {
            "Ethernet0": {"rx_bytes": 0, "tx_bytes": 4_100_000, "rx_pkts": 0, "tx_pkts": 980, "pfc": {},
                          "queues": {"3": {"tx_bytes": 4_100_000, "tx_pkts": 980, "drop_pkts": 3, "drop_bytes": 12_540,
                                           "ecn_marked_pkts": 12, "max_bytes": 700_000}},
                          "pgs": {}},
            "Ethernet4": {"rx_bytes": 1_025_000, "tx_bytes": 0, "rx_pkts": 245, "tx_pkts": 0, "pfc": pfc,
                          "queues": {}, "pgs": {"3": {"rx_bytes": 1_025_000, "rx_pkts": 245, "max_shared": 200_000,
                                                      "max_headroom": 20_000, "drop_pkts": 0}}},
        },
        "pools": {"ingress_lossless_pool": {"size_bytes": 165_660_324, "max_bytes": 800_000, "ingress": True}},
        "watchdog": [{"time_s": 0.2, "port": "Ethernet0", "queue": 3, "event": "storm"}],
        "warnings": ["ring: 2 flows did not finish within the scenario's duration (0.001 s)"],
        "series": {"t_s": [0.0, 1e-5, 2e-5], "queue_bytes_total": [0.0, 5e5, 7e5],
                   "queue_bytes": [{"port": "Ethernet0", "queue": 3, "values": [0.0, 5e5, 7e5]}],
                   "tx_bps": [{"port": "Ethernet0", "values": [0.0, 3.9e11, 3.9e11]}],
                   "pause": [{"port": "Ethernet4", "priority": 3, "values": [0.0, 0.5, 1.0]}] if pauses else []},
    }
