"""syncd_sim restarted alone rebuilds its object store from ASIC_STATE."""

from __future__ import annotations

import pytest

from nos.db.connector import Databases
from nos.sai import status as st
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.orchs.port import PortOrch
from syncd_sim.syncd import Syncd
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration


def test_a_restarted_syncd_knows_every_object_and_reference(orchagent, dbs, redis_url):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 2)
    hostif = agent.deps.registry.get("Ethernet0").hostif
    fresh_dbs = Databases(redis_url)
    try:
        restarted = Syncd(fresh_dbs)
        store = restarted.store
        assert set(ports.values()) <= set(store.of_type(T.PORT))
        assert len(store.of_type(T.QUEUE)) == 16 and len(store.owned_by(ports["Ethernet0"])) == 8 + 8 + 9
        assert store.find(T.HOSTIF, hostif) is not None
        assert restarted.hostif_names[hostif] == "Ethernet0"
        # the port is still in use by its host interface, and the CPU port is still built in
        assert store.remove(T.PORT, ports["Ethernet0"]).status == st.OBJECT_IN_USE
        assert store.remove(T.PORT, restarted.behaviour.defaults.cpu_port).status == st.INVALID_PARAMETER
        # and it keeps serving: a set on a restored object succeeds
        assert store.set(T.PORT, ports["Ethernet4"], "SAI_PORT_ATTR_MTU", "1522").ok
        assert store.remove(T.HOSTIF, hostif).ok and store.remove(T.PORT, ports["Ethernet0"]).ok
        assert agent.deps.sai.apply([SaiOp.get(T.SWITCH, agent.deps.switch.switch_id,
                                               "SAI_SWITCH_ATTR_CPU_PORT")]).ok
    finally:
        fresh_dbs.close()
