"""Isolation groups in forward(), flood_ports() and trace() over plain-data tables (build_l2): a frame
that enters a bound bridge port (port) is not bridged out of the group's members, known unicast to a
member is dropped as ``isolated`` and a flood leaves the members out; frames entering elsewhere are not
affected, and a LAG in a group behaves as the LAG."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fastpath.build import build_l2, build_tables
from fastpath.flood import flood_ports
from fastpath.forward import ACT_DROP, ACT_FLOOD, ACT_FORWARD, DROP_REASONS, ForwardResult, PacketBatch, forward
from fastpath.tables import Tables
from fastpath.tables_codec import decode, encode
from fastpath.trace import trace

N = 8
A, B, D, E = 0, 1, 2, 3          # ports; C is LAG 0 (ports 4, 5), P is LAG 1 (ports 6, 7): a peer link
C, P = N + 0, N + 1
LAGS = [(4, 5), (6, 7)]
MAC = {A: 0x0000000000A0, B: 0x0000000000B0, C: 0x0000000000C0, D: 0x0000000000D0, E: 0x0000000000E0,
       P: 0x0000000000F0}
UNKNOWN = 0x0000000000EE
BROADCAST = 0xFFFFFFFFFFFF


def switch(**groups: dict[str, Any]) -> Tables:
    """VLAN 100 with A, B, D, E, C and P untagged, every MAC in the FDB behind its object."""
    l2 = build_l2(N, vlans={100: {o: "untagged" for o in MAC}}, lags=LAGS,
                  fdb={(100, mac): o for o, mac in MAC.items()}, isolation=groups)
    return build_tables(N, l2=l2)


@pytest.fixture(scope="module")
def tables() -> Tables:
    """G: bound at A, members B and C (the LAG's bridge port)."""
    return switch(G={"bind": [A], "members": [B, C]})


def send(tables: Tables, in_port: Any, dst: Any, n: int = 1, **cols: Any) -> tuple[PacketBatch, ForwardResult]:
    b = PacketBatch.of(n, in_port=in_port, src_mac=0x0000000000AB, dst_mac=dst, **cols)
    return b, forward(tables, b)


def reasons(r: ForwardResult) -> list[str]:
    return [DROP_REASONS[int(x)] for x in r.drop_reason]


def test_known_unicast_from_the_bound_port_to_a_member_is_dropped_as_isolated(tables: Tables):
    for dst in (B, C):
        _, r = send(tables, A, MAC[dst])
        assert int(r.action[0]) == ACT_DROP and reasons(r) == ["isolated"] and int(r.egress_port[0]) == -1


def test_known_unicast_to_a_non_member_and_from_other_ports_is_forwarded(tables: Tables):
    _, r = send(tables, A, MAC[D])
    assert (int(r.action[0]), int(r.egress_port[0])) == (ACT_FORWARD, D)
    _, r = send(tables, D, MAC[B])      # isolation applies only to frames entering the bound port
    assert (int(r.action[0]), int(r.egress_port[0])) == (ACT_FORWARD, B)
    _, r = send(tables, B, MAC[A])      # a member is not bound: it reaches A
    assert (int(r.action[0]), int(r.egress_port[0])) == (ACT_FORWARD, A)
    _, r = send(tables, D, MAC[C], n=64, l4_src=np.arange(64))
    assert (r.action == ACT_FORWARD).all() and set(r.egress_port.tolist()) == {4, 5}


def test_a_batch_mixing_them_is_decided_per_packet(tables: Tables):
    _, r = send(tables, [A, A, D, B, A], [MAC[B], MAC[D], MAC[B], MAC[C], MAC[C]], n=5)
    assert reasons(r) == ["isolated", "none", "none", "none", "isolated"]
    assert r.egress_port.tolist()[:3] == [-1, D, B]


def test_a_flood_from_the_bound_port_leaves_the_members_out(tables: Tables):
    for dst in (BROADCAST, UNKNOWN, 0x01005E000001):
        b, r = send(tables, A, dst)
        assert int(r.action[0]) == ACT_FLOOD
        out = np.flatnonzero(flood_ports(tables, b, r)[0]).tolist()
        assert out[:2] == [D, E] and len(out) == 3 and out[2] in (6, 7)   # one copy to the peer-link LAG
    b, r = send(tables, D, BROADCAST)
    out = np.flatnonzero(flood_ports(tables, b, r)[0]).tolist()
    assert out[:3] == [A, B, E] and len(out) == 5 and {4, 5} & set(out) and {6, 7} & set(out)


def test_a_flood_reaches_only_the_non_members_when_the_vlan_has_no_other():
    t = switch(G={"bind": [A], "members": [B, C, E, P]})
    b, r = send(t, A, BROADCAST)
    assert np.flatnonzero(flood_ports(t, b, r)[0]).tolist() == [D]


def test_a_frame_entering_a_bound_lag_on_any_member_port_is_isolated():
    """MC-LAG: the peer link P is bound, the dual-homed LAG C is a member."""
    t = switch(G={"bind": [P], "members": [C]})
    for port in (6, 7):
        _, r = send(t, port, MAC[C])
        assert reasons(r) == ["isolated"]
        _, r = send(t, port, MAC[B])
        assert (int(r.action[0]), int(r.egress_port[0])) == (ACT_FORWARD, B)
        b, r = send(t, port, BROADCAST)
        assert np.flatnonzero(flood_ports(t, b, r)[0]).tolist() == [A, B, D, E]
    _, r = send(t, A, MAC[C])
    assert int(r.action[0]) == ACT_FORWARD


def test_a_port_group_isolates_ports_after_the_lag_member_is_chosen():
    t = switch(G={"type": "port", "bind": [A], "members": [B, 4]})
    _, r = send(t, A, MAC[B])
    assert reasons(r) == ["isolated"]
    _, r = send(t, A, MAC[C], n=64, l4_src=np.arange(64))
    unicast = forward(t, PacketBatch.of(64, in_port=D, src_mac=0xAB, dst_mac=MAC[C], l4_src=np.arange(64)))
    to_4 = unicast.egress_port == 4           # the LAG hash picks the same member from A and from D
    assert to_4.any() and (~to_4).any()
    assert (r.drop_reason[to_4] == DROP_REASONS.index("isolated")).all()
    assert (r.egress_port[~to_4] == 5).all()
    b, r = send(t, A, BROADCAST, n=64, l4_src=np.arange(64))
    ports = flood_ports(t, b, r)
    assert not ports[:, [B, 4]].any() and ports[:, D].all() and ports[~to_4, 5].all()


def test_the_trace_says_what_isolated_the_packet(tables: Tables):
    out = trace(tables, {"in_port": "Ethernet0", "dst_mac": "00:00:00:00:00:C0"})
    iso = next(s for s in out["steps"] if s["stage"] == "isolation")
    assert iso["detail"] == "isolated from Ethernet0 by isolation group G: LAG lag0 is a member -> dropped"
    assert out["result"]["drop_reason"] == "isolated" and "lag" not in [s["stage"] for s in out["steps"]]
    flood = trace(tables, {"in_port": "Ethernet0"})
    steps = {s["stage"]: s for s in flood["steps"]}
    assert steps["isolation"]["detail"] == (
        "isolated from Ethernet0 by isolation group G: the flood leaves out Ethernet4, LAG lag0")
    assert steps["flood"]["ports"][:2] == ["Ethernet8", "Ethernet12"]
    assert "isolation" not in [s["stage"] for s in trace(tables, {"in_port": "Ethernet8"})["steps"]]
    passed = trace(tables, {"in_port": "Ethernet0", "dst_mac": "00:00:00:00:00:D0"})
    steps = {s["stage"]: s for s in passed["steps"]}
    assert steps["isolation"]["detail"] == "Ethernet0 is bound to isolation group G: Ethernet8 is not a member"
    assert passed["result"]["egress_port"] == "Ethernet8"


def test_the_trace_names_the_lag_member_a_port_group_isolates():
    t = switch(G={"type": "port", "bind": [A], "members": [4, 5]})
    out = trace(t, {"in_port": "Ethernet0", "dst_mac": "00:00:00:00:00:C0"})
    iso = next(s for s in out["steps"] if s["stage"] == "isolation")
    assert iso["kind"] == "port" and out["result"]["drop_reason"] == "isolated"
    assert iso["detail"] in [f"isolated from Ethernet0 by isolation group G: Ethernet{4 * p} (picked in LAG lag0) "
                             "is a member -> dropped" for p in (4, 5)]


def test_isolation_survives_the_tables_codec(tables: Tables):
    back = decode(encode(tables)).l2
    assert back.iso_oids == ("G",) and back.obj_iso.tolist() == tables.l2.obj_iso.tolist()
    assert (back.iso_member == tables.l2.iso_member).all()


def test_build_l2_lays_the_groups_out_and_refuses_an_unknown_type():
    l2 = switch(G={"bind": [P], "members": [C]}, H={"type": "port", "bind": [A, D], "members": [B]}).l2
    assert l2.iso_oids == ("G", "H") and l2.iso_port_type.tolist() == [False, True]
    assert l2.obj_iso.tolist() == [-1] * 9 + [0] and l2.port_iso.tolist() == [1, -1, 1, -1, -1, -1, -1, -1]
    assert np.flatnonzero(l2.iso_member[0]).tolist() == [C] and np.flatnonzero(l2.iso_member[1]).tolist() == [B]
    with pytest.raises(ValueError, match="bridge-port or port"):
        build_l2(N, isolation={"G": {"type": "lag"}})
