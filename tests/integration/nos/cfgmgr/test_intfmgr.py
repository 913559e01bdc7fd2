"""The interface manager against real Redis: exact APPL/STATE rows, retries, connected routes.

(Named test_intfmgr.py: tests/unit/nos/cfgmgr/test_intf.py owns the basename test_intf.)
APPL_DB ConsumerStateTables stand in for orchagent and pop INTF_TABLE / ROUTE_TABLE into their rows.
"""

from __future__ import annotations

import pytest

from nos.cfgmgr.intf import IntfMgr
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector, ConsumerStateTable
from tests.conftest import wait_until

pytestmark = pytest.mark.integration

ZERO_MAC = "00:00:00:00:00:00"


class Switch:
    """The manager in a strict runner, plus the orchagent stand-ins and handy DB handles."""

    def __init__(self, dbs, raw):
        self.cdb = ConfigDBConnector(dbs["CONFIG_DB"])
        self.appl, self.state = raw(0), raw(6)
        self.orch = [ConsumerStateTable(dbs["APPL_DB"], t) for t in ("INTF_TABLE", "ROUTE_TABLE")]
        self.runner = Runner("cfgmgrd", strict=True, retry_interval=0.05)
        IntfMgr(dbs).register(dbs, self.runner)

    def step(self):
        self.runner.step(max_wait=0.02)
        for consumer in self.orch:
            while consumer.pops():
                pass

    def settle(self, until, timeout=5.0):
        def check():
            self.step()
            return until()
        wait_until(check, timeout)

    def quiet(self, steps=10):
        for _ in range(steps):
            self.step()

    def ready(self, table, name):
        self.state.hset(f"{table}|{name}", "state", "ok")

    def subkeys(self, table, prefix):
        cut = len(f"{table}:{prefix}:")
        return sorted(k[cut:] for k in self.appl.keys(f"{table}:{prefix}:*"))


@pytest.fixture
def sw(dbs, raw):
    return Switch(dbs, raw)


def test_port_interface_with_an_ipv4_address(sw):  # ROUTE-001
    sw.ready("PORT_TABLE", "Ethernet8")
    sw.cdb.set_entry("INTERFACE", "Ethernet8", {})
    sw.cdb.set_entry("INTERFACE", "Ethernet8|10.0.0.4/31", {})
    sw.settle(lambda: sw.appl.exists("ROUTE_TABLE:10.0.0.4/31"))
    assert sw.appl.hgetall("INTF_TABLE:Ethernet8") == {"NULL": "NULL", "mac_addr": ZERO_MAC}
    assert sw.subkeys("INTF_TABLE", "Ethernet8") == ["10.0.0.4/31"]
    assert sw.appl.hgetall("INTF_TABLE:Ethernet8:10.0.0.4/31") == {"scope": "global", "family": "IPv4"}
    assert sw.state.hgetall("INTERFACE_TABLE|Ethernet8") == {"vrf": "", "state": "ok"}
    assert sw.state.hgetall("INTERFACE_TABLE|Ethernet8|10.0.0.4/31") == {"state": "ok"}
    assert sw.appl.hgetall("ROUTE_TABLE:10.0.0.4/31") == {
        "nexthop": "0.0.0.0", "ifname": "Ethernet8", "protocol": "kernel"}

    sw.cdb.set_entry("INTERFACE", "Ethernet8|10.0.0.4/31", None)
    sw.cdb.set_entry("INTERFACE", "Ethernet8", None)
    sw.settle(lambda: not sw.appl.exists("INTF_TABLE:Ethernet8"))
    assert sw.subkeys("INTF_TABLE", "Ethernet8") == []
    assert not sw.appl.exists("ROUTE_TABLE:10.0.0.4/31")
    assert sw.state.keys("INTERFACE_TABLE|*") == []


def test_the_interface_waits_for_its_port_and_the_address_for_the_interface(sw):
    sw.cdb.set_entry("INTERFACE", "Ethernet16|20.0.0.8/29", {})
    sw.cdb.set_entry("INTERFACE", "Ethernet16", {})
    sw.quiet()
    assert sw.appl.keys("INTF_TABLE:*") == [] and sw.state.keys("INTERFACE_TABLE|*") == []
    assert sw.appl.keys("ROUTE_TABLE:*") == []
    sw.ready("PORT_TABLE", "Ethernet16")
    sw.settle(lambda: sw.appl.exists("INTF_TABLE:Ethernet16:20.0.0.8/29"))
    assert sw.appl.hgetall("ROUTE_TABLE:20.0.0.8/29")["ifname"] == "Ethernet16"


def test_deleting_an_interface_waits_for_its_addresses(sw):
    sw.ready("PORT_TABLE", "Ethernet8")
    sw.cdb.set_entry("INTERFACE", "Ethernet8", {})
    sw.cdb.set_entry("INTERFACE", "Ethernet8|10.0.0.4/31", {})
    sw.settle(lambda: sw.appl.exists("INTF_TABLE:Ethernet8:10.0.0.4/31"))
    sw.cdb.set_entry("INTERFACE", "Ethernet8", None)
    sw.quiet()
    assert sw.appl.exists("INTF_TABLE:Ethernet8")
    assert sw.state.exists("INTERFACE_TABLE|Ethernet8")
    sw.cdb.set_entry("INTERFACE", "Ethernet8|10.0.0.4/31", None)
    sw.settle(lambda: not sw.appl.exists("INTF_TABLE:Ethernet8"))
    assert not sw.state.exists("INTERFACE_TABLE|Ethernet8")


def test_vlan_interface_with_ipv4_and_ipv6(sw):  # VLAN-009
    sw.cdb.set_entry("VLAN_INTERFACE", "Vlan2", {})
    sw.cdb.set_entry("VLAN_INTERFACE", "Vlan2|20.0.0.8/29", {})
    sw.cdb.set_entry("VLAN_INTERFACE", "Vlan2|fc00::1/126", {})
    sw.quiet()
    assert sw.appl.keys("INTF_TABLE:*") == []
    sw.ready("VLAN_TABLE", "Vlan2")
    sw.settle(lambda: sw.appl.exists("ROUTE_TABLE:fc00::/126"))
    assert sw.subkeys("INTF_TABLE", "Vlan2") == ["20.0.0.8/29", "fc00::1/126"]
    assert sw.appl.hgetall("INTF_TABLE:Vlan2:fc00::1/126") == {"scope": "global", "family": "IPv6"}
    assert sw.state.hgetall("INTERFACE_TABLE|Vlan2|fc00::1/126") == {"state": "ok"}
    assert sw.appl.hgetall("ROUTE_TABLE:fc00::/126") == {"nexthop": "::", "ifname": "Vlan2", "protocol": "kernel"}
    assert sw.appl.hgetall("ROUTE_TABLE:20.0.0.8/29") == {
        "nexthop": "0.0.0.0", "ifname": "Vlan2", "protocol": "kernel"}
    sw.cdb.set_entry("VLAN_INTERFACE", "Vlan2|fc00::1/126", None)
    sw.settle(lambda: not sw.appl.exists("ROUTE_TABLE:fc00::/126"))
    assert not sw.appl.exists("INTF_TABLE:Vlan2:fc00::1/126")
    assert sw.appl.exists("ROUTE_TABLE:20.0.0.8/29")


def test_interface_in_a_vrf(sw):  # ROUTE-004
    sw.ready("PORT_TABLE", "Ethernet8")
    sw.cdb.set_entry("INTERFACE", "Ethernet8", {"vrf_name": "Vrf_0"})
    sw.cdb.set_entry("INTERFACE", "Ethernet8|10.0.0.4/31", {})
    sw.quiet()
    assert sw.appl.keys("INTF_TABLE:*") == []  # the VRF is not ready
    sw.ready("VRF_TABLE", "Vrf_0")
    sw.settle(lambda: sw.appl.exists("ROUTE_TABLE:Vrf_0:10.0.0.4/31"))
    assert sw.appl.hgetall("INTF_TABLE:Ethernet8") == {"vrf_name": "Vrf_0", "mac_addr": ZERO_MAC}
    assert sw.appl.hgetall("INTF_TABLE:Ethernet8:10.0.0.4/31") == {"scope": "global", "family": "IPv4"}
    assert sw.state.hgetall("INTERFACE_TABLE|Ethernet8") == {"vrf": "Vrf_0", "state": "ok"}
    assert sw.appl.hgetall("ROUTE_TABLE:Vrf_0:10.0.0.4/31") == {
        "nexthop": "0.0.0.0", "ifname": "Ethernet8", "protocol": "kernel"}
    assert not sw.appl.exists("ROUTE_TABLE:10.0.0.4/31")
    # moving the interface to another VRF directly is refused, as intfmgrd does
    sw.ready("VRF_TABLE", "Vrf_1")
    sw.cdb.mod_entry("INTERFACE", "Ethernet8", {"vrf_name": "Vrf_1"})
    sw.quiet()
    assert sw.appl.hget("INTF_TABLE:Ethernet8", "vrf_name") == "Vrf_0"
    sw.cdb.set_entry("INTERFACE", "Ethernet8|10.0.0.4/31", None)
    sw.cdb.set_entry("INTERFACE", "Ethernet8", None)
    sw.settle(lambda: not sw.appl.exists("ROUTE_TABLE:Vrf_0:10.0.0.4/31") and not sw.appl.keys("INTF_TABLE:*"))


def test_portchannel_interface_waits_for_the_lag(sw):
    sw.cdb.set_entry("PORTCHANNEL_INTERFACE", "PortChannel002", {})
    sw.cdb.set_entry("PORTCHANNEL_INTERFACE", "PortChannel002|40.0.0.8/29", {})
    sw.quiet()
    assert sw.appl.keys("INTF_TABLE:*") == []
    sw.ready("LAG_TABLE", "PortChannel002")
    sw.settle(lambda: sw.appl.exists("ROUTE_TABLE:40.0.0.8/29"))
    assert sw.appl.hgetall("INTF_TABLE:PortChannel002:40.0.0.8/29") == {"scope": "global", "family": "IPv4"}


def test_loopback_needs_no_device_and_gets_no_connected_route(sw):
    sw.cdb.set_entry("LOOPBACK_INTERFACE", "Loopback0", {})
    sw.cdb.set_entry("LOOPBACK_INTERFACE", "Loopback0|10.1.0.32/32", {})
    sw.settle(lambda: sw.appl.exists("INTF_TABLE:Loopback0:10.1.0.32/32"))
    assert sw.appl.hgetall("INTF_TABLE:Loopback0") == {"NULL": "NULL", "mac_addr": ZERO_MAC}
    assert sw.state.hgetall("INTERFACE_TABLE|Loopback0") == {"vrf": "", "state": "ok"}
    assert sw.state.hgetall("INTERFACE_TABLE|Loopback0|10.1.0.32/32") == {"state": "ok"}
    sw.quiet()
    assert sw.appl.keys("ROUTE_TABLE:*") == []


def test_sub_interface(sw):
    sw.cdb.set_entry("VLAN_SUB_INTERFACE", "Ethernet0.10", {"vlan": "10"})
    sw.cdb.set_entry("VLAN_SUB_INTERFACE", "Ethernet0.10|10.2.0.0/31", {})
    sw.quiet()
    assert sw.appl.keys("INTF_TABLE:*") == []
    sw.ready("PORT_TABLE", "Ethernet0")
    sw.settle(lambda: sw.appl.exists("ROUTE_TABLE:10.2.0.0/31"))
    assert sw.appl.hgetall("INTF_TABLE:Ethernet0.10") == {
        "vlan": "10", "mtu": "0", "admin_status": "up", "mac_addr": ZERO_MAC}
    assert sw.state.hgetall("PORT_TABLE|Ethernet0.10") == {"state": "ok"}
    assert sw.appl.hget("ROUTE_TABLE:10.2.0.0/31", "ifname") == "Ethernet0.10"
    sw.cdb.set_entry("VLAN_SUB_INTERFACE", "Ethernet0.10|10.2.0.0/31", None)
    sw.cdb.set_entry("VLAN_SUB_INTERFACE", "Ethernet0.10", None)
    sw.settle(lambda: not sw.state.exists("PORT_TABLE|Ethernet0.10"))
    assert not sw.appl.exists("INTF_TABLE:Ethernet0.10")


def test_two_addresses_in_one_subnet_share_the_route(sw):
    sw.ready("VLAN_TABLE", "Vlan100")
    sw.cdb.set_entry("VLAN_INTERFACE", "Vlan100", {})
    sw.cdb.set_entry("VLAN_INTERFACE", "Vlan100|192.168.0.1/24", {})
    sw.cdb.set_entry("VLAN_INTERFACE", "Vlan100|192.168.0.2/24", {})
    sw.settle(lambda: len(sw.subkeys("INTF_TABLE", "Vlan100")) == 2)
    sw.cdb.set_entry("VLAN_INTERFACE", "Vlan100|192.168.0.1/24", None)
    sw.settle(lambda: sw.subkeys("INTF_TABLE", "Vlan100") == ["192.168.0.2/24"])
    assert sw.appl.hgetall("ROUTE_TABLE:192.168.0.0/24") == {
        "nexthop": "0.0.0.0", "ifname": "Vlan100", "protocol": "kernel"}
    sw.cdb.set_entry("VLAN_INTERFACE", "Vlan100|192.168.0.2/24", None)
    sw.settle(lambda: not sw.appl.exists("ROUTE_TABLE:192.168.0.0/24"))


def test_a_bad_key_or_prefix_is_refused_without_raising(sw):
    sw.ready("PORT_TABLE", "Ethernet8")
    sw.cdb.set_entry("INTERFACE", "Ethernet8", {})
    sw.cdb.set_entry("INTERFACE", "Ethernet8|10.0.0.300/31", {})
    sw.cdb.set_entry("INTERFACE", "Ethernet8|10.0.0.0/31|x", {})
    sw.settle(lambda: sw.appl.exists("INTF_TABLE:Ethernet8"))
    sw.quiet()
    assert sw.subkeys("INTF_TABLE", "Ethernet8") == []
