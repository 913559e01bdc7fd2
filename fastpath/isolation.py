"""Port isolation over the compiled layer-2 tables (SAI isolation groups, see ``fastpath.l2``): which
egress objects and ports a frame may not be bridged out of, given where it entered. Pure and vectorised
(gathers over the group member matrix); every function answers "nothing isolated" when the tables
have no groups.

A frame entering a bridge port bound to group ``g`` (``obj_iso``) is isolated from the objects in
``iso_member[g]``; one entering a port bound to a port group (``port_iso``) from the ports in it.
"""

from __future__ import annotations

import numpy as np

from fastpath.l2 import L2Tables
from fastpath.tables import I32, B


def _rows(l2: L2Tables, group: I32) -> B:
    """``iso_member[group]``, an all-False row where the group is -1."""
    table = np.vstack([l2.iso_member, np.zeros((1, l2.iso_member.shape[1]), dtype=bool)])
    rows: B = table[group]
    return rows


def isolated_obj(l2: L2Tables, in_obj: I32, out_obj: I32) -> B:
    """Per frame: entered by ``in_obj``, whose bridge port's group has ``out_obj`` (-1: none) as a member."""
    if l2.n_iso == 0:
        return np.zeros(len(out_obj), dtype=bool)
    group = l2.obj_iso[in_obj]
    hit: B = (group >= 0) & (out_obj >= 0) & l2.iso_member[np.maximum(group, 0), np.maximum(out_obj, 0)]
    return hit


def isolated_port(l2: L2Tables, in_port: I32, out_port: I32) -> B:
    """Per frame: entered by ``in_port``, whose port group has ``out_port`` (-1: none) as a member."""
    if l2.n_iso == 0:
        return np.zeros(len(out_port), dtype=bool)
    group = l2.port_iso[in_port]
    hit: B = (group >= 0) & (out_port >= 0) & l2.iso_member[np.maximum(group, 0), np.maximum(out_port, 0)]
    return hit


def isolated_objs(l2: L2Tables, in_obj: I32) -> B:
    """``[k, n_obj]``: the objects each frame (entered by ``in_obj``) may not be bridged out of."""
    if l2.n_iso == 0:
        return np.zeros((len(in_obj), l2.iso_member.shape[1]), dtype=bool)
    return _rows(l2, l2.obj_iso[in_obj])


def isolated_ports(l2: L2Tables, in_port: I32) -> B:
    """``[k, n_ports]``: the ports each frame (entered by ``in_port``) may not be bridged out of."""
    if l2.n_iso == 0:
        return np.zeros((len(in_port), l2.n_ports), dtype=bool)
    return _rows(l2, l2.port_iso[in_port])[:, :l2.n_ports]


def bound_group(l2: L2Tables, in_port: int) -> int:
    """The isolation group a frame entering ``in_port`` is subject to: its bridge port's, else its port's
    (-1: none)."""
    if l2.n_iso == 0:
        return -1
    group = int(l2.obj_iso[int(l2.port_obj[in_port])])
    return group if group >= 0 else int(l2.port_iso[in_port])
