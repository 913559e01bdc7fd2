"""/metrics against real Redis: orchagent (PortOrch) and syncd_sim's counter writer fill COUNTERS_DB,
values come in through the counter-set hook, and the exposition has the exact lines."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from nos.api.metrics import CONTENT_TYPE, render
from nos.db import NotificationProducer, Table
from orchagent.orchs.port import PortOrch
from tests.conftest import wait_until
from tests.integration.orchagent.conftest import boot_ports, orchagent  # noqa: F401 - fixture
from tests.integration.orchagent.test_counters import syncd  # noqa: F401 - fixture: syncd_sim with its writer

pytestmark = pytest.mark.integration

GROUPS = ("PORT", "PORT_BUFFER_DROP", "QUEUE", "QUEUE_WATERMARK", "PG_WATERMARK", "PG_DROP", "WRED_ECN_QUEUE", "PFCWD")


def test_metrics_show_what_the_counter_writer_published(orchagent, dbs, raw):  # noqa: F811
    agent = orchagent(PortOrch)
    boot_ports(agent, dbs, 2)
    config = Table(dbs["CONFIG_DB"], "PORT")
    config.set("Ethernet0", {"admin_status": "up", "mtu": "9100", "speed": "400000", "alias": "etp1", "index": "1"})
    config.set("Ethernet4", {"admin_status": "down", "mtu": "1500", "speed": "100000", "alias": "etp2", "index": "2"})
    for group in GROUPS:
        Table(dbs["CONFIG_DB"], "FLEX_COUNTER_TABLE").set(group, {"FLEX_COUNTER_STATUS": "enable",
                                                                 "POLL_INTERVAL": "100"})
    send = NotificationProducer(dbs["COUNTERS_DB"], "NOS_COUNTER_SET_REQUEST").send
    send("set", "Ethernet0", {"SAI_PORT_STAT_IF_IN_OCTETS": "1000", "SAI_PORT_STAT_IF_IN_UCAST_PKTS": "10",
                              "SAI_PORT_STAT_PFC_3_RX_PKTS": "7", "SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US": "250",
                              "SAI_PORT_STAT_IN_DROPPED_PKTS": "4"})
    send("set", "Ethernet0:3", {"SAI_QUEUE_STAT_PACKETS": "5", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "2",
                                "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "4096",
                                "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES": "512"})
    counters = raw(2)
    queue = counters.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet0:3")
    pg = counters.hget("COUNTERS_PG_NAME_MAP", "Ethernet0:3")
    port = counters.hget("COUNTERS_PORT_NAME_MAP", "Ethernet0")
    wait_until(lambda: counters.hget(f"PERSISTENT_WATERMARKS:{pg}",
                                     "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES") == "512")
    wait_until(lambda: counters.hget(f"USER_WATERMARKS:{queue}", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES") == "4096")
    wait_until(lambda: counters.hget(f"COUNTERS:{queue}", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS") == "2")
    wait_until(lambda: counters.hget(f"COUNTERS:{port}", "SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US") == "250")
    wait_until(lambda: counters.hget(f"COUNTERS:{port}", "SAI_PORT_STAT_IN_DROPPED_PKTS") == "4")
    agent.drive(lambda: raw(6).hget("PORT_TABLE|Ethernet0", "netdev_oper_status") == "up")  # oper up via orchagent

    text = render(dbs).decode()
    lines = set(text.splitlines())
    for line in (
        'sonic_interface_receive_bytes_total{device="Ethernet0"} 1000.0',
        'sonic_interface_receive_bytes_total{device="Ethernet4"} 0.0',
        'sonic_interface_receive_packets_total{device="Ethernet0",method="ucast"} 10.0',
        'sonic_interface_receive_errs_total{device="Ethernet0",type="drop"} 4.0',
        'sonic_interface_admin_status{device="Ethernet0"} 1.0',
        'sonic_interface_admin_status{device="Ethernet4"} 0.0',
        'sonic_interface_operational_status{device="Ethernet0"} 1.0',
        'sonic_interface_mtu_bytes{device="Ethernet4"} 1500.0',
        'sonic_interface_speed_bytes{device="Ethernet4"} 1.25e+10',
        'sonic_interface_info{alias="etp2",description="",device="Ethernet4",index="2"} 1.0',
        'sonic_pfc_rx_pause_frames_total{device="Ethernet0",priority="3"} 7.0',
        'sonic_pfc_rx_pause_frames_total{device="Ethernet4",priority="3"} 0.0',
        'sonic_pfc_pause_duration_us_total{device="Ethernet0",direction="rx",priority="3"} 250.0',
        'sonic_pfc_pause_duration_us_total{device="Ethernet0",direction="tx",priority="3"} 0.0',
        'sonic_queue_packets_total{device="Ethernet0",queue="3"} 5.0',
        'sonic_queue_packets_total{device="Ethernet4",queue="7"} 0.0',
        'sonic_queue_ecn_marked_packets_total{device="Ethernet0",queue="3"} 2.0',
        'sonic_queue_wred_dropped_packets_total{device="Ethernet0",queue="3"} 0.0',
        'sonic_queue_watermark_bytes_total{device="Ethernet0",queue="3",type="user",watermark="shared"} 4096.0',
        'sonic_queue_watermark_bytes_total{device="Ethernet0",queue="3",type="persistent",watermark="shared"} 4096.0',
        'sonic_pg_dropped_packets_total{device="Ethernet0",pg="3"} 0.0',
    ):
        assert line in lines, line
    # PERIODIC holds the peak until the telemetry timer (120 s) clears it
    assert 'sonic_pg_watermark_bytes{device="Ethernet0",pg="3",type="headroom"} 512.0' in lines
    assert CONTENT_TYPE == "text/plain; version=0.0.4; charset=utf-8"

    parsed = {f.name: f for f in text_string_to_metric_families(text)}
    assert len(parsed["sonic_queue_packets"].samples) == 2 * 8
    assert len(parsed["sonic_pg_watermark_bytes"].samples) == 2 * 8 * 2
    assert len(parsed["sonic_pfc_pause_duration_us"].samples) == 2 * 8 * 2
    assert "sonic_pfcwd_storms_detected" not in parsed  # no PFC watchdog fields yet
    assert parsed["sonic_scrape_duration_seconds"].samples[0].value > 0
