"""LAG manager: SONiC's teammgrd plus a simulated teamd/LACP and teamsyncd.

CONFIG_DB PORTCHANNEL / PORTCHANNEL_MEMBER and STATE_DB PORT_TABLE (link state) -> APPL_DB LAG_TABLE,
LAG_MEMBER_TABLE and the members' PORT_TABLE ``mtu``; STATE_DB LAG_TABLE announces the LAG "netdev" and
STATE_DB LAG_MEMBER_TABLE holds teamd's view of each member.

* ``PORTCHANNEL|PortChannel<N>`` starts the (simulated) team: APPL_DB ``LAG_TABLE:<lag>`` gets what
  teamsyncd reports from the netdev ({``admin_status``, ``oper_status``, ``mtu``}) plus what teammgrd
  writes itself (``tpid``, ``learn_mode`` when configured); STATE_DB ``LAG_TABLE|<lag>`` {admin_status,
  oper_status, mtu, state: ok} as teamsyncd writes it, plus teamd's runner settings as tlm_teamd exports
  them (``runner.active`` true, ``runner.fast_rate``, ``runner.fallback``). Defaults are teammgrd's:
  admin_status ``down`` (portmgr.h DEFAULT_ADMIN_STATUS_STR), mtu 9100. ``system_mac`` (``None`` = the
  system MAC) goes to APPL_DB and STATE_DB LAG_TABLE (teammgrd ``setLagSysmac``); ``min_links``,
  ``fallback``, ``fast_rate`` and ``lacp_key`` configure the team only. The LACP key of each member is
  teammgrd's ``generateLacpKey``: ``auto`` = ``1`` followed by the digits of the name (PortChannel001 ->
  1001), a number = itself, empty or absent = 0; it shows as ``runner.actor_lacpdu_info.key`` of the
  member in STATE_DB (teamd's state dump, ``teamdctl <lag> state dump``).
* ``PORTCHANNEL_MEMBER|<lag>|<port>`` waits until the LAG exists and the port is ready (STATE_DB
  ``PORT_TABLE|<port>`` state ok), then enslaves it: the member inherits the LAG mtu (APPL_DB
  ``PORT_TABLE:<port>`` {mtu}, teammgrd ``addLagMember``; its admin_status stays its own) and appears as
  ``LAG_MEMBER_TABLE:<lag>:<port>`` {status}, and in STATE_DB as ``LAG_MEMBER_TABLE|<lag>|<port>``
  {``runner.aggregator.selected``: true|false, ``runner.actor_lacpdu_info.key``}, fields of teamd's
  state dump that tlm_teamd writes there and ``show interfaces portchannel`` reads (teamshow lists
  only members STATE_DB has). A port already in another LAG is refused.
* LACP is simulated (the partner always answers): a member is ``enabled`` while its port is ready, its
  ``netdev_oper_status`` is up and the LAG is admin up, else ``disabled``; the LAG is oper up while at
  least ``min_links`` members (teamd ``min_ports``, default 1) are enabled and it is admin up. Changes of
  STATE_DB PORT_TABLE are followed; a port whose STATE_DB row disappears leaves the team (teamsyncd
  deletes the member row) and rejoins when it comes back (teammgrd ``doPortUpdateTask``).
* Deleting a member removes its LAG_MEMBER_TABLE rows and restores the port's own ``admin_status`` and
  ``mtu`` (CONFIG_DB PORT, defaults down/9100) in APPL_DB PORT_TABLE (teammgrd ``removeLagMember``).
  Deleting a LAG removes its member rows, LAG_TABLE and STATE_DB LAG_TABLE (teamsyncd ``removeLag``).
  At start STATE_DB LAG_TABLE and LAG_MEMBER_TABLE are cleared, as teammgrd's constructor does.

Deviations: teammgrd silently ignores a port already enslaved elsewhere; here it is INVALID naming both
LAGs. Restoring a removed member is skipped when the port is no longer in CONFIG_DB (writing
admin_status/mtu alone would create a partial APPL_DB port). The LAG name must match sonic-portchannel.yang
(``PortChannel`` + 1..4 digits); teammgrd does not check it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ProducerStateTable, SubscriberStateTable, Table
from nos.db.configdb import NULL_FIELD
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.config import ADMIN_STATUS, MAC, PORTCHANNEL_NAME, TPID, AnyOf, Bool, Choice, Int, Leaf
from nos.schema.config.device import DEVICE_METADATA_KEY
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    APP_LAG_MEMBER_TABLE_NAME,
    APP_LAG_TABLE_NAME,
    APP_PORT_TABLE_NAME,
    CFG_DEVICE_METADATA_TABLE_NAME,
    CFG_LAG_MEMBER_TABLE_NAME,
    CFG_LAG_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
    STATE_LAG_MEMBER_TABLE_NAME,
    STATE_LAG_TABLE_NAME,
    STATE_PORT_TABLE_NAME,
)

CONSUMES = (
    (CONFIG_DB, CFG_LAG_TABLE_NAME), (CONFIG_DB, CFG_LAG_MEMBER_TABLE_NAME), (STATE_DB, STATE_PORT_TABLE_NAME),
)
PRODUCES = (
    (APPL_DB, APP_LAG_TABLE_NAME), (APPL_DB, APP_LAG_MEMBER_TABLE_NAME), (APPL_DB, APP_PORT_TABLE_NAME),
    (STATE_DB, STATE_LAG_TABLE_NAME), (STATE_DB, STATE_LAG_MEMBER_TABLE_NAME),
)

DEFAULT_ADMIN_STATUS = "down"  # teammgr.cpp uses portmgr.h DEFAULT_ADMIN_STATUS_STR
DEFAULT_MTU = "9100"           # portmgr.h DEFAULT_MTU_STR
DEFAULT_MIN_LINKS = 1          # teamd's min_ports when teammgrd passes none (min_links 0 or absent)
ENABLED, DISABLED = "enabled", "disabled"
UP, DOWN = "up", "down"
KEY_SEP = "|"
APPL_SEP = ":"

LAG_FIELD_RULES: Mapping[str, Leaf] = {
    "admin_status": ADMIN_STATUS,
    "mtu": Int(1, 9216),
    "min_links": Int(0, 1024),
    "fallback": Bool(capitalised=True),
    "fast_rate": Bool(capitalised=True),
    "lacp_key": AnyOf(Choice("auto", ""), Int(0, 65535)),   # "" = key 0 (teammgrd, backward compatible)
    "tpid": TPID,
    "system_mac": AnyOf(Choice("None"), MAC),             # teammgrd: "None" = the system MAC
}


@dataclass(frozen=True)
class LagConfig:
    """A PORTCHANNEL row as teammgrd reads it."""

    name: str
    admin_status: str = DEFAULT_ADMIN_STATUS
    mtu: str = DEFAULT_MTU
    min_links: int = DEFAULT_MIN_LINKS
    tpid: str | None = None
    learn_mode: str | None = None
    system_mac: str | None = None
    fast_rate: bool = False
    fallback: bool = False
    lacp_key: int = 0


@dataclass(frozen=True)
class PortLink:
    """A port as STATE_DB shows it: netdev created (``state`` ok) and its carrier."""

    ready: bool = False
    oper_up: bool = False


def field_problem(fields: Mapping[str, str], rules: Mapping[str, Leaf]) -> str | None:
    """The first field that breaks its rule, described; None when every ruled field is valid."""
    for name, leaf in rules.items():
        if name in fields:
            reason = leaf.check(fields[name])
            if reason is not None:
                return f"field '{name}' = '{fields[name]}': {reason}"
    return None


def check_lag_name(name: str) -> None:
    """Raises ValueError unless ``name`` is a valid PortChannel name."""
    reason = PORTCHANNEL_NAME.check(name)
    if reason is not None:
        raise ValueError(f"'{name}' {reason}")


def parse_lag(name: str, fields: Mapping[str, str]) -> LagConfig:
    """A PORTCHANNEL row -> LagConfig (pure); raises ValueError naming the bad key or field."""
    check_lag_name(name)
    values = {f: v for f, v in fields.items() if f != NULL_FIELD}
    problem = field_problem(values, LAG_FIELD_RULES)
    if problem is not None:
        raise ValueError(problem)
    return LagConfig(
        name=name,
        admin_status=values.get("admin_status", DEFAULT_ADMIN_STATUS),
        mtu=values.get("mtu", DEFAULT_MTU),
        min_links=max(DEFAULT_MIN_LINKS, int(values.get("min_links", "0"))),
        tpid=values.get("tpid"),
        learn_mode=values.get("learn_mode"),
        system_mac=values.get("system_mac"),
        fast_rate=values.get("fast_rate", "false").lower() == "true",
        fallback=values.get("fallback", "false").lower() == "true",
        lacp_key=lacp_key(name, values.get("lacp_key", "")),
    )


def lacp_key(name: str, value: str) -> int:
    """teammgrd ``generateLacpKey``: ``auto`` -> "1" + the name's digits, a number -> itself, "" -> 0."""
    if value == "auto":
        digits = name[len("PortChannel"):]
        return int("1" + digits) & 0xFFFF       # uint16_t, as teammgrd casts it
    return int(value) if value else 0


def parse_member_key(key: str) -> tuple[str, str]:
    """``<lag>|<port>`` -> (lag, port); raises ValueError on a malformed key."""
    lag, sep, port = key.partition(KEY_SEP)
    if not sep or not port or KEY_SEP in port:
        raise ValueError(f"'{key}' is not <portchannel>|<port>")
    check_lag_name(lag)
    return lag, port


def link_of(row: Mapping[str, str] | None) -> PortLink:
    """A STATE_DB PORT_TABLE row -> PortLink (a missing row is a port without netdev)."""
    if not row or row.get("state") != "ok":
        return PortLink()
    return PortLink(ready=True, oper_up=row.get("netdev_oper_status") == UP)


def member_status(lag: LagConfig, link: PortLink) -> str:
    """Simulated LACP: collecting/distributing when the port carries and the LAG is admin up."""
    return ENABLED if lag.admin_status == UP and link.ready and link.oper_up else DISABLED


def lag_oper_status(lag: LagConfig, statuses: Iterable[str]) -> str:
    """The team carrier: up with at least ``min_links`` enabled members (teamd min_ports)."""
    enabled = sum(1 for status in statuses if status == ENABLED)
    return UP if lag.admin_status == UP and enabled >= lag.min_links else DOWN


def lag_to_appl(lag: LagConfig, oper_status: str, system_mac: str = "") -> dict[str, str]:
    """APPL_DB LAG_TABLE: teamsyncd's netdev view plus teammgrd's tpid/learn_mode/system_mac."""
    row = {"admin_status": lag.admin_status, "oper_status": oper_status, "mtu": lag.mtu}
    if lag.tpid is not None:
        row["tpid"] = lag.tpid
    if lag.learn_mode is not None:
        row["learn_mode"] = lag.learn_mode
    if lag.system_mac is not None:
        row["system_mac"] = resolved_system_mac(lag, system_mac)
    return row


def resolved_system_mac(lag: LagConfig, system_mac: str) -> str:
    """teammgrd ``setLagSysmac``: ``None`` stands for the switch's own MAC."""
    return system_mac if lag.system_mac == "None" else lag.system_mac or ""


def lag_to_state(lag: LagConfig, oper_status: str, system_mac: str = "") -> dict[str, str]:
    """STATE_DB LAG_TABLE: teamsyncd's row, teamd's runner settings (tlm_teamd) and teammgrd's system_mac."""
    row = {"admin_status": lag.admin_status, "oper_status": oper_status, "mtu": lag.mtu, "state": "ok",
           "runner.active": "true", "runner.fast_rate": bool_text(lag.fast_rate),
           "runner.fallback": bool_text(lag.fallback)}
    if lag.system_mac is not None:
        row["system_mac"] = resolved_system_mac(lag, system_mac)
    return row


def bool_text(value: bool) -> str:
    return "true" if value else "false"


def member_to_state(status: str, key: int = 0) -> dict[str, str]:
    """STATE_DB LAG_MEMBER_TABLE: teamd's aggregator selection (a member is selected while enabled) and
    the LACP key teammgrd gave the port."""
    return {"runner.aggregator.selected": bool_text(status == ENABLED), "runner.actor_lacpdu_info.key": str(key)}


def port_restore(port_fields: Mapping[str, str]) -> dict[str, str]:
    """What teammgrd re-applies to a port leaving its LAG: its own admin_status and mtu."""
    return {"admin_status": port_fields.get("admin_status", DEFAULT_ADMIN_STATUS),
            "mtu": port_fields.get("mtu", DEFAULT_MTU)}


def appl_member_key(lag: str, port: str) -> str:
    return f"{lag}{APPL_SEP}{port}"


def state_member_key(lag: str, port: str) -> str:
    return f"{lag}{KEY_SEP}{port}"


class LagMgr:
    """The team state of every LAG: configured LAGs, accepted members, what was written."""

    def __init__(self, dbs: Databases) -> None:
        self.config_port = Table(dbs[CONFIG_DB], CFG_PORT_TABLE_NAME)
        self.state_port = Table(dbs[STATE_DB], STATE_PORT_TABLE_NAME)
        self.state_lag = Table(dbs[STATE_DB], STATE_LAG_TABLE_NAME)
        self.state_member = Table(dbs[STATE_DB], STATE_LAG_MEMBER_TABLE_NAME)
        self.appl_lag = ProducerStateTable(dbs[APPL_DB], APP_LAG_TABLE_NAME)
        self.appl_member = ProducerStateTable(dbs[APPL_DB], APP_LAG_MEMBER_TABLE_NAME)
        self.appl_port = ProducerStateTable(dbs[APPL_DB], APP_PORT_TABLE_NAME)
        self.lags: dict[str, LagConfig] = {}
        self.owner: dict[str, str] = {}                # port -> LAG it was accepted into
        self.attached: dict[str, dict[str, str]] = {}  # lag -> port -> status written
        self.pushed_mtu: dict[str, str] = {}           # port -> LAG mtu written to its PORT_TABLE row
        self.written: dict[str, dict[str, str]] = {}   # lag -> LAG_TABLE row written
        self.written_state: dict[str, dict[str, str]] = {}  # lag -> STATE_DB LAG_TABLE row written
        self.metadata = Table(dbs[CONFIG_DB], CFG_DEVICE_METADATA_TABLE_NAME)

    # -- PORTCHANNEL ----------------------------------------------------------------------------
    def handle_lag(self, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            return self._delete_lag(task.key)
        try:
            lag = parse_lag(task.key, task.fields)
        except ValueError as exc:
            return Result.invalid(str(exc))
        self.lags[lag.name] = lag
        self._sync_lag(lag)
        return Result.success()

    def _delete_lag(self, name: str) -> Result:
        if self.lags.pop(name, None) is None:
            return Result.ignored(f"{name} does not exist")
        for port in self.attached.pop(name, {}):
            self._detach(name, port)
            self.pushed_mtu.pop(port, None)
        self.appl_lag.delete(name)
        self.state_lag.delete(name)
        self.written.pop(name, None)
        self.written_state.pop(name, None)
        return Result.success()

    # -- PORTCHANNEL_MEMBER ---------------------------------------------------------------------
    def handle_member(self, task: KeyOpFieldsValues) -> Result:
        try:
            name, port = parse_member_key(task.key)
        except ValueError as exc:
            return Result.ignored(f"deleted {exc}") if task.is_del else Result.invalid(str(exc))
        if task.is_del:
            return self._delete_member(name, port)
        other = self.owner.get(port)
        if other is not None and other != name:
            return Result.invalid(f"{port} is already a member of {other}; it cannot also join {name}")
        lag = self.lags.get(name)
        if lag is None:
            return Result.retry(f"{name} does not exist yet")
        if not self._link(port).ready:
            return Result.retry(f"port {port} is not ready")
        self.owner[port] = name
        self._sync_lag(lag)
        return Result.success()

    def _delete_member(self, name: str, port: str) -> Result:
        if self.owner.get(port) != name:
            return Result.ignored(f"{port} is not a member of {name}")
        del self.owner[port]
        if self.attached.get(name, {}).pop(port, None) is not None:
            self._detach(name, port)
        self.pushed_mtu.pop(port, None)
        own = self.config_port.get(port)
        if own is not None:
            self.appl_port.set(port, port_restore(own))
        lag = self.lags.get(name)
        if lag is not None:
            self._write_lag(lag)
        return Result.success()

    # -- STATE_DB PORT_TABLE (link changes) -----------------------------------------------------
    def handle_port_state(self, task: KeyOpFieldsValues) -> Result:
        lag = self.lags.get(self.owner.get(task.key, ""))
        if lag is None:
            return Result.ignored("not a LAG member")
        self._sync_lag(lag)
        return Result.success()

    # -- the simulated team ---------------------------------------------------------------------
    def _link(self, port: str) -> PortLink:
        return link_of(self.state_port.get(port))

    def _sync_lag(self, lag: LagConfig) -> None:
        """Bring every accepted member of ``lag`` and the LAG row itself up to date."""
        for port in [p for p, owner in self.owner.items() if owner == lag.name]:
            self._sync_member(lag, port)
        self._write_lag(lag)

    def _sync_member(self, lag: LagConfig, port: str) -> None:
        attached = self.attached.setdefault(lag.name, {})
        link = self._link(port)
        if not link.ready:
            if attached.pop(port, None) is not None:
                self._detach(lag.name, port)
            self.pushed_mtu.pop(port, None)
            return
        if self.pushed_mtu.get(port) != lag.mtu:
            self.appl_port.set(port, {"mtu": lag.mtu})
            self.pushed_mtu[port] = lag.mtu
        status = member_status(lag, link)
        if attached.get(port) != status:
            self.appl_member.set(appl_member_key(lag.name, port), {"status": status})
            self.state_member.set(state_member_key(lag.name, port), member_to_state(status, lag.lacp_key))
            attached[port] = status

    def _detach(self, lag: str, port: str) -> None:
        """teamsyncd's and tlm_teamd's removal of a member that left the team."""
        self.appl_member.delete(appl_member_key(lag, port))
        self.state_member.delete(state_member_key(lag, port))

    def _write_lag(self, lag: LagConfig) -> None:
        oper = lag_oper_status(lag, self.attached.get(lag.name, {}).values())
        system_mac = (self.metadata.hget(DEVICE_METADATA_KEY, "mac") or "") if lag.system_mac == "None" else ""
        row = lag_to_appl(lag, oper, system_mac)
        state = lag_to_state(lag, oper, system_mac)
        if self.written.get(lag.name) == row and self.written_state.get(lag.name) == state:
            return
        self.appl_lag.set(lag.name, row)
        self.state_lag.set(lag.name, state)
        self.written_state[lag.name] = state
        self.written[lag.name] = row

    def boot(self) -> None:
        """teammgrd at start: forget LAG netdevs and members a previous run announced (they are re-created)."""
        for table in (self.state_lag, self.state_member):
            table.delete_many(table.keys())

    def register(self, dbs: Databases, runner: Runner) -> None:
        feeds = ((CONFIG_DB, CFG_LAG_TABLE_NAME, self.handle_lag),
                 (CONFIG_DB, CFG_LAG_MEMBER_TABLE_NAME, self.handle_member),
                 (STATE_DB, STATE_PORT_TABLE_NAME, self.handle_port_state))
        for db, table, handler in feeds:
            runner.add_consumer(TableConsumer(db, table, SubscriberStateTable(dbs[db], table), handler))


def register(dbs: Databases, runner: Runner) -> None:
    """Wire the LAG manager (teammgrd + simulated teamd/teamsyncd) into cfgmgrd."""
    mgr = LagMgr(dbs)
    mgr.boot()
    mgr.register(dbs, runner)
