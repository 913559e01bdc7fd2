"""``config mclag ...`` as edits of the document, in sonic-utilities' words (``config/mclag.py``):

* ``add <domain_id> <source_ip> <peer_ip> [<peer_ifname>]``: ``MCLAG_DOMAIN|<id>`` {source_ip, peer_ip,
  peer_link}; a second domain is refused ("only one mclag Domain can be configured"), the same id is
  updated. (sonic-utilities writes the string ``None`` as peer_link when it is left out; it is left out
  here.)
* ``del <domain_id>``: the domain and every ``MCLAG_INTERFACE|<id>|*``.
* ``keepalive-interval <id> <1..60>`` / ``session-timeout <id> <3..3600>``: session_timeout must be at
  least 3 x keepalive and a multiple of it (with the CLI's defaults, keepalive 1 and timeout 15, for
  the one not set).
* ``member add|del <id> <PortChannelA,PortChannelB>``: ``MCLAG_INTERFACE|<id>|<pc>`` {if_type PortChannel}.
* ``unique-ip add|del <VlanX,...>``: ``MCLAG_UNIQUE_IP|<Vlan>`` {unique_ip enable}; needs a domain; refused
  while the VLAN interface has a VRF or addresses (they come after unique-ip is on).

Everything else (addresses, the peer link existing and not being a member, ranges) is the schema's.
"""

from __future__ import annotations

from nos.cli.edits.common import SEP, Refused, rows, table
from nos.db.configdb import Config, Row
from nos.schema import tables as tbl

CLI_DEFAULT_KEEPALIVE, CLI_DEFAULT_SESSION_TIMEOUT = 1, 15


def _domain(config: Config, domain_id: str) -> Row:
    entry = rows(config, tbl.CFG_MCLAG_TABLE_NAME).get(domain_id)
    if entry is None:
        raise Refused(f"MCLAG Domain {domain_id} not configured, configure mclag domain first")
    return entry


def add(config: Config, domain_id: int, source_ip: str, peer_ip: str, peer_ifname: str | None) -> Config:
    domains = table(config, tbl.CFG_MCLAG_TABLE_NAME)
    key = str(domain_id)
    if domains and key not in domains:
        raise Refused(f"only one mclag Domain can be configured. Already one domain {next(iter(domains))} configured ")
    row: Row = dict(domains.get(key, {}))
    row.update({"source_ip": source_ip, "peer_ip": peer_ip})
    if peer_ifname is not None:
        row["peer_link"] = peer_ifname
    domains[key] = row
    return config


def delete(config: Config, domain_id: int) -> Config:
    key = str(domain_id)
    _domain(config, key)
    interfaces = rows(config, tbl.CFG_MCLAG_INTF_TABLE_NAME)
    for name in [k for k in interfaces if k.partition(SEP)[0] == key]:
        del interfaces[name]
    del rows(config, tbl.CFG_MCLAG_TABLE_NAME)[key]
    return config


def _timers(keepalive: int, timeout: int) -> None:
    if timeout < 3 * keepalive:
        raise Refused(f"MCLAG Keepalive:{keepalive} Session_timeout:{timeout} values not satisfying "
                      "session_timeout >= (3 * KA) ")
    if timeout % keepalive:
        raise Refused(f"MCLAG keepalive:{keepalive} Session_timeout:{timeout} Values not satisfying "
                      "session_timeout should be a multiple of KA")


def keepalive_interval(config: Config, domain_id: str, seconds: int) -> Config:
    entry = _domain(config, domain_id)
    if not 1 <= seconds <= 60:
        raise Refused(f"Keepalive {seconds} not in valid range[1-60]")
    _timers(seconds, int(str(entry.get("session_timeout", CLI_DEFAULT_SESSION_TIMEOUT))))
    entry["keepalive_interval"] = str(seconds)
    return config


def session_timeout(config: Config, domain_id: str, seconds: int) -> Config:
    entry = _domain(config, domain_id)
    if not 3 <= seconds <= 3600:
        raise Refused(f"Session timeout {seconds} not in valid range[3-3600]")
    _timers(int(str(entry.get("keepalive_interval", CLI_DEFAULT_KEEPALIVE))), seconds)
    entry["session_timeout"] = str(seconds)
    return config


def _names(value: str) -> list[str]:
    return [name for name in value.split(",") if name]


def add_members(config: Config, domain_id: str, portchannels: str) -> Config:
    members = table(config, tbl.CFG_MCLAG_INTF_TABLE_NAME)
    for name in _names(portchannels):
        members[f"{domain_id}{SEP}{name}"] = {"if_type": "PortChannel"}
    return config


def del_members(config: Config, domain_id: str, portchannels: str) -> Config:
    members = rows(config, tbl.CFG_MCLAG_INTF_TABLE_NAME)
    for name in _names(portchannels):
        if members.pop(f"{domain_id}{SEP}{name}", None) is None:
            raise Refused(f"Failed to delete mclag member {name} from mclag domain {domain_id}")
    return config


def _unique_ip_allowed(config: Config, vlan: str, doing: str) -> None:
    if not vlan.startswith("Vlan"):
        raise Refused(f"{vlan} is invalid!, name should have prefix 'Vlan' and suffix 'vlan id'")
    interfaces = rows(config, tbl.CFG_VLAN_INTF_TABLE_NAME)
    if (interfaces.get(vlan) or {}).get("vrf_name"):
        raise Refused(f"{vlan} is configured with Non default VRF, remove the VRF configuration and reconfigure "
                      f"after {doing} unique IP configuration.")
    for key in interfaces:
        name, sep, ip = key.partition(SEP)
        if sep and name == vlan:
            raise Refused(f"{vlan} is configured with IP {ip}, remove the IP configuration and reconfigure after "
                          f"{doing} unique IP configuration.")


def add_unique_ip(config: Config, vlans: str) -> Config:
    if not rows(config, tbl.CFG_MCLAG_TABLE_NAME):
        raise Refused("MCLAG not configured. MCLAG should be configured.")
    unique = table(config, tbl.CFG_MCLAG_UNIQUE_IP_TABLE_NAME)
    for vlan in _names(vlans):
        _unique_ip_allowed(config, vlan, "enabling")
        unique[vlan] = {"unique_ip": "enable"}
    return config


def del_unique_ip(config: Config, vlans: str) -> Config:
    unique = rows(config, tbl.CFG_MCLAG_UNIQUE_IP_TABLE_NAME)
    for vlan in _names(vlans):
        _unique_ip_allowed(config, vlan, "disabling")
        if unique.pop(vlan, None) is None:
            raise Refused(f"Failed to delete mclag unique IP from Vlan interface {vlan}")
    return config
