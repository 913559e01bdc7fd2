"""MAC learning (pure): what the hosts' frames teach the bridge in SAI ids, the LEARNED / MOVE events
planned against the object store, sairedis' fdb_event serialisation, the pipe rows, and the learnt set
of a traffic job (programmed forwarding only)."""

from __future__ import annotations

import ipaddress
import json

import pytest

from fastpath.tables import Tables
from nos.sai.keys import fdb_key
from nos.sai.types import ObjectType as T
from nos.traffic.hosts import Host
from nos.traffic.scenario import parse_scenario
from syncd_sim import traffic_jobs as jobs
from syncd_sim.compile import compile_store
from syncd_sim.learning import (
    LEARNED,
    MOVE,
    FdbEvent,
    LearntMac,
    learnt_from_hosts,
    notification_data,
    plan,
    resolve,
)
from tests.unit.syncd_sim.compile.switchkit import SwitchKit

KNOWN = "00:00:00:00:00:0A"


class L2Lab:
    """6 ports: VLAN 100 with Ethernet0 untagged, Ethernet4 tagged and LAG(Ethernet16, Ethernet20)
    untagged; Ethernet8 routed; Ethernet12 in no VLAN; KNOWN in the FDB on Ethernet0."""

    def __init__(self) -> None:
        k = self.kit = SwitchKit(n_ports=6)
        self.vlan = k.vlan(100)
        self.lag = k.lag(4, 5)
        k.member(self.vlan, 100, k.ports[0], tagged=False)
        k.member(self.vlan, 100, k.ports[1], tagged=True)
        k.member(self.vlan, 100, self.lag, tagged=False)
        k.rif_port(k.ports[2])
        k.fdb(self.vlan, KNOWN, k.ports[0])
        self.bp = [k.bridge_ports[k.ports[0]], k.bridge_ports[k.ports[1]], k.bridge_ports[self.lag]]

    def tables(self) -> Tables:
        return compile_store(self.kit.store, version=1)

    def key(self, mac: str) -> str:
        return fdb_key(mac, self.vlan, self.kit.switch)


def host(port: str, mac: str, vlan: int = 0) -> Host:
    return Host(name=port, group=0, port=port, mac=int(mac.replace(":", ""), 16),
                ip=ipaddress.ip_interface("10.0.0.1/24"), vlan=vlan)


@pytest.fixture
def lab() -> L2Lab:
    return L2Lab()


def test_hosts_frames_teach_their_macs_on_their_bridge_ports(lab: L2Lab) -> None:
    hosts = [host("Ethernet0", "02:00:00:00:00:01"), host("Ethernet4", "02:00:00:00:00:02", vlan=100),
             host("Ethernet16", "02:00:00:00:00:03"), host("Ethernet8", "02:00:00:00:00:04"),
             host("Ethernet12", "02:00:00:00:00:05"), host("Ethernet0", KNOWN)]
    learnt = resolve(lab.tables(), learnt_from_hosts(lab.tables(), hosts))
    # the routed port and the port in no VLAN learn nothing; KNOWN is already there on Ethernet0
    assert learnt == [LearntMac(lab.vlan, "02:00:00:00:00:01", lab.bp[0]),
                      LearntMac(lab.vlan, "02:00:00:00:00:02", lab.bp[1]),
                      LearntMac(lab.vlan, "02:00:00:00:00:03", lab.bp[2])]   # the LAG's bridge port


def test_a_known_mac_on_another_port_is_learnt_again(lab: L2Lab) -> None:
    learnt = resolve(lab.tables(), learnt_from_hosts(lab.tables(), [host("Ethernet4", KNOWN, vlan=100)]))
    assert learnt == [LearntMac(lab.vlan, KNOWN, lab.bp[1])]


def test_plan_new_mac_is_learned_known_one_is_left_alone(lab: L2Lab) -> None:
    store, switch = lab.kit.store, lab.kit.switch
    events = plan([LearntMac(lab.vlan, "02:00:00:00:00:01", lab.bp[0]), LearntMac(lab.vlan, KNOWN, lab.bp[0])],
                  store, switch)
    assert events == [FdbEvent(LEARNED, lab.key("02:00:00:00:00:01"), lab.bp[0])]


def test_plan_moves_a_dynamic_entry_but_never_a_static_one(lab: L2Lab) -> None:
    store, switch = lab.kit.store, lab.kit.switch
    assert plan([LearntMac(lab.vlan, KNOWN, lab.bp[2])], store, switch) == [FdbEvent(MOVE, lab.key(KNOWN), lab.bp[2])]
    lab.kit.fdb(lab.vlan, "00:00:00:00:00:0B", lab.kit.ports[0], static=True)
    assert plan([LearntMac(lab.vlan, "00:00:00:00:00:0B", lab.bp[1])], store, switch) == []


def test_plan_keeps_the_last_report_of_a_mac(lab: L2Lab) -> None:
    store, switch = lab.kit.store, lab.kit.switch
    new = "02:00:00:00:00:01"
    reports = [LearntMac(lab.vlan, new, lab.bp[0]), LearntMac(lab.vlan, new, lab.bp[1])]
    assert plan(reports, store, switch) == [FdbEvent(LEARNED, lab.key(new), lab.bp[1])]
    there_and_back = [LearntMac(lab.vlan, KNOWN, lab.bp[1]), LearntMac(lab.vlan, KNOWN, lab.bp[0])]
    assert plan(there_and_back, store, switch) == []


def test_plan_skips_a_vlan_or_bridge_port_that_has_gone(lab: L2Lab) -> None:
    store, switch = lab.kit.store, lab.kit.switch
    gone = [LearntMac("oid:0x26000000000999", "02:00:00:00:00:01", lab.bp[0]),
            LearntMac(lab.vlan, "02:00:00:00:00:02", "oid:0x3a000000000999")]
    assert plan(gone, store, switch) == []


def test_planned_events_apply_to_the_store(lab: L2Lab) -> None:
    """The attributes an event carries are a valid SAI FDB entry (the shell creates it with them)."""
    store = lab.kit.store
    [event] = plan([LearntMac(lab.vlan, "02:00:00:00:00:01", lab.bp[2])], store, lab.kit.switch)
    assert store.create(T.FDB_ENTRY, event.key, event.attrs()).ok
    assert store.of_type(T.FDB_ENTRY)[event.key].attrs == {
        "SAI_FDB_ENTRY_ATTR_TYPE": "SAI_FDB_ENTRY_TYPE_DYNAMIC", "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID": lab.bp[2],
        "SAI_FDB_ENTRY_ATTR_PACKET_ACTION": "SAI_PACKET_ACTION_FORWARD"}
    assert plan([LearntMac(lab.vlan, "02:00:00:00:00:01", lab.bp[2])], store, lab.kit.switch) == []


def test_notification_is_sairedis_serialisation() -> None:
    key = fdb_key("02:00:00:00:00:01", "oid:0x26000000000001", "oid:0x21000000000000")
    data = notification_data([FdbEvent(LEARNED, key, "oid:0x3a000000000002")])
    assert data == (
        '[{"fdb_entry":"{\\"bvid\\":\\"oid:0x26000000000001\\",\\"mac\\":\\"02:00:00:00:00:01\\",'
        '\\"switch_id\\":\\"oid:0x21000000000000\\"}","fdb_event":"SAI_FDB_EVENT_LEARNED",'
        '"list":[{"id":"SAI_FDB_ENTRY_ATTR_TYPE","value":"SAI_FDB_ENTRY_TYPE_DYNAMIC"},'
        '{"id":"SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID","value":"oid:0x3a000000000002"},'
        '{"id":"SAI_FDB_ENTRY_ATTR_PACKET_ACTION","value":"SAI_PACKET_ACTION_FORWARD"}]}]')
    assert json.loads(json.loads(data)[0]["fdb_entry"])["mac"] == "02:00:00:00:00:01"


def test_wire_rows_round_trip_and_bad_rows_are_refused() -> None:
    mac = LearntMac("oid:0x26000000000001", "02:00:00:00:00:01", "oid:0x3a000000000002")
    assert LearntMac.from_wire(json.loads(json.dumps(mac.wire()))) == mac
    for bad in ([], ["a", "b"], ["a", "", "c"], ["a", "b", 3]):
        with pytest.raises(ValueError):
            LearntMac.from_wire(bad)


SCENARIO = """
name: t
forwarding: {forwarding}
hosts:
  - {{name: 'v{{i}}', ports: Ethernet0-Ethernet16, ip: 192.168.0.1/24}}
workloads:
  - {{kind: incast, senders: v0, receiver: v4, size: 1kB}}
"""


def test_a_job_learns_only_with_programmed_forwarding(lab: L2Lab) -> None:
    tables = lab.tables()
    programmed = jobs.learnt_macs(parse_scenario(SCENARIO.format(forwarding="programmed")), tables)
    # auto MACs 02:00:00:00:00:01.. on Ethernet0, 4, 8, 12, 16: Ethernet4 is a tagged-only member (an
    # untagged frame is filtered), Ethernet8 routed, Ethernet12 in no VLAN
    assert programmed == [LearntMac(lab.vlan, "02:00:00:00:00:01", lab.bp[0]),
                          LearntMac(lab.vlan, "02:00:00:00:00:05", lab.bp[2])]
    assert jobs.learnt_macs(parse_scenario(SCENARIO.format(forwarding="attachment")), tables) == []


def test_run_traffic_returns_the_learnt_macs_with_the_counter_updates(lab: L2Lab) -> None:
    fields: list[dict[str, str]] = []
    out = jobs.run_traffic(SCENARIO.format(forwarding="programmed"), lab.tables(), {}, fields.append)
    assert [m.mac for m in out.learned] == ["02:00:00:00:00:01", "02:00:00:00:00:05"]
    assert out.updates and "result" in fields[-1]
