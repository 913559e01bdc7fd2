"""The MC-LAG peer's MACs (APPL_DB MCLAG_FDB_TABLE) in FdbOrch on real Redis, for what the conformance
runner cannot send: syncd's fdb_event. A local MOVE takes a peer MAC over (test_mclagFdb_remote_to_local_
mac_move_ntf), an AGED peer MAC is kept (and created again), a flush leaves peer MACs, and MlagOrch's
MCLAG_INTERFACE rows keep a member's MACs when it goes oper down."""

from __future__ import annotations

import json

import pytest

from nos.db import NotificationProducer, Table
from orchagent.core.events import OperChanged
from orchagent.orchs.fdb import FdbOrch
from orchagent.orchs.mlag import MlagOrch
from tests.integration.orchagent.test_fdb_learning import fdb_entries, notice, vlan2

pytestmark = pytest.mark.integration

MAC = "3C:85:99:5E:00:01"
KEY = f"Vlan2:{MAC}"
STATE = "Vlan2:3c:85:99:5e:00:01"


@pytest.fixture
def l2(orchagent, dbs, raw):
    """Vlan2 with Ethernet0 and Ethernet4 untagged members; MlagOrch wired."""
    return vlan2(orchagent, dbs, raw, MlagOrch, tables=("FDB_TABLE", "MCLAG_FDB_TABLE"))


def entry(raw, bvid):
    return fdb_entries(raw).get((bvid, MAC))


def test_a_local_move_takes_a_peer_mac_over(l2, raw, dbs):
    agent, t, bvid, bp = l2
    t["MCLAG_FDB_TABLE"].set(KEY, {"port": "Ethernet0", "type": "dynamic"})
    agent.drive(lambda: entry(raw, bvid))
    assert entry(raw, bvid)["SAI_FDB_ENTRY_ATTR_ALLOW_MAC_MOVE"] == "true"
    assert raw(6).hgetall(f"MCLAG_REMOTE_FDB_TABLE|{STATE}") == {"port": "Ethernet0", "type": "dynamic"}
    NotificationProducer(dbs["ASIC_DB"], "NOTIFICATIONS").send(
        "fdb_event", notice("SAI_FDB_EVENT_MOVE", bvid, MAC, agent.deps.switch.switch_id, bp["Ethernet4"]))
    agent.drive(lambda: entry(raw, bvid)["SAI_FDB_ENTRY_ATTR_TYPE"] == "SAI_FDB_ENTRY_TYPE_DYNAMIC")
    attrs = entry(raw, bvid)
    assert attrs["SAI_FDB_ENTRY_ATTR_ALLOW_MAC_MOVE"] == "false"
    assert attrs["SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID"] == bp["Ethernet4"]
    assert raw(6).hgetall(f"FDB_TABLE|{STATE}") == {"port": "Ethernet4", "type": "dynamic"}
    assert not raw(6).exists(f"MCLAG_REMOTE_FDB_TABLE|{STATE}")
    # the peer's delete now leaves the local learn (its port is up)
    t["MCLAG_FDB_TABLE"].delete(KEY)
    agent.settle()
    assert entry(raw, bvid) is not None and agent.orchs[FdbOrch].installed[("Vlan2", MAC)].learnt


def test_an_aged_peer_mac_comes_back_and_flushes_leave_it(l2, raw, dbs):
    agent, t, bvid, bp = l2
    t["MCLAG_FDB_TABLE"].set(KEY, {"port": "Ethernet0", "type": "dynamic"})
    agent.drive(lambda: entry(raw, bvid))
    NotificationProducer(dbs["ASIC_DB"], "NOTIFICATIONS").send(
        "fdb_event", notice("SAI_FDB_EVENT_AGED", bvid, MAC, agent.deps.switch.switch_id, bp["Ethernet0"]))
    agent.settle()
    assert entry(raw, bvid)["SAI_FDB_ENTRY_ATTR_TYPE"] == "SAI_FDB_ENTRY_TYPE_STATIC"
    assert ("Vlan2", MAC) in agent.orchs[FdbOrch].installed                 # not forgotten, as a learnt MAC would be
    raw(0).publish("FLUSHFDBREQUEST", json.dumps(["ALL", "ALL"]))
    agent.settle()
    assert entry(raw, bvid) is not None
    assert raw(6).exists(f"MCLAG_REMOTE_FDB_TABLE|{STATE}")


def test_an_mclag_interface_going_down_keeps_its_macs(l2, raw, dbs):
    agent, t, bvid, bp = l2
    Table(dbs["CONFIG_DB"], "MCLAG_INTERFACE").set("1|Ethernet0", {"if_type": "PortChannel"})
    agent.drive(lambda: agent.deps.mlag.is_mclag_interface("Ethernet0"))
    t["FDB_TABLE"].set(KEY, {"port": "Ethernet0", "type": "dynamic"})
    t["FDB_TABLE"].set("Vlan2:3C:85:99:5E:00:02", {"port": "Ethernet4", "type": "dynamic"})
    agent.drive(lambda: len(fdb_entries(raw)) == 2)
    for port in ("Ethernet0", "Ethernet4"):
        agent.deps.bus.publish(OperChanged(port, False))
    agent.settle()
    assert set(fdb_entries(raw)) == {(bvid, MAC)}      # Ethernet4's flushed, the MCLAG interface's kept
    Table(dbs["CONFIG_DB"], "MCLAG_INTERFACE").delete("1|Ethernet0")
    agent.drive(lambda: not agent.deps.mlag.is_mclag_interface("Ethernet0"))
    agent.deps.bus.publish(OperChanged("Ethernet0", False))
    agent.settle()
    assert fdb_entries(raw) == {}
