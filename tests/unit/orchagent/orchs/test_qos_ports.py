"""PORT_QOS_MAP and QUEUE rows: references, port attributes, PFC bitmasks, queue keys, parent groups."""

from __future__ import annotations

import pytest

from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.orchs import qos_ports
from orchagent.orchs.qos import queue_ops
from orchagent.orchs.qos_ports import InvalidQosRow
from orchagent.orchs.qos_state import PortTree, QosRefs, parents_of


def test_port_qos_row_names_maps_and_pfc_bitmasks():
    parsed = qos_ports.parse_port_qos("Ethernet0", {
        "dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "pfc_to_queue_map": "AZURE",
        "pfc_enable": "3,4", "pfcwd_sw_enable": "3", "unrelated": "x"})
    assert parsed.refs == {"dscp_to_tc_map": ("DSCP_TO_TC_MAP", "AZURE"),
                           "tc_to_queue_map": ("TC_TO_QUEUE_MAP", "AZURE"),
                           "pfc_to_queue_map": ("MAP_PFC_PRIORITY_TO_QUEUE", "AZURE")}
    assert (parsed.pfc_enable, parsed.pfcwd_sw_enable) == (0x18, 0x08)
    assert qos_ports.port_attr("Ethernet0", "tc_to_dscp_map") == "SAI_PORT_ATTR_QOS_TC_AND_COLOR_TO_DSCP_MAP"
    assert qos_ports.port_attr("Ethernet0", "scheduler") == "SAI_PORT_ATTR_QOS_SCHEDULER_PROFILE_ID"


def test_global_row_sets_the_switch_dscp_to_tc_map():
    parsed = qos_ports.parse_port_qos("global", {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE"})
    assert parsed.refs == {"dscp_to_tc_map": ("DSCP_TO_TC_MAP", "AZURE")}
    assert qos_ports.port_attr("global", "dscp_to_tc_map") == "SAI_SWITCH_ATTR_QOS_DSCP_TO_TC_MAP"


@pytest.mark.parametrize(("value", "mask"), [("", 0), ("3", 8), ("3,4", 24), ("0,7", 129)])
def test_pfc_enable_bitmask(value, mask):
    assert qos_ports.parse_priorities("pfc_enable", value) == mask


@pytest.mark.parametrize("value", ["8", "a", "3,-1"])
def test_bad_priorities_name_the_field(value):
    with pytest.raises(InvalidQosRow, match="field 'pfc_enable'"):
        qos_ports.parse_priorities("pfc_enable", value)


def test_pfc_bitmask_goes_to_tx_and_rx_opens_in_asymmetric_mode():
    assert qos_ports.pfc_attrs(24, False) == [("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL", "24")]
    assert qos_ports.asym_attrs(24, True) == [("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_TX", "24"),
                                              ("SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_RX", "255")]


@pytest.mark.parametrize(("key", "ports", "low", "high"), [
    ("Ethernet0|3", ("Ethernet0",), 3, 3), ("Ethernet0,Ethernet4|0-2", ("Ethernet0", "Ethernet4"), 0, 2)])
def test_queue_keys(key, ports, low, high):
    assert qos_ports.parse_queue_key(key) == qos_ports.QueueKey(ports, low, high)


@pytest.mark.parametrize("key", ["Ethernet0", "Ethernet0|a", "Ethernet0|4-2", "|3"])
def test_bad_queue_keys_are_refused(key):
    with pytest.raises(InvalidQosRow, match="key"):
        qos_ports.parse_queue_key(key)


def test_queue_scheduler_goes_on_the_parent_group_and_wred_on_the_queue():
    parents = parents_of(["q0", "q1"], {"root": ["g0", "g1"], "g0": ["q0"], "g1": ["q1"]})
    assert parents == ("g0", "g1")
    tree = PortTree("port", ("q0", "q1"), parents)
    assert queue_ops(tree, 1, 1, {"scheduler": "oid:s", "wred_profile": "oid:0x0"}) == [
        SaiOp.set(T.SCHEDULER_GROUP, "g1", "SAI_SCHEDULER_GROUP_ATTR_SCHEDULER_PROFILE_ID", "oid:s"),
        SaiOp.set(T.QUEUE, "q1", "SAI_QUEUE_ATTR_WRED_PROFILE_ID", "oid:0x0")]


def test_references_name_their_users():
    refs = QosRefs()
    refs.replace(("QUEUE", "Ethernet0|3"), {"scheduler": ("SCHEDULER", "s1"), "wred_profile": ("WRED_PROFILE", "w")})
    refs.replace(("QUEUE", "Ethernet4|3"), {"scheduler": ("SCHEDULER", "s1")})
    assert refs.users(("SCHEDULER", "s1")) == ["QUEUE|Ethernet0|3 scheduler", "QUEUE|Ethernet4|3 scheduler"]
    refs.replace(("QUEUE", "Ethernet0|3"), {})
    assert refs.users(("WRED_PROFILE", "w")) == []
