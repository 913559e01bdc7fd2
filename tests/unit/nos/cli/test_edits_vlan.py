"""``config vlan`` edits with plain documents: SONiC's rows and refusals."""

from __future__ import annotations

import copy

import pytest

from nos.cli.edits.common import Refused
from nos.cli.edits.vlan import add_member, add_vlans, delete_member, delete_vlans, parse_vids

BASE = {
    "PORT": {f"Ethernet{n}": {"lanes": str(n), "speed": "100000"} for n in (0, 4, 8, 12, 16)},
    "PORTCHANNEL": {"PortChannel1": {"admin_status": "up"}},
    "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet8": {}},
    "INTERFACE": {"Ethernet12": {}, "Ethernet12|10.0.0.0/31": {}},
    "VLAN": {"Vlan100": {"vlanid": "100"}, "Vlan200": {"vlanid": "200"}},
    "VLAN_MEMBER": {"Vlan200|Ethernet4": {"tagging_mode": "untagged"}},
}


@pytest.fixture
def config():
    return copy.deepcopy(BASE)


def test_vid_lists_and_ranges():
    assert parse_vids("100") == [100]
    assert parse_vids("100-103", multiple=True) == [100, 101, 102, 103]
    assert parse_vids("300,100-101,300", multiple=True) == [100, 101, 300]
    for text, message in (("1-5", "Vlan1 is default vlan"), ("9-3", "9 is greater than 3"),
                          ("100-5000", "Invalid VLAN ID must be in \\(2-4094\\)"), ("1x", "1x is not integer")):
        with pytest.raises(Refused, match=message):
            parse_vids(text, multiple=True)


def test_vlan_add_writes_vlanid(config):
    add_vlans(config, [300, 301])
    assert config["VLAN"]["Vlan300"] == {"vlanid": "300"} and config["VLAN"]["Vlan301"] == {"vlanid": "301"}


@pytest.mark.parametrize(("vid", "message"), [
    (4095, "Invalid VLAN ID 4095 \\(2-4094\\)"), (0, "Invalid VLAN ID 0"), (1, "Vlan1 is default VLAN"),
    (100, "Vlan100 already exists."),
])
def test_vlan_add_refusals(config, vid, message):
    with pytest.raises(Refused, match=message):
        add_vlans(config, [vid])


def test_vlan_del(config):
    delete_vlans(config, [100])
    assert "Vlan100" not in config["VLAN"]
    with pytest.raises(Refused, match="Vlan100 does not exist"):
        delete_vlans(config, [100])
    with pytest.raises(Refused, match="VLAN ID 200 can not be removed. First remove all members"):
        delete_vlans(config, [200])


def test_vlan_with_addresses_or_vxlan_map_is_not_deleted(config):
    config["VLAN_INTERFACE"] = {"Vlan100": {}, "Vlan100|10.1.0.1/24": {}}
    with pytest.raises(Refused, match="Vlan100 can not be removed. First remove IP addresses"):
        delete_vlans(config, [100])
    del config["VLAN_INTERFACE"]
    config["VXLAN_TUNNEL_MAP"] = {"vtep1|map_100": {"vlan": "Vlan100", "vni": "1100"}}
    with pytest.raises(Refused, match="First remove vxlan mapping 'vtep1\\|map_100'"):
        delete_vlans(config, [100])


def test_member_add_tagged_and_untagged(config):
    add_member(config, 100, "Ethernet0", untagged=True)
    add_member(config, 100, "Ethernet16")
    add_member(config, 100, "PortChannel1")
    assert config["VLAN_MEMBER"]["Vlan100|Ethernet0"] == {"tagging_mode": "untagged"}
    assert config["VLAN_MEMBER"]["Vlan100|Ethernet16"] == {"tagging_mode": "tagged"}
    assert config["VLAN_MEMBER"]["Vlan100|PortChannel1"] == {"tagging_mode": "tagged"}


@pytest.mark.parametrize(("vid", "port", "untagged", "message"), [
    (1, "Ethernet0", False, "Vlan1 is default VLAN"),
    (4095, "Ethernet0", False, "Invalid VLAN ID 4095"),
    (300, "Ethernet0", False, "Vlan300 does not exist"),
    (100, "Ethernet99", False, "Ethernet99 does not exist"),
    (100, "Ethernet12", False, "Ethernet12 is a router interface!"),
    (100, "Ethernet8", False, "Ethernet8 is part of portchannel!"),
    (100, "Ethernet4", True, "Ethernet4 is already untagged member!"),
    (200, "Ethernet4", False, "Ethernet4 is already a member of Vlan200"),
])
def test_member_add_refusals(config, vid, port, untagged, message):
    with pytest.raises(Refused, match=message):
        add_member(config, vid, port, untagged)


def test_member_add_respects_switchport_mode(config):
    config["PORT"]["Ethernet0"]["mode"] = "access"
    config["PORT"]["Ethernet16"]["mode"] = "routed"
    with pytest.raises(Refused, match="Ethernet0 is in access mode! Tagged Members cannot be added"):
        add_member(config, 100, "Ethernet0")
    add_member(config, 100, "Ethernet0", untagged=True)
    with pytest.raises(Refused, match="Ethernet16 is in routed mode!"):
        add_member(config, 100, "Ethernet16")


def test_member_del(config):
    delete_member(config, 200, "Ethernet4")
    assert config["VLAN_MEMBER"] == {}
    with pytest.raises(Refused, match="Ethernet4 is not a member of Vlan200"):
        delete_member(config, 200, "Ethernet4")
