"""VRFOrch: APPL_DB VRF_TABLE -> SAI virtual routers (swss orchagent/vrforch.cpp).

``VRF_TABLE:<name>`` creates a VIRTUAL_ROUTER with the attributes its fields give (``v4``, ``v6``,
``src_mac``, ``ttl_action``, ``ip_opt_action``, ``l3_mc_action``); a row with none of them (``NULL``
placeholder) creates one with no attributes. A later SET changes the attributes that differ. STATE_DB
``VRF_OBJECT_TABLE|<name>`` {state: ok} says the object exists (vrfmgrd waits for it on delete).
``vni`` is kept for the VXLAN side (the VRF-VNI map needs an EVPN VTEP, as in SONiC); ``fallback``,
``mgmtVrfEnabled`` and ``in_band_mgmt_enabled`` are accepted and not programmed (vrforch ignores them).
Each VRF's virtual router gets the link-local route fe80::/10 {PACKET_ACTION FORWARD, NEXT_HOP_ID =
CPU port} at creation, removed before the router (vrforch addOperation / delOperation, as the default
VR has it from RouteOrch). Delete waits while router interfaces or routes still use the VRF. An
unknown field makes the row invalid, as SONiC's request parser refuses it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from nos.daemon.task import Result
from nos.db import Table
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.keys import route_key
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import sai_mac
from nos.schema.dbconfig import APPL_DB, STATE_DB
from nos.schema.tables import APP_VRF_TABLE_NAME, STATE_VRF_OBJECT_TABLE_NAME
from orchagent.core.deps import OrchDeps
from orchagent.core.l3 import InvalidEntry, Vrf

log = logging.getLogger(__name__)

CONSUMES = ((APPL_DB, APP_VRF_TABLE_NAME),)
PRODUCES = ((STATE_DB, STATE_VRF_OBJECT_TABLE_NAME),)

_MAC = re.compile(r"[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}")
PACKET_ACTIONS = {name: f"SAI_PACKET_ACTION_{name.upper()}"
                  for name in ("drop", "forward", "copy", "copy_cancel", "trap", "log", "deny", "transit")}


def _bool(text: str) -> str:
    if text not in ("true", "false"):
        raise InvalidEntry(f"{text!r} is not true/false")
    return text


def _mac(text: str) -> str:
    if not _MAC.fullmatch(text):
        raise InvalidEntry(f"{text!r} is not a MAC address")
    return sai_mac(text)


def _action(text: str) -> str:
    if text not in PACKET_ACTIONS:
        raise InvalidEntry(f"{text!r} is not one of {', '.join(PACKET_ACTIONS)}")
    return PACKET_ACTIONS[text]


# VRF_TABLE field -> (virtual router attribute, converter); vrforch.cpp addOperation.
FIELDS: dict[str, tuple[str, Callable[[str], str]]] = {
    "v4": ("SAI_VIRTUAL_ROUTER_ATTR_ADMIN_V4_STATE", _bool),
    "v6": ("SAI_VIRTUAL_ROUTER_ATTR_ADMIN_V6_STATE", _bool),
    "src_mac": ("SAI_VIRTUAL_ROUTER_ATTR_SRC_MAC_ADDRESS", _mac),
    "ttl_action": ("SAI_VIRTUAL_ROUTER_ATTR_VIOLATION_TTL1_PACKET_ACTION", _action),
    "ip_opt_action": ("SAI_VIRTUAL_ROUTER_ATTR_VIOLATION_IP_OPTIONS_PACKET_ACTION", _action),
    "l3_mc_action": ("SAI_VIRTUAL_ROUTER_ATTR_UNKNOWN_L3_MULTICAST_PACKET_ACTION", _action),
}
NOT_PROGRAMMED = frozenset({"vni", "fallback", "mgmtVrfEnabled", "in_band_mgmt_enabled", "NULL", "empty"})


@dataclass(frozen=True)
class VrfEntry:
    """A parsed VRF_TABLE row."""

    name: str
    attrs: tuple[tuple[str, str], ...]
    vni: int = 0


def parse(key: str, fvs: tuple[tuple[str, str], ...]) -> VrfEntry:
    """Raises InvalidEntry for an unknown field or a bad value."""
    attrs: dict[str, str] = {}
    vni = 0
    for name, value in fvs:
        if name in FIELDS:
            attr, convert = FIELDS[name]
            try:
                attrs[attr] = convert(value)
            except InvalidEntry as exc:
                raise InvalidEntry(f"field {name}: {exc}") from None
        elif name == "vni":
            if not value.isdecimal():
                raise InvalidEntry(f"field vni: {value!r} is not a number")
            vni = int(value)
        elif name not in NOT_PROGRAMMED:
            raise InvalidEntry(f"unknown field {name!r}")
    return VrfEntry(key, tuple(attrs.items()), vni)


def plan(entry: VrfEntry, current: Vrf | None, oid: str) -> list[SaiOp]:
    """Create the virtual router (``oid``), or set the attributes that changed."""
    if current is None:
        return [SaiOp.create(T.VIRTUAL_ROUTER, oid, *entry.attrs)]
    return [SaiOp.set(T.VIRTUAL_ROUTER, current.oid, attr, value)
            for attr, value in entry.attrs if current.attrs.get(attr) != value]


LINK_LOCAL = "fe80::/10"


def link_local_ops(vr: str, switch: str, cpu_port: str, add: bool) -> list[SaiOp]:
    """The VRF's fe80::/10 route to the CPU (routeorch addLinkLocalRouteToMe)."""
    key = route_key(LINK_LOCAL, vr, switch)
    if not add:
        return [SaiOp.remove(T.ROUTE_ENTRY, key)]
    return [SaiOp.create(T.ROUTE_ENTRY, key, ("SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION", "SAI_PACKET_ACTION_FORWARD"),
                         ("SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID", cpu_port))]


class VrfOrch:
    """VRF_TABLE -> VIRTUAL_ROUTER; the VRFs land in ``deps.l3.vrfs``."""

    CONSUMES = CONSUMES
    PRODUCES = PRODUCES

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.vrfs = deps.l3.vrfs
        self.state = Table(deps.dbs[STATE_DB], STATE_VRF_OBJECT_TABLE_NAME)

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            return self._remove(task.key)
        try:
            entry = parse(task.key, task.fvs)
        except InvalidEntry as exc:
            return Result.invalid(str(exc))
        current = self.vrfs.get(entry.name)
        oid = self.deps.sai.alloc(T.VIRTUAL_ROUTER) if current is None else current.oid
        switch = self.deps.switch
        ops = plan(entry, current, oid)
        if current is None:
            ops += link_local_ops(oid, switch.switch_id, switch.cpu_port, add=True)
        result = self.deps.sai.apply(ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        if current is None:
            current = self.vrfs[entry.name] = Vrf(entry.name, oid)
            self.state.set(entry.name, {"state": "ok"})
            self.deps.l3.changed()
            log.info("orch.vrf.created vrf=%s oid=%s", entry.name, oid)
        current.attrs.update(entry.attrs)
        current.vni = entry.vni
        return Result.success()

    def _remove(self, name: str) -> Result:
        vrf = self.vrfs.get(name)
        if vrf is None:
            return Result.ignored(f"VRF {name} does not exist")
        if vrf.refs:
            return Result.retry(f"VRF {name} is still used by {vrf.refs} interface(s)/route(s)")
        switch = self.deps.switch
        ops = link_local_ops(vrf.oid, switch.switch_id, switch.cpu_port, add=False)
        result = self.deps.sai.apply([*ops, SaiOp.remove(T.VIRTUAL_ROUTER, vrf.oid)])
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        del self.vrfs[name]
        self.deps.l3.changed()
        self.state.delete(name)
        log.info("orch.vrf.removed vrf=%s", name)
        return Result.success()


ORCH = VrfOrch
PRIORITY = 10
