"""Compiling the isolation groups (``SAI_OBJECT_TYPE_ISOLATION_GROUP`` and its members) and where they
are bound, into the ``iso_*``, ``obj_iso`` and ``port_iso`` fields of ``fastpath.l2.L2Tables``.

* Groups are numbered in object-id order; a ``BRIDGE_PORT`` group's members
  (``SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_OBJECT``) are bridge ports, set at the port or LAG the
  bridge port is on; a ``PORT`` group's members are front-panel ports, set at their port index.
* A bridge port's ``SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP`` binds a ``BRIDGE_PORT`` group at its object,
  a port's ``SAI_PORT_ATTR_ISOLATION_GROUP`` a ``PORT`` group at the port. The null oid unbinds.
* A member or bind point of the other kind (a port in a bridge-port group, a bridge-port group bound to
  a port), or one the bridge does not know (a bridge port of another type, the CPU port), is skipped:
  SAI defines no meaning for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from fastpath.values import ref
from nos.sai.types import ObjectType as T
from syncd_sim.objects import ObjectStore

PORT_GROUP = "SAI_ISOLATION_GROUP_TYPE_PORT"


def compile_isolation(store: ObjectStore, port_index: Mapping[str, int], bp_obj: Mapping[str, int],
                      n_obj: int) -> dict[str, Any]:
    """``bp_obj``: bridge port oid -> its object; returns the isolation fields of ``L2Tables``."""
    groups = sorted(store.of_type(T.ISOLATION_GROUP).items())
    index = {oid: g for g, (oid, _) in enumerate(groups)}
    port_type = np.array([obj.attrs.get("SAI_ISOLATION_GROUP_ATTR_TYPE") == PORT_GROUP for _, obj in groups],
                         dtype=bool)
    member = np.zeros((len(groups), n_obj), dtype=bool)
    for m in store.of_type(T.ISOLATION_GROUP_MEMBER).values():
        g = index.get(ref(m.attrs, "SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_GROUP_ID"))
        target = ref(m.attrs, "SAI_ISOLATION_GROUP_MEMBER_ATTR_ISOLATION_OBJECT")
        obj = None if g is None else (port_index if port_type[g] else bp_obj).get(target)
        if g is not None and obj is not None:
            member[g, obj] = True
    obj_iso = np.full(n_obj, -1, dtype=np.int32)
    for oid, obj in bp_obj.items():
        g = index.get(ref(store.of_type(T.BRIDGE_PORT)[oid].attrs, "SAI_BRIDGE_PORT_ATTR_ISOLATION_GROUP"))
        if g is not None and not port_type[g]:
            obj_iso[obj] = g
    port_iso = np.full(len(port_index), -1, dtype=np.int32)
    for oid, p in port_index.items():
        port = store.find(T.PORT, oid)
        g = index.get(ref(port.attrs, "SAI_PORT_ATTR_ISOLATION_GROUP")) if port is not None else None
        if g is not None and port_type[g]:
            port_iso[p] = g
    return {"iso_oids": tuple(oid for oid, _ in groups), "iso_port_type": port_type, "iso_member": member,
            "obj_iso": obj_iso, "port_iso": port_iso}
