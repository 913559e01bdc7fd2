"""IntfOrch's pure parts: INTF_TABLE rows, router interface attributes, ip2me routes, updates."""

from __future__ import annotations

import ipaddress

import pytest

from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.core.l3 import InvalidEntry, RouterIntf
from orchagent.core.registry import Interface, Kind
from orchagent.orchs import intf

MAC = "02:00:00:00:00:01"
VR = "oid:0x3000000000002"
SWITCH = "oid:0x21000000000000"
CPU = "oid:0x1000000000001"
R = "SAI_ROUTER_INTERFACE_ATTR_"


def test_interface_rows():
    assert intf.parse("Ethernet8", (("NULL", "NULL"), ("mac_addr", "00:00:00:00:00:00"))) == intf.IntfEntry("Ethernet8")
    assert intf.parse("Ethernet8", (("vrf_name", "Vrf_0"), ("mac_addr", "00:11:22:33:44:55"))) == \
        intf.IntfEntry("Ethernet8", vrf="Vrf_0", mac="00:11:22:33:44:55")
    sub = intf.parse("Ethernet0.10", (("mtu", "0"), ("admin_status", "down")))
    assert sub == intf.IntfEntry("Ethernet0.10", admin_up=False, vlan=10) and sub.parent == "Ethernet0"
    assert intf.parse("Ethernet0.5", (("vlan", "100"),)).vlan == 100


def test_address_rows_split_at_the_first_colon():
    assert intf.parse("Ethernet8:10.0.0.4/31", ()) == intf.AddrEntry("Ethernet8", ipaddress.ip_interface("10.0.0.4/31"))
    assert intf.parse("Vlan2:fc00::1/64", ()).address == ipaddress.ip_interface("fc00::1/64")


@pytest.mark.parametrize("key,fvs", [("Ethernet8:10.0.0.300/24", ()), ("Ethernet8", (("vnet_name", "Vnet1"),)),
                                     ("Ethernet8", (("mtu", "big"),))])
def test_bad_rows_are_invalid(key, fvs):
    with pytest.raises(InvalidEntry):
        intf.parse(key, fvs)


def test_port_lag_vlan_and_sub_port_rif_attributes():
    port = Interface("Ethernet8", Kind.PORT, "oid:0x1000000000011", mtu=9100)
    assert intf.rif_attrs(intf.IntfEntry("Ethernet8"), port, VR, MAC) == ("SAI_ROUTER_INTERFACE_TYPE_PORT", [
        (R + "VIRTUAL_ROUTER_ID", VR), (R + "SRC_MAC_ADDRESS", MAC), (R + "TYPE", "SAI_ROUTER_INTERFACE_TYPE_PORT"),
        (R + "PORT_ID", "oid:0x1000000000011"), (R + "MTU", "9100")])
    lag = Interface("PortChannel002", Kind.LAG, "oid:0x2000000000005", mtu=8888)
    assert intf.rif_attrs(intf.IntfEntry("PortChannel002"), lag, VR, MAC)[1][3:] == [
        (R + "PORT_ID", "oid:0x2000000000005"), (R + "MTU", "8888")]
    vlan = Interface("Vlan2", Kind.VLAN, "oid:0x26000000000007", mtu=9100)
    rif_type, attrs = intf.rif_attrs(intf.IntfEntry("Vlan2", mac="00:11:22:33:44:55"), vlan, VR, MAC)
    assert rif_type == "SAI_ROUTER_INTERFACE_TYPE_VLAN"
    assert attrs[1] == (R + "SRC_MAC_ADDRESS", "00:11:22:33:44:55") and attrs[3] == (R + "VLAN_ID", vlan.oid)
    sub = intf.parse("Ethernet8.10", (("mtu", "1500"), ("admin_status", "up")))
    assert intf.rif_attrs(sub, port, VR, MAC)[1][2:] == [
        (R + "TYPE", "SAI_ROUTER_INTERFACE_TYPE_SUB_PORT"), (R + "PORT_ID", port.oid), (R + "OUTER_VLAN_ID", "10"),
        (R + "ADMIN_V4_STATE", "true"), (R + "ADMIN_V6_STATE", "true"), (R + "MTU", "1500")]


def test_ip2me_route_and_vlan_directed_broadcast():
    port_rif = RouterIntf("Ethernet8", "oid:0x6000000000001", "", VR, "SAI_ROUTER_INTERFACE_TYPE_PORT")
    address = ipaddress.ip_interface("10.0.0.4/31")
    assert intf.address_ops(port_rif, address, CPU, SWITCH, add=True) == [SaiOp.create(
        T.ROUTE_ENTRY, f'{{"dest":"10.0.0.4/32","switch_id":"{SWITCH}","vr":"{VR}"}}',
        ("SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION", "SAI_PACKET_ACTION_FORWARD"), ("SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID", CPU))]
    vlan_rif = RouterIntf("Vlan2", "oid:0x6000000000002", "", VR, "SAI_ROUTER_INTERFACE_TYPE_VLAN")
    ops = intf.address_ops(vlan_rif, ipaddress.ip_interface("20.0.0.8/29"), CPU, SWITCH, add=True)
    key = f'{{"ip":"20.0.0.15","rif":"{vlan_rif.oid}","switch_id":"{SWITCH}"}}'
    assert ops[1] == SaiOp.create(T.NEIGHBOR_ENTRY, key,
                                  ("SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS", "FF:FF:FF:FF:FF:FF"))
    removal = intf.address_ops(vlan_rif, ipaddress.ip_interface("20.0.0.8/29"), CPU, SWITCH, add=False)
    assert [op.kind.value for op in removal] == ["remove", "remove"] and removal[0].object_type is T.NEIGHBOR_ENTRY
    v6 = intf.address_ops(port_rif, ipaddress.ip_interface("fc00::1/126"), CPU, SWITCH, add=True)
    assert '"dest":"fc00::1/128"' in v6[0].object_id and len(v6) == 1


def test_updates_change_mac_and_sub_port_mtu_and_admin():
    rif = RouterIntf("Ethernet8.10", "oid:0x6000000000001", "", VR, intf.SUB_PORT, "Ethernet8", MAC, 9100, True, True)
    entry = intf.IntfEntry("Ethernet8.10", mac="00:11:22:33:44:55", mtu=1500, admin_up=False, vlan=10)
    assert intf.update_ops(entry, rif, 9100, MAC) == [
        SaiOp.set(T.ROUTER_INTERFACE, rif.oid, R + "SRC_MAC_ADDRESS", "00:11:22:33:44:55"),
        SaiOp.set(T.ROUTER_INTERFACE, rif.oid, R + "MTU", "1500"),
        SaiOp.set(T.ROUTER_INTERFACE, rif.oid, R + "ADMIN_V4_STATE", "false"),
        SaiOp.set(T.ROUTER_INTERFACE, rif.oid, R + "ADMIN_V6_STATE", "false")]
    assert intf.update_ops(intf.IntfEntry("Ethernet8.10", vlan=10), rif, 9100, MAC) == []


def test_loopback_action_and_mpls_are_create_attributes_in_intfsorch_order():
    port = Interface("Ethernet8", Kind.PORT, "oid:0x1000000000011", mtu=9100)
    entry = intf.parse("Ethernet8", (("loopback_action", "drop"), ("mpls", "enable")))
    assert intf.rif_attrs(entry, port, VR, MAC)[1] == [
        (R + "VIRTUAL_ROUTER_ID", VR), (R + "LOOPBACK_PACKET_ACTION", "SAI_PACKET_ACTION_DROP"),
        (R + "SRC_MAC_ADDRESS", MAC), (R + "TYPE", "SAI_ROUTER_INTERFACE_TYPE_PORT"),
        (R + "PORT_ID", "oid:0x1000000000011"), (R + "MTU", "9100"), (R + "ADMIN_MPLS_STATE", "true")]
    assert intf.parse("Ethernet8", (("loopback_action", "forward"),)).loopback_action == "SAI_PACKET_ACTION_FORWARD"
    unknown = intf.parse("Ethernet8", (("loopback_action", "trap"), ("mpls", "disable")))
    assert len(intf.rif_attrs(unknown, port, VR, MAC)[1]) == 5


def test_updates_set_loopback_action_and_mpls_only_when_they_change():
    rif = RouterIntf("Ethernet8", "oid:0x6000000000001", "", VR, "SAI_ROUTER_INTERFACE_TYPE_PORT", "Ethernet8", MAC,
                     9100)
    drop = intf.parse("Ethernet8", (("loopback_action", "drop"), ("mpls", "enable")))
    assert intf.update_ops(drop, rif, 9100, MAC) == [
        SaiOp.set(T.ROUTER_INTERFACE, rif.oid, R + "ADMIN_MPLS_STATE", "true"),
        SaiOp.set(T.ROUTER_INTERFACE, rif.oid, R + "LOOPBACK_PACKET_ACTION", "SAI_PACKET_ACTION_DROP")]
    rif.loopback_action, rif.mpls = "SAI_PACKET_ACTION_DROP", True
    assert intf.update_ops(drop, rif, 9100, MAC) == []
    # a row without the field leaves the action alone; mpls absent = disabled
    assert intf.update_ops(intf.IntfEntry("Ethernet8"), rif, 9100, MAC) == [
        SaiOp.set(T.ROUTER_INTERFACE, rif.oid, R + "ADMIN_MPLS_STATE", "false")]


def test_proxy_arp_sets_the_vlan_flood_control_types():
    vlan_rif = RouterIntf("Vlan2", "oid:0x6000000000002", "", VR, "SAI_ROUTER_INTERFACE_TYPE_VLAN", "Vlan2")
    vlan = "oid:0x26000000000007"
    none = "SAI_VLAN_FLOOD_CONTROL_TYPE_NONE"
    assert intf.proxy_arp_ops(vlan_rif, vlan, True) == [
        SaiOp.set(T.VLAN, vlan, "SAI_VLAN_ATTR_BROADCAST_FLOOD_CONTROL_TYPE", none),
        SaiOp.set(T.VLAN, vlan, "SAI_VLAN_ATTR_UNKNOWN_MULTICAST_FLOOD_CONTROL_TYPE", none)]
    assert intf.proxy_arp_ops(vlan_rif, vlan, False) == []
    vlan_rif.proxy_arp = True
    flood = [op.attrs[0][1] for op in intf.proxy_arp_ops(vlan_rif, vlan, False)]
    assert flood == ["SAI_VLAN_FLOOD_CONTROL_TYPE_ALL"] * 2
    port_rif = RouterIntf("Ethernet8", "oid:0x6000000000001", "", VR, "SAI_ROUTER_INTERFACE_TYPE_PORT")
    assert intf.proxy_arp_ops(port_rif, "oid:0x1", True) == []
