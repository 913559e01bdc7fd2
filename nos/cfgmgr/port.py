"""Port manager: CONFIG_DB PORT -> APPL_DB PORT_TABLE (SONiC's portsyncd + portmgrd in one).

portsyncd's part (swss ``portsyncd/portsyncd.cpp``, ``linksync.cpp``):

* at start, copy every CONFIG_DB port into APPL_DB and write ``PORT_TABLE:PortConfigDone`` {count};
* remember those ports; each leaves the set when its netdev exists (STATE_DB ``PORT_TABLE|<port>``
  has ``state``, written here by the simulated ASIC). When the set is empty, write
  ``PORT_TABLE:PortInitDone`` {lanes: 0}, once per boot (not again if APPL_DB already has it, as
  portsyncd's ``checkPortInitDone``). Deviation: a port deleted from CONFIG_DB also leaves the set,
  where portsyncd would wait for it forever.

portmgrd's part (swss ``cfgmgr/portmgr.cpp``):

* every CONFIG_DB field is forwarded as it is (tpid, link_event_damping_*, pt_*, ...);
* the first time a port is seen (again after a delete) ``admin_status`` down and ``mtu`` 9100 are
  injected unless configured;
* a port whose netdev does not exist yet gets everything in one set on first sight (orchagent never
  sees a partial port) and the task is retried until the netdev exists; later changes to a port that
  is not ready are deferred;
* ``mtu`` and ``admin_status`` of a ready port go through the kernel (``ip link set``) before APPL_DB.
  The kernel refuses the MTU of a port enslaved to a team device, so portmgrd never writes the mtu of
  a PORTCHANNEL_MEMBER: the member keeps the LAG's mtu that teammgrd pushed. Here "enslaved" is
  "listed in CONFIG_DB PORTCHANNEL_MEMBER" (there is no kernel); admin_status still goes through.
* a deleted port is deleted from APPL_DB.

portsyncd also re-forwards later CONFIG_DB PORT changes verbatim; here that path is this module's
single forwarding path, so it follows portmgrd's rules (no second raw copy that would undo the LAG mtu).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from nos.daemon.consumer import TableConsumer
from nos.daemon.reporting import rejected_key
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ProducerStateTable, SubscriberStateTable, Table, TableKeys
from nos.db.configdb import NULL_FIELD
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    APP_PORT_TABLE_NAME,
    CFG_LAG_MEMBER_TABLE_NAME,
    CFG_PORT_TABLE_NAME,
    PORT_CONFIG_DONE_KEY,
    PORT_INIT_DONE_KEY,
    STATE_NOS_REJECTED_TABLE_NAME,
    STATE_PORT_TABLE_NAME,
)

log = logging.getLogger(__name__)

PRIORITY = 0  # first: PortConfigDone before the other managers start
CONSUMES = (
    (CONFIG_DB, CFG_PORT_TABLE_NAME),
    (STATE_DB, STATE_PORT_TABLE_NAME),
    (CONFIG_DB, CFG_LAG_MEMBER_TABLE_NAME),  # read only: is a port enslaved to a LAG
)
PRODUCES = ((APPL_DB, APP_PORT_TABLE_NAME),)

DEFAULT_ADMIN_STATUS = "down"  # portmgr.h DEFAULT_ADMIN_STATUS_STR
DEFAULT_MTU = "9100"           # portmgr.h DEFAULT_MTU_STR
MTU = "mtu"
ADMIN_STATUS = "admin_status"
STATE_FIELD = "state"          # STATE_DB PORT_TABLE: present once the netdev exists
INIT_DONE_FIELDS = {"lanes": "0"}  # what portsyncd writes with PortInitDone
CONFIG_SEPARATOR = "|"


def to_appl(fields: Mapping[str, str], first_sight: bool) -> dict[str, str]:
    """APPL_DB PORT_TABLE fields for a CONFIG_DB PORT row (pure): every field, plus portmgrd's
    defaults on first sight."""
    out = {f: v for f, v in fields.items() if f != NULL_FIELD}
    if first_sight:
        out.setdefault(ADMIN_STATUS, DEFAULT_ADMIN_STATUS)
        out.setdefault(MTU, DEFAULT_MTU)
    return out


def plan_set(
    fields: Mapping[str, str], *, first_sight: bool, ready: bool, lag_member: bool
) -> tuple[dict[str, str], bool]:
    """What portmgrd writes for a SET, and whether the task must be retried (pure).

    * not first sight and the netdev is not there: nothing now, retry (deferred);
    * first sight and not ready: every field with the defaults in one set, then retry so that
      mtu/admin_status go through the kernel once the netdev exists;
    * ready: every field; the mtu is withheld from a LAG member (the kernel refuses it).
    """
    if not first_sight and not ready:
        return {}, True
    out = to_appl(fields, first_sight)
    if not ready:
        return out, True
    if lag_member:
        out.pop(MTU, None)
    return out, False


def lag_members(member_keys: Iterable[str]) -> set[str]:
    """Ports named by CONFIG_DB PORTCHANNEL_MEMBER keys ``<lag>|<port>`` (pure)."""
    return {key.split(CONFIG_SEPARATOR, 1)[1] for key in member_keys if CONFIG_SEPARATOR in key}


class PortInitTracker:
    """portsyncd's ``g_portSet``: the boot ports still waiting for their netdev."""

    def __init__(self, boot_ports: set[str], already_done: bool) -> None:
        self.waiting = set(boot_ports)
        self.done = already_done

    def port_gone(self, port: str) -> bool:
        """A boot port is ready (or deleted). True when PortInitDone must be written now."""
        self.waiting.discard(port)
        return self.due()

    def due(self) -> bool:
        return not self.done and not self.waiting


class PortMgr:
    """Forwards port configuration; remembers what it wrote to skip identical re-sends."""

    def __init__(self, dbs: Databases) -> None:
        self.config_ports = Table(dbs[CONFIG_DB], CFG_PORT_TABLE_NAME)
        self.config_lag_members = TableKeys(dbs[CONFIG_DB], CFG_LAG_MEMBER_TABLE_NAME)
        self.appl_ports = Table(dbs[APPL_DB], APP_PORT_TABLE_NAME)
        self.appl = ProducerStateTable(dbs[APPL_DB], APP_PORT_TABLE_NAME)
        self.written: dict[str, dict[str, str]] = {}  # what APPL_DB got from us, per port
        self.seen: set[str] = set()  # portmgrd's m_portList
        self.ready: set[str] = set()  # ports whose netdev exists (STATE_DB PORT_TABLE state)
        self.init = PortInitTracker(set(), already_done=False)

    # -- portsyncd ------------------------------------------------------------------------------
    def boot(self) -> int:
        """portsyncd at start: copy every port, then announce PortConfigDone. Returns the count."""
        rows = self.config_ports.get_all()
        entries = [(name, to_appl(fields, first_sight=True)) for name, fields in sorted(rows.items())]
        if entries:
            self.appl.set_many(entries)
        self.written = {name: dict(fields) for name, fields in entries}
        self.appl.set(PORT_CONFIG_DONE_KEY, {"count": str(len(entries))})
        already = self.appl_ports.get(PORT_INIT_DONE_KEY) is not None
        self.init = PortInitTracker(set(rows), already_done=already)
        self._write_init_done_if_due()
        return len(entries)

    def _write_init_done_if_due(self) -> None:
        if self.init.due():
            self.appl.set(PORT_INIT_DONE_KEY, INIT_DONE_FIELDS)
            self.init.done = True
            log.info("cfgmgr.port.init_done")

    def handle_state(self, task: KeyOpFieldsValues) -> Result:
        """STATE_DB PORT_TABLE: a netdev appeared or went away."""
        if task.is_set and STATE_FIELD in task.fields:
            self.ready.add(task.key)
            if self.init.port_gone(task.key):
                self._write_init_done_if_due()
        else:
            self.ready.discard(task.key)
        return Result.success()

    def handle_rejected(self, task: KeyOpFieldsValues) -> Result:
        """STATE_DB NOS_REJECTED_TABLE: a boot port the ASIC refused will never get a netdev; it no
        longer holds back PortInitDone (portsyncd would wait forever; here the refusal is reported)."""
        prefix = rejected_key(APPL_DB, APP_PORT_TABLE_NAME, "")
        if task.is_set and task.key.startswith(prefix):
            if self.init.port_gone(task.key[len(prefix):]):
                self._write_init_done_if_due()
        return Result.success()

    # -- portmgrd -------------------------------------------------------------------------------
    def handle(self, task: KeyOpFieldsValues) -> Result:
        """CONFIG_DB PORT: forward a change (see the module docstring for the rules)."""
        return self.handle_batch([task])[0]

    def handle_batch(self, tasks: list[KeyOpFieldsValues]) -> list[Result]:
        """Several ports' changes (one task per port): the LAG membership is read once and every
        APPL_DB SET goes in one script, so a 128-port change costs two round trips, not 256."""
        members: set[str] | None = None
        writes: list[tuple[str, dict[str, str]]] = []
        results = []
        for task in tasks:
            if task.is_del:
                results.append(self._delete(task.key))
                continue
            first_sight = task.key not in self.seen
            ready = task.key in self.ready
            if ready and members is None:
                members = lag_members(self.config_lag_members.keys)
            lag_member = ready and members is not None and task.key in members
            fields, retry = plan_set(task.fields, first_sight=first_sight, ready=ready, lag_member=lag_member)
            self.seen.add(task.key)
            if lag_member:  # teammgrd owns the member's APPL_DB mtu now: forget what we wrote
                self.written.get(task.key, {}).pop(MTU, None)
            if self._news(task.key, fields):
                writes.append((task.key, fields))
            results.append(Result.retry(f"port {task.key} has no netdev yet (STATE_DB {STATE_PORT_TABLE_NAME})")
                           if retry else Result.success())
        if writes:
            self.appl.set_many(writes)
        return results

    def _delete(self, port: str) -> Result:
        self.written.pop(port, None)
        self.seen.discard(port)
        self.appl.delete(port)
        if self.init.port_gone(port):
            self._write_init_done_if_due()
        return Result.success()

    def _news(self, port: str, fields: dict[str, str]) -> bool:
        """Whether ``fields`` must be sent (APPL_DB did not get exactly these values from us); if so,
        they are recorded as sent."""
        before = self.written.get(port, {})
        if not fields or all(before.get(f) == v for f, v in fields.items()):
            return False
        self.written[port] = {**before, **fields}
        return True

    def register(self, dbs: Databases, runner: Runner) -> None:
        rejected = SubscriberStateTable(dbs[STATE_DB], STATE_NOS_REJECTED_TABLE_NAME)
        runner.add_consumer(TableConsumer(STATE_DB, STATE_NOS_REJECTED_TABLE_NAME, rejected, self.handle_rejected))
        state = SubscriberStateTable(dbs[STATE_DB], STATE_PORT_TABLE_NAME)
        runner.add_consumer(TableConsumer(STATE_DB, STATE_PORT_TABLE_NAME, state, self.handle_state))
        source = SubscriberStateTable(dbs[CONFIG_DB], CFG_PORT_TABLE_NAME)
        runner.add_consumer(TableConsumer(CONFIG_DB, CFG_PORT_TABLE_NAME, source, self.handle,
                                          batch_handler=self.handle_batch))


def register(dbs: Databases, runner: Runner) -> None:
    """Wire the port manager into cfgmgrd (boot copy first)."""
    mgr = PortMgr(dbs)
    mgr.boot()
    mgr.register(dbs, runner)
