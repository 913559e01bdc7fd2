"""A port's link (syncd_sim.links, AsicBehaviour): oper = admin and carrier, the carrier rows by port
name, the name a port gets from its host interface, rows for ports that come later, and the compiled
tables' view of it (pure: plain data and an object store, no Redis)."""

from __future__ import annotations

import pytest

from fastpath.trace import trace
from nos.sai.types import ObjectType as T
from syncd_sim.compile import compile_store
from syncd_sim.errors import BadLinkRow
from syncd_sim.links import DOWN, UP, Carriers, names_by_first_lane, oper_status, parse_carrier, port_names
from syncd_sim.platform import Platform, load_platform
from tests.unit.syncd_sim.compile.switchkit import SWITCH_MAC, SwitchKit

NETDEV = "SAI_HOSTIF_TYPE_NETDEV"


@pytest.mark.parametrize(("admin", "carrier", "oper"), [
    (True, True, UP), (True, False, DOWN), (False, True, DOWN), (False, False, DOWN)])
def test_a_port_is_oper_up_when_admin_up_and_its_carrier_is_up(admin: bool, carrier: bool, oper: str) -> None:
    assert oper_status(admin, carrier) == oper


def test_a_carrier_row_says_up_or_down_and_anything_else_is_named_as_wrong() -> None:
    assert parse_carrier("Ethernet0", {"carrier": "up", "peer": "spine1:Ethernet0"}) is True
    assert parse_carrier("Ethernet0", {"carrier": "down"}) is False
    with pytest.raises(BadLinkRow, match=r"NOS_LINK_TABLE\|Ethernet8: carrier must be up or down, not 'UP'"):
        parse_carrier("Ethernet8", {"carrier": "UP"})
    with pytest.raises(BadLinkRow, match=r"NOS_LINK_TABLE\|Ethernet8 has no carrier field"):
        parse_carrier("Ethernet8", {"peer": "host:h1-1"})


def test_netdev_host_interfaces_name_their_ports_and_other_host_interfaces_do_not() -> None:
    hostifs = [
        {"SAI_HOSTIF_ATTR_TYPE": NETDEV, "SAI_HOSTIF_ATTR_OBJ_ID": "oid:0x1", "SAI_HOSTIF_ATTR_NAME": "Ethernet0"},
        {"SAI_HOSTIF_ATTR_TYPE": NETDEV, "SAI_HOSTIF_ATTR_OBJ_ID": "oid:0x2", "SAI_HOSTIF_ATTR_NAME": "Ethernet4"},
        {"SAI_HOSTIF_ATTR_TYPE": "SAI_HOSTIF_TYPE_GENETLINK", "SAI_HOSTIF_ATTR_NAME": "psample"},
        {"SAI_HOSTIF_ATTR_TYPE": NETDEV, "SAI_HOSTIF_ATTR_OBJ_ID": "oid:0x3"},  # no name: names nothing
    ]
    assert port_names(hostifs) == {"oid:0x1": "Ethernet0", "oid:0x2": "Ethernet4"}


def test_carriers_are_up_unless_a_row_says_down_and_a_deleted_row_is_up() -> None:
    carriers = Carriers()
    assert carriers.up("Ethernet0") and carriers.up(None)
    assert carriers.update("Ethernet0", False) is True
    assert not carriers.up("Ethernet0") and carriers.up("Ethernet4")
    assert carriers.update("Ethernet0", False) is False  # the same again changes nothing
    assert carriers.update("Ethernet0", True) is True and carriers.up("Ethernet0")


def kit_with_dark(names: set[str], n_ports: int = 2) -> SwitchKit:
    """A switch built after the lab's rows said ``names`` have no light (the rows came first)."""
    return SwitchKit(n_ports=n_ports, carriers=Carriers(set(names)))


def test_a_skus_lanes_name_the_ports_that_start_on_them_in_every_breakout_mode() -> None:
    names = names_by_first_lane({"Ethernet0": [25, 26, 27, 28], "Ethernet4": [29, 30, 31, 32], "eth0": [99]})
    assert names[25] == "Ethernet0" and names[29] == "Ethernet4"
    assert (names[27], names[28]) == ("Ethernet2", "Ethernet3")  # 2x / 4x breakout children
    assert 99 not in names  # not a front-panel cage: named by its host interface only
    sku = load_platform("NOS-SIM-128x400G")
    assert (sku.lane_names[248], sku.lane_names[250]) == ("Ethernet248", "Ethernet250")
    assert load_platform("no-such-sku").lane_names == {}


def test_with_the_skus_lane_names_a_dark_port_is_never_up_not_even_before_its_host_interface() -> None:
    lanes = names_by_first_lane({"Ethernet0": [0, 1, 2, 3], "Ethernet4": [4, 5, 6, 7]})
    platform = Platform("test", lane_speed_mbps=100000, lane_names=lanes)
    carriers = Carriers({"Ethernet4"})
    kit = SwitchKit(n_ports=2, carriers=carriers, platform=platform)
    assert (oper(kit, kit.ports[0]), oper(kit, kit.ports[1])) == (UP, DOWN)
    assert kit.behaviour.oper_changes == [(kit.ports[0], UP)]  # no up-then-down flap of Ethernet4


def oper(kit: SwitchKit, port: str) -> str:
    out = kit.store.get(T.PORT, port, ["SAI_PORT_ATTR_OPER_STATUS"])
    assert out.ok, out.reason
    return out.values["SAI_PORT_ATTR_OPER_STATUS"]


def test_a_row_written_before_the_port_exists_applies_once_its_host_interface_names_it() -> None:
    kit = kit_with_dark({"Ethernet4", "Ethernet999"})  # Ethernet999: no such port, kept, harmless
    assert kit.behaviour.names == {kit.ports[0]: "Ethernet0", kit.ports[1]: "Ethernet4"}
    assert (oper(kit, kit.ports[0]), oper(kit, kit.ports[1])) == (UP, DOWN)
    # (ports made last to first) created admin up, Ethernet4 was up until its host interface named it
    assert kit.behaviour.oper_changes == [(kit.ports[1], UP), (kit.ports[1], DOWN), (kit.ports[0], UP)]


def test_carrier_changes_move_oper_status_and_are_notified_and_admin_still_counts() -> None:
    kit = SwitchKit(n_ports=2)
    port = kit.ports[1]
    kit.behaviour.oper_changes.clear()
    kit.behaviour.carriers.update("Ethernet4", False)
    assert kit.behaviour.carrier_changed(kit.store, "Ethernet4") is True
    assert oper(kit, port) == DOWN and kit.behaviour.oper_changes == [(port, DOWN)]
    kit.set(T.PORT, port, "SAI_PORT_ATTR_ADMIN_STATE", "false")
    kit.set(T.PORT, port, "SAI_PORT_ATTR_ADMIN_STATE", "true")  # admin up, but still no light
    assert oper(kit, port) == DOWN and kit.behaviour.oper_changes == [(port, DOWN)]
    kit.behaviour.carriers.update("Ethernet4", True)
    assert kit.behaviour.carrier_changed(kit.store, "Ethernet4") is True
    assert oper(kit, port) == UP and kit.behaviour.oper_changes[-1] == (port, UP)
    kit.behaviour.carriers.update("Ethernet12", False)  # no port of that name: nothing changes
    assert kit.behaviour.carrier_changed(kit.store, "Ethernet12") is False


def test_a_removed_port_forgets_its_name_and_a_new_port_of_that_name_takes_the_row() -> None:
    kit = kit_with_dark({"Ethernet4"})
    old = kit.ports[1]
    hostif = next(oid for oid, h in kit.store.of_type(T.HOSTIF).items()
                  if h.attrs["SAI_HOSTIF_ATTR_OBJ_ID"] == old)
    kit.remove(T.HOSTIF, hostif)
    kit.remove(T.PORT, old)
    kit.behaviour.forget_port(old)
    assert old not in kit.behaviour.names
    new = kit.create(T.PORT, ("SAI_PORT_ATTR_HW_LANE_LIST", "4:4,5,6,7"), ("SAI_PORT_ATTR_SPEED", "400000"),
                     ("SAI_PORT_ATTR_ADMIN_STATE", "true"))
    assert oper(kit, new) == UP  # no name yet
    kit.create(T.HOSTIF, ("SAI_HOSTIF_ATTR_TYPE", NETDEV), ("SAI_HOSTIF_ATTR_OBJ_ID", new),
               ("SAI_HOSTIF_ATTR_NAME", "Ethernet4"))
    assert oper(kit, new) == DOWN and kit.behaviour.oper_changes[-1] == (new, DOWN)


def test_the_compiled_tables_take_the_oper_status_and_drop_what_leaves_by_a_dark_port() -> None:
    kit = SwitchKit(n_ports=2)
    kit.rif_port(kit.ports[0])
    rif = kit.rif_port(kit.ports[1])
    kit.route("10.9.0.0/16", kit.neighbor(rif, "10.0.1.2", "02:00:00:00:01:02"))
    packet = {"in_port": "Ethernet0", "dst_ip": "10.9.0.1", "dst_mac": SWITCH_MAC}
    before = compile_store(kit.store, version=1)
    assert before.ports.oper_up.tolist() == [True, True]
    assert trace(before, packet)["result"]["egress_port"] == "Ethernet4"
    kit.behaviour.carriers.update("Ethernet4", False)
    kit.behaviour.carrier_changed(kit.store, "Ethernet4")
    after = compile_store(kit.store, version=2)
    assert after.ports.admin_up.tolist() == [True, True] and after.ports.oper_up.tolist() == [True, False]
    assert trace(after, packet)["result"]["drop_reason"] == "egress_port_down"
