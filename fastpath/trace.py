"""Explaining what the fast path does with one packet: ``trace`` runs ``forward`` on a batch of one
(no second model) and turns its result columns and the tables into JSON-able steps: port state, VLAN
membership, FDB hit or learn, isolation (the group the ingress is bound to and what it keeps the frame
from), router MAC, TTL, LPM match, next hop / ECMP member and hash, LAG member, egress port or the
ports a flood reaches, DSCP -> TC -> queue / PG, and the action with its drop reason.

Packet keys (all optional except ``in_port``, a port name): src_mac, dst_mac, vlan, src_ip, dst_ip (IPv4
or IPv6 text), ip_proto, l4_src, l4_dst, dscp, ttl. Without ``dst_mac`` a packet with a ``dst_ip`` is
sent to the router MAC (of the ingress router interface, else the switch's) and one without to the
broadcast MAC.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from fastpath.flood import flood_objects, flood_ports, lag_member_ports
from fastpath.forward import (
    ACT_DROP,
    ACT_FLOOD,
    ACT_FORWARD,
    ACTION_NAMES,
    BROADCAST_MAC,
    DROP_REASONS,
    TRAP_REASONS,
    ForwardResult,
    PacketBatch,
    forward,
)
from fastpath.isolation import bound_group
from fastpath.l2 import HASH_BUCKETS, MEMBER_NONE, MEMBER_TAGGED, L2Tables, empty_l2
from fastpath.l3 import RIF_SUB_PORT, RIF_VLAN, RK_GROUP, ROUTE_KIND_NAMES, L3Tables, empty_l3
from fastpath.tables import Tables
from fastpath.values import ip_text, ip_words, mac_int, mac_text

Step = dict[str, Any]
INT_KEYS = {"vlan": 0, "ip_proto": 17, "l4_src": 0, "l4_dst": 0, "dscp": 0, "ttl": 64}


class TraceError(ValueError):
    """Raised by ``trace`` for a packet it cannot build (unknown port, bad address)."""


def _ip(text: object) -> tuple[bool, int, int]:
    try:
        return ip_words(str(text))
    except OSError as exc:
        raise TraceError(f"not an IP address: {text!r}") from exc


def _mac(text: object) -> int:
    try:
        return mac_int(str(text))
    except ValueError as exc:
        raise TraceError(f"not a MAC address: {text!r}") from exc


def _router_mac(tables: Tables, l2: L2Tables, l3: L3Tables, port: int) -> int:
    obj = int(l2.port_obj[port])
    rif = int(l3.obj_rif[obj]) if obj < len(l3.obj_rif) else -1
    return int(l3.rif_mac[rif]) if rif >= 0 else l3.switch_mac


def build_batch(tables: Tables, packet: Mapping[str, object]) -> PacketBatch:
    """The one-packet batch for ``packet`` (see the module docstring)."""
    names = tables.ports.names
    if packet.get("in_port") not in names:
        raise TraceError(f"unknown in_port {packet.get('in_port')!r}")
    port = names.index(str(packet["in_port"]))
    l2, l3 = _parts(tables)
    cols: dict[str, Any] = {"in_port": port}
    for key, default in INT_KEYS.items():
        try:
            cols[key] = int(str(packet.get(key, default)))
        except ValueError as exc:
            raise TraceError(f"{key} is not a number: {packet.get(key)!r}") from exc
    src = _ip(packet["src_ip"]) if "src_ip" in packet else (False, 0, 0)
    dst = _ip(packet["dst_ip"]) if "dst_ip" in packet else (src[0], 0, 0)
    cols.update(is_v6=dst[0], src_ip=np.array([[src[1], src[2]]], dtype=np.uint64),
                dst_ip=np.array([[dst[1], dst[2]]], dtype=np.uint64))
    if "src_mac" in packet:
        cols["src_mac"] = _mac(packet["src_mac"])
    default_dst = _router_mac(tables, l2, l3, port) if "dst_ip" in packet else BROADCAST_MAC
    cols["dst_mac"] = _mac(packet["dst_mac"]) if "dst_mac" in packet else default_dst
    return PacketBatch.of(1, **cols)


def _parts(tables: Tables) -> tuple[L2Tables, L3Tables]:
    l2 = tables.l2 if tables.l2 is not None else empty_l2(tables.ports.n)
    l3 = tables.l3 if tables.l3 is not None else empty_l3()
    return l2, l3


def _obj_name(tables: Tables, l2: L2Tables, obj: int) -> str:
    if obj < 0:
        return ""
    if obj < tables.ports.n:
        return tables.ports.names[obj]
    return f"LAG {l2.lag_oids[obj - tables.ports.n]}"


def _ingress(tables: Tables, b: PacketBatch) -> Step:
    p = int(b.in_port[0])
    ports = tables.ports
    return {"stage": "ingress", "detail": f"{ports.names[p]} admin {'up' if ports.admin_up[p] else 'down'}, "
            f"oper {'up' if ports.oper_up[p] else 'down'}, {int(ports.speed_bps[p]) // 10**9}G",
            "port": ports.names[p], "admin_up": bool(ports.admin_up[p]), "oper_up": bool(ports.oper_up[p])}


def _bridge(tables: Tables, l2: L2Tables, b: PacketBatch, r: ForwardResult) -> list[Step]:
    vlan = int(r.vlan[0])
    obj = int(l2.port_obj[int(b.in_port[0])])
    tag = int(b.vlan[0])
    member = int(l2.vlan_member[vlan, obj]) if vlan else MEMBER_NONE
    how = {MEMBER_NONE: "not a member", MEMBER_TAGGED: "tagged member"}.get(member, "untagged member")
    steps = [{"stage": "vlan", "vlan": vlan, "membership": how,
              "detail": f"{'tagged ' + str(tag) if tag else 'untagged, PVID ' + str(vlan)}: "
                        f"{_obj_name(tables, l2, obj)} is {how} of VLAN {vlan}"}]
    if len(r.learn.mac):
        kind = "moved" if bool(r.learn.move[0]) else "new"
        steps.append({"stage": "learn", "detail": f"{kind} source MAC {mac_text(int(b.src_mac[0]))} on VLAN {vlan} "
                      f"learned on {_obj_name(tables, l2, int(r.learn.obj[0]))} (fdb_event)"})
    if not bool(r.routed[0]) and r.drop_reason[0] != DROP_REASONS.index("ingress_vlan_filter"):
        hit = bool(r.fdb_hit[0])
        where = _obj_name(tables, l2, int(r.egress_obj[0])) if hit else "flood in the VLAN"
        steps.append({"stage": "fdb", "hit": hit, "detail": f"{mac_text(int(b.dst_mac[0]))} on VLAN {vlan}: "
                      f"{'hit -> ' if hit else 'miss or broadcast -> '}{where}"})
    return steps


def _isolated_target(tables: Tables, l2: L2Tables, b: PacketBatch, r: ForwardResult, port_group: bool) -> str:
    """What an isolated known unicast was going out of: the bridge port's object, or (port groups) the
    port, the LAG member its hash picked for a LAG."""
    obj = int(r.egress_obj[0])
    if port_group and obj >= tables.ports.n:
        port = int(lag_member_ports(l2, b, np.zeros(1, dtype=np.intp))[0, obj - tables.ports.n])
        if port >= 0:
            return f"{tables.ports.names[port]} (picked in {_obj_name(tables, l2, obj)})"
    return _obj_name(tables, l2, obj)


def _isolation(tables: Tables, l2: L2Tables, b: PacketBatch, r: ForwardResult) -> list[Step]:
    in_port = int(b.in_port[0])
    group = bound_group(l2, in_port)
    if group < 0 or bool(r.routed[0]):
        return []
    oid, port_group = l2.iso_oids[group], bool(l2.iso_port_type[group])
    ingress = tables.ports.names[in_port] if port_group else _obj_name(tables, l2, int(l2.port_obj[in_port]))
    why = f"isolated from {ingress} by isolation group {oid}"
    step: Step = {"stage": "isolation", "group": oid, "kind": "port" if port_group else "bridge_port"}
    if DROP_REASONS[int(r.drop_reason[0])] == "isolated":
        target = _isolated_target(tables, l2, b, r, port_group)
        return [{**step, "isolated": [target], "detail": f"{why}: {target} is a member -> dropped"}]
    if int(r.action[0]) == ACT_FLOOD:
        if port_group:
            names = [tables.ports.names[p] for p in np.flatnonzero(
                flood_ports(tables, b, r, isolate=False)[0] & ~flood_ports(tables, b, r)[0])]
        else:
            names = [_obj_name(tables, l2, int(o)) for o in np.flatnonzero(
                flood_objects(tables, b, r, isolate=False)[0] & ~flood_objects(tables, b, r)[0])]
        left = ", ".join(names) if names else "no member of the VLAN"
        return [{**step, "isolated": names, "detail": f"{why}: the flood leaves out {left}"}]
    if int(r.action[0]) == ACT_FORWARD:
        target = _isolated_target(tables, l2, b, r, port_group)
        return [{**step, "isolated": [], "detail": f"{ingress} is bound to isolation group {oid}: "
                 f"{target} is not a member"}]
    return []


def _rif_name(tables: Tables, l2: L2Tables, l3: L3Tables, rif: int) -> str:
    """A router interface as an operator names it: the port, ``Vlan<vid>``, ``<port>.<vid>``."""
    if rif < 0:
        return "?"
    kind, obj, vid = int(l3.rif_kind[rif]), int(l3.rif_obj[rif]), int(l3.rif_vlan[rif])
    if kind == RIF_VLAN:
        return f"Vlan{vid}"
    if kind == RIF_SUB_PORT:
        return f"{_obj_name(tables, l2, obj)}.{vid}"
    return _obj_name(tables, l2, obj) if obj >= 0 else l3.rif_oids[rif]


def _prefix(l3: L3Tables, route: int) -> str:
    v6 = bool(l3.route_is_v6[route])
    return f"{ip_text(v6, int(l3.route_addr[route, 0]), int(l3.route_addr[route, 1]))}/{int(l3.route_len[route])}"


def _next_hop(tables: Tables, l2: L2Tables, l3: L3Tables, r: ForwardResult, route: int) -> list[Step]:
    nh = int(r.next_hop[0])
    steps: list[Step] = []
    if route >= 0 and int(l3.route_kind[route]) == RK_GROUP:
        group = int(l3.route_ref[route])
        h = int(r.flow_hash[0])
        steps.append({"stage": "ecmp", "group": l3.nhg_oids[group], "members": len(l3.nhg_members[group]),
                      "hash": h, "bucket": h % HASH_BUCKETS,
                      "detail": f"group {l3.nhg_oids[group]} of {len(l3.nhg_members[group])} next hops: "
                                f"flow hash {h:#018x}, bucket {h % HASH_BUCKETS} -> next hop {nh}"})
    if nh >= 0:
        ip = ip_text(bool(l3.nh_is_v6[nh]), int(l3.nh_ip[nh, 0]), int(l3.nh_ip[nh, 1]))
        rif = int(l3.nh_rif[nh])
        steps.append({"stage": "next_hop", "next_hop": l3.nh_oids[nh], "ip": ip,
                      "resolved": bool(l3.nh_resolved[nh]),
                      "detail": f"{ip} via {_rif_name(tables, l2, l3, rif)}, neighbor MAC "
                                f"{mac_text(int(l3.nh_mac[nh])) if l3.nh_resolved[nh] else 'unresolved'}"})
    return steps


def _l3(tables: Tables, l2: L2Tables, l3: L3Tables, b: PacketBatch, r: ForwardResult) -> list[Step]:
    rif = int(r.rif[0])
    name = _rif_name(tables, l2, l3, rif)
    steps: list[Step] = [{"stage": "router_mac", "rif": l3.rif_oids[rif], "interface": name,
                          "detail": f"{mac_text(int(b.dst_mac[0]))} is the router MAC of {name}: routed"}]
    ttl = int(b.ttl[0])
    steps.append({"stage": "ttl", "ttl": ttl, "detail": f"TTL {ttl} -> " + (
        "expired" if ttl <= 1 else str(ttl - 1))})
    if ttl <= 1:
        return steps
    route = int(r.route[0])
    dst = ip_text(bool(b.is_v6[0]), int(b.dst_ip[0, 0]), int(b.dst_ip[0, 1]))
    if route < 0:
        steps.append({"stage": "lpm", "route": None, "detail": f"{dst}: no route"})
        return steps
    kind = ROUTE_KIND_NAMES[int(l3.route_kind[route])]
    steps.append({"stage": "lpm", "route": _prefix(l3, route), "kind": kind,
                  "detail": f"{dst} matches {_prefix(l3, route)} ({kind})"})
    return steps + _next_hop(tables, l2, l3, r, route)


def _flood(tables: Tables, b: PacketBatch, r: ForwardResult) -> Step:
    ports = [tables.ports.names[p] for p in np.flatnonzero(flood_ports(tables, b, r)[0])]
    vlan = int(r.out_vlan[0])
    return {"stage": "flood", "vlan": vlan, "ports": ports,
            "detail": f"flood in VLAN {vlan} -> {', '.join(ports) if ports else 'no port'}"}


def _egress(tables: Tables, l2: L2Tables, b: PacketBatch, r: ForwardResult) -> list[Step]:
    obj, port = int(r.egress_obj[0]), int(r.egress_port[0])
    if int(r.action[0]) == ACT_FLOOD:
        return [_flood(tables, b, r)]
    steps: list[Step] = []
    if obj >= tables.ports.n and DROP_REASONS[int(r.drop_reason[0])] != "isolated":
        lag = obj - tables.ports.n
        members = [tables.ports.names[p] for p in l2.lag_members[lag]]
        steps.append({"stage": "lag", "lag": l2.lag_oids[lag], "members": members,
                      "detail": f"LAG {l2.lag_oids[lag]} members {members} -> "
                                f"{tables.ports.names[port] if port >= 0 else 'none'}"})
    if port >= 0:
        steps.append({"stage": "egress", "port": tables.ports.names[port],
                      "detail": f"out of {tables.ports.names[port]}, VLAN {int(r.out_vlan[0]) or 'untagged'}, "
                                f"destination MAC {mac_text(int(r.out_dst_mac[0]))}"})
    return steps


def _classify(tables: Tables, b: PacketBatch, r: ForwardResult) -> Step:
    dscp, tc, queue, pg = int(b.dscp[0]), int(r.tc[0]), int(r.queue[0]), int(r.pg[0])
    return {"stage": "classify", "dscp": dscp, "tc": tc, "queue": queue, "pg": pg,
            "detail": f"DSCP {dscp} -> TC {tc} -> queue {queue} (egress map), PG {pg} (ingress map)"}


def _result(tables: Tables, r: ForwardResult) -> dict[str, Any]:
    port = int(r.egress_port[0])
    action = int(r.action[0])
    out: dict[str, Any] = {"action": ACTION_NAMES[action], "drop_reason": DROP_REASONS[int(r.drop_reason[0])],
                           "egress_port": tables.ports.names[port] if port >= 0 else None,
                           "tc": int(r.tc[0]), "queue": int(r.queue[0]), "pg": int(r.pg[0]),
                           "out_ttl": int(r.out_ttl[0]), "out_dst_mac": mac_text(int(r.out_dst_mac[0]))}
    if TRAP_REASONS[int(r.trap_reason[0])] != "none":
        out["trap_reason"] = TRAP_REASONS[int(r.trap_reason[0])]
    out["learned"] = [{"vlan": int(v), "mac": mac_text(int(m))} for v, m in zip(r.learn.vlan, r.learn.mac, strict=True)]
    return out


def trace(tables: Tables, packet: Mapping[str, object]) -> dict[str, Any]:
    """``{"steps": [{"stage", "detail", ...}, ...], "result": {...}}`` for one packet."""
    b = build_batch(tables, packet)
    r = forward(tables, b)
    l2, l3 = _parts(tables)
    steps = [_ingress(tables, b)]
    if int(r.vlan[0]):
        steps += _bridge(tables, l2, b, r)
        steps += _isolation(tables, l2, b, r)
    if bool(r.routed[0]) or int(r.rif[0]) >= 0:
        steps += _l3(tables, l2, l3, b, r)
    steps += _egress(tables, l2, b, r)
    steps.append(_classify(tables, b, r))
    result = _result(tables, r)
    final = f"{result['action']}" + (f" ({result['drop_reason']})" if int(r.action[0]) == ACT_DROP else "")
    steps.append({"stage": "result", "detail": final})
    return {"steps": steps, "result": result}
