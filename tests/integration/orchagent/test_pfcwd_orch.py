"""PfcWdOrch with PortOrch and syncd_sim on real Redis: registration, a drop storm from syncd's
notification (PFC mask, zero buffer profile, counters, INSTORM), restoration, stop, and bad rows."""

from __future__ import annotations

import pytest

from nos.db import NotificationProducer, Table
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.orchs.pfcwd import PfcWdOrch
from orchagent.orchs.port import PortOrch
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration


def asic(raw, kind, oid):
    return raw(1).hgetall(f"ASIC_STATE:SAI_OBJECT_TYPE_{kind}:{oid}")


def test_register_storm_restore_and_stop(orchagent, dbs, raw):
    agent = orchagent(PortOrch, PfcWdOrch)
    ports = boot_ports(agent, dbs, 2, admin="down")
    port = ports["Ethernet0"]
    assert agent.deps.sai.apply([SaiOp.set(T.PORT, port, "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL", "24")]).ok  # QosOrch's
    config = {name: Table(dbs["CONFIG_DB"], name) for name in ("PORT_QOS_MAP", "PFC_WD")}
    counters, queue3 = raw(2), raw(2).hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet0:3")
    config["PFC_WD"].set("Ethernet0", {"action": "drop", "detection_time": "200", "restoration_time": "200"})
    agent.settle()
    assert counters.hget(f"COUNTERS:{queue3}", "PFC_WD_ACTION") is None      # no lossless priority yet: waits
    config["PORT_QOS_MAP"].set("Ethernet0", {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"})
    agent.drive(lambda: counters.hget(f"COUNTERS:{queue3}", "PFC_WD_STATUS") == "operational")
    assert counters.hget(f"COUNTERS:{queue3}", "PFC_WD_DETECTION_TIME") == "200000"
    assert raw(5).exists(f"FLEX_COUNTER_TABLE:PFC_WD:{queue3}")
    assert raw(5).hget("FLEX_COUNTER_TABLE:PFC_WD:" + port, "PORT_COUNTER_ID_LIST").endswith("PFC_4_RX_PKTS")

    NotificationProducer(dbs["COUNTERS_DB"], "PFC_WD_ACTION").send(queue3, "storm")
    agent.drive(lambda: counters.hget(f"COUNTERS:{queue3}", "PFC_WD_STATUS") == "stormed")
    assert counters.hget(f"COUNTERS:{queue3}", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED") == "1"
    assert asic(raw, "PORT", port)["SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"] == "16"
    zero = asic(raw, "QUEUE", queue3)["SAI_QUEUE_ATTR_BUFFER_PROFILE_ID"]
    assert asic(raw, "BUFFER_PROFILE", zero)["SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH"] == "-8"
    assert raw(0).hgetall("PFC_WD_TABLE_INSTORM:Ethernet0") == {"3": "storm"}

    NotificationProducer(dbs["COUNTERS_DB"], "PFC_WD_ACTION").send(queue3, "restore")
    agent.drive(lambda: counters.hget(f"COUNTERS:{queue3}", "PFC_WD_STATUS") == "operational")
    assert counters.hget(f"COUNTERS:{queue3}", "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED") == "1"
    assert asic(raw, "PORT", port)["SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"] == "24"
    assert asic(raw, "QUEUE", queue3)["SAI_QUEUE_ATTR_BUFFER_PROFILE_ID"] == "oid:0x0"
    assert not raw(1).keys("ASIC_STATE:SAI_OBJECT_TYPE_BUFFER_PROFILE:*")   # the zero profile went with it
    assert not raw(0).exists("PFC_WD_TABLE_INSTORM:Ethernet0")

    config["PFC_WD"].delete("Ethernet0")
    agent.drive(lambda: counters.hget(f"COUNTERS:{queue3}", "PFC_WD_ACTION") is None)
    assert counters.hget(f"COUNTERS:{queue3}", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED") == "1"   # counts stay
    assert not raw(5).exists(f"FLEX_COUNTER_TABLE:PFC_WD:{queue3}")


def test_bad_rows_are_refused_and_the_orch_carries_on(orchagent, dbs, raw):
    agent = orchagent(PortOrch, PfcWdOrch)
    boot_ports(agent, dbs, 1, admin="down")
    config = Table(dbs["CONFIG_DB"], "PFC_WD")
    config.set("Ethernet9999", {"action": "drop", "detection_time": "200"})
    config.set("GLOBAL", {"POLL_INTERVAL": "300", "BIG_RED_SWITCH": "bogus"})
    Table(dbs["APPL_DB"], "PFC_WD_TABLE").set("Ethernet0", {"abc": "storm", "3": "notastorm"})
    NotificationProducer(dbs["COUNTERS_DB"], "PFC_WD_ACTION").send("oid:0x15000000000999", "storm")
    agent.drive(lambda: raw(5).hget("FLEX_COUNTER_GROUP_TABLE:PFC_WD", "POLL_INTERVAL") == "300")
    agent.settle()


def test_big_red_switch_drops_the_watched_queues_as_a_storm_and_restores_them(orchagent, dbs, raw):
    """PfcWdSwOrch::enable/disableBigRedSwitchMode: the queues of the watchdog bitmask (not the PFC one)
    are counted as stormed and dropped; storms are ignored; disable commits them as restored."""
    agent = orchagent(PortOrch, PfcWdOrch)
    ports = boot_ports(agent, dbs, 2, admin="down")
    for port in ports.values():
        assert agent.deps.sai.apply([SaiOp.set(T.PORT, port, "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL", "24")]).ok
    config = {name: Table(dbs["CONFIG_DB"], name) for name in ("PORT_QOS_MAP", "PFC_WD")}
    config["PORT_QOS_MAP"].set("Ethernet0", {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"})
    config["PORT_QOS_MAP"].set("Ethernet4", {"pfc_enable": "3,4"})
    counters = raw(2)
    q3, q4 = (counters.hget("COUNTERS_QUEUE_NAME_MAP", f"Ethernet0:{i}") for i in (3, 4))
    other = counters.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet4:3")
    config["PFC_WD"].set("Ethernet0", {"action": "drop", "detection_time": "200", "restoration_time": "200"})
    agent.drive(lambda: counters.hget(f"COUNTERS:{q3}", "PFC_WD_STATUS") == "operational")

    config["PFC_WD"].set("GLOBAL", {"BIG_RED_SWITCH": "enable"})
    agent.drive(lambda: asic(raw, "PORT", ports["Ethernet0"])["SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"] == "0")
    for queue in (q3, q4):
        fields = counters.hgetall(f"COUNTERS:{queue}")
        assert fields["BIG_RED_SWITCH_MODE"] == "enable" and fields["PFC_WD_STATUS"] == "stormed"
        assert fields["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"] == "1"
    assert "BIG_RED_SWITCH_MODE" not in counters.hgetall(f"COUNTERS:{other}")   # no watchdog bitmask there
    assert asic(raw, "PORT", ports["Ethernet4"])["SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"] == "24"
    NotificationProducer(dbs["COUNTERS_DB"], "PFC_WD_ACTION").send(q3, "restore")   # ignored meanwhile
    config["PFC_WD"].delete("GLOBAL")                                                # changes nothing
    agent.settle()
    assert counters.hget(f"COUNTERS:{q3}", "PFC_WD_STATUS") == "stormed"

    config["PFC_WD"].set("GLOBAL", {"BIG_RED_SWITCH": "disable"})
    agent.drive(lambda: asic(raw, "PORT", ports["Ethernet0"])["SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"] == "24")
    for queue in (q3, q4):
        fields = counters.hgetall(f"COUNTERS:{queue}")
        assert "BIG_RED_SWITCH_MODE" not in fields and fields["PFC_WD_STATUS"] == "operational"
        counts = (fields["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"], fields["PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"])
        assert counts == ("1", "1")
    NotificationProducer(dbs["COUNTERS_DB"], "PFC_WD_ACTION").send(q3, "storm")    # detection works again
    agent.drive(lambda: counters.hget(f"COUNTERS:{q3}", "PFC_WD_STATUS") == "stormed")
    assert counters.hget(f"COUNTERS:{q3}", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED") == "2"


def test_deleting_port_qos_map_keeps_the_watchdog_bitmask(orchagent, dbs, raw):
    """qosorch's PORT_QOS_MAP DEL clears PFC only; the saved pfcwd bitmask still names the queues."""
    agent = orchagent(PortOrch, PfcWdOrch)
    boot_ports(agent, dbs, 1, admin="down")
    config = {name: Table(dbs["CONFIG_DB"], name) for name in ("PORT_QOS_MAP", "PFC_WD")}
    counters = raw(2)
    queue3 = counters.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet0:3")
    config["PORT_QOS_MAP"].set("Ethernet0", {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"})
    agent.settle()
    config["PORT_QOS_MAP"].delete("Ethernet0")
    agent.settle()
    config["PFC_WD"].set("Ethernet0", {"action": "alert", "detection_time": "400"})
    agent.drive(lambda: counters.hget(f"COUNTERS:{queue3}", "PFC_WD_ACTION") == "alert")
    assert counters.hget(f"COUNTERS:{queue3}", "PFC_STAT_HISTORY") == "disable"
