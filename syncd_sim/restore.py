"""Rebuilding the object store from ASIC_STATE after syncd_sim alone was restarted.

ASIC_STATE holds every object with the attributes set on it; ``NOS_SYNCD_STATE`` names the
switch's built-in objects. A port's queues, priority groups and scheduler groups are its own again
(owner = their port attribute). References are counted for every attribute a client set; for the
ASIC's own sub-objects, the attributes the ASIC set itself (their port, index, parent) are not. A
port's oper status is its admin state and the carrier of its name (``syncd_sim.links``): the shell
reads the carrier rows before it restores the store.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

from nos.sai.keys import split_object_key
from nos.sai.meta import object_meta
from nos.sai.types import ENTRY_TYPES
from nos.sai.types import ObjectType as T
from syncd_sim.behaviours import OWNED, AsicBehaviour, Defaults
from syncd_sim.links import port_names
from syncd_sim.objects import ObjectStore, SaiObject

log = logging.getLogger(__name__)


def restore(store: ObjectStore, behaviour: AsicBehaviour, rows: Mapping[str, Mapping[str, str]],
            builtins: Mapping[str, str]) -> dict[str, str]:
    """Put ``rows`` (ASIC_STATE key without prefix -> fields) back; returns hostif oid -> netdev name."""
    behaviour.defaults = Defaults(builtins.get("switch", ""), builtins.get("cpu_port", ""),
                                  builtins.get("default_vr", ""), builtins.get("default_vlan", ""),
                                  builtins.get("default_bridge", ""))
    builtin_ids = set(builtins.values())
    objects = []
    for key, fields in rows.items():
        try:
            kind, object_id = split_object_key(key)
        except ValueError:
            log.warning("syncd.restore.skipped key=%s", key)
            continue
        attrs = {f: v for f, v in fields.items() if f != "NULL"}
        owner = attrs.get(OWNED[kind][0]) if kind in OWNED else None
        obj = SaiObject(kind, object_id, attrs, owner=owner, builtin=object_id in builtin_ids,
                        key=json.loads(object_id) if kind in ENTRY_TYPES else None)
        objects.append(obj)
        store.add_builtin(obj)  # first every object, then the references between them
    for obj in objects:
        _count(store, obj)
    hostifs = {}
    for obj in store.of_type(T.HOSTIF).values():
        if obj.attrs.get("SAI_HOSTIF_ATTR_TYPE") == "SAI_HOSTIF_TYPE_NETDEV":
            hostifs[obj.object_id] = obj.attrs.get("SAI_HOSTIF_ATTR_NAME", "")
    behaviour.names.update(port_names(h.attrs for h in store.of_type(T.HOSTIF).values()))
    for port in store.of_type(T.PORT).values():
        if not port.builtin:
            behaviour.name_by_lanes(port)  # a port whose host interface is not there yet
            behaviour.oper[port.object_id] = behaviour.link_status(port)
    return hostifs


def _count(store: ObjectStore, obj: SaiObject) -> None:
    meta = object_meta(obj.object_type)
    if meta is None or obj.builtin:
        return
    internal = OWNED[obj.object_type][1] if obj.object_type in OWNED else frozenset()
    for name, value in obj.attrs.items():
        if name not in internal:
            store._ref(meta, name, value, +1)
            obj.counted.add(name)
    if obj.owner is None:
        store._key_refs(obj, +1)
