"""How ``nvidia_lossless_128x400G.json`` was written: NVIDIA's RoCE defaults as a SONiC operator writes
them by hand for the 128 x 400G SKU, in SONiC's own tables (independent of ``nos.intent``; run
``python tests/data/roce/write_nvidia_lossless.py`` to rewrite the file).

The fragment goes on top of the SKU's default config_db.json: its per-port tables (PORT_QOS_MAP, QUEUE,
BUFFER_PG, BUFFER_QUEUE, PFC_WD, CABLE_LENGTH) replace the SKU's tables of those names, as the operator
rewrote those sections of the file; its other tables add rows beside SONiC's AZURE ones.
"""

from __future__ import annotations

import json
from pathlib import Path

PORTS = [f"Ethernet{4 * i}" for i in range(128)]
LOSSLESS_PG_PROFILE = "pg_lossless_400000_5m_profile"  # buffermgrd's name for 400G over 5 m cables


def fragment() -> dict[str, dict[str, dict[str, str]]]:
    dscp = {str(d): "0" for d in range(64)}
    dscp.update({"26": "3", "48": "6"})  # RoCE -> priority 3 (lossless), CNP -> TC 6
    tc_to_pg = {str(tc): "0" for tc in range(8)}
    tc_to_pg["3"] = "3"
    identity = {str(tc): str(tc) for tc in range(8)}
    wred = {"ecn": "ecn_all"}
    for color in ("green", "yellow", "red"):
        wred.update({f"wred_{color}_enable": "true", f"{color}_min_threshold": "150000",
                     f"{color}_max_threshold": "1500000", f"{color}_drop_probability": "100"})
    config: dict[str, dict[str, dict[str, str]]] = {
        "DSCP_TO_TC_MAP": {"ROCE": dscp},
        "TC_TO_QUEUE_MAP": {"ROCE": dict(identity)},
        "TC_TO_PRIORITY_GROUP_MAP": {"ROCE": tc_to_pg},
        "MAP_PFC_PRIORITY_TO_QUEUE": {"ROCE": dict(identity)},
        "SCHEDULER": {"roce.roce": {"type": "DWRR", "weight": "50"},
                      "roce.default": {"type": "DWRR", "weight": "50"},
                      "roce.cnp": {"type": "STRICT"}},
        "WRED_PROFILE": {"ROCE": wred},
        # pg_profile_lookup.ini: 400000 5m 18796 0 612140 0 3556; ingress_lossless_pool is dynamic
        "BUFFER_PROFILE": {LOSSLESS_PG_PROFILE: {"pool": "ingress_lossless_pool", "size": "18796", "xon": "0",
                                                 "xoff": "612140", "dynamic_th": "0", "xon_offset": "3556"}},
        "CABLE_LENGTH": {"AZURE": {port: "5m" for port in PORTS}},
        "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "ROCE"}},
        "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}},
        "QUEUE": {}, "BUFFER_PG": {}, "BUFFER_QUEUE": {},
    }
    for port in PORTS:
        config["PORT_QOS_MAP"][port] = {"dscp_to_tc_map": "ROCE", "tc_to_queue_map": "ROCE", "tc_to_pg_map": "ROCE",
                                        "pfc_to_queue_map": "ROCE", "pfc_enable": "3", "pfcwd_sw_enable": "3"}
        for queue in range(7):
            row = {"scheduler": "roce.default"}
            if queue == 3:
                row = {"scheduler": "roce.roce", "wred_profile": "ROCE"}
            elif queue == 6:
                row = {"scheduler": "roce.cnp"}
            config["QUEUE"][f"{port}|{queue}"] = row
        config["BUFFER_PG"][f"{port}|0"] = {"profile": "ingress_lossy_profile"}
        config["BUFFER_PG"][f"{port}|3"] = {"profile": LOSSLESS_PG_PROFILE}
        config["BUFFER_QUEUE"][f"{port}|0-2"] = {"profile": "egress_lossy_profile"}
        config["BUFFER_QUEUE"][f"{port}|3"] = {"profile": "egress_lossless_profile"}
        config["BUFFER_QUEUE"][f"{port}|4-6"] = {"profile": "egress_lossy_profile"}
        config["PFC_WD"][port] = {"action": "drop", "detection_time": "200", "restoration_time": "200"}
    return config


def dump(config: dict[str, dict[str, dict[str, str]]]) -> str:
    """config_db.json, one row per line."""
    tables = []
    for table, rows in sorted(config.items()):
        lines = [f"        {json.dumps(key)}: {json.dumps(row, sort_keys=True)}" for key, row in sorted(rows.items())]
        tables.append(f"    {json.dumps(table)}: {{\n" + ",\n".join(lines) + "\n    }")
    return "{\n" + ",\n".join(tables) + "\n}\n"


if __name__ == "__main__":
    Path(__file__).with_name("nvidia_lossless_128x400G.json").write_text(dump(fragment()))
