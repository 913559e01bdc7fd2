"""VRFOrch's pure parts: VRF_TABLE fields -> virtual router attributes, create vs. changed-attribute SETs."""

from __future__ import annotations

import pytest

from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.core.l3 import InvalidEntry, Vrf
from orchagent.orchs import vrf


def test_fields_become_virtual_router_attributes():
    entry = vrf.parse("Vrf_red", (("v4", "true"), ("v6", "false"), ("src_mac", "00:aa:bb:cc:dd:ee"),
                                  ("ttl_action", "trap"), ("ip_opt_action", "drop"), ("l3_mc_action", "forward"),
                                  ("vni", "100"), ("fallback", "true")))
    assert entry == vrf.VrfEntry("Vrf_red", (
        ("SAI_VIRTUAL_ROUTER_ATTR_ADMIN_V4_STATE", "true"),
        ("SAI_VIRTUAL_ROUTER_ATTR_ADMIN_V6_STATE", "false"),
        ("SAI_VIRTUAL_ROUTER_ATTR_SRC_MAC_ADDRESS", "00:AA:BB:CC:DD:EE"),
        ("SAI_VIRTUAL_ROUTER_ATTR_VIOLATION_TTL1_PACKET_ACTION", "SAI_PACKET_ACTION_TRAP"),
        ("SAI_VIRTUAL_ROUTER_ATTR_VIOLATION_IP_OPTIONS_PACKET_ACTION", "SAI_PACKET_ACTION_DROP"),
        ("SAI_VIRTUAL_ROUTER_ATTR_UNKNOWN_L3_MULTICAST_PACKET_ACTION", "SAI_PACKET_ACTION_FORWARD"),
    ), vni=100)


def test_placeholder_row_creates_a_bare_virtual_router():
    entry = vrf.parse("Vrf_0", (("NULL", "NULL"),))
    assert vrf.plan(entry, None, "oid:0x3000000000010") == [SaiOp.create(T.VIRTUAL_ROUTER, "oid:0x3000000000010")]


@pytest.mark.parametrize("fvs", [(("v4", "yes"),), (("ttl_action", "explode"),), (("src_mac", "zz"),),
                                 (("vni", "x"),), (("colour", "red"),)])
def test_bad_rows_are_invalid(fvs):
    with pytest.raises(InvalidEntry):
        vrf.parse("Vrf_0", fvs)


def test_update_sets_only_changed_attributes():
    current = Vrf("Vrf_0", "oid:0x3000000000010", {"SAI_VIRTUAL_ROUTER_ATTR_ADMIN_V4_STATE": "true"})
    entry = vrf.parse("Vrf_0", (("v4", "true"), ("v6", "false")))
    assert vrf.plan(entry, current, current.oid) == [
        SaiOp.set(T.VIRTUAL_ROUTER, current.oid, "SAI_VIRTUAL_ROUTER_ATTR_ADMIN_V6_STATE", "false")]
