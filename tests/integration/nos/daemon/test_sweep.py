"""A restarted producer sweeps the APPL_DB rows its predecessor wrote and nobody asks for now."""

from __future__ import annotations

import pytest

from nos.daemon.sweep import start_tracking, sweep
from nos.db import ConsumerStateTable, ProducerStateTable

pytestmark = pytest.mark.integration


def test_rows_not_written_again_are_deleted_and_others_kept(dbs, raw):
    appl = raw(0)
    before = ProducerStateTable(dbs["APPL_DB"], "VLAN_TABLE")
    before.set("Vlan10", {"mtu": "9100"})
    before.set("Vlan20", {"mtu": "9100"})
    ConsumerStateTable(dbs["APPL_DB"], "VLAN_TABLE").pops()  # applied: VLAN_TABLE:Vlan10, :Vlan20
    before.set("Vlan30", {"mtu": "9100"})  # still pending when the predecessor died
    routes = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE")
    routes.set("10.0.0.0/31", {"ifname": "Ethernet0", "protocol": "kernel"})
    routes.set("100.0.0.0/24", {"nexthop": "10.0.0.1", "protocol": "bgp"})

    start_tracking(dbs["APPL_DB"])  # the restarted daemon
    vlans = ProducerStateTable(dbs["APPL_DB"], "VLAN_TABLE")
    vlans.set("Vlan10", {"mtu": "9000"})
    mine = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE")
    mine.set("10.0.2.0/31", {"ifname": "Ethernet8", "protocol": "kernel"})
    deleted = sweep(dbs["APPL_DB"], {"ROUTE_TABLE": lambda key, row: row.get("protocol") == "kernel"})

    assert deleted == {"VLAN_TABLE": 2, "ROUTE_TABLE": 1}
    assert appl.smembers("VLAN_TABLE_DEL_SET") == {"Vlan20", "Vlan30"}
    assert appl.smembers("ROUTE_TABLE_DEL_SET") == {"10.0.0.0/31"}  # the BGP route is not cfgmgrd's
    popped = {(t.key, t.op) for t in ConsumerStateTable(dbs["APPL_DB"], "VLAN_TABLE").pops()}
    assert popped == {("Vlan10", "SET"), ("Vlan20", "DEL"), ("Vlan30", "DEL")}
    assert vlans.written is None and not dbs["APPL_DB"].tracking  # tracking ends with the sweep
