"""The expansion on plain data: the rows of every profile and mode, refusals, idempotence."""

from __future__ import annotations

import pytest

from nos.config.transaction import plan_changes
from nos.intent.roce import IntentError, plan
from nos.intent.roce.expand import ranges
from tests.unit.nos.intent.roce.conftest import with_intent

PORTS = [f"Ethernet{4 * i}" for i in range(128)]


def port_rows(config, table, port):
    return {k: v for k, v in config.get(table, {}).items() if k.split("|")[0] == port}


def test_ranges_are_keyed_as_sonic_keys_them() -> None:
    assert ranges([3]) == ["3"] and ranges([4, 3]) == ["3-4"] and ranges([0, 1, 2, 4, 5, 6]) == ["0-2", "4-6"]


def test_nvidia_lossless_rows_for_every_port(default, facts) -> None:
    target = plan(with_intent(default), facts)
    assert target["DSCP_TO_TC_MAP"]["ROCE"] == {**{str(d): "0" for d in range(64)}, "26": "3", "48": "6"}
    assert target["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"] == {**{str(t): "0" for t in range(8)}, "3": "3"}
    assert target["TC_TO_QUEUE_MAP"]["ROCE"] == target["MAP_PFC_PRIORITY_TO_QUEUE"]["ROCE"] == \
        {str(t): str(t) for t in range(8)}
    assert target["SCHEDULER"]["roce.roce"] == {"type": "DWRR", "weight": "50"}
    assert target["SCHEDULER"]["roce.default"] == {"type": "DWRR", "weight": "50"}
    assert target["SCHEDULER"]["roce.cnp"] == {"type": "STRICT"}
    wred = target["WRED_PROFILE"]["ROCE"]
    assert wred["ecn"] == "ecn_all" and wred["green_min_threshold"] == "150000"
    assert wred["green_max_threshold"] == "1500000" and wred["green_drop_probability"] == "100"
    assert target["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"] == {
        "pool": "ingress_lossless_pool", "xon": "0", "xoff": "612140", "size": "18796", "dynamic_th": "0",
        "xon_offset": "3556"}
    assert target["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "ROCE"}
    assert target["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "200"}
    for port in PORTS:
        assert target["PORT_QOS_MAP"][port] == {
            "dscp_to_tc_map": "ROCE", "tc_to_queue_map": "ROCE", "tc_to_pg_map": "ROCE", "pfc_to_queue_map": "ROCE",
            "pfc_enable": "3", "pfcwd_sw_enable": "3"}
        assert port_rows(target, "BUFFER_PG", port) == {
            f"{port}|0": {"profile": "ingress_lossy_profile"},
            f"{port}|3": {"profile": "pg_lossless_400000_5m_profile"}}
        assert port_rows(target, "BUFFER_QUEUE", port) == {
            f"{port}|0-2": {"profile": "egress_lossy_profile"}, f"{port}|3": {"profile": "egress_lossless_profile"},
            f"{port}|4-6": {"profile": "egress_lossy_profile"}}
        queues = port_rows(target, "QUEUE", port)
        assert queues[f"{port}|3"] == {"scheduler": "roce.roce", "wred_profile": "ROCE"}
        assert queues[f"{port}|6"] == {"scheduler": "roce.cnp"}
        assert {queues[f"{port}|{q}"]["scheduler"] for q in (0, 1, 2, 4, 5)} == {"roce.default"} and len(queues) == 7
        assert target["PFC_WD"][port] == {"action": "drop", "detection_time": "200", "restoration_time": "200"}
        assert target["CABLE_LENGTH"]["AZURE"][port] == "5m"
    assert "AZURE" in target["DSCP_TO_TC_MAP"] and target["WRED_PROFILE"]["AZURE_LOSSLESS"]  # SONiC's stay


def test_sonic_profile_reproduces_sonics_maps_and_two_lossless_pgs(default, facts) -> None:
    target = plan(with_intent(default, profile="sonic"), facts)
    assert target["DSCP_TO_TC_MAP"]["ROCE"] == default["DSCP_TO_TC_MAP"]["AZURE"]
    assert target["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"] == default["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"]
    assert target["WRED_PROFILE"]["ROCE"] == default["WRED_PROFILE"]["AZURE_LOSSLESS"]
    assert target["BUFFER_PG"]["Ethernet0|3-4"] == {"profile": "pg_lossless_400000_5m_profile"}
    assert port_rows(target, "BUFFER_QUEUE", "Ethernet0") == port_rows(default, "BUFFER_QUEUE", "Ethernet0")
    assert target["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3,4"
    assert target["QUEUE"]["Ethernet0|6"] == {"scheduler": "roce.cnp"}  # the one stated change


def test_lossy_mode_is_ecn_without_pfc(default, facts) -> None:
    target = plan(with_intent(default, mode="lossy"), facts)
    qos = target["PORT_QOS_MAP"]["Ethernet0"]
    assert "pfc_enable" not in qos and "pfcwd_sw_enable" not in qos
    assert port_rows(target, "BUFFER_PG", "Ethernet0") == {"Ethernet0|0": {"profile": "ingress_lossy_profile"}}
    assert port_rows(target, "BUFFER_QUEUE", "Ethernet0") == {"Ethernet0|0-6": {"profile": "egress_lossy_profile"}}
    assert target["QUEUE"]["Ethernet0|3"]["wred_profile"] == "ROCE"
    assert "PFC_WD" not in target and target["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"]["3"] == "0"


def test_options_shape_the_rows(default, facts) -> None:
    target = plan(with_intent(default, roce_dscp="24,26", roce_priority="2,3", cnp_dscp="46", cnp_tc="7",
                              cable_length="40m", pfcwd="off", ecn_min="1000", ecn_max="2000"), facts)
    assert target["DSCP_TO_TC_MAP"]["ROCE"]["24"] == "2" and target["DSCP_TO_TC_MAP"]["ROCE"]["46"] == "7"
    assert target["BUFFER_PG"]["Ethernet0|2-3"] == {"profile": "pg_lossless_400000_40m_profile"}
    assert target["CABLE_LENGTH"]["AZURE"]["Ethernet508"] == "40m"
    assert target["QUEUE"]["Ethernet0|7"] == {"scheduler": "roce.cnp"}
    assert "pfcwd_sw_enable" not in target["PORT_QOS_MAP"]["Ethernet0"] and "PFC_WD" not in target


def test_a_port_list_covers_only_those_ports_and_splits_shared_keys(default, facts) -> None:
    default["QUEUE"]["Ethernet0,Ethernet4|7"] = {"scheduler": "scheduler.0"}
    target = plan(with_intent(default, ports="Ethernet0"), facts)
    assert target["PORT_QOS_MAP"]["Ethernet0"]["dscp_to_tc_map"] == "ROCE"
    assert target["PORT_QOS_MAP"]["Ethernet4"] == default["PORT_QOS_MAP"]["Ethernet4"]
    assert target["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "AZURE"}  # the switch's map stays
    assert target["QUEUE"]["Ethernet4|7"] == {"scheduler": "scheduler.0"}
    assert "Ethernet0,Ethernet4|7" not in target["QUEUE"]
    assert target["CABLE_LENGTH"]["AZURE"]["Ethernet4"] == "5m"


@pytest.mark.parametrize(("fields", "field", "reason"), [
    ({"cable_length": "7m"}, "cable_length", "lengths offered: 5m, 40m, 150m, 300m"),
    ({"ports": "Ethernet1"}, "ports", "no such port: Ethernet1"),
])
def test_what_the_switch_cannot_do_is_refused(default, facts, fields, field, reason) -> None:
    with pytest.raises(IntentError) as caught:
        plan(with_intent(default, **fields), facts)
    (error,) = caught.value.errors
    assert (error.table, error.key, error.field) == ("ROCE", "global", field) and reason in error.reason


def test_a_port_without_speed_is_refused_in_lossless_mode(default, facts) -> None:
    del default["PORT"]["Ethernet8"]["speed"]
    with pytest.raises(IntentError, match="PORT|Ethernet8 has no speed"):
        plan(with_intent(default), facts)


def test_expansion_is_idempotent(default, facts) -> None:
    once = plan(with_intent(default), facts)
    assert plan_changes(once, plan(once, facts)) == []
