"""``config vlan add|del`` and ``config vlan member add|del`` as edits of the config document.

As sonic-utilities ``config/vlan.py`` writes them: ``VLAN|Vlan<vid>`` {``vlanid``} and
``VLAN_MEMBER|Vlan<vid>|<port>`` {``tagging_mode``: ``untagged`` with ``-u``, else ``tagged``}, with its
refusals (default VLAN 1, ids outside 2..4094, a VLAN that still has addresses, members or a VXLAN
map, a member that is routed, a PortChannel member, already untagged elsewhere, or in access/routed
mode). ``-m`` takes ranges and comma lists (``100-103``, ``100,200``); all the VLANs of one command
change together or not at all (SONiC writes them one by one and stops at the first refusal).
"""

from __future__ import annotations

from nos.cli.edits.common import SEP, Refused, lag_of, rows, table, two_part_keys
from nos.db.configdb import Config
from nos.schema import tables as tbl

DEFAULT_VLAN = 1
MAX_VLAN = 4094
MIRROR_SESSION = "MIRROR_SESSION"
DHCP_RELAY = "DHCP_RELAY"


def _vid(text: str) -> int:
    if not text.isdigit():
        raise Refused(f"{text} is not integer")
    return int(text)


def _range(text: str) -> list[int]:
    first, _, last = text.partition("-")
    start, end = _vid(first), _vid(last)
    if DEFAULT_VLAN in (start, end):
        raise Refused("Vlan1 is default vlan")
    if start >= end:
        raise Refused(f"{start} is greater than {end}. List cannot be generated")
    if not (in_range(start) and in_range(end)):
        raise Refused("Invalid VLAN ID must be in (2-4094)")
    return list(range(start, end + 1))


def in_range(vid: int) -> bool:
    return 1 <= vid <= MAX_VLAN


def parse_vids(text: str, multiple: bool = False) -> list[int]:
    """One VLAN id, or with ``-m`` comma lists and ranges (``multiple_vlan_parser``), sorted."""
    if not multiple:
        return [_vid(text)]
    found: set[int] = set()
    for part in text.replace(" ", "").split(","):
        found.update(_range(part) if "-" in part else [_vid(part)])
    return sorted(found)


def _checked_name(vid: int) -> str:
    if not in_range(vid):
        raise Refused(f"Invalid VLAN ID {vid} (2-4094)")
    if vid == DEFAULT_VLAN:
        raise Refused(f"Vlan{vid} is default VLAN")
    return f"Vlan{vid}"


def add_vlans(config: Config, vids: list[int]) -> Config:
    """``config vlan add [-m]``."""
    vlans = table(config, tbl.CFG_VLAN_TABLE_NAME)
    for vid in vids:
        name = _checked_name(vid)
        if name in vlans:
            raise Refused(f"{name} already exists.")
        if name in rows(config, DHCP_RELAY):
            raise Refused(f"DHCPv6 relay config for {name} already exists")
        vlans[name] = {"vlanid": str(vid)}
    return config


def _check_removable(config: Config, vid: int, name: str) -> None:
    if any(key == name or key.startswith(name + SEP) for key in rows(config, tbl.CFG_VLAN_INTF_TABLE_NAME)):
        raise Refused(f"{name} can not be removed. First remove IP addresses assigned to this VLAN")
    if any(vlan == name for vlan, _ in two_part_keys(config, tbl.CFG_VLAN_MEMBER_TABLE_NAME)):
        raise Refused(f"VLAN ID {vid} can not be removed. First remove all members assigned to this VLAN.")
    for key, row in rows(config, tbl.CFG_VXLAN_TUNNEL_MAP_TABLE_NAME).items():
        if row.get("vlan") == name:
            raise Refused(f"vlan: {vid} can not be removed. First remove vxlan mapping '{key}' assigned to VLAN")


def delete_vlans(config: Config, vids: list[int]) -> Config:
    """``config vlan del [-m]`` (its DHCPv6 relay row goes with it)."""
    vlans = rows(config, tbl.CFG_VLAN_TABLE_NAME)
    for vid in vids:
        if not in_range(vid):
            raise Refused(f"Invalid VLAN ID {vid} (2-4094)")
        name = f"Vlan{vid}"
        if name not in vlans:
            raise Refused(f"{name} does not exist")
        _check_removable(config, vid, name)
        del vlans[name]
        rows(config, DHCP_RELAY).pop(name, None)
    return config


def _existing_vlan(config: Config, vid: int) -> str:
    if vid == DEFAULT_VLAN:
        raise Refused(f"Vlan{vid} is default VLAN")
    if not in_range(vid):
        raise Refused(f"Invalid VLAN ID {vid} (2-4094)")
    name = f"Vlan{vid}"
    if name not in rows(config, tbl.CFG_VLAN_TABLE_NAME):
        raise Refused(f"{name} does not exist")
    return name


def _is_routed(config: Config, member: str, is_port: bool) -> bool:
    l3 = tbl.CFG_INTF_TABLE_NAME if is_port else tbl.CFG_LAG_INTF_TABLE_NAME
    return any(key == member or key.startswith(member + SEP) for key in rows(config, l3))


def _check_member(config: Config, vlan: str, port: str, untagged: bool) -> str:
    """SONiC's checks on a new member, in its order; returns the table the member is in."""
    if any(row.get("dst_port") == port for row in rows(config, MIRROR_SESSION).values()):
        raise Refused(f"{port} is configured as mirror destination port")
    if f"{vlan}{SEP}{port}" in rows(config, tbl.CFG_VLAN_MEMBER_TABLE_NAME):
        raise Refused(f"{port} is already a member of {vlan}")
    if port in rows(config, tbl.CFG_PORT_TABLE_NAME):
        owner = tbl.CFG_PORT_TABLE_NAME
    elif port in rows(config, tbl.CFG_LAG_TABLE_NAME):
        owner = tbl.CFG_LAG_TABLE_NAME
    else:
        raise Refused(f"{port} does not exist")
    is_port = owner == tbl.CFG_PORT_TABLE_NAME
    if _is_routed(config, port, is_port):
        raise Refused(f"{port} is a router interface!")
    if is_port and lag_of(config, port) is not None:
        raise Refused(f"{port} is part of portchannel!")
    members = rows(config, tbl.CFG_VLAN_MEMBER_TABLE_NAME)
    if untagged and any(key.endswith(SEP + port) and row.get("tagging_mode") == "untagged"
                        for key, row in members.items()):
        raise Refused(f"{port} is already untagged member!")
    return owner


def add_member(config: Config, vid: int, port: str, untagged: bool = False) -> Config:
    """``config vlan member add [-u]``."""
    vlan = _existing_vlan(config, vid)
    owner = _check_member(config, vlan, port, untagged)
    mode = rows(config, owner)[port].get("mode")
    if mode == "routed":
        raise Refused(f"{port} is in routed mode!\nUse switchport mode command to change port mode")
    if mode == "access" and not untagged:
        raise Refused(f"{port} is in access mode! Tagged Members cannot be added")
    table(config, tbl.CFG_VLAN_MEMBER_TABLE_NAME)[f"{vlan}{SEP}{port}"] = {
        "tagging_mode": "untagged" if untagged else "tagged"}
    return config


def delete_member(config: Config, vid: int, port: str) -> Config:
    """``config vlan member del``."""
    if not in_range(vid):
        raise Refused(f"Invalid VLAN ID {vid} (2-4094)")
    vlan = f"Vlan{vid}"
    if vlan not in rows(config, tbl.CFG_VLAN_TABLE_NAME):
        raise Refused(f"{vlan} does not exist")
    if rows(config, tbl.CFG_VLAN_MEMBER_TABLE_NAME).pop(f"{vlan}{SEP}{port}", None) is None:
        raise Refused(f"{port} is not a member of {vlan}")
    return config


__all__ = ["add_member", "add_vlans", "delete_member", "delete_vlans", "in_range", "parse_vids"]
