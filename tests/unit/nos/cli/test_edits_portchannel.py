"""``config portchannel`` edits with plain documents: SONiC's rows and refusals."""

from __future__ import annotations

import copy

import pytest

from nos.cli.edits.common import Refused
from nos.cli.edits.portchannel import add, add_member, delete, delete_member

BASE = {
    "PORT": {f"Ethernet{n}": {"lanes": str(n), "speed": "100000", "mtu": "9100"} for n in (0, 4, 8, 12, 16, 20)},
    "PORTCHANNEL": {"PortChannel1": {"admin_status": "up", "mtu": "9100"},
                    "PortChannel2": {"admin_status": "up", "mtu": "9100"}},
    "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet8": {}},
    "INTERFACE": {"Ethernet12": {}, "Ethernet12|10.0.0.0/31": {}},
    "VLAN": {"Vlan100": {"vlanid": "100"}},
    "VLAN_MEMBER": {"Vlan100|Ethernet4": {"tagging_mode": "untagged"}},
}


@pytest.fixture
def config():
    return copy.deepcopy(BASE)


def test_add_writes_sonics_fields(config):
    add(config, "PortChannel0003")
    add(config, "PortChannel4", min_links=2, fallback=True, fast_rate=True)
    assert config["PORTCHANNEL"]["PortChannel0003"] == {
        "admin_status": "up", "mtu": "9100", "lacp_key": "auto", "fast_rate": "false", "min_links": "1"}
    assert config["PORTCHANNEL"]["PortChannel4"] == {
        "admin_status": "up", "mtu": "9100", "lacp_key": "auto", "fast_rate": "true", "min_links": "2",
        "fallback": "true"}


@pytest.mark.parametrize(("name", "message"), [
    ("PortChannel1", "PortChannel1 already exists!"),
    ("Po1", "Po1 is invalid!, name should have prefix 'PortChannel' and suffix '<0-9999>'"),
    ("PortChannel12345", "is invalid!"),
])
def test_add_refusals(config, name, message):
    with pytest.raises(Refused, match=message):
        add(config, name)


def test_member_add_and_del(config):
    add_member(config, "PortChannel2", "Ethernet0")
    assert config["PORTCHANNEL_MEMBER"]["PortChannel2|Ethernet0"] == {}
    delete_member(config, "PortChannel2", "Ethernet0")
    assert "PortChannel2|Ethernet0" not in config["PORTCHANNEL_MEMBER"]


@pytest.mark.parametrize(("lag", "port", "message"), [
    ("PortChannel2", "Ethernet8", "Ethernet8 Interface is already member of PortChannel1"),
    ("PortChannel2", "Ethernet12", "Ethernet12 has ip address configured"),
    ("PortChannel2", "Ethernet4", "Ethernet4 Interface configured as VLAN_MEMBER under vlan : Vlan100"),
    ("PortChannel2", "Ethernet99", "Interface name is invalid"),
    ("PortChannel7", "Ethernet0", "PortChannel7 is not present."),
])
def test_member_add_refusals(config, lag, port, message):
    with pytest.raises(Refused, match=message):
        add_member(config, lag, port)


def test_member_must_match_speed_and_mtu(config):
    config["PORT"]["Ethernet16"]["speed"] = "400000"
    config["PORT"]["Ethernet20"]["mtu"] = "1500"
    with pytest.raises(Refused, match="Port speed of Ethernet16 is different than the other members"):
        add_member(config, "PortChannel1", "Ethernet16")
    with pytest.raises(Refused, match="Port MTU of Ethernet20 is different than the PortChannel2 MTU size"):
        add_member(config, "PortChannel2", "Ethernet20")


def test_member_of_a_sub_interface_parent_is_refused(config):
    config["VLAN_SUB_INTERFACE"] = {"Eth0.10": {"vlan": "10"}}
    with pytest.raises(Refused, match="Ethernet0 has subinterfaces configured"):
        add_member(config, "PortChannel2", "Ethernet0")


def test_delete(config):
    delete(config, "PortChannel2")
    assert "PortChannel2" not in config["PORTCHANNEL"]
    with pytest.raises(Refused, match="Portchannel PortChannel1 contains members"):
        delete(config, "PortChannel1")
    config["VLAN_MEMBER"]["Vlan100|PortChannel1"] = {"tagging_mode": "tagged"}
    with pytest.raises(Refused, match="PortChannel1 has vlan Vlan100 configured"):
        delete(config, "PortChannel1")
    with pytest.raises(Refused, match="PortChannel9 is not present."):
        delete(config, "PortChannel9")


def test_member_del_refusals(config):
    with pytest.raises(Refused, match="Ethernet0 is not a member of portchannel PortChannel1"):
        delete_member(config, "PortChannel1", "Ethernet0")
    with pytest.raises(Refused, match="Interface name is invalid"):
        delete_member(config, "PortChannel1", "Ethernet99")
