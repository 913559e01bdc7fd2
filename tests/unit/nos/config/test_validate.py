"""Whole-configuration validation: value types, references between tables, cross-row constraints."""

from __future__ import annotations

import copy
import re
import time

import pytest

from nos.config.errors import ConfigError, ConfigValidationError
from nos.config.validate import ValidationReport, validate_config
from nos.schema.config import Config


def base_config() -> Config:
    """A small valid configuration touching every feature family."""
    return {
        "DEVICE_METADATA": {
            "localhost": {"hostname": "sw1", "buffer_model": "traditional", "mac": "02:00:00:00:00:01"}
        },
        "PORT": {
            f"Ethernet{n}": {
                "lanes": ",".join(str(n + i) for i in range(4)),
                "speed": "400000",
                "mtu": "9100",
            }
            for n in (0, 4, 8, 12)
        },
        "PORTCHANNEL": {"PortChannel1": {"admin_status": "up", "mtu": "9100", "min_links": "1"}},
        "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet12": {}},
        "VLAN": {"Vlan100": {"vlanid": "100", "dhcp_servers": ["10.0.0.1"]}},
        "VLAN_MEMBER": {
            "Vlan100|Ethernet0": {"tagging_mode": "untagged"},
            "Vlan100|PortChannel1": {"tagging_mode": "tagged"},
        },
        "VLAN_INTERFACE": {
            "Vlan100": {},
            "Vlan100|192.168.0.1/24": {},
            "Vlan100|fc00::1/64": {"family": "IPv6"},
        },
        "INTERFACE": {"Ethernet8": {}, "Ethernet8|10.0.0.0/31": {"scope": "global", "family": "IPv4"}},
        "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}},
        "VRF": {"Vrf_red": {"vni": "1000"}},
        "STATIC_ROUTE": {"default|20.0.0.0/24": {"nexthop": "10.0.0.1", "distance": "1"}},
        "BUFFER_POOL": {
            "ingress_lossless_pool": {
                "type": "ingress",
                "mode": "dynamic",
                "size": "1000000",
                "xoff": "100000",
            },
            "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "1000000"},
        },
        "BUFFER_PROFILE": {
            "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"},
            "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "-2"},
        },
        "BUFFER_PG": {
            "Ethernet0|0": {"profile": "ingress_lossy_profile"},
            "Ethernet0|3-4": {"profile": "NULL"},
        },
        "BUFFER_QUEUE": {"Ethernet0,Ethernet4|0-2": {"profile": "egress_lossy_profile"}},
        "BUFFER_PORT_INGRESS_PROFILE_LIST": {"Ethernet0": {"profile_list": "ingress_lossy_profile"}},
        "CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m", "Ethernet4": "40m"}},
        "DSCP_TO_TC_MAP": {"AZURE": {"0": "1", "46": "5"}},
        "TC_TO_QUEUE_MAP": {"AZURE": {"1": "1", "5": "5"}},
        "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}},
        "WRED_PROFILE": {
            "AZURE_LOSSLESS": {
                "ecn": "ecn_all",
                "green_min_threshold": "1048576",
                "green_max_threshold": "2097152",
            }
        },
        "PORT_QOS_MAP": {
            "Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "pfc_enable": "3,4"},
            "global": {"dscp_to_tc_map": "AZURE"},
        },
        "QUEUE": {
            "Ethernet0|3": {"scheduler": "scheduler.0", "wred_profile": "AZURE_LOSSLESS"},
            "CPU|0-47": {},
        },
        "PFC_WD": {
            "GLOBAL": {"POLL_INTERVAL": "200"},
            "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"},
        },
        "VXLAN_TUNNEL": {"vtep1": {"src_ip": "10.1.0.1"}},
        "VXLAN_TUNNEL_MAP": {"vtep1|map_1000_Vlan100": {"vlan": "Vlan100", "vni": "1000"}},
        "VXLAN_EVPN_NVO": {"nvo1": {"source_vtep": "vtep1"}},
        "MCLAG_DOMAIN": {"1": {"source_ip": "10.0.0.1", "peer_ip": "10.0.0.2", "peer_link": "Ethernet4"}},
        "MCLAG_INTERFACE": {"1|PortChannel1": {"if_type": "PortChannel"}},
    }


def errors_of(config: Config, **kwargs: bool) -> list[str]:
    return [str(error) for error in validate_config(config, **kwargs).errors]


def warnings_of(config: Config, **kwargs: bool) -> list[str]:
    return [str(warning) for warning in validate_config(config, **kwargs).warnings]


def names_a_port_table(message: str) -> bool:
    """True when the message's target tables include PORT itself (not only PORTCHANNEL and others)."""
    return bool(re.search(r"which is not in (\S+ or )*PORT( or \S+)*$", message))


def with_row(table: str, key: str, row: dict[str, str | list[str]]) -> Config:
    config = base_config()
    config.setdefault(table, {})[key] = row
    return config


def test_the_base_configuration_is_valid() -> None:
    report = validate_config(base_config())
    assert report == ValidationReport()
    assert report.ok


# ---- values -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "key", "row", "expected"),
    [
        (
            "PORT",
            "Ethernet0",
            {"lanes": "0", "speed": "1000", "mtu": "99999"},
            "PORT|Ethernet0: field 'mtu' = '99999': must be an integer in 68..9216",
        ),
        (
            "PORT",
            "Ethernet0",
            {"lanes": "0", "speed": "1000", "mtu": "abc"},
            "PORT|Ethernet0: field 'mtu' = 'abc': must be an integer in 68..9216",
        ),
        (
            "PORT",
            "Ethernet0",
            {"lanes": "0", "speed": "-1"},
            "PORT|Ethernet0: field 'speed' = '-1': must be an integer in 1..1600000",
        ),
        (
            "PORT",
            "Ethernet0",
            {"lanes": "0", "speed": "1000", "fec": "fec91"},
            "PORT|Ethernet0: field 'fec' = 'fec91': must be one of rs, fc, none, auto",
        ),
        (
            "PORT",
            "Ethernet0",
            {"lanes": "0,x", "speed": "1000"},
            "PORT|Ethernet0: field 'lanes' = '0,x': must be a comma-separated list of lane numbers",
        ),
        (
            "PORT",
            "Ethernet0",
            {"lanes": "0", "speed": "1000", "admin_status": ["up"]},
            "PORT|Ethernet0: field 'admin_status' = 'up': must be a single value, not a list",
        ),
        (
            "VLAN",
            "Vlan100",
            {"vlanid": "4095"},
            "VLAN|Vlan100: field 'vlanid' = '4095': must be an integer in 2..4094",
        ),
        (
            "VLAN",
            "Vlan100",
            {"vlanid": "200"},
            "VLAN|Vlan100: field 'vlanid' = '200': must match the VLAN name 'Vlan100'",
        ),
        (
            "VLAN",
            "Vlan100",
            {"dhcp_servers": ["10.0.0.1", "nope"]},
            "VLAN|Vlan100: field 'dhcp_servers' = '10.0.0.1,nope': must be a list of IP addresses; bad item "
            "'nope'",
        ),
        (
            "VLAN_MEMBER",
            "Vlan100|Ethernet4",
            {"tagging_mode": "foo"},
            "VLAN_MEMBER|Vlan100|Ethernet4: field 'tagging_mode' = 'foo': must be one of untagged, tagged, "
            "priority_tagged",
        ),
        (
            "BUFFER_PROFILE",
            "p",
            {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "8"},
            "BUFFER_PROFILE|p: field 'dynamic_th' = '8': must be an integer in -8..7",
        ),
        (
            "WRED_PROFILE",
            "W",
            {"ecn": "ecn_blue"},
            "WRED_PROFILE|W: field 'ecn' = 'ecn_blue': must be one of ecn_none, ecn_green, ecn_yellow, "
            "ecn_red, "
            "ecn_green_yellow, ecn_green_red, ecn_yellow_red, ecn_all",
        ),
        (
            "WRED_PROFILE",
            "W",
            {"green_drop_probability": "101"},
            "WRED_PROFILE|W: field 'green_drop_probability' = '101': must be an integer in 0..100",
        ),
        (
            "SCHEDULER",
            "s",
            {"type": "WFQ"},
            "SCHEDULER|s: field 'type' = 'WFQ': must be one of DWRR, WRR, STRICT",
        ),
        (
            "SCHEDULER",
            "s",
            {"weight": "0"},
            "SCHEDULER|s: field 'weight' = '0': must be an integer in 1..100",
        ),
        (
            "DSCP_TO_TC_MAP",
            "M",
            {"64": "1"},
            "DSCP_TO_TC_MAP|M: field '64' = '1': field name must be an integer in 0..63",
        ),
        (
            "DSCP_TO_TC_MAP",
            "M",
            {"7": "16"},
            "DSCP_TO_TC_MAP|M: field '7' = '16': must be an integer in 0..15",
        ),
        (
            "TC_TO_PRIORITY_GROUP_MAP",
            "M",
            {"3": "8"},
            "TC_TO_PRIORITY_GROUP_MAP|M: field '3' = '8': must be an integer in 0..7",
        ),
        (
            "PORT_QOS_MAP",
            "Ethernet4",
            {"pfc_enable": "3,8"},
            "PORT_QOS_MAP|Ethernet4: field 'pfc_enable' = '3,8': must be a comma-separated list of "
            "priorities 0..7 "
            "(may be empty)",
        ),
        (
            "PFC_WD",
            "Ethernet4",
            {"action": "reboot"},
            "PFC_WD|Ethernet4: field 'action' = 'reboot': must be one of drop, forward, alert",
        ),
        (
            "PFC_WD",
            "Ethernet4",
            {"detection_time": "50"},
            "PFC_WD|Ethernet4: field 'detection_time' = '50': must be an integer in 100..5000",
        ),
        (
            "PFC_WD",
            "Ethernet4",
            {"restoration_time": "60001"},
            "PFC_WD|Ethernet4: field 'restoration_time' = '60001': must be an integer in 100..60000",
        ),
        (
            "PFC_WD",
            "GLOBAL",
            {"POLL_INTERVAL": "1001"},
            "PFC_WD|GLOBAL: field 'POLL_INTERVAL' = '1001': must be an integer in 100..1000",
        ),
        (
            "VXLAN_TUNNEL",
            "vtep1",
            {"src_ip": "1.2.3"},
            "VXLAN_TUNNEL|vtep1: field 'src_ip' = '1.2.3': must be an IP address",
        ),
        (
            "VXLAN_TUNNEL_MAP",
            "vtep1|m",
            {"vlan": "Vlan100", "vni": "16777216"},
            "VXLAN_TUNNEL_MAP|vtep1|m: field 'vni' = '16777216': must be an integer in 1..16777215",
        ),
        (
            "VXLAN_TUNNEL_MAP",
            "vtep1|m",
            {"vlan": "100", "vni": "5"},
            "VXLAN_TUNNEL_MAP|vtep1|m: field 'vlan' = '100': must be Vlan<id>, id in 0..4094",
        ),
        (
            "DEVICE_METADATA",
            "localhost",
            {"buffer_model": "magic"},
            "DEVICE_METADATA|localhost: field 'buffer_model' = 'magic': must be one of traditional, dynamic",
        ),
        (
            "MCLAG_DOMAIN",
            "1",
            {"keepalive_interval": "61"},
            "MCLAG_DOMAIN|1: field 'keepalive_interval' = '61': must be an integer in 1..60",
        ),
        (
            "MCLAG_DOMAIN",
            "1",
            {"source_ip": "fc00::1"},
            "MCLAG_DOMAIN|1: field 'source_ip' = 'fc00::1': must be an IPv4 address",
        ),
        (
            "CABLE_LENGTH",
            "AZURE",
            {"Ethernet0": "5"},
            "CABLE_LENGTH|AZURE: field 'Ethernet0' = '5': must be a length in metres like '5m', or 'None'",
        ),
    ],
)
def test_bad_values_are_refused_naming_table_key_and_field(
    table: str, key: str, row: dict[str, str | list[str]], expected: str
) -> None:
    assert expected in errors_of(with_row(table, key, row))


def test_error_records_carry_their_parts() -> None:
    errors = validate_config(
        with_row("PORT", "Ethernet0", {"lanes": "0", "speed": "1000", "mtu": "99999"})
    ).errors
    assert errors == [ConfigError("PORT", "Ethernet0", "mtu", "99999", "must be an integer in 68..9216")]


def test_all_errors_are_collected_not_only_the_first() -> None:
    config = base_config()
    config["PORT"]["Ethernet0"].update({"mtu": "1", "speed": "0", "fec": "x"})
    config["VLAN_MEMBER"]["Vlan100|Ethernet999"] = {"tagging_mode": "x"}
    assert len(errors_of(config)) == 5


def test_missing_mandatory_fields_are_errors() -> None:
    assert errors_of(with_row("PORT", "Ethernet16", {"lanes": "16"})) == [
        "PORT|Ethernet16: missing mandatory field 'speed'"
    ]
    assert "VLAN_MEMBER|Vlan100|Ethernet4: missing mandatory field 'tagging_mode'" in errors_of(
        with_row("VLAN_MEMBER", "Vlan100|Ethernet4", {})
    )
    assert errors_of(with_row("BUFFER_PROFILE", "p", {"pool": "egress_lossy_pool"})) == [
        "BUFFER_PROFILE|p: missing mandatory field 'size' (only a headroom_type 'dynamic' profile may omit "
        "it)"
    ]
    assert (
        errors_of(with_row("BUFFER_PROFILE", "p", {"pool": "egress_lossy_pool", "headroom_type": "dynamic"}))
        == []
    )


# ---- keys ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "key", "row", "expected"),
    [
        (
            "VLAN",
            "Vlan4095",
            {},
            "VLAN|Vlan4095: key part 'name' = 'Vlan4095': must be Vlan<id>, id in 2..4094",
        ),
        ("VLAN", "vlan5", {}, "VLAN|vlan5: key part 'name' = 'vlan5': must be Vlan<id>, id in 2..4094"),
        (
            "PORTCHANNEL",
            "Po1",
            {"admin_status": "up"},
            "PORTCHANNEL|Po1: key part 'name' = 'Po1': must be PortChannel<N> with N of 1..4 digits",
        ),
        (
            "BUFFER_PG",
            "Ethernet0|8",
            {"profile": "NULL"},
            "BUFFER_PG|Ethernet0|8: key part 'pg_num' = '8': must be a priority group index or range N or "
            "N-M, "
            "with N <= M in 0..7",
        ),
        (
            "BUFFER_PG",
            "Ethernet0|4-3",
            {},
            "BUFFER_PG|Ethernet0|4-3: key part 'pg_num' = '4-3': must be a priority "
            "group index or range N or N-M, with N <= M in 0..7",
        ),
        (
            "INTERFACE",
            "Ethernet4|10.0.0.300/31",
            {},
            "INTERFACE|Ethernet4|10.0.0.300/31: key part 'ip_prefix' = '10.0.0.300/31': must be an IP prefix "
            "(address/length)",
        ),
        (
            "INTERFACE",
            "Ethernet4|10.0.0.1",
            {},
            "INTERFACE|Ethernet4|10.0.0.1: key part 'ip_prefix' = '10.0.0.1': must be an IP prefix "
            "(address/length)",
        ),
        (
            "VLAN_MEMBER",
            "Vlan100",
            {"tagging_mode": "tagged"},
            "VLAN_MEMBER|Vlan100: key must be <name>|<port>",
        ),
        ("INTERFACE", "a|b|c", {}, "INTERFACE|a|b|c: key must be <name> or <name>|<ip_prefix>"),
        (
            "DEVICE_METADATA",
            "remote",
            {},
            "DEVICE_METADATA|remote: key part 'name' = 'remote': must be 'localhost'",
        ),
        (
            "MCLAG_DOMAIN",
            "4096",
            {},
            "MCLAG_DOMAIN|4096: key part 'domain_id' = '4096': must be an integer in 1..4095",
        ),
        ("VRF", "red", {}, "VRF|red: key part 'name' = 'red': must be Vrf<name> of at most 15 characters"),
        (
            "STATIC_ROUTE",
            "blue|1.0.0.0/8",
            {},
            "STATIC_ROUTE|blue|1.0.0.0/8: key part 'vrf_name' = 'blue': must be one of default, mgmt or "
            "Vrf<name>",
        ),
    ],
)
def test_bad_keys_are_refused(table: str, key: str, row: dict[str, str | list[str]], expected: str) -> None:
    assert expected in errors_of(with_row(table, key, row))


# ---- references ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "key", "row", "expected"),
    [
        (
            "VLAN_MEMBER",
            "Vlan100|Ethernet999",
            {"tagging_mode": "untagged"},
            "VLAN_MEMBER|Vlan100|Ethernet999: references port 'Ethernet999', which is not in PORT or "
            "PORTCHANNEL",
        ),
        (
            "VLAN_MEMBER",
            "Vlan200|Ethernet4",
            {"tagging_mode": "tagged"},
            "VLAN_MEMBER|Vlan200|Ethernet4: references VLAN 'Vlan200', which is not in VLAN",
        ),
        (
            "PORTCHANNEL_MEMBER",
            "PortChannel2|Ethernet4",
            {},
            "PORTCHANNEL_MEMBER|PortChannel2|Ethernet4: references portchannel 'PortChannel2', which is not "
            "in "
            "PORTCHANNEL",
        ),
        (
            "PORTCHANNEL_MEMBER",
            "PortChannel1|Ethernet99",
            {},
            "PORTCHANNEL_MEMBER|PortChannel1|Ethernet99: references port 'Ethernet99', which is not in PORT",
        ),
        (
            "INTERFACE",
            "Ethernet99",
            {},
            "INTERFACE|Ethernet99: references port 'Ethernet99', which is not in PORT",
        ),
        (
            "INTERFACE",
            "Ethernet4",
            {"vrf_name": "Vrf_blue"},
            "INTERFACE|Ethernet4: field 'vrf_name' = 'Vrf_blue': references VRF 'Vrf_blue', which is not in "
            "VRF",
        ),
        (
            "BUFFER_PROFILE",
            "p",
            {"pool": "nopool", "size": "0"},
            "BUFFER_PROFILE|p: field 'pool' = 'nopool': references buffer pool 'nopool', which is not in "
            "BUFFER_POOL",
        ),
        (
            "BUFFER_PG",
            "Ethernet4|3-4",
            {"profile": "pg_lossless"},
            "BUFFER_PG|Ethernet4|3-4: field 'profile' = 'pg_lossless': references buffer profile "
            "'pg_lossless', "
            "which is not in BUFFER_PROFILE",
        ),
        (
            "BUFFER_QUEUE",
            "Ethernet4|3-4",
            {"profile": "NULL"},
            "BUFFER_QUEUE|Ethernet4|3-4: field 'profile' = 'NULL': references buffer profile 'NULL', "
            "which is not in BUFFER_PROFILE",
        ),
        (
            "BUFFER_QUEUE",
            "Ethernet4,Ethernet77|0",
            {"profile": "egress_lossy_profile"},
            "BUFFER_QUEUE|Ethernet4,Ethernet77|0: references port 'Ethernet77', which is not in PORT",
        ),
        (
            "BUFFER_PORT_EGRESS_PROFILE_LIST",
            "Ethernet4",
            {"profile_list": "egress_lossy_profile,gone"},
            "BUFFER_PORT_EGRESS_PROFILE_LIST|Ethernet4: field 'profile_list' = 'egress_lossy_profile,gone': "
            "references buffer profile 'gone', which is not in BUFFER_PROFILE",
        ),
        (
            "CABLE_LENGTH",
            "AZURE",
            {"Ethernet77": "5m"},
            "CABLE_LENGTH|AZURE: field 'Ethernet77' = '5m': references port 'Ethernet77', which is not in "
            "PORT",
        ),
        (
            "PORT_QOS_MAP",
            "Ethernet4",
            {"tc_to_pg_map": "AZURE"},
            "PORT_QOS_MAP|Ethernet4: field 'tc_to_pg_map' = 'AZURE': references TC_TO_PRIORITY_GROUP_MAP "
            "'AZURE', "
            "which is not in TC_TO_PRIORITY_GROUP_MAP",
        ),
        (
            "QUEUE",
            "Ethernet4|1",
            {"scheduler": "scheduler.9"},
            "QUEUE|Ethernet4|1: field 'scheduler' = 'scheduler.9': references scheduler 'scheduler.9', which "
            "is not "
            "in SCHEDULER",
        ),
        (
            "QUEUE",
            "Ethernet4|3",
            {"wred_profile": "W"},
            "QUEUE|Ethernet4|3: field 'wred_profile' = 'W': references WRED profile 'W', which is not in "
            "WRED_PROFILE",
        ),
        (
            "PFC_WD",
            "Ethernet99",
            {"action": "drop"},
            "PFC_WD|Ethernet99: references port 'Ethernet99', which is not in PORT",
        ),
        (
            "MCLAG_INTERFACE",
            "1|PortChannel9",
            {},
            "MCLAG_INTERFACE|1|PortChannel9: references portchannel 'PortChannel9', which is not in "
            "PORTCHANNEL",
        ),
        (
            "MCLAG_INTERFACE",
            "2|PortChannel1",
            {},
            "MCLAG_INTERFACE|2|PortChannel1: references MCLAG domain '2', which is not in MCLAG_DOMAIN",
        ),
        (
            "VXLAN_TUNNEL_MAP",
            "vtep1|m",
            {"vlan": "Vlan200", "vni": "200"},
            "VXLAN_TUNNEL_MAP|vtep1|m: field 'vlan' = 'Vlan200': references VLAN 'Vlan200', which is not in "
            "VLAN",
        ),
        (
            "VXLAN_TUNNEL_MAP",
            "vtep9|m",
            {"vlan": "Vlan100", "vni": "200"},
            "VXLAN_TUNNEL_MAP|vtep9|m: references VXLAN tunnel 'vtep9', which is not in VXLAN_TUNNEL",
        ),
        (
            "NEIGH",
            "Vlan300|10.0.0.5",
            {"neigh": "00:11:22:33:44:55"},
            "NEIGH|Vlan300|10.0.0.5: references interface 'Vlan300', which is not in PORT or PORTCHANNEL or "
            "VLAN",
        ),
    ],
)
def test_dangling_references_refuse_for_ports_and_warn_for_other_objects(
    table: str, key: str, row: dict[str, str | list[str]], expected: str
) -> None:
    config = with_row(table, key, row)
    if names_a_port_table(expected):
        assert expected in errors_of(config)
    else:
        assert expected in warnings_of(config) and expected not in errors_of(config)


def test_pg_profile_null_is_not_a_reference() -> None:
    assert errors_of(with_row("BUFFER_PG", "Ethernet4|3-4", {"profile": "NULL"})) == []


def test_legacy_bracket_references_are_accepted_for_the_right_table_only() -> None:
    assert warnings_of(with_row("QUEUE", "Ethernet4|0", {"scheduler": "[SCHEDULER|scheduler.0]"})) == []
    assert warnings_of(with_row("QUEUE", "Ethernet4|0", {"scheduler": "[SCHEDULER|nope]"})) == [
        "QUEUE|Ethernet4|0: field 'scheduler' = '[SCHEDULER|nope]': references scheduler 'nope', which is "
        "not in "
        "SCHEDULER"
    ]
    assert len(warnings_of(with_row("QUEUE", "Ethernet4|0", {"scheduler": "[WRED_PROFILE|scheduler.0]"}))) == 1


def test_literal_keys_are_not_references() -> None:
    config = base_config()
    config["QUEUE"]["CPU|0"] = {"scheduler": "scheduler.0"}
    config["PORT_QOS_MAP"]["global"] = {"dscp_to_tc_map": "AZURE"}
    assert errors_of(config) == []


def test_removing_a_referenced_row_is_caught_everywhere_it_is_used() -> None:
    config = base_config()
    del config["PORT"]["Ethernet0"]
    tables = {error.table for error in validate_config(config).errors}
    assert {
        "VLAN_MEMBER",
        "BUFFER_PG",
        "BUFFER_QUEUE",
        "PORT_QOS_MAP",
        "QUEUE",
        "PFC_WD",
        "CABLE_LENGTH",
    } <= tables


def test_partial_skips_references_into_absent_tables_only() -> None:
    fragment: Config = {
        "BUFFER_POOL": {"ingress_pool": {"type": "ingress", "mode": "static"}},
        "BUFFER_PG": {"Ethernet0|0": {"profile": "ingress_lossy_profile"}},
        "BUFFER_PROFILE": {"ingress_lossy_profile": {"pool": "gone", "size": "0"}},
    }
    assert errors_of(fragment, partial=True) == []
    assert warnings_of(fragment, partial=True) == [
        "BUFFER_PROFILE|ingress_lossy_profile: field 'pool' = 'gone': references buffer pool 'gone', which "
        "is not in "
        "BUFFER_POOL"
    ]
    assert "BUFFER_PG|Ethernet0|0: references port 'Ethernet0', which is not in PORT" in errors_of(fragment)


# ---- constraints across rows --------------------------------------------------------------------


def test_a_port_in_two_portchannels_is_refused() -> None:
    config = base_config()
    config["PORTCHANNEL"]["PortChannel2"] = {"admin_status": "up"}
    config["PORTCHANNEL_MEMBER"]["PortChannel2|Ethernet12"] = {}
    assert errors_of(config) == [
        "PORTCHANNEL_MEMBER|PortChannel2|Ethernet12: port 'Ethernet12' is already a member of "
        "'PortChannel1'; a port "
        "can be in one portchannel only"
    ]


def test_duplicate_lanes_are_a_warning() -> None:
    """SONiC's config load writes such a file; the ASIC then refuses the later port (reported there)."""
    config = with_row("PORT", "Ethernet16", {"lanes": "15,16", "speed": "100000"})
    assert errors_of(config) == []
    assert warnings_of(config) == [
        "PORT|Ethernet16: field 'lanes' = '15,16': lane 15 is also used by port 'Ethernet12'"
    ]


def test_vlan_member_constraints_from_the_yang() -> None:
    config = base_config()
    config["VLAN"]["Vlan200"] = {"vlanid": "200"}
    config["VLAN_MEMBER"].update(
        {
            "Vlan200|Ethernet0": {"tagging_mode": "untagged"},
            "Vlan200|Ethernet12": {"tagging_mode": "tagged"},
            "Vlan200|Ethernet8": {"tagging_mode": "tagged"},
        }
    )
    assert errors_of(config) == [
        "VLAN_MEMBER|Vlan200|Ethernet0: port 'Ethernet0' is already untagged in 'Vlan100'; untagged in one "
        "VLAN only",
        "VLAN_MEMBER|Vlan200|Ethernet12: port 'Ethernet12' is a portchannel member and cannot be a VLAN "
        "member",
        "VLAN_MEMBER|Vlan200|Ethernet8: port 'Ethernet8' is a router interface (in INTERFACE)",
    ]


def test_interface_address_rows_need_the_interface_row_and_the_right_family() -> None:
    config = base_config()
    config["INTERFACE"]["Ethernet4|10.0.0.2/31"] = {"family": "IPv6"}
    assert errors_of(config) == [
        "INTERFACE|Ethernet4|10.0.0.2/31: field 'family' = 'IPv6': must be IPv4 for address '10.0.0.2/31'",
        "INTERFACE|Ethernet4|10.0.0.2/31: address needs the interface row 'INTERFACE|Ethernet4'",
    ]


def test_sub_interfaces_need_their_parent_and_a_vlan_for_short_names() -> None:
    config = base_config()
    config["VLAN_SUB_INTERFACE"] = {
        "Ethernet4.10": {},
        "Eth8.20": {},
        "Eth99.30": {"vlan": "30"},
        "Po1.40": {"vlan": "40"},
    }
    assert errors_of(config) == [
        "VLAN_SUB_INTERFACE|Eth8.20: a short-name sub-interface needs the 'vlan' field",
        "VLAN_SUB_INTERFACE|Eth99.30: parent interface 'Eth99' is not in PORT or PORTCHANNEL",
    ]


def test_pfc_watchdog_times_must_not_be_below_the_poll_interval() -> None:
    config = base_config()
    config["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "400"
    assert errors_of(config) == [
        "PFC_WD|Ethernet0: field 'detection_time' = '200': must be >= the GLOBAL POLL_INTERVAL (400 ms)",
        "PFC_WD|Ethernet0: field 'restoration_time' = '200': must be >= the GLOBAL POLL_INTERVAL (400 ms)",
    ]


def test_mclag_keepalive_times_three_must_fit_the_session_timeout() -> None:
    config = base_config()
    config["MCLAG_DOMAIN"]["1"]["keepalive_interval"] = "11"
    assert errors_of(config) == [
        "MCLAG_DOMAIN|1: field 'session_timeout' = '30': must be >= 3 x keepalive_interval (11 s)"
    ]


def test_at_most_one_mclag_domain_and_two_vxlan_tunnels() -> None:
    config = base_config()
    config["MCLAG_DOMAIN"]["2"] = {}
    config["VXLAN_TUNNEL"].update({"vtep2": {}, "vtep3": {}})
    assert sorted(errors_of(config)) == [
        "MCLAG_DOMAIN: has 2 rows; at most 1 allowed",
        "VXLAN_TUNNEL: has 3 rows; at most 2 allowed",
    ]


def test_wred_and_scheduler_orderings() -> None:
    config = base_config()
    config["WRED_PROFILE"]["AZURE_LOSSLESS"].update(
        {"green_max_threshold": "1", "ecn": "ecn_red", "ecn_green_min_threshold": "5"}
    )
    config["SCHEDULER"]["shaper"] = {"cir": "1000", "pir": "500", "pbs": "10"}
    assert sorted(errors_of(config)) == [
        "SCHEDULER|shaper: field 'pir' = '500': must be >= cir (1000)",
        "WRED_PROFILE|AZURE_LOSSLESS: field 'ecn_green_min_threshold' = '5': needs green marking in 'ecn'",
        "WRED_PROFILE|AZURE_LOSSLESS: field 'green_max_threshold' = '1': must be >= green_min_threshold "
        "(1048576)",
    ]


def test_buffer_pool_percentage_needs_the_dynamic_model_and_no_size() -> None:
    config = with_row(
        "BUFFER_POOL", "pct_pool", {"type": "ingress", "mode": "dynamic", "size": "1", "percentage": "50"}
    )
    assert errors_of(config) == [
        "BUFFER_POOL|pct_pool: field 'percentage' = '50': cannot be set together with 'size'",
        "BUFFER_POOL|pct_pool: field 'percentage' = '50': needs DEVICE_METADATA|localhost buffer_model "
        "'dynamic'",
    ]


# ---- unknown tables and fields ------------------------------------------------------------------


def test_unknown_tables_and_fields_are_reported_not_refused() -> None:
    config = base_config()
    config["SNMP_COMMUNITY"] = {"public": {"TYPE": "RO"}}
    config["PORT"]["Ethernet0"]["vendor_knob"] = "7"
    report = validate_config(config)
    assert report.ok
    assert report.unknown_tables == ["SNMP_COMMUNITY"]
    assert report.unknown_fields == [("PORT", "Ethernet0", "vendor_knob")]


def test_a_structurally_malformed_configuration_gets_structural_errors_only() -> None:
    config = base_config()
    config["PORT"]["Ethernet0"]["mtu"] = 9100  # type: ignore[assignment]
    config["VLAN"]["Vlan100"]["dhcp_servers"] = ["10.0.0.1", None]  # type: ignore[list-item]
    config["VRF"]["Vrf_red"] = "x"  # type: ignore[assignment]
    assert errors_of(config) == [
        "PORT|Ethernet0: field 'mtu' = '9100': must be a string or a list of strings",
        "VLAN|Vlan100: field 'dhcp_servers' = '['10.0.0.1', None]': must be a string or a list of strings",
        "VRF|Vrf_red: the row must be a mapping of fields to values",
    ]


def test_validation_does_not_change_the_configuration() -> None:
    config = base_config()
    before = copy.deepcopy(config)
    validate_config(config)
    assert config == before


def test_validation_error_lists_the_errors() -> None:
    errors = validate_config(with_row("PORT", "Ethernet0", {"lanes": "0", "speed": "0"})).errors
    raised = ConfigValidationError(errors, "config_db.json")
    assert raised.errors == errors
    assert str(raised) == (
        "config_db.json: 1 configuration error(s)\n  PORT|Ethernet0: field 'speed' = '0': must be an integer "
        "in 1..1600000"
    )


# ---- speed --------------------------------------------------------------------------------------


def default_128_port_config() -> Config:
    """The shape of a 128 x 400G default configuration: 128 PORT, 128 PORT_QOS_MAP, 896 QUEUE,
    384 BUFFER_QUEUE, 128 BUFFER_PG rows and what they reference."""
    ports = [f"Ethernet{4 * i}" for i in range(128)]
    lossless = {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}
    queue_profiles = (
        ("0-2", "egress_lossy_profile"),
        ("3-4", "egress_lossless_profile"),
        ("5-6", "egress_lossy_profile"),
    )
    return {
        "DEVICE_METADATA": {
            "localhost": {"hostname": "sw", "buffer_model": "traditional", "mac": "02:00:00:00:00:01"}
        },
        "PORT": {
            port: {
                "lanes": ",".join(str(4 * i + lane) for lane in range(4)),
                "speed": "400000",
                "alias": f"etp{i + 1}",
                "index": str(i + 1),
                "mtu": "9100",
                "admin_status": "up",
                "fec": "rs",
            }
            for i, port in enumerate(ports)
        },
        "BUFFER_POOL": {
            "ingress_lossless_pool": {
                "type": "ingress",
                "mode": "dynamic",
                "size": "165728256",
                "xoff": "29360128",
            },
            "egress_lossless_pool": {"type": "egress", "mode": "static", "size": "165728256"},
        },
        "BUFFER_PROFILE": {
            "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "static_th": "82864128"},
            "egress_lossy_profile": {"pool": "egress_lossless_pool", "size": "1778", "dynamic_th": "0"},
            "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "static_th": "82864128"},
        },
        "BUFFER_PG": {f"{port}|0": {"profile": "ingress_lossy_profile"} for port in ports},
        "BUFFER_QUEUE": {
            f"{port}|{q}": {"profile": profile} for port in ports for q, profile in queue_profiles
        },
        "CABLE_LENGTH": {"AZURE": dict.fromkeys(ports, "5m")},
        "DSCP_TO_TC_MAP": {"AZURE": {str(dscp): "1" for dscp in range(64)}},
        "TC_TO_QUEUE_MAP": {"AZURE": {str(tc): str(tc) for tc in range(8)}},
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3", "4": "4"}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {str(p): str(p) for p in range(8)}},
        "SCHEDULER": {
            "scheduler.0": {"type": "DWRR", "weight": "14"},
            "scheduler.1": {"type": "DWRR", "weight": "15"},
        },
        "WRED_PROFILE": {
            "AZURE_LOSSLESS": {
                "ecn": "ecn_all",
                "green_min_threshold": "1048576",
                "green_max_threshold": "2097152",
                "green_drop_probability": "5",
            }
        },
        "PORT_QOS_MAP": {
            port: {
                "dscp_to_tc_map": "AZURE",
                "tc_to_queue_map": "AZURE",
                "tc_to_pg_map": "AZURE",
                "pfc_to_queue_map": "AZURE",
                "pfc_enable": "3,4",
                "pfcwd_sw_enable": "3,4",
            }
            for port in ports
        },
        "QUEUE": {
            f"{port}|{q}": lossless if q in (3, 4) else {"scheduler": "scheduler.0"}
            for port in ports
            for q in range(7)
        },
    }


def best_time(config: Config, runs: int = 5) -> float:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        report = validate_config(config)
        timings.append(time.perf_counter() - start)
    assert report.ok, report.errors[:3]
    return min(timings)


def test_a_128_port_default_configuration_validates_well_under_100_ms() -> None:
    config = default_128_port_config()
    assert {
        table: len(config[table]) for table in ("PORT", "PORT_QOS_MAP", "QUEUE", "BUFFER_QUEUE", "BUFFER_PG")
    } == {
        "PORT": 128,
        "PORT_QOS_MAP": 128,
        "QUEUE": 896,
        "BUFFER_QUEUE": 384,
        "BUFFER_PG": 128,
    }
    assert best_time(config) < 0.05
