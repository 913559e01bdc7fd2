"""MAC learning as an ASIC reports it (pure): the source MACs a traffic run taught the bridge, as
dynamic SAI FDB entries and sairedis' ``fdb_event`` notification.

* What a run teaches: with ``forwarding: programmed`` every host sends one broadcast frame before its
  flows (a NIC's first ARP; ``fastpath.paths``), and ``forward()`` reports the source MACs
  the bridge learns from them (learning on in the VLAN and on the bridge port, the MAC unknown or on
  another port). The flows' own packets come from the same MACs on the same ports, so they teach
  nothing more. ``learnt_from_hosts`` + ``resolve`` turn that into SAI ids (VLAN oid, MAC, bridge port
  oid) with the tables the run used; ``LearntMac.wire`` / ``from_wire`` carry them over the pipe.
* ``plan`` decides against the object store of the moment the run ended: a MAC not in the FDB is a new
  dynamic entry (``SAI_FDB_EVENT_LEARNED``), one on another bridge port moves
  (``SAI_FDB_EVENT_MOVE``: its bridge port is set), one already there or static is left alone, and
  one whose VLAN or bridge port has gone since is dropped.
* ``notification_data`` is sairedis' ``sai_serialize_fdb_event_ntf``: a JSON list of
  ``{"fdb_entry": <the entry's JSON key>, "fdb_event": .., "list": [{"id": attr, "value": ..}, ..]}``.

Approximations (stated): entries are learnt when the run ends, not at the simulated time of the first
frame (the run itself forwards with a private copy of the FDB that already holds them); nothing ages
out (no ``SAI_FDB_EVENT_AGED``: the model keeps no clock between runs); no FDB capacity limit; with
``forwarding: attachment`` the switch learns nothing (the model never looks at the FDB).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from fastpath.forward import Learned, PacketBatch, forward
from fastpath.tables import Tables
from fastpath.values import mac_text
from nos.sai.keys import fdb_key
from nos.sai.types import ObjectType as T
from nos.traffic.hosts import Host
from syncd_sim.objects import ObjectStore

LEARNED, MOVE = "SAI_FDB_EVENT_LEARNED", "SAI_FDB_EVENT_MOVE"
FDB_EVENT = "fdb_event"          # the notification's op (SAI_SWITCH_NOTIFICATION_NAME_FDB_EVENT)
TYPE = "SAI_FDB_ENTRY_ATTR_TYPE"
BRIDGE_PORT_ID = "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID"
PACKET_ACTION = "SAI_FDB_ENTRY_ATTR_PACKET_ACTION"
DYNAMIC, STATIC = "SAI_FDB_ENTRY_TYPE_DYNAMIC", "SAI_FDB_ENTRY_TYPE_STATIC"
FORWARD = "SAI_PACKET_ACTION_FORWARD"
BROADCAST_MAC = 0xFFFF_FFFF_FFFF


@dataclass(frozen=True)
class LearntMac:
    """One learnt source MAC in SAI terms: the VLAN's oid, the MAC (SAI form) and the bridge port."""

    bvid: str
    mac: str
    bridge_port: str

    def wire(self) -> list[str]:
        return [self.bvid, self.mac, self.bridge_port]

    @classmethod
    def from_wire(cls, row: Sequence[object]) -> LearntMac:
        """The inverse of ``wire``; raises ValueError on anything else."""
        if len(row) != 3 or not all(isinstance(v, str) and v for v in row):
            raise ValueError(f"not a learnt MAC: {row!r}")
        return cls(str(row[0]), str(row[1]), str(row[2]))


@dataclass(frozen=True)
class FdbEvent:
    """One entry of an ``fdb_event`` notification, applied to the store before it is sent."""

    event: str           # LEARNED or MOVE
    key: str             # the FDB entry's JSON key, as in ASIC_STATE
    bridge_port: str

    def attrs(self) -> list[tuple[str, str]]:
        """The entry's attributes (of a new entry; the notification's attribute list)."""
        return [(TYPE, DYNAMIC), (BRIDGE_PORT_ID, self.bridge_port), (PACKET_ACTION, FORWARD)]

    def item(self) -> dict[str, object]:
        return {"fdb_entry": self.key, "fdb_event": self.event,
                "list": [{"id": name, "value": value} for name, value in self.attrs()]}


def learnt_from_hosts(tables: Tables, hosts: Sequence[Host]) -> Learned:
    """What the bridge learns from one broadcast frame per host (on its port, with its VLAN tag)."""
    index = {name: i for i, name in enumerate(tables.ports.names)}
    n = len(hosts)
    batch = PacketBatch.of(n, in_port=np.asarray([index[h.port] for h in hosts], dtype=np.int32),
                           vlan=np.asarray([h.vlan for h in hosts], dtype=np.int32),
                           src_mac=np.asarray([h.mac for h in hosts], dtype=np.uint64),
                           dst_mac=np.full(n, BROADCAST_MAC, dtype=np.uint64))
    return forward(tables, batch).learn


def resolve(tables: Tables, learned: Learned) -> list[LearntMac]:
    """forward()'s learn rows (VLAN id, ingress object) -> SAI ids with the tables they were learnt on;
    rows whose VLAN or bridge port the tables do not name are left out."""
    l2 = tables.l2
    if l2 is None:
        return []
    out = []
    for vid, mac, obj in zip(learned.vlan.tolist(), learned.mac.tolist(), learned.obj.tolist(), strict=True):
        bvid = l2.vlan_oid[vid] if 0 <= vid < len(l2.vlan_oid) else ""
        bridge_port = l2.obj_bridge_port[obj] if 0 <= obj < len(l2.obj_bridge_port) else ""
        if bvid and bridge_port:
            out.append(LearntMac(bvid, mac_text(mac), bridge_port))
    return out


def plan(learnt: Iterable[LearntMac], store: ObjectStore, switch_id: str) -> list[FdbEvent]:
    """The events the ASIC reports for ``learnt`` given the FDB in ``store`` (read only); one event per
    entry, the last report of a MAC deciding its bridge port."""
    fdb = store.of_type(T.FDB_ENTRY)
    events: dict[str, FdbEvent] = {}
    for item in learnt:
        if not (store.exists_oid(item.bvid) and store.exists_oid(item.bridge_port)):
            continue
        key = fdb_key(item.mac, item.bvid, switch_id)
        planned = events.get(key)
        if planned is not None:
            events[key] = FdbEvent(planned.event, key, item.bridge_port)
            continue
        current = fdb.get(key)
        if current is None:
            events[key] = FdbEvent(LEARNED, key, item.bridge_port)
        elif current.attrs.get(TYPE) != STATIC and current.attrs.get(BRIDGE_PORT_ID) != item.bridge_port:
            events[key] = FdbEvent(MOVE, key, item.bridge_port)
    # a MAC reported on another port and then back on its own has not moved
    return [e for e in events.values() if e.event == LEARNED or fdb[e.key].attrs.get(BRIDGE_PORT_ID) != e.bridge_port]


def notification_data(events: Iterable[FdbEvent]) -> str:
    """sairedis' serialisation of an ``fdb_event`` notification (compact JSON, keys in order)."""
    return json.dumps([e.item() for e in events], separators=(",", ":"))


__all__ = ["FDB_EVENT", "LEARNED", "MOVE", "FdbEvent", "LearntMac", "learnt_from_hosts",
           "notification_data", "plan", "resolve"]
