"""Pure rendering for ``nos show``: rows read from the databases -> SONiC's tables and JSON.

No IO here. Each command reads the tables it declares (``*_TABLES``) into a ``Snapshot`` of plain
rows; the functions below turn a snapshot into row dicts (what ``--json`` prints) and the row dicts
into text, so every command is tested with plain data. Words, columns, value formats and sort orders
follow sonic-utilities (``scripts/intfutil``, ``show/interfaces/portchannel`` (teamshow),
``show/vlan.py``, ``scripts/ipintutil``); routes follow FRR's
``show ip route`` (zebra_vty.c), which SONiC passes the command to.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from nos.schema import tables as tbl
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB

Value = str | list[str]
Row = Mapping[str, Value]
Rows = Mapping[str, Row]
TableId = tuple[str, str]
Record = dict[str, Any]

NA = "N/A"


@dataclass(frozen=True)
class Snapshot:
    """Rows of the tables one show command reads, by (DB name, table name); keys as stored."""

    tables: Mapping[TableId, Rows] = field(default_factory=dict)

    def rows(self, db: str, table: str) -> Rows:
        return self.tables.get((db, table), {})

    def get(self, db: str, table: str, key: str, name: str) -> str | None:
        value = self.rows(db, table).get(key, {}).get(name)
        return value if isinstance(value, str) else None

    def row(self, db: str, table: str, key: str) -> Row | None:
        return self.rows(db, table).get(key)


# ---- shared helpers ----------------------------------------------------------------------------


def natural_key(text: str) -> tuple[str | int, ...]:
    """natsort's order: digit runs compare as numbers (Ethernet4 before Ethernet12)."""
    return tuple(int(part) if part.isdecimal() else part for part in re.split(r"(\d+)", text))


def natsorted(items: Iterable[str]) -> list[str]:
    return sorted(items, key=natural_key)


def _na(value: str | None) -> str:
    return NA if value is None else value


def _members(keys: Iterable[str], sep: str = "|") -> dict[str, list[str]]:
    """Two-part keys ``parent<sep>member`` grouped by parent, members in natural order."""
    grouped: dict[str, list[str]] = {}
    for key in natsorted(keys):
        parent, found, member = key.partition(sep)
        if found:
            grouped.setdefault(parent, []).append(member)
    return grouped


RJ45 = "RJ45"                          # TRANSCEIVER_INFO type of a copper port (intfutil OPTICS_TYPE_RJ45)
DPU_DATA_PORT = "DPU-NPU Data Port"    # intfutil's Type for a port with role Dpc and no transceiver
DPU_CONNECT_ROLE = "Dpc"               # PORT role of a port wired to a DPU (multi_asic.DPU_CONNECT_PORT)


def format_speed(mbps: str | None, optics: str | None = None) -> str:
    """intfutil's speed format: Mb/s in the DB, printed ``400G``, ``2.5G``, ``100M``; an RJ45 port keeps
    megabits up to 1000 (``1000M``, not ``1G``); N/A when unknown."""
    if mbps is None or not mbps.isdecimal():
        return NA if not mbps else mbps
    speed = int(mbps)
    if speed < 1000 or (optics == RJ45 and speed <= 1000):
        return f"{speed}M"
    if speed % 1000 >= 100:
        return f"{speed / 1000:.1f}G"
    return f"{speed / 1000:.0f}G"


def parse_interface_filter(text: str | None) -> set[str] | None:
    """``Ethernet0,Ethernet8-16`` -> the names it covers (ranges are inclusive, step 1); None = all."""
    if not text:
        return None
    names: set[str] = set()
    for part in (p.strip() for p in text.split(",") if p.strip()):
        match = re.fullmatch(r"(\D+)(\d+)-(\d+)", part)
        if match:
            prefix, start, end = match.group(1), int(match.group(2)), int(match.group(3))
            names.update(f"{prefix}{n}" for n in range(start, end + 1))
        else:
            names.add(part)
    return names


def _table(records: Sequence[Record], columns: Sequence[tuple[str, str]], **style: Any) -> str:
    body = [[record[key] for _, key in columns] for record in records]
    return tabulate(body, [header for header, _ in columns], **style)


# ---- show interfaces status (scripts/intfutil) -------------------------------------------------

STATUS_TABLES: tuple[TableId, ...] = (
    (CONFIG_DB, tbl.CFG_PORT_TABLE_NAME), (APPL_DB, tbl.APP_PORT_TABLE_NAME), (STATE_DB, tbl.STATE_PORT_TABLE_NAME),
    (STATE_DB, tbl.STATE_TRANSCEIVER_INFO_TABLE_NAME), (CONFIG_DB, tbl.CFG_VLAN_MEMBER_TABLE_NAME),
    (CONFIG_DB, tbl.CFG_LAG_MEMBER_TABLE_NAME), (CONFIG_DB, tbl.CFG_LAG_TABLE_NAME), (APPL_DB, tbl.APP_LAG_TABLE_NAME),
)
STATUS_COLUMNS = (
    ("Interface", "interface"), ("Lanes", "lanes"), ("Speed", "speed"), ("MTU", "mtu"), ("FEC", "fec"),
    ("Alias", "alias"), ("Vlan", "vlan"), ("Oper", "oper"), ("Admin", "admin"), ("Type", "type"),
    ("Asym PFC", "asym_pfc"),
)


def _owners(snap: Snapshot) -> dict[str, str]:
    """Interface -> the VLAN or PortChannel it belongs to; a LAG membership wins, as in intfutil."""
    owner: dict[str, str] = {}
    for vlan, members in _members(snap.rows(CONFIG_DB, tbl.CFG_VLAN_MEMBER_TABLE_NAME)).items():
        owner.update(dict.fromkeys(members, vlan))
    for lag, members in _members(snap.rows(CONFIG_DB, tbl.CFG_LAG_MEMBER_TABLE_NAME)).items():
        owner.update(dict.fromkeys(members, lag))
    return owner


def _vlan_column(owners: Mapping[str, str], name: str, mode: str | None) -> str:
    """The PortChannel it is a member of, else its CONFIG_DB switchport ``mode``, else ``trunk`` (any VLAN
    membership, tagged or not) or ``routed`` (intfutil's config_db_vlan_port_keys_get)."""
    owner = owners.get(name)
    if owner is not None and "Vlan" not in owner:
        return owner
    if mode:
        return mode
    return "routed" if owner is None else "trunk"


def _optics(snap: Snapshot, port: str) -> str | None:
    """intfutil's port_optics_get: the transceiver type, else ``DPU-NPU Data Port`` for a DPU-facing port."""
    found = snap.get(STATE_DB, tbl.STATE_TRANSCEIVER_INFO_TABLE_NAME, port, "type")
    if found is None and snap.get(APPL_DB, tbl.APP_PORT_TABLE_NAME, port, "role") == DPU_CONNECT_ROLE:
        return DPU_DATA_PORT
    return found


def _oper_speed_raw(snap: Snapshot, port: str) -> str | None:
    """STATE_DB's speed while the port is up, else the configured speed from APPL_DB."""
    oper = snap.get(STATE_DB, tbl.STATE_PORT_TABLE_NAME, port, "speed")
    if oper and oper != NA and snap.get(APPL_DB, tbl.APP_PORT_TABLE_NAME, port, "oper_status") == "up":
        return oper
    return snap.get(APPL_DB, tbl.APP_PORT_TABLE_NAME, port, "speed")


def _port_status(snap: Snapshot, port: str, owners: Mapping[str, str]) -> Record:
    def appl(name: str) -> str:
        return _na(snap.get(APPL_DB, tbl.APP_PORT_TABLE_NAME, port, name))

    optics = _optics(snap, port)
    return {
        "interface": port, "lanes": appl("lanes"), "speed": format_speed(_oper_speed_raw(snap, port), optics),
        "mtu": appl("mtu"), "fec": appl("fec"), "alias": appl("alias"),
        "vlan": _vlan_column(owners, port, snap.get(CONFIG_DB, tbl.CFG_PORT_TABLE_NAME, port, "mode")),
        "oper": appl("oper_status"), "admin": appl("admin_status"), "type": _na(optics),
        "asym_pfc": appl("pfc_asym"),
    }


def _lag_speed(snap: Snapshot, members: Sequence[str]) -> str:
    """One member: its speed; several: the sum of their speeds, formatted for the optics of the last one
    (intfutil's po_speed_dict)."""
    speeds = [_oper_speed_raw(snap, member) for member in members]
    optics = _optics(snap, members[-1])
    if len(speeds) == 1:
        return format_speed(speeds[0], optics)
    return format_speed(str(sum(int(s) if s and s.isdecimal() else 0 for s in speeds)), optics)


def _lag_status(snap: Snapshot, lag: str, members: Sequence[str], owners: Mapping[str, str]) -> Record:
    def appl(name: str) -> str:
        return _na(snap.get(APPL_DB, tbl.APP_LAG_TABLE_NAME, lag, name))

    return {
        "interface": lag, "lanes": appl("lanes"), "speed": _lag_speed(snap, members),
        "mtu": snap.get(CONFIG_DB, tbl.CFG_LAG_TABLE_NAME, lag, "mtu") or "", "fec": appl("fec"),
        "alias": appl("alias"),
        "vlan": _vlan_column(owners, lag, snap.get(CONFIG_DB, tbl.CFG_LAG_TABLE_NAME, lag, "mode")),
        "oper": appl("oper_status"),
        "admin": appl("admin_status"), "type": appl("type"), "asym_pfc": appl("pfc_asym"),
    }


def interface_status(snap: Snapshot, names: str | None = None) -> list[Record]:
    """One record per front-panel port (in CONFIG_DB PORT and APPL_DB PORT_TABLE) and per PortChannel
    that has members, naturally sorted; ``names`` filters (``Ethernet0,Ethernet8-16``)."""
    wanted = parse_interface_filter(names)
    owners = _owners(snap)
    configured = snap.rows(CONFIG_DB, tbl.CFG_PORT_TABLE_NAME)
    ports = [p for p in snap.rows(APPL_DB, tbl.APP_PORT_TABLE_NAME)
             if p in configured and p not in (tbl.PORT_CONFIG_DONE_KEY, tbl.PORT_INIT_DONE_KEY)]
    records = [_port_status(snap, port, owners) for port in ports]
    lags = _members(snap.rows(CONFIG_DB, tbl.CFG_LAG_MEMBER_TABLE_NAME))
    records += [_lag_status(snap, lag, members, owners) for lag, members in lags.items()]
    return sorted((r for r in records if wanted is None or r["interface"] in wanted),
                  key=lambda r: natural_key(r["interface"]))


def interface_status_table(records: Sequence[Record]) -> str:
    return _table(records, STATUS_COLUMNS, tablefmt="simple", stralign="right")


# ---- show interfaces portchannel (teamshow) ----------------------------------------------------

PORTCHANNEL_TABLES: tuple[TableId, ...] = (
    (CONFIG_DB, tbl.CFG_LAG_TABLE_NAME), (APPL_DB, tbl.APP_LAG_TABLE_NAME), (APPL_DB, tbl.APP_LAG_MEMBER_TABLE_NAME),
    (STATE_DB, tbl.STATE_LAG_TABLE_NAME), (STATE_DB, tbl.STATE_LAG_MEMBER_TABLE_NAME),
)
PORTCHANNEL_LEGEND = (
    "Flags: A - active, I - inactive, Up - up, Dw - Down, N/A - not available,\n"
    "       S - selected, D - deselected, * - not synced"
)
_LAG_PREFIX_LEN = len("PortChannel")


def _lag_member(snap: Snapshot, lag: str, port: str) -> Record:
    """teamd's selection (STATE_DB) against teamsyncd's status (APPL_DB); ``*`` = they disagree."""
    status = snap.get(APPL_DB, tbl.APP_LAG_MEMBER_TABLE_NAME, f"{lag}:{port}", "status")
    teamd = snap.get(STATE_DB, tbl.STATE_LAG_MEMBER_TABLE_NAME, f"{lag}|{port}", "runner.aggregator.selected")
    selected = teamd == "true"
    out_of_sync = status is None or (status == "enabled" and not selected) or (status == "disabled" and selected)
    return {"name": port, "selected": selected, "status": status, "in_sync": not out_of_sync}


def portchannel_summary(snap: Snapshot) -> list[Record]:
    """One record per CONFIG_DB PORTCHANNEL, by team number, as teamshow: ``protocol`` is None (printed
    N/A, no ports) until teamd's STATE_DB LAG_TABLE row exists; the members are those of STATE_DB
    LAG_MEMBER_TABLE (teamd's), none printed N/A, even when teamsyncd has some in APPL_DB."""
    state_members = _members(snap.rows(STATE_DB, tbl.STATE_LAG_MEMBER_TABLE_NAME))
    records = []
    for lag in snap.rows(CONFIG_DB, tbl.CFG_LAG_TABLE_NAME):
        state = snap.row(STATE_DB, tbl.STATE_LAG_TABLE_NAME, lag)
        protocol = None
        ports: list[str] = []
        if state is not None:
            oper = (snap.get(APPL_DB, tbl.APP_LAG_TABLE_NAME, lag, "oper_status") or "").lower()
            protocol = {"name": "LACP", "active": state.get("runner.active", "true") == "true",
                        "oper_status": oper if oper in ("up", "down") else NA}
            ports = state_members.get(lag, [])
        records.append({"no": lag[_LAG_PREFIX_LEN:], "team_dev": lag, "protocol": protocol,
                        "ports": [_lag_member(snap, lag, port) for port in natsorted(ports)]})
    return sorted(records, key=lambda r: natural_key(r["no"]))


def _protocol_text(protocol: Record | None) -> str:
    if protocol is None:
        return NA
    active = "(A)" if protocol["active"] else "(I)"
    return f"{protocol['name']}{active}({ {'up': 'Up', 'down': 'Dw'}.get(protocol['oper_status'], NA) })"


def _ports_text(record: Record) -> str:
    if record["protocol"] is None:
        return ""
    if not record["ports"]:
        return NA
    return " ".join(f"{p['name']}({'S' if p['selected'] else 'D'}{'' if p['in_sync'] else '*'})"
                    for p in record["ports"])


def portchannel_table(records: Sequence[Record]) -> str:
    body = [[r["no"], r["team_dev"], _protocol_text(r["protocol"]), _ports_text(r)] for r in records]
    return PORTCHANNEL_LEGEND + "\n" + tabulate(body, ["No.", "Team Dev", "Protocol", "Ports"])


# ---- show vlan brief / config (show/vlan.py) ---------------------------------------------------

VLAN_TABLES: tuple[TableId, ...] = (
    (CONFIG_DB, tbl.CFG_VLAN_TABLE_NAME), (CONFIG_DB, tbl.CFG_VLAN_INTF_TABLE_NAME),
    (CONFIG_DB, tbl.CFG_VLAN_MEMBER_TABLE_NAME), (CONFIG_DB, tbl.CFG_FEATURE_TABLE_NAME),
)
VLAN_BRIEF_COLUMNS = (
    ("VLAN ID", "vlan_id"), ("IP Address", "ip_addresses"), ("Ports", "ports"), ("Port Tagging", "port_tagging"),
    ("Proxy ARP", "proxy_arp"), ("Static Anycast Gateway", "static_anycast_gateway"),
)
VLAN_CONFIG_COLUMNS = (("Name", "name"), ("VID", "vid"), ("Member", "member"), ("Mode", "mode"))


def _list(value: Value | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _dhcp_helpers(snap: Snapshot, vlan: str) -> list[str]:
    """VLAN ``dhcp_servers``; ``N/A`` when the dhcp_server feature serves the VLANs itself."""
    if snap.get(CONFIG_DB, tbl.CFG_FEATURE_TABLE_NAME, "dhcp_server", "state") == "enabled":
        return [NA]
    return natsorted(_list((snap.row(CONFIG_DB, tbl.CFG_VLAN_TABLE_NAME, vlan) or {}).get("dhcp_servers")))


def vlan_brief(snap: Snapshot) -> list[Record]:
    """One record per VLAN, from CONFIG_DB only, as SONiC's ``show vlan brief``; lists stay lists. The
    records keep ``dhcp_helper_addresses`` (``--json``); the table has sonic-utilities' six columns only
    ("DHCP Helper Address" is appended by the dhcp-relay container's CLI plugin, not by sonic-utilities)."""
    addresses = _members(snap.rows(CONFIG_DB, tbl.CFG_VLAN_INTF_TABLE_NAME))
    members = _members(snap.rows(CONFIG_DB, tbl.CFG_VLAN_MEMBER_TABLE_NAME))
    records = []
    for vlan in natsorted(snap.rows(CONFIG_DB, tbl.CFG_VLAN_TABLE_NAME)):
        ports = members.get(vlan, [])
        attrs = snap.row(CONFIG_DB, tbl.CFG_VLAN_INTF_TABLE_NAME, vlan) or {}
        records.append({
            "vlan_id": vlan.removeprefix("Vlan"), "ip_addresses": addresses.get(vlan, []), "ports": ports,
            "port_tagging": [snap.get(CONFIG_DB, tbl.CFG_VLAN_MEMBER_TABLE_NAME, f"{vlan}|{p}", "tagging_mode") or ""
                             for p in ports],
            "proxy_arp": attrs.get("proxy_arp", "disabled"),
            "static_anycast_gateway": "enabled" if attrs.get("static_anycast_gateway") == "true" else "disabled",
            "dhcp_helper_addresses": _dhcp_helpers(snap, vlan),
        })
    return records


def vlan_brief_table(records: Sequence[Record]) -> str:
    cells = [{k: "\n".join(v) if isinstance(v, list) else v for k, v in r.items()} for r in records]
    return _table(cells, VLAN_BRIEF_COLUMNS, tablefmt="grid")


def vlan_config(snap: Snapshot) -> list[Record]:
    """One record per (VLAN, member), a VLAN without members once with an empty member (legacy
    ``members@`` lists included, as SONiC reads them)."""
    members = _members(snap.rows(CONFIG_DB, tbl.CFG_VLAN_MEMBER_TABLE_NAME))
    records = []
    for vlan, row in sorted(snap.rows(CONFIG_DB, tbl.CFG_VLAN_TABLE_NAME).items(), key=lambda kv: natural_key(kv[0])):
        names = natsorted(set(members.get(vlan, [])) | set(_list(row.get("members")))) or [""]
        vid = row.get("vlanid", vlan.removeprefix("Vlan"))
        for name in names:
            mode = snap.get(CONFIG_DB, tbl.CFG_VLAN_MEMBER_TABLE_NAME, f"{vlan}|{name}", "tagging_mode")
            records.append({"name": vlan, "vid": vid, "member": name, "mode": mode or ""})
    return records


def vlan_config_table(records: Sequence[Record]) -> str:
    return _table(records, VLAN_CONFIG_COLUMNS)


# ---- show ip / ipv6 interfaces (scripts/ipintutil) ---------------------------------------------

INTERFACE_TABLES = (tbl.CFG_INTF_TABLE_NAME, tbl.CFG_LAG_INTF_TABLE_NAME, tbl.CFG_VLAN_INTF_TABLE_NAME,
                    tbl.CFG_LOOPBACK_INTERFACE_TABLE_NAME)
IP_INTERFACE_TABLES: tuple[TableId, ...] = (
    *((CONFIG_DB, table) for table in INTERFACE_TABLES), (APPL_DB, tbl.APP_INTF_TABLE_NAME),
    (APPL_DB, tbl.APP_PORT_TABLE_NAME), (APPL_DB, tbl.APP_LAG_TABLE_NAME), (APPL_DB, tbl.APP_VLAN_TABLE_NAME),
    (CONFIG_DB, tbl.CFG_VLAN_MEMBER_TABLE_NAME), (CONFIG_DB, tbl.CFG_BGP_NEIGHBOR_TABLE_NAME),
)


def ip_version(prefix: str) -> int | None:
    try:
        return ipaddress.ip_interface(prefix).version
    except ValueError:
        return None


def _interface_addresses(snap: Snapshot, version: int) -> dict[str, set[str]]:
    """Interface -> its addresses of one family: CONFIG_DB intent plus what intfmgrd put in INTF_TABLE."""
    found: dict[str, set[str]] = {}
    keys = [(k, "|") for table in INTERFACE_TABLES for k in snap.rows(CONFIG_DB, table)]
    keys += [(k, ":") for k in snap.rows(APPL_DB, tbl.APP_INTF_TABLE_NAME)]
    for key, sep in keys:
        name, has_prefix, prefix = key.partition(sep)
        if has_prefix and ip_version(prefix) == version:
            found.setdefault(name, set()).add(prefix)
    return found


def _master(snap: Snapshot, name: str) -> str:
    """The VRF the interface is bound to (the kernel's master device), else empty."""
    for table in INTERFACE_TABLES:
        vrf = snap.get(CONFIG_DB, table, name, "vrf_name")
        if vrf:
            return vrf
    return snap.get(APPL_DB, tbl.APP_INTF_TABLE_NAME, name, "vrf_name") or ""


def _vlan_oper(snap: Snapshot, vlan: str) -> str:
    """A VLAN interface is up while any member port or LAG is up (the kernel bridge's carrier)."""
    for member in _members(snap.rows(CONFIG_DB, tbl.CFG_VLAN_MEMBER_TABLE_NAME)).get(vlan, []):
        table = tbl.APP_LAG_TABLE_NAME if member.startswith("PortChannel") else tbl.APP_PORT_TABLE_NAME
        if snap.get(APPL_DB, table, member, "oper_status") == "up":
            return "up"
    return "down"


def _admin_oper(snap: Snapshot, name: str) -> tuple[str, str]:
    if name.startswith("Loopback"):
        return "up", "up"
    if name.startswith("Vlan"):
        return _na(snap.get(APPL_DB, tbl.APP_VLAN_TABLE_NAME, name, "admin_status")), _vlan_oper(snap, name)
    table = tbl.APP_LAG_TABLE_NAME if name.startswith("PortChannel") else tbl.APP_PORT_TABLE_NAME
    return _na(snap.get(APPL_DB, table, name, "admin_status")), _na(snap.get(APPL_DB, table, name, "oper_status"))


def _bgp_peers(snap: Snapshot) -> dict[str, tuple[str, str]]:
    """Local address -> (neighbor name, neighbor IP) from CONFIG_DB BGP_NEIGHBOR (``[vrf|]ip`` keys)."""
    peers: dict[str, tuple[str, str]] = {}
    rows = snap.rows(CONFIG_DB, tbl.CFG_BGP_NEIGHBOR_TABLE_NAME)
    for key in natsorted(rows):
        local, name = rows[key].get("local_addr"), rows[key].get("name")
        if isinstance(local, str) and isinstance(name, str):
            peers.setdefault(local, (name, key.rpartition("|")[2]))
    return peers


def ip_interfaces(snap: Snapshot, version: int = 4) -> list[Record]:
    """One record per interface with addresses of the family, naturally sorted, addresses too."""
    peers = _bgp_peers(snap)
    records = []
    for name, prefixes in sorted(_interface_addresses(snap, version).items(), key=lambda kv: natural_key(kv[0])):
        admin, oper = _admin_oper(snap, name)
        addresses = []
        for prefix in natsorted(prefixes):
            peer_name, peer_ip = peers.get(prefix.partition("/")[0], (NA, NA))
            addresses.append({"address": prefix, "bgp_neighbor": peer_name, "neighbor_ip": peer_ip})
        records.append({"interface": name, "master": _master(snap, name), "admin": admin, "oper": oper,
                        "addresses": addresses})
    return records


def ip_interfaces_table(records: Sequence[Record], version: int = 4) -> str:
    body = []
    for record in records:
        first, *more = record["addresses"]
        body.append([record["interface"], record["master"], first["address"], f"{record['admin']}/{record['oper']}",
                     first["bgp_neighbor"], first["neighbor_ip"]])
        body += [["", "", a["address"], "", a["bgp_neighbor"], a["neighbor_ip"]] for a in more]
    header = ["Interface", "Master", f"IPv{version} address/mask", "Admin/Oper", "BGP Neighbor", "Neighbor IP"]
    return tabulate(body, header, tablefmt="simple", stralign="left", missingval="")
