"""orchagent's orchs with syncd_sim on real Redis, given garbage: hashes they write that are of the
wrong type, notifications of the wrong shape. Strict runner: nothing may raise."""

from __future__ import annotations

import json

import pytest

from nos.db import NotificationProducer
from orchagent.orchs.port import PortOrch
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration


def test_ports_are_created_over_name_maps_that_are_not_hashes(orchagent, dbs, raw):
    raw(2).set("COUNTERS_PORT_NAME_MAP", "garbage")
    raw(2).rpush("COUNTERS_QUEUE_NAME_MAP", "garbage")
    agent = orchagent(PortOrch)

    ports = boot_ports(agent, dbs, 2)  # the old code refused every port: WRONGTYPE on the maps' HSET

    assert set(ports) == {"Ethernet0", "Ethernet4"}
    assert raw(2).hlen("COUNTERS_QUEUE_NAME_MAP") == 2 * 8


def test_a_port_state_change_of_the_wrong_shape_is_dropped_and_reported(orchagent, dbs, raw):
    agent = orchagent(PortOrch)
    ports = boot_ports(agent, dbs, 1)
    agent.drive(lambda: raw(0).hget("PORT_TABLE:Ethernet0", "oper_status") == "up")
    notes = NotificationProducer(dbs["ASIC_DB"], "NOTIFICATIONS")
    where = ("ASIC_DB", "NOTIFICATIONS", "port_state_change")

    for data in ("[1,2]", '[{"port_id":5}]', "garbage", "[" * 100_000):
        notes.send("port_state_change", data)
    agent.drive(lambda: where in agent.deps.dbs.bad_keys.reported)

    down = [{"port_id": ports["Ethernet0"], "port_state": "SAI_PORT_OPER_STATUS_DOWN"}]
    notes.send("port_state_change", json.dumps(down))
    agent.drive(lambda: raw(0).hget("PORT_TABLE:Ethernet0", "oper_status") == "down")
    assert where not in agent.deps.dbs.bad_keys.reported
