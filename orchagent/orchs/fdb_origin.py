"""Where an FDB entry came from, and what that decides (fdborch's ``FdbOrigin``, ``addFdbEntry``,
``removeFdbEntry`` and its ``update`` of LEARNED/MOVE/AGED for MCLAG-advertised MACs).

* Origins: ``provisioned`` (APPL_DB FDB_TABLE), ``learn`` (the ASIC's fdb_event), ``mclag`` (APPL_DB
  MCLAG_FDB_TABLE: MACs the MC-LAG peer learnt, written by mclagsyncd). One entry per VLAN and MAC;
  the latest writer takes it over, except that a static provisioned MAC is never replaced by the
  peer's, and a peer's ``dynamic_local`` for a MAC learnt locally on the same bridge port changes nothing.
* A peer MAC is programmed ``SAI_FDB_ENTRY_TYPE_STATIC`` (it must not age here while the peer still
  sees it), with ``SAI_FDB_ENTRY_ATTR_ALLOW_MAC_MOVE`` true when the peer learnt it dynamically (a local
  learn may take it over); ``dynamic_local`` is programmed DYNAMIC and kept as a local learnt MAC.
  Peer MACs are listed in STATE_DB ``MCLAG_REMOTE_FDB_TABLE`` instead of ``FDB_TABLE`` (local only).
* A delete from one origin leaves an entry that another origin owns (deleting the peer's MAC keeps the
  local learn, and the other way round), except that the peer's delete removes a local learn on an
  MCLAG interface that is oper down.
* A MOVE to another bridge port of a peer MAC makes it a local dynamic one (SAI sets ALLOW_MAC_MOVE
  false, TYPE DYNAMIC, BRIDGE_PORT_ID); a LEARNED on its own bridge port makes it dynamic there (TYPE,
  BRIDGE_PORT_ID). An AGED peer MAC is created again (STATIC, ALLOW_MAC_MOVE true, its bridge port).
* Flushes (a port down, ``sonic-clear fdb``, FLUSHED) take the entries the ASIC holds as dynamic:
  never peer MACs; and a port that is an MCLAG interface is not flushed when it goes down.
"""

from __future__ import annotations

from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T

PROVISIONED, LEARNT, PEER = "provisioned", "learn", "mclag"
DYNAMIC, STATIC, DYNAMIC_LOCAL = "dynamic", "static", "dynamic_local"
SAI_DYNAMIC, SAI_STATIC = "SAI_FDB_ENTRY_TYPE_DYNAMIC", "SAI_FDB_ENTRY_TYPE_STATIC"
TYPE, ALLOW_MOVE, BRIDGE_PORT = ("SAI_FDB_ENTRY_ATTR_TYPE", "SAI_FDB_ENTRY_ATTR_ALLOW_MAC_MOVE",
                                 "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID")


def sai_type(origin: str, type_: str) -> str:
    if origin == PEER:
        return SAI_DYNAMIC if type_ == DYNAMIC_LOCAL else SAI_STATIC
    return SAI_DYNAMIC if type_ == DYNAMIC else SAI_STATIC


def allows_move(origin: str, type_: str) -> bool:
    return origin == PEER and type_ == DYNAMIC


def stored(origin: str, type_: str) -> tuple[str, str]:
    """(origin, type) the entry is kept as: a peer's ``dynamic_local`` is a local learnt MAC."""
    return (LEARNT, DYNAMIC) if origin == PEER and type_ == DYNAMIC_LOCAL else (origin, type_)


def is_local(origin: str) -> bool:
    return origin != PEER


def kept(old_origin: str, old_type: str, old_bridge_port: str, origin: str, type_: str, bridge_port: str) -> str:
    """Why the existing entry stays as it is against a new one from another origin ("" = take it over)."""
    if old_origin == origin:
        return ""
    if old_origin == PROVISIONED and old_type == STATIC and origin == PEER:
        return "a static provisioned MAC is not replaced by the MC-LAG peer's"
    if (old_origin == LEARNT and origin == PEER and type_ == DYNAMIC_LOCAL and old_type == DYNAMIC
            and old_bridge_port == bridge_port):
        return "learnt here on the same bridge port already"
    return ""


def sai_flushable(origin: str, type_: str) -> bool:
    """The ASIC holds it as dynamic (what a flush of dynamic entries removes)."""
    return sai_type(origin, type_) == SAI_DYNAMIC


def learn_over_peer(event_move: bool, key: str, old_bridge_port: str, bridge_port: str) -> tuple[SaiOp, ...]:
    """The SAI sets a local LEARNED/MOVE makes on a peer MAC (none: the ASIC already has it)."""
    if event_move and bridge_port != old_bridge_port:
        return (SaiOp.set(T.FDB_ENTRY, key, ALLOW_MOVE, "false"), SaiOp.set(T.FDB_ENTRY, key, TYPE, SAI_DYNAMIC),
                SaiOp.set(T.FDB_ENTRY, key, BRIDGE_PORT, bridge_port))
    if not event_move and bridge_port == old_bridge_port:
        return (SaiOp.set(T.FDB_ENTRY, key, TYPE, SAI_DYNAMIC), SaiOp.set(T.FDB_ENTRY, key, BRIDGE_PORT, bridge_port))
    return ()


def recreate_peer(key: str, bridge_port: str) -> SaiOp:
    """An aged peer MAC, put back."""
    return SaiOp.create(T.FDB_ENTRY, key, (TYPE, SAI_STATIC), (ALLOW_MOVE, "true"), (BRIDGE_PORT, bridge_port))
