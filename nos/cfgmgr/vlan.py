"""VLAN manager (SONiC's vlanmgrd): CONFIG_DB VLAN / VLAN_MEMBER -> APPL_DB VLAN_TABLE / VLAN_MEMBER_TABLE.

What vlanmgrd does (swss:cfgmgr/vlanmgr.cpp ``doVlanTask``/``doVlanMemberTask``), minus the kernel:

* ``VLAN|Vlan<id>`` -> ``VLAN_TABLE:Vlan<id>`` {``admin_status`` (configured, else ``up``), ``mtu``
  (configured, else 9100), ``mac`` (configured, else the system MAC of ``DEVICE_METADATA|localhost``),
  ``host_ifname`` (configured, else empty)}; no other field is forwarded (``vlanid``, ``dhcp_servers@``,
  ``description`` stay in CONFIG_DB). The VLAN's "netdev" is announced as STATE_DB
  ``VLAN_TABLE|Vlan<id>`` {state: ok}. A key that is not ``Vlan<1..4094>`` is refused (vlanmgrd logs
  and drops it). Without a system MAC the VLAN waits, as vlanmgrd does (``isVlanMacOk``).
* ``VLAN_MEMBER|Vlan<id>|<port>`` -> ``VLAN_MEMBER_TABLE:Vlan<id>:<port>`` {``tagging_mode``} once the
  VLAN is in STATE_DB and the member is ready (STATE_DB ``PORT_TABLE`` state ok, or ``LAG_TABLE`` for a
  PortChannel); STATE_DB ``VLAN_MEMBER_TABLE|Vlan<id>|<port>`` {state: ok}.
* Deletes remove the APPL_DB and STATE_DB rows; deleting a VLAN does not touch its members (orchagent
  defers the VLAN removal while it is referenced, as in SONiC).

Deviations: vlanmgrd forwards the member's CONFIG_DB fields verbatim (so a row without ``tagging_mode``
arrives without it); here the resolved mode (default ``untagged``) is always written. vlanmgrd ignores a
tagging-mode change of an existing member ("already set"); here the change is forwarded. The legacy
``members@`` list of a VLAN row is not expanded (config validation reports it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ProducerStateTable, SubscriberStateTable, Table
from nos.db.configdb import NULL_FIELD
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.config import ADMIN_STATUS, MAC, Int, Leaf
from nos.schema.config.device import DEVICE_METADATA_KEY
from nos.schema.config.vlan import TAGGING_MODE
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    APP_VLAN_MEMBER_TABLE_NAME,
    APP_VLAN_TABLE_NAME,
    CFG_DEVICE_METADATA_TABLE_NAME,
    CFG_VLAN_MEMBER_TABLE_NAME,
    CFG_VLAN_TABLE_NAME,
    STATE_LAG_TABLE_NAME,
    STATE_PORT_TABLE_NAME,
    STATE_VLAN_MEMBER_TABLE_NAME,
    STATE_VLAN_TABLE_NAME,
)

CONSUMES = ((CONFIG_DB, CFG_VLAN_TABLE_NAME), (CONFIG_DB, CFG_VLAN_MEMBER_TABLE_NAME))
PRODUCES = (
    (APPL_DB, APP_VLAN_TABLE_NAME), (APPL_DB, APP_VLAN_MEMBER_TABLE_NAME),
    (STATE_DB, STATE_VLAN_TABLE_NAME), (STATE_DB, STATE_VLAN_MEMBER_TABLE_NAME),
)

VLAN_PREFIX = "Vlan"          # vlanmgr.cpp VLAN_PREFIX
LAG_PREFIX = "PortChannel"    # vlanmgr.cpp LAG_PREFIX: such members are checked in STATE_DB LAG_TABLE
DEFAULT_ADMIN_STATUS = "up"   # vlanmgr.cpp: "fvVector should not be empty"
DEFAULT_MTU = "9100"          # vlanmgr.cpp DEFAULT_MTU_STR
DEFAULT_TAGGING_MODE = "untagged"
MAX_VLAN_ID = 4094
STATE_OK = {"state": "ok"}
KEY_SEP = "|"                 # CONFIG_DB / STATE_DB key separator
APPL_SEP = ":"                # APPL_DB key separator

_VLAN_KEY = re.compile(r"Vlan([1-9][0-9]{0,3})")
VLAN_FIELD_RULES: Mapping[str, Leaf] = {"admin_status": ADMIN_STATUS, "mtu": Int(1, 9216), "mac": MAC}


def field_problem(fields: Mapping[str, str], rules: Mapping[str, Leaf]) -> str | None:
    """The first field that breaks its rule, described; None when every ruled field is valid."""
    for name, leaf in rules.items():
        if name in fields:
            reason = leaf.check(fields[name])
            if reason is not None:
                return f"field '{name}' = '{fields[name]}': {reason}"
    return None


def parse_vlan_name(name: str) -> int:
    """The VLAN id of ``Vlan<id>``; raises ValueError unless the name is ``Vlan`` + an id in 1..4094."""
    found = _VLAN_KEY.fullmatch(name)
    if found is None or int(found.group(1)) > MAX_VLAN_ID:
        raise ValueError(f"'{name}' is not Vlan<id> with id in 1..{MAX_VLAN_ID}")
    return int(found.group(1))


def parse_member_key(key: str) -> tuple[str, str]:
    """``Vlan<id>|<member>`` -> (vlan name, member); raises ValueError on a malformed key."""
    vlan, sep, member = key.partition(KEY_SEP)
    parse_vlan_name(vlan)
    if not sep or not member or KEY_SEP in member:
        raise ValueError(f"'{key}' is not Vlan<id>|<port or portchannel>")
    return vlan, member


def vlan_to_appl(fields: Mapping[str, str], system_mac: str) -> dict[str, str]:
    """APPL_DB VLAN_TABLE fields for a CONFIG_DB VLAN row (pure; vlanmgrd's field list and defaults)."""
    return {
        "admin_status": fields.get("admin_status", DEFAULT_ADMIN_STATUS),
        "mtu": fields.get("mtu", DEFAULT_MTU),
        "mac": fields.get("mac", system_mac.lower()),
        "host_ifname": fields.get("host_ifname", ""),
    }


def member_to_appl(fields: Mapping[str, str]) -> dict[str, str]:
    """APPL_DB VLAN_MEMBER_TABLE fields; raises ValueError for a tagging mode SONiC does not know."""
    mode = fields.get("tagging_mode", DEFAULT_TAGGING_MODE)
    reason = TAGGING_MODE.check(mode)
    if reason is not None:
        raise ValueError(f"field 'tagging_mode' = '{mode}': {reason}")
    return {"tagging_mode": mode}


def appl_member_key(vlan: str, member: str) -> str:
    return f"{vlan}{APPL_SEP}{member}"


class VlanMgr:
    """Forwards VLANs and their members, announcing them in STATE_DB; remembers what it wrote."""

    def __init__(self, dbs: Databases) -> None:
        self.metadata = Table(dbs[CONFIG_DB], CFG_DEVICE_METADATA_TABLE_NAME)
        self.state_port = Table(dbs[STATE_DB], STATE_PORT_TABLE_NAME)
        self.state_lag = Table(dbs[STATE_DB], STATE_LAG_TABLE_NAME)
        self.state_vlan = Table(dbs[STATE_DB], STATE_VLAN_TABLE_NAME)
        self.state_member = Table(dbs[STATE_DB], STATE_VLAN_MEMBER_TABLE_NAME)
        self.appl_vlan = ProducerStateTable(dbs[APPL_DB], APP_VLAN_TABLE_NAME)
        self.appl_member = ProducerStateTable(dbs[APPL_DB], APP_VLAN_MEMBER_TABLE_NAME)
        self.vlans: dict[str, dict[str, str]] = {}
        self.members: dict[str, dict[str, str]] = {}

    # -- VLAN -----------------------------------------------------------------------------------
    def handle_vlan(self, task: KeyOpFieldsValues) -> Result:
        try:
            parse_vlan_name(task.key)
        except ValueError as exc:
            return Result.ignored(f"deleted {exc}") if task.is_del else Result.invalid(str(exc))
        if task.is_del:
            return self._delete_vlan(task.key)
        fields = {f: v for f, v in task.fields.items() if f != NULL_FIELD}
        problem = field_problem(fields, VLAN_FIELD_RULES)
        if problem is not None:
            return Result.invalid(problem)
        system_mac = self.metadata.hget(DEVICE_METADATA_KEY, "mac")
        if "mac" not in fields and not system_mac:
            return Result.retry("system MAC unknown (DEVICE_METADATA|localhost mac)")
        row = vlan_to_appl(fields, system_mac or "")
        if self.vlans.get(task.key) == row:
            return Result.ignored("unchanged")
        self.appl_vlan.set(task.key, row)
        self.state_vlan.set(task.key, STATE_OK)
        self.vlans[task.key] = row
        return Result.success()

    def _delete_vlan(self, vlan: str) -> Result:
        if self.vlans.pop(vlan, None) is None:
            return Result.ignored(f"{vlan} does not exist")
        self.appl_vlan.delete(vlan)
        self.state_vlan.delete(vlan)
        return Result.success()

    # -- VLAN_MEMBER ----------------------------------------------------------------------------
    def handle_member(self, task: KeyOpFieldsValues) -> Result:
        try:
            vlan, member = parse_member_key(task.key)
            row = {} if task.is_del else member_to_appl(task.fields)
        except ValueError as exc:
            return Result.ignored(f"deleted {exc}") if task.is_del else Result.invalid(str(exc))
        if task.is_del:
            return self._delete_member(task.key, vlan, member)
        if self.state_vlan.get(vlan) is None:
            return Result.retry(f"{vlan} does not exist yet")
        if not self.member_ready(member):
            return Result.retry(f"{member} is not ready")
        if self.members.get(task.key) == row:
            return Result.ignored("unchanged")
        self.appl_member.set(appl_member_key(vlan, member), row)
        self.state_member.set(task.key, STATE_OK)
        self.members[task.key] = row
        return Result.success()

    def _delete_member(self, key: str, vlan: str, member: str) -> Result:
        if self.members.pop(key, None) is None:
            return Result.ignored(f"{member} is not a member of {vlan}")
        self.appl_member.delete(appl_member_key(vlan, member))
        self.state_member.delete(key)
        return Result.success()

    def member_ready(self, member: str) -> bool:
        """vlanmgrd ``isMemberStateOk``: a PortChannel in STATE_DB LAG_TABLE, a port with state ok."""
        table = self.state_lag if member.startswith(LAG_PREFIX) else self.state_port
        return table.hget(member, "state") == "ok"

    def register(self, dbs: Databases, runner: Runner) -> None:
        for table, handler in ((CFG_VLAN_TABLE_NAME, self.handle_vlan),
                               (CFG_VLAN_MEMBER_TABLE_NAME, self.handle_member)):
            source = SubscriberStateTable(dbs[CONFIG_DB], table)
            runner.add_consumer(TableConsumer(CONFIG_DB, table, source, handler))


def register(dbs: Databases, runner: Runner) -> None:
    """Wire the VLAN manager into cfgmgrd."""
    VlanMgr(dbs).register(dbs, runner)
