"""The ports check ``nos up`` waits for, on a real Redis: its quick form (the boot's rounds) answers
from PortInitDone alone until orchagent writes it, then reads every port as the full form does."""

from __future__ import annotations

import pytest

from nos.runtime.convergence import ports_check

pytestmark = pytest.mark.integration

PORT_OID = "oid:0x1000000000002"


def test_quick_before_port_init_done_then_the_same_verdict_as_the_full_check(dbs, raw):
    appl, asic, counters = raw(0), raw(1), raw(2)
    appl.hset("PORT_TABLE:Ethernet0", mapping={"lanes": "0,1,2,3", "admin_status": "up"})
    quick, full = ports_check(dbs, quick=True), ports_check(dbs)
    assert not quick.ok and quick.waiting and quick.detail == "PortInitDone not yet written"
    assert not full.ok and full.waiting and full.detail.startswith("0 of 1 APPL_DB ports in the ASIC")
    asic.hset(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{PORT_OID}", "SAI_PORT_ATTR_HW_LANE_LIST", "4:0,1,2,3")
    asic.hset("NOS_SYNCD_OBJECT_COUNTS", "SAI_OBJECT_TYPE_PORT", "2")  # and the CPU port
    counters.hset("COUNTERS_PORT_NAME_MAP", "Ethernet0", PORT_OID)
    appl.hset("PORT_TABLE:PortInitDone", "lanes", "0")
    quick, full = ports_check(dbs, quick=True), ports_check(dbs)
    assert quick == full and full.ok, full
    assert full.detail == "1 of 1 APPL_DB ports in the ASIC with their lanes, PortInitDone"
