"""Compiled layer-2 forwarding state: ingress objects (ports and LAGs), VLAN membership and PVIDs,
the FDB as sorted ``vlan << 48 | mac`` keys, LAG member selection buckets, and isolation groups.

Egress/ingress *objects*: index ``0..n_ports-1`` is a front-panel port, ``n_ports + k`` is LAG ``k``.
A port that is a LAG member enters the bridge as its LAG (``port_obj``), and an FDB entry or a next
hop pointing at a LAG is resolved to one member port by the LAG hash (``lag_buckets``).

Isolation groups (SAI ``ISOLATION_GROUP``; MC-LAG binds one to the peer link): group ``g`` has a member
row ``iso_member[g]`` over the objects. A ``BRIDGE_PORT`` group's members are bridge ports, set at their
port or LAG object; a ``PORT`` group's members are ports, set at their port index (a port's object index
is its port index). A frame that enters through a bridge port bound to a bridge-port group
(``obj_iso``, by ingress object) is not bridged out of the group's member objects, and one that enters a
port bound to a port group (``port_iso``, by ingress port) not out of its member ports (checked after
the LAG member is chosen).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fastpath.hashing import DEFAULT_FIELDS
from fastpath.tables import I8, I32, U64, B

N_VLAN = 4096
MEMBER_NONE, MEMBER_TAGGED, MEMBER_UNTAGGED = 0, 1, 2
HASH_BUCKETS = 4096     # buckets per ECMP group / LAG (rendezvous-hashed at compile time): a member's
#                         share is within ~1.6% (1 sd) of its weight with 2 members (256 gave ~6%)


@dataclass(frozen=True)
class L2Tables:
    """Layer-2 state; ``obj`` arrays have ``n_ports + n_lags`` rows."""

    n_ports: int
    port_obj: I32              # [n_ports] ingress object of each port (itself, or its LAG)
    obj_pvid: I32              # [n_obj] port/LAG VLAN id for untagged frames (SAI default 1)
    obj_learn: B               # [n_obj] hardware learning on (bridge port FDB_LEARNING_MODE HW)
    obj_bridge_port: tuple[str, ...]   # [n_obj] bridge port oid ("" = not in the bridge)
    vlan_member: I8            # [4096, n_obj] MEMBER_*
    vlan_oid: tuple[str, ...]  # [4096] VLAN oid by VID ("" = no such VLAN)
    vlan_learn: B              # [4096] learning on in the VLAN (not SAI_VLAN_ATTR_LEARN_DISABLE)
    fdb_keys: U64              # sorted vlan << 48 | mac
    fdb_obj: I32               # object the entry points at
    fdb_static: B
    lag_oids: tuple[str, ...]
    lag_members: tuple[tuple[int, ...], ...]   # port indices of each LAG's egress-enabled members
    lag_buckets: I32           # [n_lags, HASH_BUCKETS] member port index (-1 = no usable member)
    iso_oids: tuple[str, ...]  # [n_iso] isolation group oids
    iso_port_type: B           # [n_iso] a PORT group (members and bind points are ports), else BRIDGE_PORT
    iso_member: B              # [n_iso, n_obj] member objects (bridge ports by their object, ports by index)
    obj_iso: I32               # [n_obj] bridge-port group bound at the object's bridge port (-1 none)
    port_iso: I32              # [n_ports] port group bound at the port (-1 none)
    lag_seed: int = 0
    lag_fields: int = 0        # FIELD_* mask of fastpath.hashing

    @property
    def n_lags(self) -> int:
        return len(self.lag_oids)

    @property
    def n_iso(self) -> int:
        return len(self.iso_oids)


def no_isolation(n_ports: int, n_obj: int) -> dict[str, Any]:
    """The isolation fields of an ``L2Tables`` without isolation groups."""
    return {"iso_oids": (), "iso_port_type": np.zeros(0, dtype=bool), "iso_member": np.zeros((0, n_obj), dtype=bool),
            "obj_iso": np.full(n_obj, -1, dtype=np.int32), "port_iso": np.full(n_ports, -1, dtype=np.int32)}


def empty_l2(n_ports: int) -> L2Tables:
    """No bridge at all: every port is a routed-or-nothing port (frames on L2 are VLAN-filtered)."""
    return L2Tables(
        n_ports=n_ports,
        port_obj=np.arange(n_ports, dtype=np.int32),
        obj_pvid=np.ones(n_ports, dtype=np.int32),
        obj_learn=np.ones(n_ports, dtype=bool),
        obj_bridge_port=("",) * n_ports,
        vlan_member=np.zeros((N_VLAN, n_ports), dtype=np.int8),
        vlan_oid=("",) * N_VLAN,
        vlan_learn=np.ones(N_VLAN, dtype=bool),
        fdb_keys=np.zeros(0, dtype=np.uint64),
        fdb_obj=np.zeros(0, dtype=np.int32),
        fdb_static=np.zeros(0, dtype=bool),
        lag_oids=(),
        lag_members=(),
        lag_buckets=np.zeros((0, HASH_BUCKETS), dtype=np.int32),
        lag_fields=DEFAULT_FIELDS,
        **no_isolation(n_ports, n_ports),
    )
