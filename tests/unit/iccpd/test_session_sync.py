"""ICCP-lite session and mclagsyncd rows with plain data: roles, hellos, timeouts, and where each MAC goes."""

from __future__ import annotations

import pytest

from iccpd import protocol as p
from iccpd.session import Domain, Session, role_of
from iccpd.sync import Seen, appl_rows, changes, isolated, peer_fdb, state_rows

A = Domain("1", "10.0.0.1", "10.0.0.2", "PortChannel99", 1, 3, frozenset({"PortChannel1", "PortChannel2"}))
HELLO_B = p.hello("1", "10.0.0.2", "10.0.0.1", "02:00:00:00:00:0B", 1, 3)


def up_session() -> Session:
    s = Session(A, "02:00:00:00:00:0A")
    s.connected(0.0)
    assert s.received(p.decode(HELLO_B.encode()), 0.1)
    s.received(p.Message("interfaces", {"states": {"PortChannel1": "up", "PortChannel2": "down"}}), 0.2)
    s.received(p.macs("add", [("Vlan10", "00:00:00:00:00:AA", "PortChannel1", "dynamic"),
                              ("Vlan10", "00:00:00:00:00:BB", "Ethernet8", "static")], full=True), 0.3)
    return s


def test_roles_by_address():
    assert role_of("10.0.0.1", "10.0.0.2") == "active" and role_of("10.0.0.10", "10.0.0.9") == "standby"


def test_hello_brings_the_session_up_and_the_standby_adopts_the_active_mac():
    s = up_session()
    assert (s.state, s.role, s.system_mac, s.peer_mac) == ("up", "active", "02:00:00:00:00:0A", "02:00:00:00:00:0B")
    standby = Session(Domain("1", "10.0.0.2", "10.0.0.1"), "02:00:00:00:00:0B")
    standby.connected(0.0)
    standby.received(p.hello("1", "10.0.0.1", "10.0.0.2", "02:00:00:00:00:0A", 1, 3), 0.1)
    assert (standby.role, standby.system_mac) == ("standby", "02:00:00:00:00:0A")


@pytest.mark.parametrize("hello, why", [
    (p.hello("2", "10.0.0.2", "10.0.0.1", "m", 1, 3), "domain 2 is not 1"),
    (p.hello("1", "10.0.0.3", "10.0.0.1", "m", 1, 3), "the peer is 10.0.0.3"),
    (p.Message("macs", {"op": "add", "entries": []}), "macs before hello"),
])
def test_inconsistent_or_early_messages_are_protocol_errors(hello, why):
    s = Session(A, "m")
    s.connected(0.0)
    with pytest.raises(p.ProtocolError, match=why):
        s.received(hello, 0.1)


def test_garbage_lines_are_protocol_errors():
    for line in (b"{", b"[1]", b'{"kind":"nope"}'):
        with pytest.raises(p.ProtocolError):
            p.decode(line)
    buffer = p.LineBuffer()
    assert buffer.feed(b'{"kind":"heartbeat"}\n{"ki') == [b'{"kind":"heartbeat"}'] and buffer.data == b'{"ki'


def test_heartbeats_and_the_session_timeout():
    s = up_session()
    s.sent(0.3)
    assert s.due(1.0) == (False, False) and s.due(1.31) == (True, False) and s.due(3.31)[1]
    assert s.lost("gone") and (s.state, s.remote_macs, s.role, s.system_mac) == ("down", {}, "active",
                                                                                "02:00:00:00:00:0A")


def test_peer_macs_go_to_the_same_interface_when_it_is_up_here_else_the_peer_link():
    s = up_session()
    seen = Seen(oper={"PortChannel1": "up", "PortChannel2": "up"})
    assert peer_fdb(s, seen) == {"Vlan10:00:00:00:00:00:AA": {"port": "PortChannel1", "type": "dynamic_local"},
                                 "Vlan10:00:00:00:00:00:BB": {"port": "PortChannel99", "type": "static"}}
    seen.oper["PortChannel1"] = "down"
    assert peer_fdb(s, seen)["Vlan10:00:00:00:00:00:AA"]["port"] == "PortChannel99"


def test_a_local_mac_on_a_member_down_here_but_up_there_moves_to_the_peer_link():
    s = up_session()
    local = {("Vlan10", "00:00:00:00:00:CC"): ("PortChannel1", "dynamic"),
             ("Vlan10", "00:00:00:00:00:DD"): ("PortChannel2", "dynamic")}
    seen = Seen(oper={"PortChannel1": "down"}, local_macs=local)
    fdb = peer_fdb(s, seen)
    assert fdb["Vlan10:00:00:00:00:00:CC"] == {"port": "PortChannel99", "type": "dynamic"}
    assert "Vlan10:00:00:00:00:00:DD" not in fdb           # PortChannel2 is down on the peer too


def test_isolation_takes_members_up_on_both_sides_and_state_rows_say_so():
    s = up_session()
    seen = Seen(oper={"PortChannel1": "up", "PortChannel2": "up"}, lags=frozenset({"PortChannel1", "PortChannel99"}))
    assert isolated(s, seen) == ["PortChannel1"]
    rows = appl_rows(s, seen)
    assert rows[("ISOLATION_GROUP_TABLE", "MCLAG_ISO_GRP")]["MEMBERS"] == "PortChannel1"
    assert rows[("LAG_TABLE", "PortChannel99")] == {"learn_mode": "disable"}
    assert ("LAG_TABLE", "PortChannel2") not in rows                        # no such LAG here: no partial row
    state = state_rows(s, seen)
    assert state[("MCLAG_LOCAL_INTF_TABLE", "PortChannel2")] == {"port_isolate_peer_link": "false"}
    assert state[("MCLAG_REMOTE_INTF_TABLE", "1|PortChannel2")] == {"oper_status": "down"}
    s.lost("gone")
    after = appl_rows(s, seen)
    sets, gone = changes(rows, after)
    assert ("ISOLATION_GROUP_TABLE", "MCLAG_ISO_GRP") in gone
    assert ("MCLAG_FDB_TABLE", "Vlan10:00:00:00:00:00:AA") in gone


def test_the_peers_arp_entries_are_written_where_this_switch_has_none():
    s = up_session()
    s.received(p.arps("add", [("Vlan10", "10.1.0.9", "00:00:00:00:00:09", "IPv4"),
                              ("Vlan10", "10.1.0.8", "00:00:00:00:00:08", "IPv4"),
                              ("Vlan20", "10.2.0.9", "00:00:00:00:00:19", "IPv4")], full=True), 0.4)
    seen = Seen(vlan_interfaces=frozenset({"Vlan10"}),
                local_arps={("Vlan10", "10.1.0.8"): ("00:00:00:00:00:08", "IPv4")})
    rows = {k: v for k, v in appl_rows(s, seen).items() if k[0] == "NEIGH_TABLE"}
    assert rows == {("NEIGH_TABLE", "Vlan10:10.1.0.9"): {"neigh": "00:00:00:00:00:09", "family": "IPv4"}}
    s.received(p.arps("del", [("Vlan10", "10.1.0.9", "00:00:00:00:00:09", "IPv4")]), 0.5)
    assert not any(k[0] == "NEIGH_TABLE" for k in appl_rows(s, seen))
