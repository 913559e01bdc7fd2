"""MAC learning end to end on real Redis: syncd_sim (with its fast-path shell, on its own daemon loop in a
thread) learns source MACs, writes them into ASIC_STATE and sends ``fdb_event``; FdbOrch (with PortOrch
and VlanOrch) records them in STATE_DB ``FDB_TABLE``, follows moves, ageing and flushes, and flushes a
learnt entry when its port leaves the VLAN. The last test runs a real traffic job in syncd's forked
model process."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from nos.daemon.runner import Runner
from nos.db import NotificationProducer, ProducerStateTable
from nos.db.connector import Databases
from nos.sai.keys import fdb_key
from orchagent.orchs.fdb import FdbOrch
from orchagent.orchs.port import PortOrch
from orchagent.orchs.vlan import VlanOrch
from syncd_sim.learning import LearntMac
from syncd_sim.syncd import Syncd
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration

PREFIX = "ASIC_STATE:SAI_OBJECT_TYPE_"
MAC = "02:00:00:00:00:01"
STATE_KEY = "FDB_TABLE|Vlan2:02:00:00:00:00:01"


class SyncdDaemon:
    """syncd_sim registered on a Runner (request queue, counters, fast-path shell), stepped in a thread."""

    def __init__(self, url: str) -> None:
        self.dbs = Databases(url)
        self.syncd = Syncd(self.dbs)
        self.runner = Runner("syncd-test", strict=True)
        self.syncd.register(self.runner)
        self.lock = threading.Lock()   # held while the loop runs a step; tests take it to touch the store
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop.is_set():
            with self.lock:
                self.runner.step(max_wait=0.02)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.dbs.close()


@pytest.fixture
def syncd(redis_url: str) -> Iterator[SyncdDaemon]:
    """Overrides the harness' syncd: this one runs the whole daemon wiring, fast path included."""
    daemon = SyncdDaemon(redis_url)
    yield daemon
    daemon.close()


def fdb_entries(raw) -> dict[tuple[str, str], dict[str, str]]:
    asic = raw(1)
    return {(json.loads(k.split(":", 2)[2])["bvid"], json.loads(k.split(":", 2)[2])["mac"]): asic.hgetall(k)
            for k in asic.keys(f"{PREFIX}FDB_ENTRY:*")}


def vlan_oid(raw, vid: int) -> str:
    asic = raw(1)
    return next(k.split(":", 2)[2] for k in asic.keys(f"{PREFIX}VLAN:*")
                if asic.hget(k, "SAI_VLAN_ATTR_VLAN_ID") == str(vid))


@pytest.fixture
def l2(orchagent, dbs, raw):
    """Vlan2 with Ethernet0 and Ethernet4 untagged members."""
    return vlan2(orchagent, dbs, raw)


def vlan2(orchagent, dbs, raw, *more_orchs, tables=("FDB_TABLE",)):
    """PortOrch, VlanOrch, FdbOrch (and ``more_orchs``) with Vlan2 of Ethernet0 and Ethernet4 untagged;
    (agent, producers for the VLAN tables and ``tables``, Vlan2's oid, the ports' bridge ports)."""
    agent = orchagent(PortOrch, VlanOrch, FdbOrch, *more_orchs)
    boot_ports(agent, dbs, 2)
    tables = {name: ProducerStateTable(dbs["APPL_DB"], name)
              for name in ("VLAN_TABLE", "VLAN_MEMBER_TABLE", *tables)}
    tables["VLAN_TABLE"].set("Vlan2", {"admin_status": "up"})
    for port in ("Ethernet0", "Ethernet4"):
        tables["VLAN_MEMBER_TABLE"].set(f"Vlan2:{port}", {"tagging_mode": "untagged"})
    registry = agent.deps.registry
    agent.drive(lambda: all(registry.get(p) and registry.get(p).bridge_port and 2 in registry.get(p).vlans
                            for p in ("Ethernet0", "Ethernet4")))
    bridge_ports = {p: registry.get(p).bridge_port for p in ("Ethernet0", "Ethernet4")}
    return agent, tables, vlan_oid(raw, 2), bridge_ports


def learn(syncd: SyncdDaemon, *macs: LearntMac):
    with syncd.lock:
        return syncd.syncd.fastpath.apply_learned(list(macs))


def learn_marking_stale(syncd: SyncdDaemon, *macs: LearntMac) -> tuple[list, bool]:
    """Learns under the loop's lock and reads, before the loop can recompile, whether the tables went stale."""
    with syncd.lock:
        syncd.syncd.fastpath.current()           # compiled now: nothing stale before the learning
        events = syncd.syncd.fastpath.apply_learned(list(macs))
        return events, syncd.syncd.fastpath.stale


def test_a_learnt_mac_reaches_asic_state_and_state_db_and_moves(syncd, l2, raw) -> None:
    agent, _, bvid, bp = l2
    [event], stale = learn_marking_stale(syncd, LearntMac(bvid, MAC, bp["Ethernet0"]))
    assert event.event == "SAI_FDB_EVENT_LEARNED"
    assert stale                               # the compiled tables will include the entry
    assert fdb_entries(raw)[(bvid, MAC)] == {
        "SAI_FDB_ENTRY_ATTR_TYPE": "SAI_FDB_ENTRY_TYPE_DYNAMIC", "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID": bp["Ethernet0"],
        "SAI_FDB_ENTRY_ATTR_PACKET_ACTION": "SAI_PACKET_ACTION_FORWARD"}
    state = raw(6)
    agent.drive(lambda: state.hgetall(STATE_KEY))
    assert state.hgetall(STATE_KEY) == {"port": "Ethernet0", "type": "dynamic"}
    # learnt again where it is: nothing; on the other port: a move
    assert learn(syncd, LearntMac(bvid, MAC, bp["Ethernet0"])) == []
    [move] = learn(syncd, LearntMac(bvid, MAC, bp["Ethernet4"]))
    assert move.event == "SAI_FDB_EVENT_MOVE"
    assert fdb_entries(raw)[(bvid, MAC)]["SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID"] == bp["Ethernet4"]
    agent.drive(lambda: state.hget(STATE_KEY, "port") == "Ethernet4")


def test_appl_delete_leaves_a_learnt_mac_and_leaving_the_vlan_flushes_it(syncd, l2, raw) -> None:
    agent, t, bvid, bp = l2
    learn(syncd, LearntMac(bvid, MAC, bp["Ethernet0"]))
    state = raw(6)
    agent.drive(lambda: state.hgetall(STATE_KEY))
    t["FDB_TABLE"].delete("Vlan2:02:00:00:00:00:01")
    agent.settle()
    assert (bvid, MAC) in fdb_entries(raw) and state.hgetall(STATE_KEY)
    t["VLAN_MEMBER_TABLE"].delete("Vlan2:Ethernet0")
    agent.drive(lambda: not state.hgetall(STATE_KEY))
    assert fdb_entries(raw) == {}                  # removed from the ASIC: the bridge port could go
    assert not agent.deps.registry.get("Ethernet0").bridge_port


def test_provisioning_a_learnt_mac_takes_it_over(syncd, l2, raw) -> None:
    agent, t, bvid, bp = l2
    learn(syncd, LearntMac(bvid, MAC, bp["Ethernet0"]))
    state = raw(6)
    agent.drive(lambda: state.hgetall(STATE_KEY))
    t["FDB_TABLE"].set("Vlan2:02:00:00:00:00:01", {"port": "Ethernet4", "type": "static"})
    agent.drive(lambda: state.hget(STATE_KEY, "type") == "static")
    assert fdb_entries(raw)[(bvid, MAC)]["SAI_FDB_ENTRY_ATTR_TYPE"] == "SAI_FDB_ENTRY_TYPE_STATIC"
    assert fdb_entries(raw)[(bvid, MAC)]["SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID"] == bp["Ethernet4"]


def notice(event: str, bvid: str, mac: str, switch: str, bridge_port: str) -> str:
    return json.dumps([{"fdb_entry": fdb_key(mac, bvid, switch), "fdb_event": event,
                        "list": [{"id": "SAI_FDB_ENTRY_ATTR_TYPE", "value": "SAI_FDB_ENTRY_TYPE_DYNAMIC"},
                                 {"id": "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID", "value": bridge_port}]}])


def test_aged_and_flushed_events_forget_learnt_entries(syncd, l2, raw, dbs) -> None:
    agent, t, bvid, bp = l2
    switch = agent.deps.switch.switch_id
    other = "02:00:00:00:00:02"
    learn(syncd, LearntMac(bvid, MAC, bp["Ethernet0"]), LearntMac(bvid, other, bp["Ethernet4"]))
    t["FDB_TABLE"].set("Vlan2:00:00:00:00:00:03", {"port": "Ethernet4", "type": "static"})
    state = raw(6)
    agent.drive(lambda: len(state.keys("FDB_TABLE|*")) == 3)
    producer = NotificationProducer(dbs["ASIC_DB"], "NOTIFICATIONS")
    producer.send("fdb_event", "not json")                          # ignored
    producer.send("fdb_event", notice("SAI_FDB_EVENT_AGED", bvid, MAC, switch, bp["Ethernet0"]))
    agent.drive(lambda: not state.hgetall(STATE_KEY))
    # a flush of Ethernet4's bridge port forgets its dynamic entries, not the static one
    producer.send("fdb_event", notice("SAI_FDB_EVENT_FLUSHED", "oid:0x0", "00:00:00:00:00:00", switch,
                                      bp["Ethernet4"]))
    agent.drive(lambda: state.keys("FDB_TABLE|*") == ["FDB_TABLE|Vlan2:00:00:00:00:00:03"])
    assert set(agent.orchs[FdbOrch].installed) == {("Vlan2", "00:00:00:00:00:03")}


def test_unknown_bridge_port_or_vlan_is_ignored(syncd, l2, raw, dbs) -> None:
    agent, _, bvid, bp = l2
    switch = agent.deps.switch.switch_id
    producer = NotificationProducer(dbs["ASIC_DB"], "NOTIFICATIONS")
    producer.send("fdb_event", notice("SAI_FDB_EVENT_LEARNED", bvid, MAC, switch, "oid:0x3a000000000999"))
    producer.send("fdb_event", notice("SAI_FDB_EVENT_LEARNED", "oid:0x26000000000999", MAC, switch, bp["Ethernet0"]))
    agent.settle()
    assert raw(6).keys("FDB_TABLE|*") == [] and agent.orchs[FdbOrch].installed == {}


SCENARIO = """
name: learn
forwarding: programmed
hosts:
  - {name: 'h{i}', ports: Ethernet0-Ethernet4, ip: 192.168.0.1/24}
workloads:
  - {kind: incast, senders: h0, receiver: h1, size: 1kB}
"""


def test_a_traffic_run_teaches_the_switch_its_hosts(syncd, l2, raw) -> None:
    agent, _, bvid, bp = l2
    state = raw(6)
    state.hset("NOS_TRAFFIC_JOB|j1", mapping={"scenario": SCENARIO, "state": "queued"})
    state.publish("NOS_TRAFFIC_REQUEST", "j1")
    agent.drive(lambda: state.hget("NOS_TRAFFIC_JOB|j1", "state") in ("done", "failed"), timeout=60)
    assert state.hget("NOS_TRAFFIC_JOB|j1", "state") == "done", state.hget("NOS_TRAFFIC_JOB|j1", "error")
    # auto MACs: h0 02:..:01 on Ethernet0, h1 02:..:02 on Ethernet4; in ASIC_STATE before the job is done
    entries = fdb_entries(raw)
    assert {mac: a["SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID"] for (_, mac), a in entries.items()} == {
        "02:00:00:00:00:01": bp["Ethernet0"], "02:00:00:00:00:02": bp["Ethernet4"]}
    agent.drive(lambda: len(state.keys("FDB_TABLE|*")) == 2)
    assert state.hgetall("FDB_TABLE|Vlan2:02:00:00:00:00:02") == {"port": "Ethernet4", "type": "dynamic"}
