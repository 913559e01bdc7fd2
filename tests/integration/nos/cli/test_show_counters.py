"""``nos show interfaces counters``, ``queue``, ``priority-group``, ``pfc``, ``mac`` and
``runningconfiguration`` against a real Redis, with COUNTERS_DB / ASIC_DB written as orchagent and syncd
write them (name maps, ``COUNTERS:<oid>``, ``RATES:<oid>``, ``USER_WATERMARKS:<oid>``)."""

from __future__ import annotations

import json

import pytest

from nos.db import ConfigDBConnector, Table
from tests.integration.nos.cli.conftest import nos

pytestmark = pytest.mark.integration

PORTS = {"Ethernet0": "oid:0x1000000000002", "Ethernet4": "oid:0x1000000000003"}


def _queue_oid(port: int, index: int) -> str:
    return f"oid:0x15000000000{port:02d}{index}"


def _pg_oid(port: int, index: int) -> str:
    return f"oid:0x1a000000000{port:02d}{index}"


@pytest.fixture
def counters(dbs, raw):
    """Two ports with 3 queues and 3 PGs each, as orchagent's port orch publishes them; Ethernet0 has stats."""
    c = raw(2)
    c.hset("COUNTERS_PORT_NAME_MAP", mapping=PORTS)
    for port, name in ((0, "Ethernet0"), (4, "Ethernet4")):
        for i in range(3):
            queue, pg = _queue_oid(port, i), _pg_oid(port, i)
            c.hset("COUNTERS_QUEUE_NAME_MAP", f"{name}:{i}", queue)
            c.hset("COUNTERS_QUEUE_PORT_MAP", queue, PORTS[name])
            c.hset("COUNTERS_QUEUE_INDEX_MAP", queue, str(i))
            c.hset("COUNTERS_QUEUE_TYPE_MAP", queue, "SAI_QUEUE_TYPE_UNICAST")
            c.hset("COUNTERS_PG_NAME_MAP", f"{name}:{i}", pg)
            c.hset("COUNTERS_PG_PORT_MAP", pg, PORTS[name])
            c.hset("COUNTERS_PG_INDEX_MAP", pg, str(i))
    stats = {f"SAI_PORT_STAT_{s}": "0" for s in (
        "IF_IN_UCAST_PKTS", "IF_IN_NON_UCAST_PKTS", "IF_IN_ERRORS", "IF_IN_DISCARDS", "ETHER_RX_OVERSIZE_PKTS",
        "IF_OUT_UCAST_PKTS", "IF_OUT_NON_UCAST_PKTS", "IF_OUT_ERRORS", "IF_OUT_DISCARDS", "ETHER_TX_OVERSIZE_PKTS")}
    stats.update({f"SAI_PORT_STAT_PFC_{n}_{d}_PKTS": "0" for n in range(8) for d in ("RX", "TX")})
    stats["SAI_PORT_STAT_IF_IN_UCAST_PKTS"] = "1234567"
    stats["SAI_PORT_STAT_PFC_3_RX_PKTS"] = "4321"
    c.hset(f"COUNTERS:{PORTS['Ethernet0']}", mapping=stats)
    c.hset(f"RATES:{PORTS['Ethernet0']}", mapping={"RX_BPS": "50000000000", "RX_PPS": "20", "TX_BPS": "0",
                                                    "TX_PPS": "0"})
    for i in range(3):
        c.hset(f"COUNTERS:{_queue_oid(0, i)}", mapping={
            "SAI_QUEUE_STAT_PACKETS": str(1000 * i), "SAI_QUEUE_STAT_BYTES": str(1500000 * i),
            "SAI_QUEUE_STAT_DROPPED_PACKETS": "0", "SAI_QUEUE_STAT_DROPPED_BYTES": "0",
            "SAI_QUEUE_STAT_WRED_DROPPED_PACKETS": "0", "SAI_QUEUE_STAT_WRED_DROPPED_BYTES": "0",
            "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": str(7 * i), "SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES": "0"})
        c.hset(f"USER_WATERMARKS:{_queue_oid(0, i)}", "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", str(256 * i))
        c.hset(f"USER_WATERMARKS:{_pg_oid(0, i)}", mapping={
            "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES": str(100 * i),
            "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES": "0"})
        c.hset(f"COUNTERS:{_pg_oid(0, i)}", "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", str(i))
    port_table = Table(dbs["APPL_DB"], "PORT_TABLE")
    port_table.set("Ethernet0", {"admin_status": "up", "oper_status": "up", "speed": "400000"})
    port_table.set("Ethernet4", {"admin_status": "down", "oper_status": "down", "speed": "400000"})
    Table(dbs["STATE_DB"], "PORT_TABLE").set("Ethernet0", {"speed": "400000", "state": "ok"})
    return dbs


INTERFACE_COUNTERS = """\
    IFACE    STATE      RX_OK         RX_BPS    RX_UTIL    RX_ERR    RX_DRP    RX_OVR    TX_OK    TX_BPS    TX_UTIL    TX_ERR    TX_DRP    TX_OVR
---------  -------  ---------  -------------  ---------  --------  --------  --------  -------  --------  ---------  --------  --------  --------
Ethernet0        U  1,234,567  50000.00 MB/s    100.00%         0         0         0        0  0.00 B/s      0.00%         0         0         0
Ethernet4        X        N/A            N/A        N/A       N/A       N/A       N/A      N/A       N/A        N/A       N/A       N/A       N/A
"""  # noqa: E501


def test_show_interfaces_counters(counters, run_dir):
    assert nos(run_dir, "show", "interfaces", "counters").output == INTERFACE_COUNTERS
    assert nos(run_dir, "show", "interfaces", "counters", "-a").output.splitlines()[0].split() == [
        "IFACE", "STATE", "RX_OK", "RX_BPS", "RX_PPS", "RX_UTIL", "RX_ERR", "RX_DRP", "RX_OVR", "TX_OK", "TX_BPS",
        "TX_PPS", "TX_UTIL", "TX_ERR", "TX_DRP", "TX_OVR", "TRIM", "TRIM_TX", "TRIM_DRP"]
    assert nos(run_dir, "show", "interfaces", "counters", "errors").output.splitlines()[0].split() == [
        "IFACE", "STATE", "RX_ERR", "RX_DRP", "RX_OVR", "TX_ERR", "TX_DRP", "TX_OVR"]
    rates = json.loads(nos(run_dir, "show", "interfaces", "counters", "rates", "-i", "Ethernet0", "--json").output)
    assert rates == {"Ethernet0": {"STATE": "U", "RX_OK": "1,234,567", "RX_BPS": "50000.00 MB/s", "RX_PPS": "20.00/s",
                                   "RX_UTIL": "100.00%", "TX_OK": "0", "TX_BPS": "0.00 B/s", "TX_PPS": "0.00/s",
                                   "TX_UTIL": "0.00%"}}
    only = nos(run_dir, "show", "interfaces", "counters", "-i", "Ethernet4-7").output
    assert [line.split()[0] for line in only.splitlines()[2:]] == ["Ethernet4"]
    assert "no such port" in nos(run_dir, "show", "interfaces", "counters", "-i", "Ethernet99", code=1).output


QUEUE_COUNTERS = """\
For namespace :
     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
---------  -----  --------------  ---------------  -----------  ------------
Ethernet0    UC0               0                0            0             0
Ethernet0    UC1           1,000        1,500,000            0             0
Ethernet0    UC2           2,000        3,000,000            0             0

For namespace :
     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
---------  -----  --------------  ---------------  -----------  ------------
Ethernet4    UC0             N/A              N/A          N/A           N/A
Ethernet4    UC1             N/A              N/A          N/A           N/A
Ethernet4    UC2             N/A              N/A          N/A           N/A

"""


def test_show_queue_counters(counters, run_dir):
    assert nos(run_dir, "show", "queue", "counters").output == QUEUE_COUNTERS
    nonzero = nos(run_dir, "show", "queue", "counters", "Ethernet0", "-nz").output
    assert [line.split()[1] for line in nonzero.splitlines()[3:] if line] == ["UC1", "UC2"]
    records = json.loads(nos(run_dir, "show", "queue", "counters", "Ethernet0", "--json").output)
    assert records["Ethernet0"]["UC2"] == {"totalpacket": "2,000", "totalbytes": "3,000,000", "droppacket": "0",
                                           "dropbytes": "0"}
    assert "Trim/pkts" in nos(run_dir, "show", "queue", "counters", "-a", "Ethernet0").output
    assert "Port doesn't exist! Ethernet99" in nos(run_dir, "show", "queue", "counters", "Ethernet99", code=1).output
    wred = nos(run_dir, "show", "queue", "wredcounters", "Ethernet0").output.splitlines()
    assert wred[0].split() == ["Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"]
    assert wred[4].split() == ["Ethernet0", "UC2", "0", "0", "14", "0"]


def test_show_watermarks_and_pg_drops(counters, raw, run_dir):
    assert nos(run_dir, "show", "queue", "watermark", "unicast").output == """\
Egress shared pool occupancy per unicast queue:
     Port    UC0    UC1    UC2
---------  -----  -----  -----
Ethernet0      0    256    512
Ethernet4    N/A    N/A    N/A
"""
    assert nos(run_dir, "show", "queue", "watermark", "multicast").output == (
        "Object map from the COUNTERS_DB is empty because the multicast queues are not configured in the CONFIG_DB!\n")
    shared = nos(run_dir, "show", "priority-group", "watermark", "shared").output.splitlines()
    assert shared[0] == "Ingress shared pool occupancy per PG:"
    assert shared[3].split() == ["Ethernet0", "0", "100", "200"]
    assert nos(run_dir, "show", "priority-group", "watermark", "headroom").output.startswith("Ingress headroom per PG:")
    persistent = nos(run_dir, "show", "priority-group", "persistent-watermark", "shared").output.splitlines()
    assert persistent[3].split() == ["Ethernet0", "N/A", "N/A", "N/A"]  # no PERSISTENT_WATERMARKS yet
    records = json.loads(nos(run_dir, "show", "queue", "watermark", "unicast", "--json").output)
    assert records[0] == {"Port": "Ethernet0", "UC0": "0", "UC1": "256", "UC2": "512"}

    drops = nos(run_dir, "show", "priority-group", "drop", "counters").output.splitlines()
    assert drops[0] == "Ingress PG dropped packets:" and drops[3].split() == ["Ethernet0", "0", "1", "2"]
    raw(4).hset("FLEX_COUNTER_TABLE|PG_DROP", "FLEX_COUNTER_STATUS", "disable")
    assert "PG counters are disabled" in nos(run_dir, "show", "priority-group", "drop", "counters").output


def test_show_pfc(counters, run_dir):
    output = nos(run_dir, "show", "pfc", "counters").output
    rx, tx = output.split("\n\n")
    assert rx.splitlines()[2].split() == ["Ethernet0", "0", "0", "0", "4,321", "0", "0", "0", "0"]
    assert tx.splitlines()[0].split()[:2] == ["Port", "Tx"] and tx.splitlines()[3].split()[1] == "N/A"
    assert json.loads(nos(run_dir, "show", "pfc", "counters", "--json").output)["rx"]["Ethernet0"]["PFC3"] == "4,321"
    history = nos(run_dir, "show", "pfc", "counters", "--history").output.splitlines()
    assert history[0].split()[:2] == ["Port", "Priority"] and history[2].split()[:3] == ["Ethernet0", "PFC0", "N/A"]
    found = json.loads(nos(run_dir, "show", "pfc", "counters", "--history", "--json").output)
    assert found["Ethernet0"]["PFC3"]["RX Pause Transitions"] == "N/A"


def test_show_pfc_priority(sku_config, run_dir):
    output = nos(run_dir, "show", "pfc", "priority", "Ethernet4").output
    assert output == "\nInterface    Lossless priorities\n-----------  ---------------------\nEthernet4    3,4\n\n"
    found = json.loads(nos(run_dir, "show", "pfc", "priority", "--json").output)
    assert len(found) == 129 and found["global"] == "N/A"  # every PORT_QOS_MAP key, as pfc show priority lists them
    # as pfc show priority: on stdout, exit 0; --json fails
    assert nos(run_dir, "show", "pfc", "priority", "Ethernet1").output == "Cannot find interface Ethernet1\n"
    nos(run_dir, "show", "pfc", "priority", "Ethernet1", "--json", code=1)
    asym = nos(run_dir, "show", "pfc", "asymmetric").output.splitlines()
    assert asym[:3] == ["", "Interface    Asymmetric", "-----------  ------------"] and len(asym) == 3 + 128 + 1
    assert json.loads(nos(run_dir, "show", "pfc", "asymmetric", "Ethernet4", "--json").output) == {"Ethernet4": "N/A"}


def test_show_mac(counters, raw, run_dir):
    asic = raw(1)
    asic.hset("ASIC_STATE:SAI_OBJECT_TYPE_VLAN:oid:0x26000000000011", "SAI_VLAN_ATTR_VLAN_ID", "100")
    asic.hset("ASIC_STATE:SAI_OBJECT_TYPE_BRIDGE_PORT:oid:0x3a000000000021", mapping={
        "SAI_BRIDGE_PORT_ATTR_TYPE": "SAI_BRIDGE_PORT_TYPE_PORT", "SAI_BRIDGE_PORT_ATTR_PORT_ID": PORTS["Ethernet4"]})
    key = json.dumps({"bvid": "oid:0x26000000000011", "mac": "00:11:22:33:44:55", "switch_id": "oid:0x21000000000000"},
                     separators=(",", ":"))
    asic.hset(f"ASIC_STATE:SAI_OBJECT_TYPE_FDB_ENTRY:{key}", mapping={
        "SAI_FDB_ENTRY_ATTR_TYPE": "SAI_FDB_ENTRY_TYPE_STATIC",
        "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID": "oid:0x3a000000000021"})
    assert nos(run_dir, "show", "mac").output == """\
  No.    Vlan  MacAddress         Port       Type
-----  ------  -----------------  ---------  ------
    1     100  00:11:22:33:44:55  Ethernet4  Static
Total number of entries 1
"""
    assert nos(run_dir, "show", "mac", "-p", "Ethernet0").output.endswith("Total number of entries 0\n")
    assert json.loads(nos(run_dir, "show", "mac", "--json").output) == [
        {"vlan": 100, "mac": "00:11:22:33:44:55", "port": "Ethernet4", "type": "Static"}]
    assert "Invalid vlan id 5000" in nos(run_dir, "show", "mac", "-v", "5000", code=1).output


def test_show_runningconfiguration_all(sku_config, run_dir):
    shown = json.loads(nos(run_dir, "show", "runningconfiguration", "all").output)
    assert shown == ConfigDBConnector(sku_config["CONFIG_DB"]).get_config()
    assert shown["PORT"]["Ethernet0"]["lanes"] == "0,1,2,3" and len(shown["PORT"]) == 128
