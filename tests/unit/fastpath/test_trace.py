"""trace(): one packet explained step by step from forward()'s own result (JSON-able)."""

from __future__ import annotations

import json

import pytest

from fastpath.forward import PacketBatch, forward
from fastpath.tables import Tables
from fastpath.trace import TraceError, build_batch, trace
from fastpath.values import ip_words
from tests.unit.syncd_sim.compile.switchkit import ROUTER, Lab


@pytest.fixture(scope="module")
def tables() -> Tables:
    return Lab().tables()


def stages(out: dict) -> list[str]:
    return [s["stage"] for s in out["steps"]]


def test_an_ecmp_routed_packet(tables: Tables):
    packet = {"in_port": "Ethernet8", "src_ip": "1.2.3.4", "dst_ip": "10.77.0.1", "l4_src": 5000, "l4_dst": 4791,
              "dscp": 3}
    out = trace(tables, packet)
    json.dumps(out)
    assert stages(out) == ["ingress", "router_mac", "ttl", "lpm", "ecmp", "next_hop", "egress", "classify", "result"]
    lpm = out["steps"][3]
    assert lpm["route"] == "10.0.0.0/8" and lpm["kind"] == "ecmp_group"
    # the same packet through forward() directly: the trace reports that result, not its own
    r = forward(tables, PacketBatch.of(1, in_port=2, dst_mac=ROUTER, src_ip=ip_words("1.2.3.4")[2],
                                       dst_ip=ip_words("10.77.0.1")[2], l4_src=5000, l4_dst=4791, dscp=3))
    assert out["result"]["egress_port"] == tables.ports.names[int(r.egress_port[0])]
    assert out["steps"][4]["hash"] == int(r.flow_hash[0])
    assert out["result"]["action"] == "forward" and out["result"]["out_ttl"] == 63


def test_a_bridged_packet_with_learning(tables: Tables):
    out = trace(tables, {"in_port": "Ethernet4", "vlan": 100, "src_mac": "00:00:00:00:99:09",
                         "dst_mac": "00:00:00:00:64:0A"})
    assert stages(out)[:4] == ["ingress", "vlan", "learn", "fdb"]
    assert out["steps"][1]["membership"] == "tagged member"
    assert out["result"]["egress_port"] == "Ethernet0"
    assert out["result"]["learned"] == [{"vlan": 100, "mac": "00:00:00:00:99:09"}]


def test_drops_are_explained(tables: Tables):
    out = trace(tables, {"in_port": "Ethernet4", "dst_mac": "00:00:00:00:64:0A"})
    assert out["result"]["drop_reason"] == "ingress_vlan_filter"
    assert out["steps"][1]["membership"] == "not a member" and out["steps"][-1]["detail"].endswith(
        "(ingress_vlan_filter)")
    ttl = trace(tables, {"in_port": "Ethernet8", "dst_ip": "10.1.0.1", "ttl": 1})
    assert ttl["result"]["drop_reason"] == "ttl_expired" and "lpm" not in stages(ttl)
    v6 = trace(tables, {"in_port": "Ethernet8", "dst_ip": "2001:db8:1::5"})
    assert v6["steps"][3]["route"] == "2001:db8:1::5/128" and v6["result"]["egress_port"] == "Ethernet16"


def test_bad_packets_are_refused(tables: Tables):
    with pytest.raises(TraceError, match="in_port"):
        trace(tables, {"in_port": "Ethernet999"})
    with pytest.raises(TraceError, match="IP"):
        trace(tables, {"in_port": "Ethernet0", "dst_ip": "10.0.0"})
    assert int(build_batch(tables, {"in_port": "Ethernet0"}).dst_mac[0]) == 0xFFFFFFFFFFFF
