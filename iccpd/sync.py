"""mclagsyncd's step as a pure function: from the session and what this switch sees, the rows that
APPL_DB and STATE_DB should hold (mclaglink.cpp). The daemon writes the difference.

APPL_DB:
* ``MCLAG_FDB_TABLE:Vlan<id>:<MAC>`` {port, type}: every MAC the peer learnt, on the MCLAG interface
  of the same name when it is up here (type ``dynamic_local``: the host is behind our own member, so
  FdbOrch keeps it as a local dynamic MAC rather than a static peer one; a MAC learnt here already is
  not written at all), else on the peer link (the peer reaches the host; the peer's type); and every MAC
  learnt here on an MCLAG interface that is down here but up on the peer, moved to the peer link. A
  MAC learnt here on a port that is up stays local (FdbOrch would keep it anyway).
* ``ISOLATION_GROUP_TABLE:MCLAG_ISO_GRP`` {DESCRIPTION, TYPE bridge-port, PORTS peer link, MEMBERS}:
  while the session is up, the MCLAG interfaces up on both sides (what comes over the peer link for
  them is the peer's to deliver); none left: no group.
* ``LAG_TABLE|PORT_TABLE:<peer link>`` {learn_mode disable} (MACs are synced, not learnt from the peer
  link), and ``LAG_TABLE:<MCLAG interface>`` {learn_mode hardware, traffic_disable false}: only for
  interfaces that exist (a partial row must not create one).
* ``NEIGH_TABLE:<VLAN interface>:<ip>`` {neigh, family}: the peer's ARP/ND entries (its CONFIG_DB
  ``NEIGH`` rows on VLAN interfaces: this switch's kernel neighbours) on VLAN interfaces that exist here
  and have no entry of their own for that address (iccpd installs the peer's ARP entries into the
  kernel, neighsyncd takes them to APPL_DB).
* ``INTF_TABLE:<VLAN interface>`` {mac_addr}: the system MAC in use (the active's on the standby while
  the session is up; the switch's own otherwise), for the VLAN interfaces that exist and are not
  ``MCLAG_UNIQUE_IP``.

STATE_DB: ``MCLAG_TABLE|<domain>`` {oper_status, role, system_mac, peer_mac}, ``MCLAG_LOCAL_INTF_TABLE|<if>``
{port_isolate_peer_link}, ``MCLAG_REMOTE_INTF_TABLE|<domain>|<if>`` {oper_status} (the peer's, while up).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iccpd.session import UP, ArpKey, ArpRow, MacKey, MacRow, Session

ISO_GROUP = "MCLAG_ISO_GRP"
RowKey = tuple[str, str]          # (table, key)
Rows = dict[RowKey, dict[str, str]]


@dataclass
class Seen:
    """What this switch sees of itself."""

    oper: dict[str, str] = field(default_factory=dict)          # port / PortChannel -> up|down
    lags: frozenset[str] = frozenset()                           # PortChannels that exist (STATE_DB LAG_TABLE)
    vlan_interfaces: frozenset[str] = frozenset()                # in APPL_DB INTF_TABLE
    unique_ip: frozenset[str] = frozenset()
    local_macs: dict[MacKey, MacRow] = field(default_factory=dict)
    local_arps: dict[ArpKey, ArpRow] = field(default_factory=dict)    # CONFIG_DB NEIGH on VLAN interfaces


def is_up(oper: dict[str, str], name: str) -> bool:
    return oper.get(name) == UP


def peer_fdb(session: Session, seen: Seen) -> dict[str, dict[str, str]]:
    """MCLAG_FDB_TABLE key -> row."""
    d = session.domain
    out: dict[str, dict[str, str]] = {}
    if not session.up or not d.peer_link:
        return out
    for (vlan, mac), (port, type_) in session.remote_macs.items():
        local = seen.local_macs.get((vlan, mac))
        if local is not None and is_up(seen.oper, local[0]):
            continue
        here = port in d.interfaces and is_up(seen.oper, port)
        if here and type_ == "dynamic":    # the host is behind our own member too: a local dynamic MAC
            type_ = "dynamic_local"
        out[f"{vlan}:{mac}"] = {"port": port if here else d.peer_link, "type": type_}
    for (vlan, mac), (port, _) in seen.local_macs.items():
        if port in d.interfaces and not is_up(seen.oper, port) and session.remote_interfaces.get(port) == UP:
            out[f"{vlan}:{mac}"] = {"port": d.peer_link, "type": "dynamic"}
    return out


def isolated(session: Session, seen: Seen) -> list[str]:
    if not session.up:
        return []
    return sorted(i for i in session.domain.interfaces
                  if is_up(seen.oper, i) and session.remote_interfaces.get(i) == UP)


def appl_rows(session: Session, seen: Seen) -> Rows:
    d = session.domain
    rows: Rows = {("MCLAG_FDB_TABLE", k): v for k, v in peer_fdb(session, seen).items()}
    members = isolated(session, seen)
    if members and d.peer_link:
        rows[("ISOLATION_GROUP_TABLE", ISO_GROUP)] = {
            "DESCRIPTION": "Isolation group for MCLAG", "TYPE": "bridge-port", "PORTS": d.peer_link,
            "MEMBERS": ",".join(members)}
    if d.peer_link.startswith("PortChannel") and d.peer_link in seen.lags:
        rows[("LAG_TABLE", d.peer_link)] = {"learn_mode": "disable"}
    elif d.peer_link.startswith("Ethernet"):
        rows[("PORT_TABLE", d.peer_link)] = {"learn_mode": "disable"}
    for name in sorted(d.interfaces & seen.lags):
        rows[("LAG_TABLE", name)] = {"learn_mode": "hardware", "traffic_disable": "false"}
    if session.up:
        for (intf, ip), (mac, family) in sorted(session.remote_arps.items()):
            if intf in seen.vlan_interfaces and (intf, ip) not in seen.local_arps:
                rows[("NEIGH_TABLE", f"{intf}:{ip}")] = {"neigh": mac, "family": family}
    for vlan in sorted(seen.vlan_interfaces - seen.unique_ip):
        rows[("INTF_TABLE", vlan)] = {"mac_addr": session.system_mac.lower()}
    return rows


def state_rows(session: Session, seen: Seen) -> Rows:
    d = session.domain
    rows: Rows = {("MCLAG_TABLE", d.domain): {"oper_status": session.state, "role": session.role,
                                              "system_mac": session.system_mac.lower(),
                                              "peer_mac": session.peer_mac.lower()}}
    members = set(isolated(session, seen))
    for name in sorted(d.interfaces):
        rows[("MCLAG_LOCAL_INTF_TABLE", name)] = {"port_isolate_peer_link": "true" if name in members else "false"}
        if session.up and name in session.remote_interfaces:
            rows[("MCLAG_REMOTE_INTF_TABLE", f"{d.domain}|{name}")] = {
                "oper_status": session.remote_interfaces[name]}
    return rows


def changes(before: Rows, after: Rows) -> tuple[Rows, list[RowKey]]:
    """(rows to set, rows to delete) to turn ``before`` into ``after``."""
    sets = {k: v for k, v in after.items() if before.get(k) != v}
    return sets, [k for k in before if k not in after]
