"""Each flow's path through the switch and its class: ingress port, egress port, TC, queue, PG (pure).

Two ways, chosen by the scenario's ``forwarding``:

* ``attachment`` (default): a flow leaves on the port its destination host is cabled to; TC from the
  ingress port's DSCP_TO_TC map, queue from the egress port's TC_TO_QUEUE map, PG from the ingress
  port's TC_TO_PRIORITY_GROUP map. A flow whose ingress or egress port is not up (admin and oper) is
  unroutable (``out_port`` -1).
* ``programmed``: one packet per flow through ``forward()`` over the switch's programmed state (VLANs,
  FDB, routes, ECMP, LAGs): a RoCEv2 packet (UDP to 4791, source port 49152 + flow index mod 16384 as
  a NIC varies it per queue pair, TTL 64, the host's VLAN tag) from the sender's MAC/IP to the
  destination's IP; its destination MAC is the destination host's when both hosts share a subnet, else
  the switch's router MAC. Before that, every host sends one frame (as a NIC's first ARP would) so the
  switch learns the hosts' MACs; the learnt entries are added to a copy of the FDB (the switch's own
  tables are not changed). A flow the ASIC does not forward to exactly one port (dropped, trapped,
  flooded) is unroutable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastpath.fdb import resolve_vlan_next_hops, with_learnt
from fastpath.forward import ACT_FORWARD, PacketBatch, forward
from fastpath.tables import I8, I32, U64, Tables
from nos.traffic.hosts import Host
from nos.traffic.scenario import Scenario

ROCE_UDP_PORT = 4791
UDP = 17
BROADCAST_MAC = 0xFFFF_FFFF_FFFF


@dataclass(frozen=True)
class Paths:
    """Per flow: where it enters and leaves the switch (-1: unroutable) and its class."""

    in_port: I32
    out_port: I32
    tc: I8
    queue: I8
    pg: I8


def attachment_paths(tables: Tables, in_port: I32, dst_port: I32, dscp: I32) -> Paths:
    up = tables.ports.admin_up & tables.ports.oper_up
    qos = tables.qos
    tc = qos.dscp_to_tc[in_port, dscp]
    return Paths(in_port=in_port.astype(np.int32),
                 out_port=np.where(up[in_port] & up[dst_port], dst_port, -1).astype(np.int32),
                 tc=tc.astype(np.int8), queue=qos.tc_to_queue[dst_port, tc].astype(np.int8),
                 pg=qos.tc_to_pg[in_port, tc].astype(np.int8))


def ip_words(hosts: Sequence[Host]) -> tuple[Any, U64]:
    """Hosts' addresses as (is_v6 [n], [n, 2] uint64 hi/lo words; IPv4 in the low word)."""
    values = [int(h.ip.ip) for h in hosts]
    words = np.asarray([[v >> 64, v & 0xFFFF_FFFF_FFFF_FFFF] for v in values], dtype=np.uint64).reshape(-1, 2)
    return np.asarray([h.ip.version == 6 for h in hosts], dtype=bool), words


def same_subnet(hosts: Sequence[Host], src: I32, dst: I32) -> Any:
    pairs = {(int(s), int(d)) for s, d in zip(src, dst, strict=True)}
    near = {(s, d): hosts[d].ip.ip in hosts[s].ip.network for s, d in pairs}
    return np.asarray([near[(int(s), int(d))] for s, d in zip(src, dst, strict=True)], dtype=bool)


def learn_hosts(tables: Tables, hosts: Sequence[Host], port_index: I32) -> Tables:
    """Tables whose FDB also holds what the switch learns from one broadcast frame per host, and whose
    next hops on a VLAN interface find a learnt host's port (routed traffic to it is no longer flooded)."""
    n = len(hosts)
    batch = PacketBatch.of(n, in_port=port_index, vlan=np.asarray([h.vlan for h in hosts], dtype=np.int32),
                           src_mac=np.asarray([h.mac for h in hosts], dtype=np.uint64),
                           dst_mac=np.full(n, BROADCAST_MAC, dtype=np.uint64))
    learnt = forward(tables, batch).learn
    return resolve_vlan_next_hops(with_learnt(tables, learnt))


def programmed_paths(tables: Tables, hosts: Sequence[Host], in_port: I32, src: I32, dst: I32, dscp: I32) -> Paths:
    host_ports = np.asarray([tables.ports.names.index(h.port) for h in hosts], dtype=np.int32)
    learnt = learn_hosts(tables, hosts, host_ports)
    is_v6, words = ip_words(hosts)
    macs = np.asarray([h.mac for h in hosts], dtype=np.uint64)
    router_mac = np.uint64(tables.l3.switch_mac) if tables.l3 is not None else None
    near = same_subnet(hosts, src, dst)
    dst_mac = macs[dst] if router_mac is None else np.where(near, macs[dst], router_mac)
    n = len(src)
    batch = PacketBatch.of(
        n, in_port=in_port, vlan=np.asarray([h.vlan for h in hosts], dtype=np.int32)[src],
        src_mac=macs[src], dst_mac=dst_mac.astype(np.uint64), is_v6=is_v6[src], src_ip=words[src], dst_ip=words[dst],
        ip_proto=np.full(n, UDP, dtype=np.int32), l4_src=(49152 + np.arange(n) % 16384).astype(np.int32),
        l4_dst=np.full(n, ROCE_UDP_PORT, dtype=np.int32), dscp=dscp.astype(np.int32),
        ttl=np.full(n, 64, dtype=np.int32))
    result = forward(learnt, batch)
    ok = (result.action == ACT_FORWARD) & (result.egress_port >= 0)
    return Paths(in_port=in_port.astype(np.int32), out_port=np.where(ok, result.egress_port, -1).astype(np.int32),
                 tc=result.tc.astype(np.int8), queue=result.queue.astype(np.int8), pg=result.pg.astype(np.int8))


def find_paths(scenario: Scenario, hosts: Sequence[Host], tables: Tables, src: I32, dst: I32, dscp: I32) -> Paths:
    """Every flow's path, by the scenario's ``forwarding``."""
    index = {name: i for i, name in enumerate(tables.ports.names)}
    host_port = np.asarray([index[h.port] for h in hosts], dtype=np.int32)
    if scenario.forwarding == "programmed":
        return programmed_paths(tables, hosts, host_port[src], src, dst, dscp)
    return attachment_paths(tables, host_port[src], host_port[dst], dscp)


__all__ = ["Paths", "attachment_paths", "find_paths", "programmed_paths", "with_learnt"]
