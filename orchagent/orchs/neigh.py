"""NeighOrch: APPL_DB NEIGH_TABLE -> SAI neighbours and next hops (swss orchagent/neighorch.cpp).

``NEIGH_TABLE:<if>:<ip>`` {neigh: MAC, family} waits for the interface's router interface, then
creates the NEIGHBOR_ENTRY {ip, rif, switch_id} {DST_MAC_ADDRESS (+ NO_HOST_ROUTE for an IPv4
link-local neighbour outside the interface's own 169.254/16)} and the NEXT_HOP {TYPE IP, IP,
ROUTER_INTERFACE_ID}; both hold the RIF. A new MAC becomes a SET of DST_MAC_ADDRESS. A neighbour
without a MAC (or 00:00:00:00:00:00) is not programmed. Delete removes the next hop, then the
neighbour, and waits while routes or groups still use the next hop. A neighbour whose IP is already a
neighbour on another VLAN interface of the same VRF replaces it (the old one is removed first, and the
new one waits while the old next hop is in use), as neighorch's addNeighbor does.

Next hops over an oper-down port or LAG are marked unusable (SONiC's NHFLAGS_IFDOWN): an
``OperChanged`` flips them and publishes ``NextHopChanged`` (oid "" = unusable, else usable again),
so that RouteOrch and NhgOrch withdraw or restore their ECMP members. A next hop that was asked for
in NEIGH_RESOLVE_TABLE has its request removed once it exists.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from dataclasses import dataclass

from nos.daemon.task import Result, TaskStatus
from nos.db import ProducerStateTable
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.keys import neighbor_key
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import sai_mac
from nos.schema.dbconfig import APPL_DB
from nos.schema.tables import APP_NEIGH_RESOLVE_TABLE_NAME, APP_NEIGH_TABLE_NAME
from orchagent.core.deps import OrchDeps
from orchagent.core.events import NextHopChanged, OperChanged
from orchagent.core.l3 import InvalidEntry, NextHop, NhKey, RouterIntf
from orchagent.core.registry import Kind

log = logging.getLogger(__name__)

CONSUMES = ((APPL_DB, APP_NEIGH_TABLE_NAME),)
PRODUCES = ((APPL_DB, APP_NEIGH_RESOLVE_TABLE_NAME),)

SKIPPED = frozenset({"eth0", "lo", "docker0", "usb0"})
ZERO_MAC = "00:00:00:00:00:00"
LINK_LOCAL_V4 = ipaddress.ip_network("169.254.0.0/16")
_MAC = re.compile(r"[0-9A-F]{2}(:[0-9A-F]{2}){5}")
VLAN_RIF = "SAI_ROUTER_INTERFACE_TYPE_VLAN"
OPER_TRACKED = (Kind.PORT, Kind.LAG)  # VLANs and sub-interfaces count as up


@dataclass(frozen=True)
class NeighEntry:
    """A parsed NEIGH_TABLE row; ``mac`` "" = unresolved."""

    alias: str
    ip: str
    mac: str

    @property
    def key(self) -> NhKey:
        return (self.ip, self.alias)


def parse(key: str, fvs: tuple[tuple[str, str], ...]) -> NeighEntry:
    """Raises InvalidEntry for a bad key, address or MAC."""
    alias, sep, ip_text = key.partition(":")
    if not sep or not alias:
        raise InvalidEntry(f"{key!r} is not <interface>:<ip>")
    try:
        ip = str(ipaddress.ip_address(ip_text))
    except ValueError:
        raise InvalidEntry(f"{ip_text!r} is not an IP address") from None
    mac = sai_mac(dict(fvs).get("neigh", ZERO_MAC))
    if not _MAC.fullmatch(mac):
        raise InvalidEntry(f"neigh {mac!r} is not a MAC address")
    return NeighEntry(alias, ip, "" if mac == ZERO_MAC else mac)


def no_host_route(entry: NeighEntry, intf: RouterIntf) -> bool:
    """IPv4 link-local neighbours get NO_HOST_ROUTE unless 169.254/16 is the interface's own subnet."""
    ip = ipaddress.ip_address(entry.ip)
    return ip.version == 4 and ip in LINK_LOCAL_V4 and not any(a.network == LINK_LOCAL_V4 for a in intf.addresses)


def create_ops(entry: NeighEntry, intf: RouterIntf, nh_oid: str, switch: str) -> list[SaiOp]:
    attrs = [("SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS", entry.mac)]
    if no_host_route(entry, intf):
        attrs.append(("SAI_NEIGHBOR_ENTRY_ATTR_NO_HOST_ROUTE", "true"))
    return [
        SaiOp.create(T.NEIGHBOR_ENTRY, neighbor_key(entry.ip, intf.oid, switch), *attrs),
        SaiOp.create(T.NEXT_HOP, nh_oid, ("SAI_NEXT_HOP_ATTR_TYPE", "SAI_NEXT_HOP_TYPE_IP"),
                     ("SAI_NEXT_HOP_ATTR_IP", entry.ip), ("SAI_NEXT_HOP_ATTR_ROUTER_INTERFACE_ID", intf.oid)),
    ]


def remove_ops(entry: NeighEntry, nh: NextHop, switch: str) -> list[SaiOp]:
    return [SaiOp.remove(T.NEXT_HOP, nh.oid), SaiOp.remove(T.NEIGHBOR_ENTRY, neighbor_key(entry.ip, nh.rif, switch))]


class NeighOrch:
    """NEIGH_TABLE -> NEIGHBOR_ENTRY + NEXT_HOP; next hops land in ``deps.l3.next_hops``."""

    CONSUMES = CONSUMES
    PRODUCES = PRODUCES

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.l3 = deps.l3
        self.macs: dict[NhKey, str] = {}
        self.by_alias: dict[str, set[NhKey]] = {}
        self.resolve = ProducerStateTable(deps.dbs[APPL_DB], APP_NEIGH_RESOLVE_TABLE_NAME)
        deps.bus.subscribe(OperChanged, self.on_oper)

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        if task.key.partition(":")[0] in SKIPPED:
            return Result.ignored("not an ASIC interface")
        try:
            entry = parse(task.key, task.fvs)
        except InvalidEntry as exc:
            return Result.invalid(str(exc))
        if task.is_del:
            return self._remove(entry)
        intf = self.l3.intfs.get(entry.alias)
        if intf is None or not intf.oid:
            return Result.retry(f"{entry.alias} has no router interface yet")
        if not entry.mac:
            return Result.ignored("unresolved neighbour (no MAC)")
        old = self.macs.get(entry.key)
        if old == entry.mac:
            return Result.ignored("unchanged")
        if old is not None:
            return self._set_mac(entry, intf)
        return self._add(entry, intf)

    def _add(self, entry: NeighEntry, intf: RouterIntf) -> Result:
        for other in self._same_ip_on_other_vlans(entry, intf):
            moved = self._remove(other)
            if moved.status is not TaskStatus.SUCCESS:
                return Result.retry(f"{entry.ip} is still a neighbour on {other.alias}: {moved.reason}")
            log.info("orch.neigh.moved ip=%s from=%s to=%s", entry.ip, other.alias, entry.alias)
        nh_oid = self.deps.sai.alloc(T.NEXT_HOP)
        result = self.deps.sai.apply(create_ops(entry, intf, nh_oid, self.deps.switch.switch_id))
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        self.macs[entry.key] = entry.mac
        self.l3.next_hops[entry.key] = NextHop(entry.ip, entry.alias, nh_oid, intf.oid, self._oper_up(intf))
        self.by_alias.setdefault(entry.alias, set()).add(entry.key)
        intf.refs += 2  # the neighbour and its next hop (neighorch increaseRouterIntfsRefCount twice)
        self.l3.changed()
        if entry.key in self.l3.resolve_requests:
            self.l3.resolve_requests.discard(entry.key)
            self.resolve.delete(f"{entry.alias}:{entry.ip}")
        log.info("orch.neigh.added intf=%s ip=%s mac=%s nh=%s", entry.alias, entry.ip, entry.mac, nh_oid)
        return Result.success()

    def _same_ip_on_other_vlans(self, entry: NeighEntry, intf: RouterIntf) -> list[NeighEntry]:
        """Neighbours with this IP on other VLAN interfaces of the same VRF: neighorch removes them before
        adding this one (a host that moved between VLANs)."""
        found = []
        for ip, alias in self.macs:
            other = self.l3.intfs.get(alias)
            if ip == entry.ip and alias != entry.alias and other is not None and other.vr == intf.vr \
                    and other.rif_type == VLAN_RIF:
                found.append(NeighEntry(alias, ip, self.macs[(ip, alias)]))
        return found

    def _set_mac(self, entry: NeighEntry, intf: RouterIntf) -> Result:
        key = neighbor_key(entry.ip, intf.oid, self.deps.switch.switch_id)
        result = self.deps.sai.apply([SaiOp.set(T.NEIGHBOR_ENTRY, key, "SAI_NEIGHBOR_ENTRY_ATTR_DST_MAC_ADDRESS",
                                                entry.mac)])
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        self.macs[entry.key] = entry.mac
        return Result.success()

    def _remove(self, entry: NeighEntry) -> Result:
        nh = self.l3.next_hops.get(entry.key)
        if nh is None:
            return Result.ignored("no such neighbour")
        if nh.refs:
            return Result.retry(f"next hop {entry.ip}@{entry.alias} is still used by {nh.refs} route(s)/group(s)")
        result = self.deps.sai.apply(remove_ops(entry, nh, self.deps.switch.switch_id))
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        del self.l3.next_hops[entry.key]
        self.l3.changed()
        del self.macs[entry.key]
        self.by_alias[entry.alias].discard(entry.key)
        intf = self.l3.intfs.get(entry.alias)
        if intf is not None:
            intf.refs -= 2
        return Result.success()

    def _oper_up(self, intf: RouterIntf) -> bool:
        device = self.deps.registry.get(intf.device)
        return device is None or device.kind not in OPER_TRACKED or device.oper_up

    def on_oper(self, event: OperChanged) -> None:
        """An interface went up or down: its next hops become (un)usable for ECMP groups."""
        aliases = [alias for alias, intf in self.l3.intfs.items() if intf.device == event.name]
        for key in sorted(k for alias in aliases for k in self.by_alias.get(alias, ())):
            nh = self.l3.next_hops[key]
            if nh.up == event.up:
                continue
            nh.up = event.up
            self.l3.changed()
            log.info("orch.neigh.nexthop_%s ip=%s intf=%s", "up" if event.up else "down", nh.ip, nh.alias)
            vrf = self.l3.intfs[nh.alias].vrf if nh.alias in self.l3.intfs else ""
            self.deps.bus.publish(NextHopChanged(vrf, nh.ip, nh.alias, nh.oid if event.up else ""))


ORCH = NeighOrch
PRIORITY = 30
