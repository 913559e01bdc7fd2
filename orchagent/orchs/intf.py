"""IntfOrch: APPL_DB INTF_TABLE -> router interfaces and ip2me routes (swss orchagent/intfsorch.cpp).

* ``INTF_TABLE:<if>`` creates the interface's ROUTER_INTERFACE: VIRTUAL_ROUTER_ID (the default VR, or
  the VRF's from ``vrf_name``; waits for the VRF), SRC_MAC_ADDRESS (``mac_addr`` when set and not
  00:00:00:00:00:00, else the switch MAC), TYPE and what it sits on (PORT + PORT_ID for ports and, with
  the LAG's id, for LAGs; VLAN + VLAN_ID = the VLAN object; SUB_PORT + PORT_ID of the parent +
  OUTER_VLAN_ID + ADMIN_V4/V6_STATE for ``Ethernet0.10``) and MTU (the interface's; a sub-interface's
  own ``mtu``, 0 = its parent's), with LOOPBACK_PACKET_ACTION after the VR when ``loopback_action`` is
  drop / forward (other values are ignored with a warning, as getSaiLoopbackAction does) and
  ADMIN_MPLS_STATE true last when ``mpls`` is enable (intfsorch leaves the disabled default out). It
  waits until the port / LAG / VLAN exists, takes a reference on it (so it is not removed under the
  RIF) and publishes COUNTERS_DB COUNTERS_RIF_NAME_MAP / _TYPE_MAP.
  Later SETs change the MAC, a given ``loopback_action``, ``mpls`` (and a sub-interface's MTU and admin
  state). ``proxy_arp`` enabled on a VLAN interface sets the VLAN's BROADCAST_ and
  UNKNOWN_MULTICAST_FLOOD_CONTROL_TYPE to NONE, disabled (or removing the interface) back to ALL
  (setIntfProxyArp). Loopbacks get no RIF; a loopback may move to another VRF while it has no address.
* ``INTF_TABLE:<if>:<prefix>`` adds an address: the ip2me route ``<ip>/32`` (``/128``) {PACKET_ACTION
  FORWARD, NEXT_HOP_ID = CPU port} in the interface's VR and, on a VLAN with an IPv4 subnet of /30 or
  shorter, the directed-broadcast neighbour (ff:ff:ff:ff:ff:ff). An address overlapping another one in
  the same VR waits (intfsorch retries it: ``ifconfig`` briefly sets a /8 first). The subnet route is
  not made here: it arrives in ROUTE_TABLE.
* Deleting an interface waits until its addresses are gone and nothing (neighbours, next hops,
  routes) uses the RIF. The RIF's MTU follows ``MtuChanged`` of its port / LAG / VLAN.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from nos.daemon.task import Result
from nos.db.keyops import KeyOpFieldsValues
from nos.db.table import write_hashes
from nos.sai.keys import neighbor_key, route_key
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import sai_bool, sai_mac
from nos.schema.dbconfig import APPL_DB, COUNTERS_DB
from nos.schema.tables import APP_INTF_TABLE_NAME, COUNTERS_RIF_NAME_MAP, COUNTERS_RIF_TYPE_MAP
from orchagent.core.deps import OrchDeps
from orchagent.core.events import MtuChanged
from orchagent.core.l3 import InvalidEntry, IpInterface, RouterIntf
from orchagent.core.registry import Interface, Kind

log = logging.getLogger(__name__)

CONSUMES = ((APPL_DB, APP_INTF_TABLE_NAME),)
PRODUCES = ((COUNTERS_DB, COUNTERS_RIF_NAME_MAP), (COUNTERS_DB, COUNTERS_RIF_TYPE_MAP))

LOOPBACK_PREFIX = "Loopback"
SKIPPED = frozenset({"eth0", "docker0"})
ZERO_MAC = "00:00:00:00:00:00"
BROADCAST_MAC = "FF:FF:FF:FF:FF:FF"
RIF = "SAI_ROUTER_INTERFACE_ATTR_"
RIF_TYPE = {Kind.PORT: "SAI_ROUTER_INTERFACE_TYPE_PORT", Kind.LAG: "SAI_ROUTER_INTERFACE_TYPE_PORT",
            Kind.VLAN: "SAI_ROUTER_INTERFACE_TYPE_VLAN"}
SUB_PORT = "SAI_ROUTER_INTERFACE_TYPE_SUB_PORT"
LOOPBACK_ACTIONS = {"drop": "SAI_PACKET_ACTION_DROP", "forward": "SAI_PACKET_ACTION_FORWARD"}
FLOOD_TYPES = ("SAI_VLAN_ATTR_BROADCAST_FLOOD_CONTROL_TYPE", "SAI_VLAN_ATTR_UNKNOWN_MULTICAST_FLOOD_CONTROL_TYPE")
_MAC = re.compile(r"[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}")


# -- row types ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IntfEntry:
    """INTF_TABLE:<if>: the interface (its VRF, MAC; MTU, admin state and VLAN of a sub-interface)."""

    alias: str
    vrf: str = ""
    mac: str = ""          # "" = the switch MAC
    mtu: int = 0           # 0 = inherit (sub-interfaces)
    admin_up: bool = True  # sub-interfaces
    vlan: int = 0          # sub-interfaces: the outer VLAN
    loopback_action: str = ""  # SAI packet action; "" = not given
    mpls: bool = False
    proxy_arp: str = ""    # "enabled" / "disabled"; "" = not given

    @property
    def parent(self) -> str:
        """The parent of a sub-interface ``Ethernet0.10`` ("" for others)."""
        base, dot, _ = self.alias.partition(".")
        return base if dot else ""


@dataclass(frozen=True)
class AddrEntry:
    """INTF_TABLE:<if>:<prefix>: an address of the interface."""

    alias: str
    address: IpInterface


def _mac(value: str) -> str:
    if not _MAC.fullmatch(value):
        log.error("orch.intf.bad_mac value=%s (field ignored, as intfsorch does)", value)
        return ""
    mac = sai_mac(value.replace("-", ":"))
    return "" if mac == ZERO_MAC else mac


def _int(value: str) -> int:
    if not value.isdecimal():
        raise InvalidEntry(f"{value!r} is not a number")
    return int(value)


def _loopback_action(value: str) -> str:
    action = LOOPBACK_ACTIONS.get(value, "")
    if not action:
        log.warning("orch.intf.bad_loopback_action value=%s (field ignored, as intfsorch does)", value)
    return action


# INTF_TABLE field -> (IntfEntry attribute, converter); other fields (nat_zone: NAT is not supported,
# ...) are not programmed.
FIELDS: dict[str, tuple[str, Callable[[str], object]]] = {
    "vrf_name": ("vrf", str),
    "mac_addr": ("mac", _mac),
    "mtu": ("mtu", _int),
    "admin_status": ("admin_up", lambda v: v == "up"),
    "vlan": ("vlan", _int),
    "loopback_action": ("loopback_action", _loopback_action),
    "mpls": ("mpls", lambda v: v == "enable"),
    "proxy_arp": ("proxy_arp", str),
}


def parse(key: str, fvs: tuple[tuple[str, str], ...]) -> IntfEntry | AddrEntry:
    """Raises InvalidEntry for a bad prefix, number or an unsupported binding (VNET)."""
    alias, sep, prefix = key.partition(":")
    if sep:
        try:
            return AddrEntry(alias, ipaddress.ip_interface(prefix))
        except ValueError:
            raise InvalidEntry(f"{prefix!r} is not an address/prefix") from None
    values: dict[str, object] = {}
    for name, value in fvs:
        if name == "vnet_name" and value:
            raise InvalidEntry("VNET interfaces are not supported")
        if name in FIELDS:
            attr, convert = FIELDS[name]
            values[attr] = convert(value)
    entry = IntfEntry(alias, **values)  # type: ignore[arg-type]
    if entry.parent and not entry.vlan:
        suffix = alias.partition(".")[2]
        entry = dataclasses.replace(entry, vlan=_int(suffix))
    return entry


# -- pure planning --------------------------------------------------------------------------------
def rif_attrs(entry: IntfEntry, device: Interface, vr: str, switch_mac: str) -> tuple[str, list[tuple[str, str]]]:
    """(RIF type, create attributes) in intfsorch's order (addRouterIntfs)."""
    attrs = [(RIF + "VIRTUAL_ROUTER_ID", vr)]
    if entry.loopback_action:
        attrs.append((RIF + "LOOPBACK_PACKET_ACTION", entry.loopback_action))
    attrs.append((RIF + "SRC_MAC_ADDRESS", entry.mac or switch_mac))
    if entry.parent:
        rif_type = SUB_PORT
        admin = sai_bool(entry.admin_up)
        attrs += [(RIF + "TYPE", rif_type), (RIF + "PORT_ID", device.oid), (RIF + "OUTER_VLAN_ID", str(entry.vlan)),
                  (RIF + "ADMIN_V4_STATE", admin), (RIF + "ADMIN_V6_STATE", admin)]
    else:
        rif_type = RIF_TYPE[device.kind]
        attrs += [(RIF + "TYPE", rif_type), (RIF + ("VLAN_ID" if device.kind is Kind.VLAN else "PORT_ID"), device.oid)]
    attrs.append((RIF + "MTU", str(entry.mtu or device.mtu)))
    if entry.mpls:
        attrs.append((RIF + "ADMIN_MPLS_STATE", "true"))
    return rif_type, attrs


def update_ops(entry: IntfEntry, intf: RouterIntf, device_mtu: int, switch_mac: str) -> list[SaiOp]:
    """SETs for a changed MAC, MPLS state, loopback action (and a sub-interface's MTU / admin state)."""
    ops = []
    if entry.mpls != intf.mpls:
        ops.append(SaiOp.set(T.ROUTER_INTERFACE, intf.oid, RIF + "ADMIN_MPLS_STATE", sai_bool(entry.mpls)))
    if entry.loopback_action and entry.loopback_action != intf.loopback_action:
        ops.append(SaiOp.set(T.ROUTER_INTERFACE, intf.oid, RIF + "LOOPBACK_PACKET_ACTION", entry.loopback_action))
    mac = entry.mac or switch_mac
    if mac != intf.mac:
        ops.append(SaiOp.set(T.ROUTER_INTERFACE, intf.oid, RIF + "SRC_MAC_ADDRESS", mac))
    if entry.parent:
        mtu = entry.mtu or device_mtu
        if mtu != intf.mtu:
            ops.append(SaiOp.set(T.ROUTER_INTERFACE, intf.oid, RIF + "MTU", str(mtu)))
        if entry.admin_up != intf.admin_up:
            ops += [SaiOp.set(T.ROUTER_INTERFACE, intf.oid, RIF + f"ADMIN_{v}_STATE", sai_bool(entry.admin_up))
                    for v in ("V4", "V6")]
    return ops


def proxy_arp_ops(intf: RouterIntf, vlan_oid: str, enabled: bool) -> list[SaiOp]:
    """A VLAN interface's proxy ARP: no broadcast / unknown-multicast flooding while enabled."""
    if intf.rif_type != RIF_TYPE[Kind.VLAN] or enabled == intf.proxy_arp:
        return []
    flood = "SAI_VLAN_FLOOD_CONTROL_TYPE_" + ("NONE" if enabled else "ALL")
    return [SaiOp.set(T.VLAN, vlan_oid, name, flood) for name in FLOOD_TYPES]


def address_ops(intf: RouterIntf, address: IpInterface, cpu_port: str, switch: str, add: bool) -> list[SaiOp]:
    """The ip2me route of an address (and a VLAN subnet's directed broadcast neighbour)."""
    ip2me = route_key(f"{address.ip}/{address.max_prefixlen}", intf.vr, switch)
    broadcast = ""
    if intf.rif_type == RIF_TYPE[Kind.VLAN] and address.version == 4 and address.network.prefixlen <= 30:
        broadcast = neighbor_key(str(address.network.broadcast_address), intf.oid, switch)
    if not add:
        ops = [SaiOp.remove(T.NEIGHBOR_ENTRY, broadcast)] if broadcast else []
        return ops + [SaiOp.remove(T.ROUTE_ENTRY, ip2me)]
    ops = [SaiOp.create(T.ROUTE_ENTRY, ip2me, ("SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION", "SAI_PACKET_ACTION_FORWARD"),
                        ("SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID", cpu_port))]
    if broadcast:
        ops.append(SaiOp.create(T.NEIGHBOR_ENTRY, broadcast,
                                ("SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS", BROADCAST_MAC)))
    return ops


# -- the orch -------------------------------------------------------------------------------------
class IntfOrch:
    """INTF_TABLE -> ROUTER_INTERFACE and ip2me routes; interfaces land in ``deps.l3.intfs``."""

    CONSUMES = CONSUMES
    PRODUCES = PRODUCES

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.l3 = deps.l3
        deps.bus.subscribe(MtuChanged, self.on_mtu)

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        alias = task.key.partition(":")[0]
        if alias in SKIPPED:
            return Result.ignored(f"{alias} is not routed by the ASIC")
        try:
            entry = parse(task.key, task.fvs if task.is_set else ())
        except InvalidEntry as exc:
            return Result.invalid(str(exc))
        if isinstance(entry, AddrEntry):
            return self._address(entry, task.is_set)
        return self._set(entry) if task.is_set else self._remove(entry.alias)

    def _vr(self, vrf: str) -> str | None:
        if not vrf:
            return self.deps.switch.default_vr
        found = self.l3.vrfs.get(vrf)
        return found.oid if found else None

    # -- interfaces ----------------------------------------------------------------------------
    def _set(self, entry: IntfEntry) -> Result:
        vr = self._vr(entry.vrf)
        if vr is None:
            return Result.retry(f"VRF {entry.vrf} does not exist yet")
        intf = self.l3.intfs.get(entry.alias)
        if intf is not None:
            return self._update(entry, intf)
        if entry.alias.startswith(LOOPBACK_PREFIX):
            self._track(RouterIntf(entry.alias, "", entry.vrf, vr))
            return Result.success()
        device = self.deps.registry.get(entry.parent or entry.alias)
        if device is None or not device.oid or (not entry.parent and device.kind not in RIF_TYPE):
            return Result.retry(f"{entry.parent or entry.alias} does not exist yet")
        oid = self.deps.sai.alloc(T.ROUTER_INTERFACE)
        rif_type, attrs = rif_attrs(entry, device, vr, self.deps.switch.src_mac)
        result = self.deps.sai.apply([SaiOp.create(T.ROUTER_INTERFACE, oid, *attrs)])
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        values = dict(attrs)
        intf = RouterIntf(entry.alias, oid, entry.vrf, vr, rif_type, device.name, values[RIF + "SRC_MAC_ADDRESS"],
                          int(values[RIF + "MTU"]), not entry.mtu, entry.admin_up, entry.loopback_action, entry.mpls)
        self._track(intf)
        self.deps.registry.ref(device.name)
        if not entry.parent:
            device.rif, device.vrf = oid, entry.vrf
        write_hashes(self.deps.dbs[COUNTERS_DB], {COUNTERS_RIF_NAME_MAP: {entry.alias: oid},
                                                  COUNTERS_RIF_TYPE_MAP: {oid: rif_type}})
        log.info("orch.intf.created intf=%s rif=%s vrf=%s", entry.alias, oid, entry.vrf or "default")
        return self._proxy_arp(entry, intf)

    def _proxy_arp(self, entry: IntfEntry, intf: RouterIntf) -> Result:
        if not entry.proxy_arp:
            return Result.success()
        enabled = entry.proxy_arp == "enabled"
        device = self.deps.registry.get(intf.device)
        ops = proxy_arp_ops(intf, device.oid if device else "", enabled)
        result = self.deps.sai.apply(ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        intf.proxy_arp = enabled
        return Result.success()

    def _track(self, intf: RouterIntf) -> None:
        self.l3.intfs[intf.alias] = intf
        self.l3.changed()
        if intf.vrf:
            self.l3.vrfs[intf.vrf].refs += 1

    def _update(self, entry: IntfEntry, intf: RouterIntf) -> Result:
        if entry.vrf != intf.vrf and not intf.oid:
            return self._rebind_loopback(entry, intf)
        if entry.vrf != intf.vrf:
            return Result.invalid(f"{entry.alias} is in VRF '{intf.vrf}': remove it before binding it to '{entry.vrf}'")
        if not intf.oid:
            return Result.success()
        device = self.deps.registry.get(intf.device)
        ops = update_ops(entry, intf, device.mtu if device else intf.mtu, self.deps.switch.src_mac)
        result = self.deps.sai.apply(ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        for op in ops:
            name, value = op.attrs[0]
            if name.endswith("SRC_MAC_ADDRESS"):
                intf.mac = value
            elif name.endswith("MTU"):
                intf.mtu = int(value)
        intf.inherit_mtu, intf.admin_up, intf.mpls = not entry.mtu, entry.admin_up, entry.mpls
        intf.loopback_action = entry.loopback_action or intf.loopback_action
        return self._proxy_arp(entry, intf)

    def _rebind_loopback(self, entry: IntfEntry, intf: RouterIntf) -> Result:
        """A loopback moves to another VRF once it has no address (intfsorch defers the bind till then)."""
        if intf.addresses:
            vrf = entry.vrf or "default"
            return Result.retry(f"{entry.alias} still has addresses: VRF '{vrf}' bound after they go")
        vr = self._vr(entry.vrf)
        if vr is None:
            return Result.retry(f"VRF {entry.vrf} does not exist yet")
        if intf.vrf and intf.vrf in self.l3.vrfs:
            self.l3.vrfs[intf.vrf].refs -= 1
        del self.l3.intfs[intf.alias]
        self._track(RouterIntf(entry.alias, "", entry.vrf, vr))
        return Result.success()

    def _remove(self, alias: str) -> Result:
        intf = self.l3.intfs.get(alias)
        if intf is None:
            return Result.ignored(f"{alias} has no router interface")
        if intf.addresses:
            return Result.retry(f"{alias} still has addresses {', '.join(map(str, intf.addresses))}")
        if intf.refs:
            return Result.retry(f"{alias}'s router interface is still used by {intf.refs} object(s)")
        if intf.oid:
            device = self.deps.registry.get(intf.device)
            ops = proxy_arp_ops(intf, device.oid, False) if device is not None else []
            result = self.deps.sai.apply([*ops, SaiOp.remove(T.ROUTER_INTERFACE, intf.oid)])
            if not result.ok:
                return Result.failed(f"{result.status} {result.reason}")
            self._release(intf)
        del self.l3.intfs[alias]
        self.l3.changed()
        if intf.vrf and intf.vrf in self.l3.vrfs:
            self.l3.vrfs[intf.vrf].refs -= 1
        log.info("orch.intf.removed intf=%s", alias)
        return Result.success()

    def _release(self, intf: RouterIntf) -> None:
        self.deps.registry.unref(intf.device)
        device = self.deps.registry.get(intf.device)
        if device is not None and device.rif == intf.oid:
            device.rif, device.vrf = "", ""
        write_hashes(self.deps.dbs[COUNTERS_DB], {}, {COUNTERS_RIF_NAME_MAP: [intf.alias],
                                                      COUNTERS_RIF_TYPE_MAP: [intf.oid]})

    # -- addresses -----------------------------------------------------------------------------
    def _address(self, entry: AddrEntry, add: bool) -> Result:
        intf = self.l3.intfs.get(entry.alias)
        known = intf is not None and entry.address in intf.addresses
        if intf is None or known == add:
            if add and intf is None:
                return Result.retry(f"interface {entry.alias} is not set up yet")
            return Result.ignored("address already " + ("present" if add else "absent"))
        if add and not entry.alias.startswith(LOOPBACK_PREFIX):
            overlap = self.l3.overlap(intf.vr, entry.address)
            if overlap:
                return Result.retry(f"{entry.address} overlaps {overlap}")
        switch = self.deps.switch
        result = self.deps.sai.apply(address_ops(intf, entry.address, switch.cpu_port, switch.switch_id, add))
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        if add:
            intf.addresses.append(entry.address)
        else:
            intf.addresses.remove(entry.address)
        self.l3.changed()
        return Result.success()

    # -- events --------------------------------------------------------------------------------
    def on_mtu(self, event: MtuChanged) -> None:
        """A port / LAG / VLAN MTU changed: so do the RIFs that inherit it (intfsorch setRouterIntfsMtu)."""
        for intf in self.l3.intfs.values():
            if intf.device != event.name or not intf.oid or not intf.inherit_mtu or intf.mtu == event.mtu:
                continue
            result = self.deps.sai.apply([SaiOp.set(T.ROUTER_INTERFACE, intf.oid, RIF + "MTU", str(event.mtu))])
            if result.ok:
                intf.mtu = event.mtu
            else:
                log.error("orch.intf.mtu_failed intf=%s mtu=%d status=%s", intf.alias, event.mtu, result.status)


ORCH = IntfOrch
PRIORITY = 20
