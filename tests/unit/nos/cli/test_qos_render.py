"""``show qos interface`` and ``show ecn`` rendering from plain rows."""

from __future__ import annotations

from nos.cli.show.ecn import ecn_text
from nos.cli.show.qos import port_qos, qos_text
from nos.cli.show.render import Snapshot

SNAP = Snapshot({
    ("CONFIG_DB", "PORT_QOS_MAP"): {"Ethernet0,Ethernet4": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}},
    ("CONFIG_DB", "QUEUE"): {"Ethernet0|0-2": {"scheduler": "scheduler.0"},
                             "Ethernet0|3": {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}},
})


def test_rows_keyed_by_several_ports_and_queue_ranges_count_for_each():
    found = port_qos(SNAP)
    assert list(found) == ["Ethernet0", "Ethernet4"]
    assert found["Ethernet4"] == {"port_qos_map": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}, "queues": {}}
    assert found["Ethernet0"]["queues"] == {
        "0": {"scheduler": "scheduler.0", "wred_profile": "N/A"},
        "1": {"scheduler": "scheduler.0", "wred_profile": "N/A"},
        "2": {"scheduler": "scheduler.0", "wred_profile": "N/A"},
        "3": {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}}


def test_interface_block_lists_maps_then_queues():
    text = qos_text(port_qos(SNAP, "Ethernet0"))
    lines = text.splitlines()
    assert lines[0] == "Interface: Ethernet0"
    assert any(line.split() == ["dscp_to_tc_map", "AZURE"] for line in lines)
    assert any(line.split() == ["Queue", "Scheduler", "WRED", "profile"] for line in lines)
    assert any(line.split() == ["3", "scheduler.1", "AZURE_LOSSLESS"] for line in lines)


def test_ecn_prints_each_profile_as_ecnconfig_does():
    text = ecn_text({"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "1048576"}})
    assert text.splitlines() == ["Profile: AZURE_LOSSLESS", "-------------------  -------",
                                 "ecn                  ecn_all", "green_min_threshold  1048576",
                                 "-------------------  -------"]
