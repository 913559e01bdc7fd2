"""``config interface`` edits with plain documents: the rows SONiC's command writes, and its refusals."""

from __future__ import annotations

import copy

import pytest

from nos.cli.edits.common import Refused, interface_table, parse_interface_list
from nos.cli.edits.interface import add_address, remove_address, set_admin_status, set_mtu, set_speed

BASE = {
    "PORT": {f"Ethernet{n}": {"lanes": f"{n},{n + 1},{n + 2},{n + 3}", "speed": "400000", "mtu": "9100",
                              "admin_status": "up"} for n in (0, 4, 8, 12)},
    "PORTCHANNEL": {"PortChannel1": {"admin_status": "up", "mtu": "9100"}},
    "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet8": {}},
    "VLAN": {"Vlan100": {"vlanid": "100"}},
    "VLAN_MEMBER": {"Vlan100|Ethernet12": {"tagging_mode": "untagged"}},
    "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}},
}


@pytest.fixture
def config():
    return copy.deepcopy(BASE)


def test_interface_lists_and_ranges_are_sonics():
    assert parse_interface_list("Ethernet0-8") == [f"Ethernet{n}" for n in range(9)]
    assert parse_interface_list("Ethernet0,Ethernet4, PortChannel1-2") == [
        "Ethernet0", "Ethernet4", "PortChannel1", "PortChannel2"]
    with pytest.raises(Refused, match="must not be greater"):
        parse_interface_list("Ethernet8-0")
    with pytest.raises(Refused, match="must start with 'Ethernet' or 'PortChannel'"):
        parse_interface_list("Vlan1-3")


@pytest.mark.parametrize(("name", "table"), [
    ("Ethernet0", "INTERFACE"), ("Ethernet0.10", "VLAN_SUB_INTERFACE"), ("PortChannel1", "PORTCHANNEL_INTERFACE"),
    ("Vlan100", "VLAN_INTERFACE"), ("Loopback0", "LOOPBACK_INTERFACE"), ("Eth0.10", "VLAN_SUB_INTERFACE"),
    ("eth0", ""), ("Bogus1", ""),
])
def test_l3_table_follows_the_name(name, table):
    assert interface_table(name) == table


def test_shutdown_a_range_sets_admin_status_on_ports_it_covers(config):
    set_admin_status(config, "Ethernet0-4,PortChannel1,Loopback0", "down")
    ports = config["PORT"]
    assert [ports[p]["admin_status"] for p in ("Ethernet0", "Ethernet4", "Ethernet8")] == ["down", "down", "up"]
    assert config["PORTCHANNEL"]["PortChannel1"]["admin_status"] == "down"
    assert config["LOOPBACK_INTERFACE"]["Loopback0"] == {"admin_status": "down"}
    assert "admin_status" not in config["LOOPBACK_INTERFACE"]["Loopback0|10.1.0.1/32"]


def test_startup_of_an_unknown_interface_is_refused(config):
    with pytest.raises(Refused, match="Interface name is invalid"):
        set_admin_status(config, "Ethernet99", "up")
    with pytest.raises(Refused, match="names no interface"):
        set_admin_status(config, "Ethernet100-103", "up")


def test_speed_and_mtu_write_the_port_row(config):
    set_speed(config, "Ethernet0", 100000)
    set_mtu(config, "Ethernet4", 1500)
    assert config["PORT"]["Ethernet0"]["speed"] == "100000" and config["PORT"]["Ethernet4"]["mtu"] == "1500"


def test_speed_outside_supported_speeds_is_refused(config):
    with pytest.raises(Refused, match="Invalid speed specified: 800000\nValid speeds:100000,200000,400000"):
        set_speed(config, "Ethernet0", 800000, [100000, 200000, 400000])
    with pytest.raises(Refused, match="Invalid port PortChannel1"):
        set_speed(config, "PortChannel1", 100000)


def test_mtu_of_a_portchannel_member_or_unknown_port_is_refused(config):
    with pytest.raises(Refused, match="Ethernet8 is in portchannel PortChannel1"):
        set_mtu(config, "Ethernet8", 1500)
    with pytest.raises(Refused, match="Invalid port Ethernet99"):
        set_mtu(config, "Ethernet99", 1500)


def test_ip_add_writes_interface_and_address_rows(config):
    add_address(config, "Ethernet0", "10.0.0.0/31")
    add_address(config, "Ethernet0", "fc00::1/126")
    assert config["INTERFACE"] == {"Ethernet0": {}, "Ethernet0|10.0.0.0/31": {}, "Ethernet0|fc00::1/126": {}}
    add_address(config, "Vlan100", "192.168.0.1/24")
    add_address(config, "PortChannel1", "10.0.1.0/31")
    add_address(config, "Loopback1", "10.1.0.2/32")
    assert config["VLAN_INTERFACE"] == {"Vlan100": {}, "Vlan100|192.168.0.1/24": {}}
    assert set(config["PORTCHANNEL_INTERFACE"]) == {"PortChannel1", "PortChannel1|10.0.1.0/31"}
    assert set(config["LOOPBACK_INTERFACE"]) >= {"Loopback1", "Loopback1|10.1.0.2/32"}


def test_ip_add_to_a_sub_interface_creates_it_admin_up(config):
    add_address(config, "Ethernet4.10", "10.0.4.0/31")
    assert config["VLAN_SUB_INTERFACE"] == {"Ethernet4.10": {"admin_status": "up"}, "Ethernet4.10|10.0.4.0/31": {}}


def test_ip_add_on_eth0_goes_to_mgmt_interface_with_the_gateway(config):
    add_address(config, "eth0", "10.3.0.5/24", "10.3.0.1")
    add_address(config, "eth0", "10.3.0.6/24", "10.3.0.1")
    assert config["MGMT_INTERFACE"] == {"eth0|10.3.0.6/24": {"gwaddr": "10.3.0.1"}}


@pytest.mark.parametrize(("name", "prefix", "message"), [
    ("Ethernet12", "10.0.0.0/31", "is a member of vlan Vlan100"),
    ("Ethernet8", "10.0.0.0/31", "is configured as a member of portchannel"),
    ("Ethernet0", "10.0.0.300/31", "IP address is not valid"),
    ("Ethernet99", "10.0.0.0/31", "Ethernet99 does not exist"),
    ("Vlan200", "10.0.0.1/24", "Vlan200 does not exist. Vlan must be created before adding an IP address"),
    ("Tunnel1", "10.0.0.1/24", "Valid names \\[Ethernet/PortChannel/Vlan/Loopback\\]"),
])
def test_ip_add_refusals(config, name, prefix, message):
    with pytest.raises(Refused, match=message):
        add_address(config, name, prefix)


def test_ip_remove_drops_the_interface_row_with_its_last_address(config):
    add_address(config, "Ethernet0", "10.0.0.0/31")
    add_address(config, "Ethernet0", "10.0.2.0/31")
    remove_address(config, "Ethernet0", "10.0.0.0/31")
    assert config["INTERFACE"] == {"Ethernet0": {}, "Ethernet0|10.0.2.0/31": {}}
    remove_address(config, "Ethernet0", "10.0.2.0/31")
    assert config["INTERFACE"] == {}


def test_ip_remove_keeps_a_vrf_bound_interface_row(config):
    config["INTERFACE"] = {"Ethernet0": {"vrf_name": "Vrf1"}, "Ethernet0|10.0.0.0/31": {}}
    remove_address(config, "Ethernet0", "10.0.0.0/31")
    assert config["INTERFACE"] == {"Ethernet0": {"vrf_name": "Vrf1"}}


def test_ip_remove_refusals(config):
    config["INTERFACE"] = {"Ethernet0": {}, "Ethernet0|10.0.0.0/31": {}}
    config["STATIC_ROUTE"] = {"10.9.0.0/24": {"nexthop": "10.0.0.1", "ifname": "Ethernet0"}}
    with pytest.raises(Refused, match="10.0.0.8/31 is not configured on Ethernet0"):
        remove_address(config, "Ethernet0", "10.0.0.8/31")
    with pytest.raises(Refused, match="A static ip route is still bound to the RIF"):
        remove_address(config, "Ethernet0", "10.0.0.0/31")
