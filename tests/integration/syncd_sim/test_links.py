"""syncd_sim and STATE_DB ``NOS_LINK_TABLE`` on a real Redis: a lab's carrier row turns the port oper
down (``port_state_change``) and back up, a row written before syncd_sim starts (or before the port
exists) is honoured, a restarted syncd_sim says the current links again, and a bad row is reported
without stopping anything."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
import redis

from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.db import NotificationConsumer
from nos.db.connector import Databases
from nos.db.queue_table import ProducerTable
from nos.sai.keys import object_key
from nos.sai.session import SESSION_ATTR
from nos.sai.types import ObjectType as T
from syncd_sim.syncd import Syncd
from tests.conftest import wait_until

pytestmark = pytest.mark.integration
Raw = Callable[[int], redis.Redis]

SWITCH, PORT, HOSTIF = "oid:0x21000000000000", "oid:0x1000000000101", "oid:0xd000000000102"
UP, DOWN = "SAI_PORT_OPER_STATUS_UP", "SAI_PORT_OPER_STATUS_DOWN"
BOOT = [
    (object_key(T.SWITCH, "oid:0x0"), "notify", ((SESSION_ATTR, "s1"),)),
    (object_key(T.SWITCH, SWITCH), "create", (("SAI_SWITCH_ATTR_INIT_SWITCH", "true"),)),
    (object_key(T.PORT, PORT), "create", (("SAI_PORT_ATTR_HW_LANE_LIST", "4:0,1,2,3"),
                                          ("SAI_PORT_ATTR_SPEED", "400000"), ("SAI_PORT_ATTR_ADMIN_STATE", "true"))),
    (object_key(T.HOSTIF, HOSTIF), "create", (("SAI_HOSTIF_ATTR_TYPE", "SAI_HOSTIF_TYPE_NETDEV"),
                                              ("SAI_HOSTIF_ATTR_OBJ_ID", PORT), ("SAI_HOSTIF_ATTR_NAME", "Ethernet0"))),
]


class Harness:
    """syncd_sim on a strict runner (the daemon's wiring: ASIC_STATE, the link rows, counters, traces) and
    a listener on ASIC_DB NOTIFICATIONS that keeps the port's oper states in order."""

    def __init__(self, url: str) -> None:
        self.dbs = Databases(url)
        self.notes = NotificationConsumer(self.dbs["ASIC_DB"], "NOTIFICATIONS", ops=["port_state_change"])
        self.states: list[str] = []
        self.start()

    def start(self) -> None:
        self.syncd = Syncd(self.dbs)
        reporter = StateDbReporter(self.dbs, "syncd")
        self.dbs.bad_keys.publisher = reporter  # as daemon_main wires it
        self.runner = Runner("syncd-test", strict=True, reporter=reporter)
        self.syncd.register(self.runner)

    def until(self, predicate: object, timeout: float = 5.0) -> None:
        def turn() -> object:
            self.runner.step(max_wait=0.02)
            self.notes.read_messages()
            for note in self.notes.pops():
                self.states += [item["port_state"] for item in json.loads(note.data) if item["port_id"] == PORT]
            return predicate()  # type: ignore[operator]
        wait_until(turn, timeout, interval=0)

    def oper(self) -> str:
        return self.syncd.behaviour.oper.get(PORT, "")


@pytest.fixture
def harness(redis_url: str) -> Iterator[Harness]:
    made = Harness(redis_url)
    yield made
    made.dbs.close()


def boot(h: Harness) -> None:
    ProducerTable(h.dbs["ASIC_DB"], "ASIC_STATE").send(BOOT)
    h.until(lambda: h.syncd.store.find(T.HOSTIF, HOSTIF) is not None)


def test_carrier_down_turns_the_port_oper_down_and_up_restores_it(harness: Harness, raw: Raw) -> None:
    boot(harness)
    harness.until(lambda: harness.states == [UP])
    raw(6).hset("NOS_LINK_TABLE|Ethernet0", mapping={"peer": "spine1:Ethernet0", "carrier": "down"})
    harness.until(lambda: harness.states == [UP, DOWN])
    assert harness.oper() == DOWN
    trace_tables = harness.syncd.fastpath.current()
    assert trace_tables.ports.oper_up.tolist() == [False] and trace_tables.ports.admin_up.tolist() == [True]
    raw(6).hset("NOS_LINK_TABLE|Ethernet0", "carrier", "up")
    harness.until(lambda: harness.states == [UP, DOWN, UP])
    raw(6).hset("NOS_LINK_TABLE|Ethernet0", "carrier", "down")
    harness.until(lambda: harness.states[-1] == DOWN)
    raw(6).delete("NOS_LINK_TABLE|Ethernet0")  # no row: a live link partner
    harness.until(lambda: harness.states == [UP, DOWN, UP, DOWN, UP])
    assert harness.oper() == UP


@pytest.mark.parametrize(("hwsku", "said"), [
    (None, [UP, DOWN]),                # no SKU: the port is named when its host interface is created
    ("NOS-SIM-128x400G", []),          # the SKU names it by its lanes: created down, nothing to say
])
def test_a_row_written_before_syncd_and_its_ports_start_is_honoured(redis_url: str, raw: Raw, hwsku: str | None,
                                                                   said: list[str]) -> None:
    if hwsku:
        raw(4).hset("DEVICE_METADATA|localhost", "hwsku", hwsku)
    raw(6).hset("NOS_LINK_TABLE|Ethernet0", mapping={"peer": "host:h1-1", "carrier": "down"})
    raw(6).hset("NOS_LINK_TABLE|Ethernet96", mapping={"peer": "host:h9-9", "carrier": "down"})  # no such port
    h = Harness(redis_url)
    try:
        boot(h)
        h.until(lambda: h.oper() == DOWN and h.states == said)
        raw(6).hset("NOS_LINK_TABLE|Ethernet0", "carrier", "up")
        h.until(lambda: h.oper() == UP and h.states == [*said, UP])
    finally:
        h.dbs.close()


def test_a_restarted_syncd_says_the_links_as_the_rows_are_now(harness: Harness, raw: Raw) -> None:
    boot(harness)
    harness.until(lambda: harness.states == [UP])
    raw(6).hset("NOS_LINK_TABLE|Ethernet0", "carrier", "down")  # while syncd_sim is down (not stepped)
    harness.start()  # killed and started again: restores the store from ASIC_STATE
    assert harness.oper() == DOWN  # before any event: the rows were read with the store
    harness.until(lambda: harness.states[-1:] == [DOWN])
    assert UP not in harness.states[1:]  # no flap: it never says up with the cable dark


def test_a_bad_row_is_reported_and_changes_nothing(harness: Harness, raw: Raw) -> None:
    boot(harness)
    harness.until(lambda: harness.states == [UP])
    raw(6).hset("NOS_LINK_TABLE|Ethernet0", "carrier", "dark")
    harness.until(lambda: raw(6).exists("NOS_REJECTED_TABLE|STATE_DB:NOS_LINK_TABLE:Ethernet0"))
    reason = raw(6).hget("NOS_REJECTED_TABLE|STATE_DB:NOS_LINK_TABLE:Ethernet0", "reason")
    assert reason == "NOS_LINK_TABLE|Ethernet0: carrier must be up or down, not 'dark'"
    assert harness.oper() == UP and harness.states == [UP]
    raw(6).set("NOS_LINK_TABLE|Ethernet4", "not a hash")  # not a row at all: reported by the reader
    harness.until(lambda: raw(6).exists("NOS_REJECTED_TABLE|STATE_DB:NOS_LINK_TABLE:Ethernet4"))
    raw(6).hset("NOS_LINK_TABLE|Ethernet0", "carrier", "down")  # the daemon goes on with the next row
    harness.until(lambda: harness.states == [UP, DOWN])
    harness.start()  # and a restart reads past both
    harness.until(lambda: harness.oper() == DOWN and harness.states[-1:] == [DOWN])
