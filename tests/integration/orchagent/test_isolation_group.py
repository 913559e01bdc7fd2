"""IsoGrpOrch (with PortOrch, VlanOrch) and syncd_sim on real Redis: mclagsyncd's MCLAG_ISO_GRP row
makes an isolation group whose member is the MCLAG PortChannel's bridge port and whose bind point is the
peer link's; a member without a bridge port waits for it; leaving the VLAN and DEL undo it all."""

from __future__ import annotations

import pytest

from nos.db import ProducerStateTable
from orchagent.orchs.isolation import IsoGrpOrch
from orchagent.orchs.port import PortOrch
from orchagent.orchs.vlan import VlanOrch
from tests.integration.orchagent.conftest import boot_ports
from tests.integration.orchagent.test_fdb_orch import objects

pytestmark = pytest.mark.integration

ROW = {"DESCRIPTION": "Isolation group for MCLAG", "TYPE": "bridge-port", "PORTS": "Ethernet0",
       "MEMBERS": "Ethernet4,Ethernet8"}


def test_the_mclag_isolation_group_follows_bridge_ports(orchagent, dbs, raw):
    agent = orchagent(PortOrch, VlanOrch, IsoGrpOrch)
    boot_ports(agent, dbs, 3)
    t = {name: ProducerStateTable(dbs["APPL_DB"], name)
         for name in ("VLAN_TABLE", "VLAN_MEMBER_TABLE", "ISOLATION_GROUP_TABLE")}
    t["VLAN_TABLE"].set("Vlan2", {"admin_status": "up"})
    for port in ("Ethernet0", "Ethernet4"):
        t["VLAN_MEMBER_TABLE"].set(f"Vlan2:{port}", {"tagging_mode": "untagged"})
    registry = agent.deps.registry
    agent.drive(lambda: registry.get("Ethernet4").bridge_port and registry.get("Ethernet0").bridge_port)
    t["ISOLATION_GROUP_TABLE"].set("MCLAG_ISO_GRP", ROW)
    agent.drive(lambda: objects(raw, "ISOLATION_GROUP_MEMBER"))
    [(group, attrs)] = objects(raw, "ISOLATION_GROUP").items()
    assert attrs == {"SAI_ISOLATION_GROUP_ATTR_TYPE": "SAI_ISOLATION_GROUP_TYPE_BRIDGE_PORT"}

    def members():
        return sorted(a["SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_OBJECT"]
                      for a in objects(raw, "ISOLATION_GROUP_MEMBER").values()
                      if a["SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_GROUP_ID"] == group)
    assert members() == [registry.get("Ethernet4").bridge_port]          # Ethernet8 waits for a bridge port
    peer_bp = registry.get("Ethernet0").bridge_port
    assert objects(raw, "BRIDGE_PORT")[peer_bp]["SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP"] == group
    t["VLAN_MEMBER_TABLE"].set("Vlan2:Ethernet8", {"tagging_mode": "untagged"})
    agent.drive(lambda: len(members()) == 2)
    # Ethernet4 leaves its last VLAN: its member object goes before its bridge port
    t["VLAN_MEMBER_TABLE"].delete("Vlan2:Ethernet4")
    agent.drive(lambda: not registry.get("Ethernet4").bridge_port)
    assert members() == [registry.get("Ethernet8").bridge_port]
    # a TYPE change is refused; DEL takes the binds, members and group away
    t["ISOLATION_GROUP_TABLE"].set("MCLAG_ISO_GRP", {**ROW, "TYPE": "port"})
    agent.settle()
    assert len(objects(raw, "ISOLATION_GROUP")) == 1
    t["ISOLATION_GROUP_TABLE"].delete("MCLAG_ISO_GRP")
    agent.drive(lambda: not objects(raw, "ISOLATION_GROUP"))
    assert objects(raw, "ISOLATION_GROUP_MEMBER") == {}
    assert objects(raw, "BRIDGE_PORT")[peer_bp].get("SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP") == "oid:0x0"
