"""``config pfcwd`` edits and ``show pfcwd`` tables, on plain data."""

from __future__ import annotations

import pytest

from nos.cli.edits import pfcwd as edit
from nos.cli.edits.common import Refused
from nos.cli.show import pfcwd as show
from nos.cli.show.counters_db import Counters
from nos.cli.show.render import Snapshot


def config():
    return {"PORT": {"Ethernet0": {}, "Ethernet4": {}},
            "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}},
            "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}}}


def test_start_writes_ports_with_pfc_and_warns_about_the_others():
    warnings: list[str] = []
    out = edit.start(config(), ("all",), 400, "forward", None, warnings)
    assert out["PFC_WD"]["Ethernet0"] == {"detection_time": "400", "restoration_time": "800", "action": "forward"}
    assert "Ethernet4" not in out["PFC_WD"] and warnings == ["SKIPPED: PFC is not enabled on port: Ethernet4"]
    with pytest.raises(Refused, match="invalid options"):
        edit.start(config(), ("Ethernet99",), 400)


def test_stop_and_interval():
    cfg = edit.start(config(), ("Ethernet0",), 300, restoration_ms=300)
    assert "Ethernet0" not in edit.stop(cfg, ())["PFC_WD"]
    cfg = edit.start(config(), ("Ethernet0",), 300, restoration_ms=300)
    assert edit.interval(cfg, 250)["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] == "250"
    with pytest.raises(Refused, match="detection time"):
        edit.interval(cfg, 400)


def counters():
    stats = {"oid:0x1": {"PFC_WD_STATUS": "stormed", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "1",
                         "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS": "7"},
             "oid:0x2": {"SAI_QUEUE_STAT_PACKETS": "3"}}
    snap = Snapshot({("CONFIG_DB", "PFC_WD"): {"Ethernet0": {"action": "drop", "detection_time": "200"},
                                               "GLOBAL": {"POLL_INTERVAL": "200"}}})
    return Counters({"COUNTERS_QUEUE_NAME_MAP": {"Ethernet0:3": "oid:0x1", "Ethernet0:10": "oid:0x2"},
                     "COUNTERS_PORT_NAME_MAP": {"Ethernet0": "oid:0x9", "Ethernet4": "oid:0xa"}},
                    {"COUNTERS": stats}, snap)


def test_stats_show_queues_with_watchdog_counters_unless_empty_is_asked():
    c = counters()
    assert show.stats_rows(c) == [["Ethernet0:3", "stormed", "1/0", "0/7", "0/0", "0/0", "0/0"]]
    assert [r[0] for r in show.stats_rows(c, empty=True)] == ["Ethernet0:3", "Ethernet0:10"]
    assert show.stats_rows(c, empty=True)[1][1] == "N/A"


def test_config_shows_ports_with_a_row_and_the_global_lines():
    c = counters()
    assert show.config_rows(c) == [["Ethernet0", "drop", "200", "infinite", "disable"]]
    assert show.config_preamble(c) == ["Changed polling interval to 200ms"]
    assert show.config_json(c) == {"global": {"POLL_INTERVAL": "200"}, "ports": {
        "Ethernet0": {"ACTION": "drop", "DETECTION TIME": "200", "RESTORATION TIME": "infinite"}}}
