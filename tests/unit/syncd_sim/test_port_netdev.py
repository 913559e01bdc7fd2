"""The simulated kernel's netdev fields and the SKU's port speeds (pure)."""

from __future__ import annotations

from syncd_sim.platform import Platform, load_platform
from syncd_sim.syncd import netdev_link


def test_the_netdev_has_the_ports_admin_state_and_mtu_without_the_overhead():
    assert netdev_link({"SAI_PORT_ATTR_ADMIN_STATE": "true", "SAI_PORT_ATTR_MTU": "9122"}) == {
        "admin_status": "up", "mtu": "9100"}
    assert netdev_link({"SAI_PORT_ATTR_ADMIN_STATE": "false"}) == {"admin_status": "down"}
    assert netdev_link({"SAI_PORT_ATTR_SPEED": "100000"}) == {}


def test_the_vs_sku_offers_100m_and_1g_as_sonics_vs_tests_use_them():
    vs = load_platform("Force10-S6000")
    assert vs.supported_speeds(4) == [100, 1000, 10000, 25000, 40000, 50000, 100000]
    assert vs.supported_speeds(1) == [100, 1000, 10000, 25000]


def test_a_sku_without_a_speed_list_gets_the_standard_speeds_its_lanes_carry():
    assert Platform("generic", lane_speed_mbps=100000).supported_speeds(4)[-1] == 400000
    assert 100 not in Platform("generic").supported_speeds(4)
