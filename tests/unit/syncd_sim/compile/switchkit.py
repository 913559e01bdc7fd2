"""Building an object store the way orchagent programs it, for compiler and forwarding tests: a
switch, ports with host interfaces, VLANs, LAGs, router interfaces, neighbors, next hops, groups,
routes, QoS and buffer objects. Every create must succeed (asserted)."""

from __future__ import annotations

import itertools
import json

from fastpath.tables import Tables
from fastpath.values import mac_int
from nos.sai.keys import fdb_key, neighbor_key, route_key
from nos.sai.types import ObjectType as T
from nos.sai.types import make_oid
from syncd_sim.behaviours import AsicBehaviour, Inherited
from syncd_sim.compile import compile_store
from syncd_sim.links import Carriers
from syncd_sim.objects import ObjectStore
from syncd_sim.platform import Platform

SWITCH_MAC = "02:00:00:00:00:AA"
ECMP = "SAI_NEXT_HOP_GROUP_TYPE_DYNAMIC_UNORDERED_ECMP"


class SwitchKit:
    def __init__(self, n_ports: int = 4, speed: int = 400000, lanes: int = 4, first_index: int = 1,
                 inherited: Inherited | None = None, carriers: Carriers | None = None,
                 platform: Platform | None = None) -> None:
        """``first_index``: where object ids start; ``inherited``: build a temporary view of another kit's;
        ``carriers``: the lab's carrier rows there are before the switch is built."""
        counter = itertools.count(first_index)
        self.alloc = lambda kind, n: [make_oid(kind, next(counter)) for _ in range(n)]
        self.behaviour = AsicBehaviour(platform or Platform("test", lane_speed_mbps=100000), inherited=inherited,
                                       carriers=carriers or Carriers())
        self.store = ObjectStore(self.alloc, self.behaviour)
        self.switch = self.create(T.SWITCH, ("SAI_SWITCH_ATTR_INIT_SWITCH", "true"),
                                  ("SAI_SWITCH_ATTR_SRC_MAC_ADDRESS", SWITCH_MAC))
        self.vr = self.behaviour.defaults.default_vr
        self.bridge = self.behaviour.defaults.default_bridge
        self.cpu = self.behaviour.defaults.cpu_port
        self.ports: list[str] = []
        # created in reverse lane order: the compiler must sort them by lane
        for i in reversed(range(n_ports)):
            first = i * lanes
            port = self.create(T.PORT, ("SAI_PORT_ATTR_HW_LANE_LIST", f"{lanes}:" + ",".join(
                str(first + k) for k in range(lanes))), ("SAI_PORT_ATTR_SPEED", str(speed)),
                ("SAI_PORT_ATTR_ADMIN_STATE", "true"), ("SAI_PORT_ATTR_MTU", "9122"))
            self.create(T.HOSTIF, ("SAI_HOSTIF_ATTR_TYPE", "SAI_HOSTIF_TYPE_NETDEV"), ("SAI_HOSTIF_ATTR_OBJ_ID", port),
                        ("SAI_HOSTIF_ATTR_NAME", f"Ethernet{first}"))
            self.ports.insert(0, port)
        self.bridge_ports: dict[str, str] = {}

    def create(self, kind: T, *attrs: tuple[str, str]) -> str:
        oid = self.alloc(kind, 1)[0]
        out = self.store.create(kind, oid, list(attrs))
        assert out.ok, (kind, attrs, out.reason)
        return oid

    def entry(self, kind: T, key: str, *attrs: tuple[str, str]) -> None:
        out = self.store.create(kind, key, list(attrs))
        assert out.ok, (kind, key, out.reason)

    def set(self, kind: T, oid: str, attr: str, value: str) -> None:
        out = self.store.set(kind, oid, attr, value)
        assert out.ok, (kind, oid, attr, out.reason)

    def remove(self, kind: T, oid: str) -> None:
        out = self.store.remove(kind, oid)
        assert out.ok, (kind, oid, out.reason)

    # -- layer 2 ------------------------------------------------------------------------------------
    def lag(self, *ports: int) -> str:
        lag = self.create(T.LAG)
        for p in ports:
            self.create(T.LAG_MEMBER, ("SAI_LAG_MEMBER_ATTR_LAG_ID", lag),
                        ("SAI_LAG_MEMBER_ATTR_PORT_ID", self.ports[p]))
        return lag

    def bridge_port(self, target: str) -> str:
        if target not in self.bridge_ports:
            self.bridge_ports[target] = self.create(
                T.BRIDGE_PORT, ("SAI_BRIDGE_PORT_ATTR_TYPE", "SAI_BRIDGE_PORT_TYPE_PORT"),
                ("SAI_BRIDGE_PORT_ATTR_PORT_ID", target), ("SAI_BRIDGE_PORT_ATTR_ADMIN_STATE", "true"),
                ("SAI_BRIDGE_PORT_ATTR_FDB_LEARNING_MODE", "SAI_BRIDGE_PORT_FDB_LEARNING_MODE_HW"))
        return self.bridge_ports[target]

    def vlan(self, vid: int) -> str:
        return self.create(T.VLAN, ("SAI_VLAN_ATTR_VLAN_ID", str(vid)))

    def member(self, vlan: str, vid: int, target: str, tagged: bool) -> None:
        mode = "SAI_VLAN_TAGGING_MODE_TAGGED" if tagged else "SAI_VLAN_TAGGING_MODE_UNTAGGED"
        self.create(T.VLAN_MEMBER, ("SAI_VLAN_MEMBER_ATTR_VLAN_ID", vlan),
                    ("SAI_VLAN_MEMBER_ATTR_BRIDGE_PORT_ID", self.bridge_port(target)),
                    ("SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE", mode))
        if not tagged:
            kind, attr = (T.PORT, "SAI_PORT_ATTR_PORT_VLAN_ID") if target in self.ports else (
                T.LAG, "SAI_LAG_ATTR_PORT_VLAN_ID")
            self.set(kind, target, attr, str(vid))

    def fdb(self, vlan: str, mac: str, target: str, static: bool = False) -> None:
        kind = "SAI_FDB_ENTRY_TYPE_STATIC" if static else "SAI_FDB_ENTRY_TYPE_DYNAMIC"
        self.entry(T.FDB_ENTRY, fdb_key(mac, vlan, self.switch), ("SAI_FDB_ENTRY_ATTR_TYPE", kind),
                   ("SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID", self.bridge_port(target)))

    # -- layer 3 ------------------------------------------------------------------------------------
    def rif_port(self, target: str, mac: str = SWITCH_MAC) -> str:
        return self.create(T.ROUTER_INTERFACE, ("SAI_ROUTER_INTERFACE_ATTR_VIRTUAL_ROUTER_ID", self.vr),
                           ("SAI_ROUTER_INTERFACE_ATTR_TYPE", "SAI_ROUTER_INTERFACE_TYPE_PORT"),
                           ("SAI_ROUTER_INTERFACE_ATTR_PORT_ID", target),
                           ("SAI_ROUTER_INTERFACE_ATTR_SRC_MAC_ADDRESS", mac))

    def rif_vlan(self, vlan: str, mac: str = SWITCH_MAC) -> str:
        return self.create(T.ROUTER_INTERFACE, ("SAI_ROUTER_INTERFACE_ATTR_VIRTUAL_ROUTER_ID", self.vr),
                           ("SAI_ROUTER_INTERFACE_ATTR_TYPE", "SAI_ROUTER_INTERFACE_TYPE_VLAN"),
                           ("SAI_ROUTER_INTERFACE_ATTR_VLAN_ID", vlan),
                           ("SAI_ROUTER_INTERFACE_ATTR_SRC_MAC_ADDRESS", mac))

    def neighbor(self, rif: str, ip: str, mac: str, host_route: bool = True) -> str:
        """The neighbor and its next hop (as neighorch creates both)."""
        attrs = [("SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS", mac)]
        if not host_route:
            attrs.append(("SAI_NEIGHBOR_ENTRY_ATTR_NO_HOST_ROUTE", "true"))
        self.entry(T.NEIGHBOR_ENTRY, neighbor_key(ip, rif, self.switch), *attrs)
        return self.create(T.NEXT_HOP, ("SAI_NEXT_HOP_ATTR_TYPE", "SAI_NEXT_HOP_TYPE_IP"),
                           ("SAI_NEXT_HOP_ATTR_IP", ip), ("SAI_NEXT_HOP_ATTR_ROUTER_INTERFACE_ID", rif))

    def group(self, *next_hops: str) -> tuple[str, list[str]]:
        group = self.create(T.NEXT_HOP_GROUP, ("SAI_NEXT_HOP_GROUP_ATTR_TYPE", ECMP))
        return group, [self.add_member(group, nh) for nh in next_hops]

    def add_member(self, group: str, nh: str) -> str:
        return self.create(T.NEXT_HOP_GROUP_MEMBER, ("SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID", group),
                           ("SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID", nh))

    def route(self, prefix: str, target: str | None = None, action: str | None = None) -> None:
        attrs = []
        if action:
            attrs.append(("SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION", action))
        if target:
            attrs.append(("SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID", target))
        self.entry(T.ROUTE_ENTRY, route_key(prefix, self.vr, self.switch), *attrs)

    # -- QoS ----------------------------------------------------------------------------------------
    def qos_map(self, sai_type: str, key: str, value: str, pairs: dict[int, int]) -> str:
        items = [{"key": {key: k}, "value": {value: v}} for k, v in pairs.items()]
        return self.create(T.QOS_MAP, ("SAI_QOS_MAP_ATTR_TYPE", sai_type),
                           ("SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST", json.dumps({"count": len(items), "list": items})))


ROUTER = mac_int(SWITCH_MAC)


class Lab:
    """A standard small switch for forwarding tests (8 ports):

    * VLAN 100: Ethernet0 untagged, Ethernet4 tagged, LAG(Ethernet24, Ethernet28) untagged; VLAN router
      interface 192.168.100.0/24 (host 192.168.100.10 behind Ethernet0, MAC 00:00:00:00:64:0A, in the FDB);
    * Ethernet8, 12, 16, 20: routed ports 10.0.{2..5}.0/31 with neighbors 10.0.{2..5}.1, MAC 00:00:00:00:0{2..5}:01;
    * routes: 10.0.0.0/8 -> ECMP over the four neighbors; 10.1.0.0/16 -> 10.0.2.1; 10.1.2.0/24 -> 10.0.3.1;
      10.1.2.3/32 -> 10.0.4.1; 10.9.0.0/16 blackhole; 10.8.0.0/16 trap; 192.168.100.0/24 connected;
      2001:db8::/32 -> 10.0.2.1's RIF neighbor fe80::2, 2001:db8:1::/48 -> fe80::3 (Ethernet12),
      2001:db8:1::5/128 -> fe80::4 (Ethernet16).
    """

    def __init__(self) -> None:
        k = self.kit = SwitchKit(n_ports=8)
        self.vlan = k.vlan(100)
        self.lag = k.lag(6, 7)
        k.member(self.vlan, 100, k.ports[0], tagged=False)
        k.member(self.vlan, 100, k.ports[1], tagged=True)
        k.member(self.vlan, 100, self.lag, tagged=False)
        k.fdb(self.vlan, "00:00:00:00:64:0A", k.ports[0])
        vlan_rif = k.rif_vlan(self.vlan)
        k.neighbor(vlan_rif, "192.168.100.10", "00:00:00:00:64:0A")
        k.route("192.168.100.0/24", vlan_rif)
        self.rifs = [k.rif_port(k.ports[p]) for p in range(2, 6)]
        self.nhs = [k.neighbor(self.rifs[i], f"10.0.{i + 2}.1", f"00:00:00:00:0{i + 2}:01") for i in range(4)]
        v6 = [k.neighbor(self.rifs[i], f"fe80::{i + 2}", f"00:00:00:00:6{i + 2}:01", host_route=False)
              for i in range(3)]
        self.group, self.members = k.group(*self.nhs)
        k.route("10.0.0.0/8", self.group)
        k.route("10.1.0.0/16", self.nhs[0])
        k.route("10.1.2.0/24", self.nhs[1])
        k.route("10.1.2.3/32", self.nhs[2])
        k.route("10.9.0.0/16", None, "SAI_PACKET_ACTION_DROP")
        k.route("10.8.0.0/16", k.cpu)
        k.route("2001:db8::/32", v6[0])
        k.route("2001:db8:1::/48", v6[1])
        k.route("2001:db8:1::5/128", v6[2])

    def tables(self, version: int = 1) -> Tables:
        return compile_store(self.kit.store, version=version)
