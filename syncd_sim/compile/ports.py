"""Compiling the ports: front-panel ports (the CPU port excluded) in the order of their first lane,
named by their NETDEV host interface, with speed, admin and oper state, MTU, queues and PGs."""

from __future__ import annotations

import numpy as np

from fastpath.tables import PortTables
from fastpath.values import as_bool, as_int
from nos.sai.types import ObjectType as T
from nos.sai.values import parse_list
from syncd_sim.objects import ObjectStore, SaiObject

SAI_DEFAULT_MTU = 1514
OPER_UP = "SAI_PORT_OPER_STATUS_UP"


def _first_lane(port: SaiObject) -> int:
    lanes = parse_list(port.attrs.get("SAI_PORT_ATTR_HW_LANE_LIST", ""))
    return min(int(x) for x in lanes) if lanes else 1 << 30


def front_ports(store: ObjectStore) -> list[SaiObject]:
    """Ports with lanes (the CPU port has none), by first lane."""
    ports = [p for p in store.of_type(T.PORT).values() if not p.builtin and "SAI_PORT_ATTR_HW_LANE_LIST" in p.attrs]
    return sorted(ports, key=lambda p: (_first_lane(p), p.object_id))


def netdev_names(store: ObjectStore) -> dict[str, str]:
    """Port or LAG oid -> its NETDEV host interface name."""
    out = {}
    for hostif in store.of_type(T.HOSTIF).values():
        if hostif.attrs.get("SAI_HOSTIF_ATTR_TYPE") == "SAI_HOSTIF_TYPE_NETDEV":
            out[hostif.attrs.get("SAI_HOSTIF_ATTR_OBJ_ID", "")] = hostif.attrs.get("SAI_HOSTIF_ATTR_NAME", "")
    return out


def _oper_up(store: ObjectStore, port: SaiObject) -> bool:
    status = store.hooks.read_only(store, port, "SAI_PORT_ATTR_OPER_STATUS")
    if status is None:
        return as_bool(port.attrs, "SAI_PORT_ATTR_ADMIN_STATE")
    return status == OPER_UP


def _children(store: ObjectStore, port: str, kind: T, index_attr: str) -> tuple[str, ...]:
    found = [o for o in store.owned_by(port) if o.object_type is kind]
    return tuple(o.object_id for o in sorted(found, key=lambda o: as_int(o.attrs, index_attr)))


def compile_ports(store: ObjectStore) -> PortTables:
    ports = front_ports(store)
    names = netdev_names(store)
    return PortTables(
        names=tuple(names.get(p.object_id) or p.object_id for p in ports),
        oids=tuple(p.object_id for p in ports),
        speed_bps=np.array([as_int(p.attrs, "SAI_PORT_ATTR_SPEED") * 1_000_000 for p in ports], dtype=np.int64),
        admin_up=np.array([as_bool(p.attrs, "SAI_PORT_ATTR_ADMIN_STATE") for p in ports], dtype=bool),
        oper_up=np.array([_oper_up(store, p) for p in ports], dtype=bool),
        mtu=np.array([as_int(p.attrs, "SAI_PORT_ATTR_MTU", SAI_DEFAULT_MTU) for p in ports], dtype=np.int64),
        queue_oids=tuple(_children(store, p.object_id, T.QUEUE, "SAI_QUEUE_ATTR_INDEX") for p in ports),
        pg_oids=tuple(_children(store, p.object_id, T.INGRESS_PRIORITY_GROUP, "SAI_INGRESS_PRIORITY_GROUP_ATTR_INDEX")
                      for p in ports),
    )
