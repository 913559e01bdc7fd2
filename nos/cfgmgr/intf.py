"""Interface manager (SONiC's intfmgrd) and the connected routes of interface addresses.

CONFIG_DB INTERFACE, PORTCHANNEL_INTERFACE, VLAN_INTERFACE, LOOPBACK_INTERFACE and VLAN_SUB_INTERFACE
hold two kinds of rows (swss ``cfgmgr/intfmgr.cpp``):

* ``<TABLE>|<if>``: the interface. Once the underlying port / LAG / VLAN is ready (STATE_DB
  ``PORT_TABLE`` / ``LAG_TABLE`` / ``VLAN_TABLE`` state ok; loopbacks have none; a sub-interface
  ``Ethernet0.10`` waits for its parent) and its VRF (``vrf_name`` or ``vnet_name``) is ready in
  STATE_DB ``VRF_TABLE``, the row goes to APPL_DB ``INTF_TABLE:<if>`` as intfmgrd forwards it: every
  field it got, the ``NULL`` placeholder included, plus ``mac_addr`` 00:00:00:00:00:00 ("use the
  router MAC") when none is configured (or the SAG gateway MAC for a VLAN with
  ``static_anycast_gateway`` true). A sub-interface also gets ``mtu`` 0 (inherit) and ``admin_status``
  up unless configured, and its own STATE_DB ``PORT_TABLE|<sub>`` (``LAG_TABLE`` for a LAG parent)
  {state: ok}. STATE_DB ``INTERFACE_TABLE|<if>`` gets {vrf: <vrf or "">} as intfmgrd writes it, plus
  {state: ok} (ours: the convention every readiness check in this project uses). Moving an existing
  interface to another VRF is refused, as intfmgrd does.
* ``<TABLE>|<if>|<prefix>``: an address. Once the interface row is done: APPL_DB
  ``INTF_TABLE:<if>:<prefix>`` {scope: global, family: IPv4|IPv6} and STATE_DB
  ``INTERFACE_TABLE|<if>|<prefix>`` {state: ok}. IPv4 link-local addresses are not sent (intfmgrd).
  IPv6 prefixes keep their colons: the key is split at the first separator only.

Deletes remove the APPL_DB and STATE_DB rows; deleting an interface that still has addresses waits
(intfmgrd checks the kernel's address count) until they are gone.

Connected routes. This module also stands in for the kernel + FRR zebra + fpmsyncd chain: on a real
switch, the address added to the netdev makes the kernel install the subnet route, zebra learns it as
connected and fpmsyncd writes it into APPL_DB. Here an address on a non-loopback interface directly
gives APPL_DB ``ROUTE_TABLE:<subnet>`` (``ROUTE_TABLE:<vrf>:<subnet>`` in a VRF) {nexthop: 0.0.0.0 or
::, ifname: <if>, protocol: kernel}, removed with the address. No route for link-local subnets,
full-length prefixes (/32, /128: the kernel installs no prefix route), loopbacks, or VRFs that
fpmsyncd does not put into ROUTE_TABLE (``Vnet*``, ``mgmt``). Two addresses in one subnet share the
route (one nexthop per distinct interface) until the last one goes.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ProducerStateTable, SubscriberStateTable, Table
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    APP_INTF_TABLE_NAME,
    APP_ROUTE_TABLE_NAME,
    CFG_INTF_TABLE_NAME,
    CFG_LAG_INTF_TABLE_NAME,
    CFG_LOOPBACK_INTERFACE_TABLE_NAME,
    CFG_SAG_TABLE_NAME,
    CFG_VLAN_INTF_TABLE_NAME,
    CFG_VLAN_SUB_INTF_TABLE_NAME,
    STATE_INTERFACE_TABLE_NAME,
    STATE_LAG_TABLE_NAME,
    STATE_PORT_TABLE_NAME,
    STATE_VLAN_TABLE_NAME,
    STATE_VRF_TABLE_NAME,
)

INTF_TABLES = (
    CFG_INTF_TABLE_NAME,
    CFG_LAG_INTF_TABLE_NAME,
    CFG_VLAN_INTF_TABLE_NAME,
    CFG_LOOPBACK_INTERFACE_TABLE_NAME,
    CFG_VLAN_SUB_INTF_TABLE_NAME,
)
CONSUMES = (
    *((CONFIG_DB, table) for table in INTF_TABLES),
    # read only: readiness of the underlying device and the VRF, the SAG gateway MAC
    (STATE_DB, STATE_PORT_TABLE_NAME),
    (STATE_DB, STATE_LAG_TABLE_NAME),
    (STATE_DB, STATE_VLAN_TABLE_NAME),
    (STATE_DB, STATE_VRF_TABLE_NAME),
    (CONFIG_DB, CFG_SAG_TABLE_NAME),
)
PRODUCES = (
    (APPL_DB, APP_INTF_TABLE_NAME),
    (APPL_DB, APP_ROUTE_TABLE_NAME),
    (STATE_DB, STATE_INTERFACE_TABLE_NAME),
    (STATE_DB, STATE_PORT_TABLE_NAME),  # sub-interfaces of ports
    (STATE_DB, STATE_LAG_TABLE_NAME),  # sub-interfaces of LAGs
)

VLAN_PREFIX = "Vlan"
LAG_PREFIX = "PortChannel"
LOOPBACK_PREFIX = "Loopback"
VNET_PREFIX = "Vnet"
VRF_PREFIX = "Vrf"
MGMT_VRF = "mgmt"
SUB_INTF_SEPARATOR = "."
CONFIG_SEPARATOR = "|"
STATE_SEPARATOR = "|"
MTU_INHERITANCE = "0"
ZERO_MAC = "00:00:00:00:00:00"
SAG_GLOBAL_KEY = "GLOBAL"
STATE_OK = {"state": "ok"}
CONNECTED_PROTOCOL = "kernel"


# -- pure translation ---------------------------------------------------------------------------
@dataclass(frozen=True)
class IntfKey:
    """A CONFIG_DB interface-table key: the interface, and the address prefix for address rows."""

    alias: str
    prefix: str | None


def parse_key(key: str) -> IntfKey:
    """``<if>`` or ``<if>|<prefix>``; raises ValueError for anything else."""
    parts = key.split(CONFIG_SEPARATOR)
    if len(parts) > 2 or not all(parts):
        raise ValueError(f"invalid interface key {key!r} (expected <interface> or <interface>|<prefix>)")
    return IntfKey(parts[0], parts[1] if len(parts) == 2 else None)


def sub_interface_parent(alias: str) -> str | None:
    """The parent of a sub-interface ``Ethernet0.10`` / ``PortChannel1.10``, else None."""
    parent, dot, _ = alias.partition(SUB_INTF_SEPARATOR)
    return parent if dot else None


def readiness_table(name: str) -> str | None:
    """The STATE_DB table whose ``<name>`` row says the device (or VRF) exists; None = always ready."""
    if name.startswith(VLAN_PREFIX):
        return STATE_VLAN_TABLE_NAME
    if name.startswith(LAG_PREFIX):
        return STATE_LAG_TABLE_NAME
    if name.startswith((VNET_PREFIX, VRF_PREFIX)) or name == MGMT_VRF:
        return STATE_VRF_TABLE_NAME
    if name.startswith(LOOPBACK_PREFIX):
        return None
    return STATE_PORT_TABLE_NAME


def sub_interface_state_table(parent: str) -> str:
    """Where intfmgrd marks a sub-interface ready: LAG_TABLE for a LAG parent, else PORT_TABLE."""
    return STATE_LAG_TABLE_NAME if parent.startswith(LAG_PREFIX) else STATE_PORT_TABLE_NAME


def vrf_of(fields: Mapping[str, str]) -> str:
    """The VRF (or VNET) an interface row binds to; "" for the default VRF."""
    return fields.get("vrf_name") or fields.get("vnet_name") or ""


def needs_sag_mac(alias: str, fields: Mapping[str, str]) -> bool:
    """Whether the SAG gateway MAC decides this interface's mac_addr."""
    return "mac_addr" not in fields and bool(fields.get("static_anycast_gateway")) and alias.startswith(VLAN_PREFIX)


def _default_mac(alias: str, sag: str | None, gwmac: str | None) -> str | None:
    if not sag:
        return ZERO_MAC
    if not alias.startswith(VLAN_PREFIX) or not gwmac:
        return None
    if sag == "true":
        return gwmac.lower()
    return ZERO_MAC if sag == "false" else None


def intf_to_appl(alias: str, fields: Mapping[str, str], gwmac: str | None = None) -> dict[str, str]:
    """APPL_DB INTF_TABLE:<if> fields for an interface row (pure; see the module docstring)."""
    data = dict(fields)
    if sub_interface_parent(alias) is not None:
        data.setdefault("mtu", MTU_INHERITANCE)
        data.setdefault("admin_status", "up")
    if "mac_addr" not in fields:
        mac = _default_mac(alias, fields.get("static_anycast_gateway"), gwmac)
        if mac is not None:
            data["mac_addr"] = mac
    return data


IpInterface = ipaddress.IPv4Interface | ipaddress.IPv6Interface


def parse_prefix(text: str) -> IpInterface:
    """An address with its prefix length, e.g. ``10.0.0.1/31`` or ``fc00::1/126``; raises ValueError."""
    return ipaddress.ip_interface(text)


def addr_to_appl(iface: IpInterface) -> dict[str, str] | None:
    """APPL_DB INTF_TABLE:<if>:<prefix> fields; None for IPv4 link-local (intfmgrd does not send it)."""
    if iface.version == 4 and iface.ip.is_link_local:
        return None
    return {"scope": "global", "family": "IPv4" if iface.version == 4 else "IPv6"}


@dataclass(frozen=True)
class ConnectedRoute:
    """The subnet route the kernel would install for an interface address."""

    vrf: str
    prefix: str
    ipv6: bool

    def key(self, separator: str) -> str:
        return f"{self.vrf}{separator}{self.prefix}" if self.vrf else self.prefix

    def fields(self, ifnames: Iterable[str]) -> dict[str, str]:
        names = sorted(set(ifnames))
        nexthop = "::" if self.ipv6 else "0.0.0.0"
        return {"nexthop": ",".join([nexthop] * len(names)), "ifname": ",".join(names),
                "protocol": CONNECTED_PROTOCOL}


def connected_route(alias: str, iface: IpInterface, vrf: str) -> ConnectedRoute | None:
    """The connected route of an address, or None where fpmsyncd would write none (module docstring)."""
    network = iface.network
    if alias.startswith(LOOPBACK_PREFIX) or network.is_link_local:
        return None
    if network.prefixlen == network.max_prefixlen:
        return None
    if vrf and not vrf.startswith(VRF_PREFIX):
        return None
    return ConnectedRoute(vrf, str(network), network.version == 6)


# -- the manager --------------------------------------------------------------------------------
@dataclass
class _RouteUse:
    route: ConnectedRoute
    owners: dict[str, str] = field(default_factory=dict)  # "<if>|<prefix>" -> interface


class IntfMgr:
    """intfmgrd: one handler for the five interface tables."""

    def __init__(self, dbs: Databases) -> None:
        self.appl = ProducerStateTable(dbs[APPL_DB], APP_INTF_TABLE_NAME)
        self.routes = ProducerStateTable(dbs[APPL_DB], APP_ROUTE_TABLE_NAME)
        self.appl_sep = dbs[APPL_DB].separator
        self.state_intf = Table(dbs[STATE_DB], STATE_INTERFACE_TABLE_NAME)
        self.state = {
            name: Table(dbs[STATE_DB], name)
            for name in (STATE_PORT_TABLE_NAME, STATE_LAG_TABLE_NAME, STATE_VLAN_TABLE_NAME, STATE_VRF_TABLE_NAME)
        }
        self.sag = Table(dbs[CONFIG_DB], CFG_SAG_TABLE_NAME)
        self.interfaces: dict[str, str] = {}  # interface set up -> its VRF ("" = default)
        self.addresses: dict[str, set[str]] = {}  # interface -> prefixes set up
        self.route_uses: dict[str, _RouteUse] = {}  # APPL_DB ROUTE_TABLE key -> users
        self.route_of: dict[str, str] = {}  # "<if>|<prefix>" -> ROUTE_TABLE key

    def ready(self, name: str) -> bool:
        """STATE_DB says the device or VRF ``name`` exists (state ok)."""
        table = readiness_table(name)
        return table is None or self.state[table].hget(name, "state") == "ok"

    def handle(self, task: KeyOpFieldsValues) -> Result:
        try:
            key = parse_key(task.key)
        except ValueError as exc:
            return Result.invalid(str(exc))
        if key.prefix is None:
            return self._set_intf(key.alias, task.fields) if task.is_set else self._del_intf(key.alias)
        return self._set_addr(key.alias, key.prefix) if task.is_set else self._del_addr(key.alias, key.prefix)

    # -- interface rows -------------------------------------------------------------------------
    def _set_intf(self, alias: str, fields: dict[str, str]) -> Result:
        parent = sub_interface_parent(alias)
        device = parent or alias
        if not self.ready(device):
            return Result.retry(f"{device} is not ready")
        vrf = vrf_of(fields)
        if vrf and not self.ready(vrf):
            return Result.retry(f"VRF {vrf} is not ready")
        current = self.interfaces.get(alias)
        if current is not None and current != vrf:
            return Result.invalid(f"{alias} cannot move from VRF '{current}' to '{vrf}' directly: "
                                  "remove its addresses and the interface first")
        gwmac = self.sag.hget(SAG_GLOBAL_KEY, "gwmac") if needs_sag_mac(alias, fields) else None
        self.appl.set(alias, intf_to_appl(alias, fields, gwmac))
        if parent is not None:
            self.state[sub_interface_state_table(parent)].set(alias, STATE_OK)
        self.state_intf.set(alias, {"vrf": vrf, **STATE_OK})
        self.interfaces[alias] = vrf
        return Result.success()

    def _del_intf(self, alias: str) -> Result:
        if self.addresses.get(alias):
            return Result.retry(f"{alias} still has addresses {sorted(self.addresses[alias])}")
        parent = sub_interface_parent(alias)
        self.appl.delete(alias)
        if parent is not None:
            self.state[sub_interface_state_table(parent)].delete(alias)
        self.state_intf.delete(alias)
        self.interfaces.pop(alias, None)
        return Result.success()

    # -- address rows ---------------------------------------------------------------------------
    def _set_addr(self, alias: str, prefix: str) -> Result:
        try:
            iface = parse_prefix(prefix)
        except ValueError as exc:
            return Result.invalid(f"{alias}: {exc}")
        if not self.ready(alias) or alias not in self.interfaces:
            return Result.retry(f"interface {alias} is not set up yet")
        fields = addr_to_appl(iface)
        if fields is not None:
            self.appl.set(f"{alias}{self.appl_sep}{prefix}", fields)
            self.state_intf.set(f"{alias}{STATE_SEPARATOR}{prefix}", STATE_OK)
        self.addresses.setdefault(alias, set()).add(prefix)
        route = connected_route(alias, iface, self.interfaces[alias])
        if route is not None:
            self._add_route(f"{alias}{CONFIG_SEPARATOR}{prefix}", alias, route)
        return Result.success()

    def _del_addr(self, alias: str, prefix: str) -> Result:
        try:
            iface = parse_prefix(prefix)
        except ValueError:
            return Result.ignored(f"{alias}: invalid prefix {prefix!r} was never set")
        if addr_to_appl(iface) is not None:
            self.appl.delete(f"{alias}{self.appl_sep}{prefix}")
            self.state_intf.delete(f"{alias}{STATE_SEPARATOR}{prefix}")
        remaining = self.addresses.get(alias, set())
        remaining.discard(prefix)
        if not remaining:
            self.addresses.pop(alias, None)
        self._remove_route(f"{alias}{CONFIG_SEPARATOR}{prefix}")
        return Result.success()

    # -- connected routes -----------------------------------------------------------------------
    def _add_route(self, owner: str, alias: str, route: ConnectedRoute) -> None:
        key = route.key(self.appl_sep)
        use = self.route_uses.setdefault(key, _RouteUse(route))
        use.owners[owner] = alias
        self.route_of[owner] = key
        self.routes.set(key, route.fields(use.owners.values()))

    def _remove_route(self, owner: str) -> None:
        key = self.route_of.pop(owner, None)
        if key is None:
            return
        use = self.route_uses[key]
        use.owners.pop(owner, None)
        if use.owners:
            self.routes.set(key, use.route.fields(use.owners.values()))
        else:
            del self.route_uses[key]
            self.routes.delete(key)

    def register(self, dbs: Databases, runner: Runner) -> None:
        for table in INTF_TABLES:
            source = SubscriberStateTable(dbs[CONFIG_DB], table)
            runner.add_consumer(TableConsumer(CONFIG_DB, table, source, self.handle))


def register(dbs: Databases, runner: Runner) -> None:
    """Wire the interface manager into cfgmgrd."""
    IntfMgr(dbs).register(dbs, runner)
