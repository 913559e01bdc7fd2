"""Prometheus rendering from plain data: sonic-exporter's names and labels, our PFC/ECN/PG/PFCWD
families, samples only for fields that exist, and text that prometheus_client parses back."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from nos.api.metrics import BufferData, PortData, Snapshot, exposition, families, natural_key

PORT_COUNTERS = {
    "SAI_PORT_STAT_IF_IN_OCTETS": "1000", "SAI_PORT_STAT_IF_OUT_OCTETS": "2000",
    "SAI_PORT_STAT_IF_IN_UCAST_PKTS": "10", "SAI_PORT_STAT_IF_IN_BROADCAST_PKTS": "1",
    "SAI_PORT_STAT_IF_IN_MULTICAST_PKTS": "2", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS": "20",
    "SAI_PORT_STAT_IF_IN_ERRORS": "3", "SAI_PORT_STAT_IF_IN_DISCARDS": "4", "SAI_PORT_STAT_IN_DROPPED_PKTS": "5",
    "SAI_PORT_STAT_PAUSE_RX_PKTS": "6", "SAI_PORT_STAT_ETHER_IN_PKTS_64_OCTETS": "7",
    "SAI_PORT_STAT_ETHER_OUT_PKTS_9217_TO_16383_OCTETS": "8",
    "SAI_PORT_STAT_PFC_3_RX_PKTS": "42", "SAI_PORT_STAT_PFC_3_TX_PKTS": "43",
    "SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US": "1500", "SAI_PORT_STAT_IF_OUT_ERRORS": "not a number",
}
CONFIG = {"admin_status": "up", "mtu": "9100", "speed": "400000", "alias": "etp1", "index": "1",
          "description": "to spine"}


def snapshot() -> Snapshot:
    port = PortData("Ethernet0", PORT_COUNTERS, CONFIG, {"netdev_oper_status": "up"})
    down = PortData("Ethernet4", {}, {"admin_status": "down"}, {})
    queue = BufferData("Ethernet0", "3", {
        "SAI_QUEUE_STAT_PACKETS": "100", "SAI_QUEUE_STAT_BYTES": "6400", "SAI_QUEUE_STAT_DROPPED_PACKETS": "1",
        "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "9", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "0",
        "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "2", "PFC_WD_STATUS": "operational",
    }, {"user": {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "4096"}, "persistent": {}, "periodic": {}})
    pg = BufferData("Ethernet0", "3", {"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS": "0"}, {
        "periodic": {"SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES": "512",
                     "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES": "1024"}})
    return Snapshot((port, down), (queue,), (pg,))


def lines(text: bytes) -> set[str]:
    return {line for line in text.decode().splitlines() if not line.startswith("#")}


def test_interface_metrics_use_sonic_exporter_names_and_labels():
    got = lines(exposition(families(snapshot())))
    for line in (
        'sonic_interface_receive_bytes_total{device="Ethernet0"} 1000.0',
        'sonic_interface_transmit_bytes_total{device="Ethernet0"} 2000.0',
        'sonic_interface_receive_packets_total{device="Ethernet0",method="ucast"} 10.0',
        'sonic_interface_receive_packets_total{device="Ethernet0",method="broadcast"} 1.0',
        'sonic_interface_receive_packets_total{device="Ethernet0",method="multicast"} 2.0',
        'sonic_interface_transmit_packets_total{device="Ethernet0",method="ucast"} 20.0',
        'sonic_interface_receive_errs_total{device="Ethernet0",type="error"} 3.0',
        'sonic_interface_receive_errs_total{device="Ethernet0",type="discard"} 4.0',
        'sonic_interface_receive_errs_total{device="Ethernet0",type="drop"} 5.0',
        'sonic_interface_receive_errs_total{device="Ethernet0",type="pause"} 6.0',
        'sonic_interface_receive_ethernet_packets_total{device="Ethernet0",size="64"} 7.0',
        'sonic_interface_transmit_ethernet_packets_total{device="Ethernet0",size="16383"} 8.0',
        'sonic_interface_admin_status{device="Ethernet0"} 1.0',
        'sonic_interface_operational_status{device="Ethernet0"} 1.0',
        'sonic_interface_mtu_bytes{device="Ethernet0"} 9100.0',
        'sonic_interface_speed_bytes{device="Ethernet0"} 5e+10',  # 400G = 50 GB/s
        'sonic_interface_info{alias="etp1",description="to spine",device="Ethernet0",index="1"} 1.0',
        'sonic_interface_admin_status{device="Ethernet4"} 0.0',
        'sonic_interface_operational_status{device="Ethernet4"} 0.0',
    ):
        assert line in got, line
    # a field that is missing, or not a number, gives no sample (no made-up zeros)
    assert not any('type="error"' in g and "transmit_errs" in g for g in got)
    assert not any(g.startswith("sonic_interface_receive_bytes_total") and "Ethernet4" in g for g in got)


def test_pfc_queue_pg_and_watchdog_families():
    got = lines(exposition(families(snapshot())))
    for line in (
        'sonic_pfc_rx_pause_frames_total{device="Ethernet0",priority="3"} 42.0',
        'sonic_pfc_tx_pause_frames_total{device="Ethernet0",priority="3"} 43.0',
        'sonic_pfc_pause_duration_us_total{device="Ethernet0",direction="rx",priority="3"} 1500.0',
        'sonic_queue_packets_total{device="Ethernet0",queue="3"} 100.0',
        'sonic_queue_bytes_total{device="Ethernet0",queue="3"} 6400.0',
        'sonic_queue_dropped_packets_total{device="Ethernet0",queue="3"} 1.0',
        'sonic_queue_shared_watermark_bytes_total{device="Ethernet0",queue="3"} 0.0',
        'sonic_queue_ecn_marked_packets_total{device="Ethernet0",queue="3"} 9.0',
        'sonic_queue_watermark_bytes_total{device="Ethernet0",queue="3",type="user",watermark="shared"} 4096.0',
        'sonic_pfcwd_storms_detected_total{device="Ethernet0",queue="3"} 2.0',
        'sonic_pg_watermark_bytes{device="Ethernet0",pg="3",type="headroom"} 512.0',
        'sonic_pg_watermark_bytes{device="Ethernet0",pg="3",type="shared"} 1024.0',
        'sonic_pg_dropped_packets_total{device="Ethernet0",pg="3"} 0.0',
    ):
        assert line in got, line
    names = {f.name for f in families(snapshot())}
    assert "sonic_queue_wred_dropped_packets" not in names      # no field, no family
    assert "sonic_pfcwd_storms_restored" not in names
    assert not any("priority=\"2\"" in g for g in got)           # only priority 3 has PFC fields


def test_the_text_parses_with_types_and_help():
    parsed = {f.name: f for f in text_string_to_metric_families(exposition(families(snapshot())).decode())}
    assert parsed["sonic_interface_receive_bytes"].type == "counter"
    assert parsed["sonic_pg_watermark_bytes"].type == "gauge"
    assert parsed["sonic_interface_info"].samples[0].labels["alias"] == "etp1"
    assert parsed["sonic_pfc_pause_duration_us"].samples[0].value == 1500.0


def test_an_empty_switch_renders_nothing():
    assert exposition(families(Snapshot())) == b""


def test_names_sort_naturally():
    assert sorted(["Ethernet12", "Ethernet4", "Ethernet0:10", "Ethernet0:9"], key=natural_key) == [
        "Ethernet0:9", "Ethernet0:10", "Ethernet4", "Ethernet12"]
