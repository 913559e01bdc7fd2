"""The iccpd daemon: the tables it follows, the connection to the peer, and the rows it writes.

Each turn of the loop (a 0.1 s timer, and after every batch of table changes): the domain is taken from
CONFIG_DB (a changed source or peer address starts a new session); the standby listens on its address,
the active connects to the peer's every second until it answers; heartbeats go out and timeouts are
checked; what changed locally (MCLAG interface states, learnt MACs) is told to the peer; and the rows
``sync`` wants are written where they differ from what was written before (rows already in the
databases when the daemon starts count as written, so a restarted iccpd reconciles instead of
duplicating).

A connection the standby accepts is vetted before it counts: it must say a hello that matches the domain
within ``VET_S``; until then (and if it never does) the session in place is left alone, so a stray or
hostile client on port 8888 cannot end it.

A MAC learnt here that ``sync`` moves to the peer link leaves STATE_DB FDB_TABLE (FdbOrch lists peer MACs
elsewhere); it is kept here as local while it is moved, so that the move does not read as the host
leaving.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from iccpd import protocol as p
from iccpd.link import Connection, Listener, connect
from iccpd.session import ACTIVE, DOWN, UP, ArpKey, ArpRow, Domain, MacKey, MacRow, Session, role_of
from iccpd.sync import RowKey, Rows, Seen, appl_rows, changes, peer_fdb, state_rows
from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ProducerStateTable, SubscriberStateTable, Table
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB

log = logging.getLogger(__name__)

TICK_S = 0.1
RECONNECT_S = 1.0
VET_S = 5.0            # an accepted connection has this long to say a matching hello
MAX_PENDING = 8
FOLLOWED = ((CONFIG_DB, "MCLAG_DOMAIN"), (CONFIG_DB, "MCLAG_INTERFACE"), (CONFIG_DB, "MCLAG_UNIQUE_IP"),
            (CONFIG_DB, "DEVICE_METADATA"), (CONFIG_DB, "VLAN_INTERFACE"), (CONFIG_DB, "NEIGH"),
            (STATE_DB, "FDB_TABLE"), (STATE_DB, "LAG_TABLE"), (STATE_DB, "PORT_TABLE"))
APPL_TABLES = ("MCLAG_FDB_TABLE", "ISOLATION_GROUP_TABLE", "LAG_TABLE", "PORT_TABLE", "INTF_TABLE", "NEIGH_TABLE")
OWNED_APPL = ("MCLAG_FDB_TABLE", "ISOLATION_GROUP_TABLE", "NEIGH_TABLE")   # whole rows; the others get fields only
STATE_TABLES = ("MCLAG_TABLE", "MCLAG_LOCAL_INTF_TABLE", "MCLAG_REMOTE_INTF_TABLE")
RESTORE = {"LAG_TABLE": {"learn_mode": "hardware"}, "PORT_TABLE": {"learn_mode": "hardware"}}
# for the README's table of who writes and reads what (tests/unit/test_readme_tables.py)
CONSUMES = FOLLOWED
PRODUCES = tuple((APPL_DB, t) for t in APPL_TABLES) + tuple((STATE_DB, t) for t in STATE_TABLES)


def domain_from(config: dict[str, dict[str, dict[str, str]]]) -> Domain | None:
    domains = config.get("MCLAG_DOMAIN", {})
    if not domains:
        return None
    key = min(domains)
    row = domains[key]
    if not row.get("source_ip") or not row.get("peer_ip"):
        return None
    members = frozenset(k.partition("|")[2] for k in config.get("MCLAG_INTERFACE", {}) if k.partition("|")[0] == key)

    def seconds(name: str, default: int) -> int:
        value = row.get(name, "")
        return int(value) if value.isdigit() and int(value) > 0 else default
    return Domain(key, row["source_ip"], row["peer_ip"], row.get("peer_link", ""), seconds("keepalive_interval", 1),
                  seconds("session_timeout", 15), members)


@dataclass
class Mirror:
    """The rows of the followed tables, by (db, table)."""

    tables: dict[tuple[str, str], dict[str, dict[str, str]]] = field(default_factory=dict)

    def rows(self, db: str, table: str) -> dict[str, dict[str, str]]:
        return self.tables.setdefault((db, table), {})


class Iccpd:
    def __init__(self, dbs: Databases, hosts: dict[str, str] | None = None, port: int = p.ICCP_TCP_PORT) -> None:
        self.dbs, self.hosts, self.port = dbs, hosts or {}, port
        self.mirror = Mirror()
        self.session: Session | None = None
        self.listener: Listener | None = None
        self.conn: Connection | None = None
        self.pending: list[tuple[Connection, float]] = []   # accepted, not yet vetted (see the docstring)
        self.runner: Runner | None = None
        self.consumers: list[TableConsumer] = []
        self.next_connect = 0.0
        self.held_local: dict[MacKey, MacRow] = {}     # local MACs moved to the peer link (see the docstring)
        self.announced_macs: dict[MacKey, MacRow] = {}
        self.announced_arps: dict[ArpKey, ArpRow] = {}
        self.synced = False                              # the full MAC and ARP lists went out since the session came up
        self.announced_intfs: dict[str, str] | None = None
        self.producers = {t: ProducerStateTable(dbs[APPL_DB], t) for t in APPL_TABLES}
        self.state = {t: Table(dbs[STATE_DB], t) for t in STATE_TABLES}
        self.written_appl: Rows = self._existing(APPL_DB, ("MCLAG_FDB_TABLE", "ISOLATION_GROUP_TABLE"))
        self.written_appl |= self._peer_neighbours()
        self.written_state: Rows = self._existing(STATE_DB, STATE_TABLES)
        self.dirty = True

    def _existing(self, db: str, tables: tuple[str, ...]) -> Rows:
        return {(t, k): v for t in tables for k, v in Table(self.dbs[db], t).get_all().items()}

    def _peer_neighbours(self) -> Rows:
        """APPL_DB NEIGH_TABLE rows on VLAN interfaces that no CONFIG_DB NEIGH row explains: the peer's,
        written by an iccpd before this one (so that a restart takes them over)."""
        own = {k.replace("|", ":", 1) for k in Table(self.dbs[CONFIG_DB], "NEIGH").get_all()}
        rows = Table(self.dbs[APPL_DB], "NEIGH_TABLE").get_all()
        return {("NEIGH_TABLE", k): v for k, v in rows.items() if k.startswith("Vlan") and k not in own}

    # -- wiring ----------------------------------------------------------------------------------
    def register(self, runner: Runner) -> None:
        self.runner = runner
        for db, table in FOLLOWED:
            source = SubscriberStateTable(self.dbs[db], table)
            self.consumers.append(runner.add_consumer(TableConsumer(db, table, source, self._handler(db, table))))
        runner.add_timer("iccp", TICK_S, self.tick)
        runner.after_each_step(self._after_step)

    def _handler(self, db: str, table: str):  # type: ignore[no-untyped-def]
        def handle(task: KeyOpFieldsValues) -> Result:
            rows = self.mirror.rows(db, table)
            if task.is_del:
                rows.pop(task.key, None)
            else:
                rows[task.key] = dict(task.fvs)
            self.dirty = True
            return Result.success()
        return handle

    def _after_step(self) -> None:
        """React at once to a change, but to a burst (10,000 MACs learnt) once its backlog is read: each
        tick looks at everything; the 0.1 s timer still ticks during a long burst."""
        if self.dirty and not any(c.has_work() for c in self.consumers):
            self.tick()

    # -- the loop --------------------------------------------------------------------------------
    def config(self) -> dict[str, dict[str, dict[str, str]]]:
        return {t: self.mirror.rows(db, t) for db, t in FOLLOWED if db == CONFIG_DB}

    def own_mac(self) -> str:
        return self.mirror.rows(CONFIG_DB, "DEVICE_METADATA").get("localhost", {}).get("mac", "").upper()

    def tick(self) -> None:
        """Connection, messages in, and - only when something changed (a table, a message, the session) -
        one look at what this switch sees: news to the peer, rows written. A quiet tick (the timer's,
        with 10,000 MACs known) costs a heartbeat check, not a pass over the view."""
        now = time.monotonic()
        self._follow_domain()
        if self.session is not None:
            self._connection(now)
            self._receive(now)
        seen = self.seen() if self.dirty else None
        if self.session is not None:
            self._send(now, seen)
        if seen is not None:
            self._write(seen)
        self.dirty = False

    def _follow_domain(self) -> None:
        domain = domain_from(self.config())
        s = self.session
        if s is not None and domain is not None and (s.domain.source_ip, s.domain.peer_ip, s.domain.domain) == (
                domain.source_ip, domain.peer_ip, domain.domain):
            s.domain, s.own_mac = domain, self.own_mac() or s.own_mac
            return
        if s is None and domain is None:
            return
        self._drop_connection("the MCLAG domain changed")
        if self.listener is not None:
            self.listener.close()
            if self.runner is not None:
                self.runner.remove_selectable(self.listener)
            self.listener = None
        self.session = Session(domain, self.own_mac()) if domain is not None else None
        self.announced_macs, self.announced_arps, self.announced_intfs, self.synced = {}, {}, None, False
        if domain is not None:
            log.info("iccpd.domain id=%s source=%s peer=%s role=%s peer_link=%s", domain.domain, domain.source_ip,
                     domain.peer_ip, role_of(domain.source_ip, domain.peer_ip), domain.peer_link or "-")

    def address(self, ip: str) -> str:
        return self.hosts.get(ip, ip)

    def _connection(self, now: float) -> None:
        s = self.session
        assert s is not None
        standby = role_of(s.domain.source_ip, s.domain.peer_ip) != ACTIVE
        if standby and self.listener is None:
            try:
                self.listener = Listener(self.address(s.domain.source_ip), self.port)
            except OSError as exc:
                s.problem = f"cannot listen on {self.address(s.domain.source_ip)}:{self.port}: {exc}"
                return
            if self.runner is not None:
                self.runner.add_selectable(self.listener, self.dirty_now, "iccp listener")
        if self.listener is not None:
            self._vet(now)
        if not standby and self.conn is None and now >= self.next_connect:
            self.next_connect = now + RECONNECT_S
            conn = connect(self.address(s.domain.peer_ip), self.port)
            if conn is not None:
                self._adopt(conn, now)

    def _vet(self, now: float) -> None:
        """Accepted connections become the session's once their first message is a matching hello."""
        assert self.listener is not None and self.session is not None
        for conn in self.listener.accepted:
            if len(self.pending) >= MAX_PENDING:
                conn.close("too many connections waiting for a hello")
                continue
            self.pending.append((conn, now + VET_S))
            if self.runner is not None:
                self.runner.add_selectable(conn, self.dirty_now, "iccp connection (vetting)")
        self.listener.accepted = []
        keep = []
        for conn, deadline in self.pending:
            verdict = self._verdict(conn, now, deadline)
            if verdict == "wait":
                keep.append((conn, deadline))
                continue
            if self.runner is not None:
                self.runner.remove_selectable(conn)
            if verdict == "ok":
                self._drop_connection("the peer connected again")
                self._adopt(conn, now)
            else:
                log.warning("iccpd.connection_refused reason=%s", verdict)
                conn.send([p.Message("refused", {"reason": verdict})])
                conn.close(verdict)
        self.pending = keep

    def _verdict(self, conn: Connection, now: float, deadline: float) -> str:
        """"ok", "wait", or why the connection is refused."""
        assert self.session is not None
        if conn.lines:
            try:
                msg = p.decode(conn.lines[0])
            except p.ProtocolError as exc:
                return str(exc)
            if msg.kind != "hello":
                return f"{msg.kind} before hello"
            return self.session.check_hello(msg.body) or "ok"
        if conn.closed:
            return conn.closed
        return "wait" if now < deadline else f"no hello within {VET_S:g} s"

    def dirty_now(self) -> None:
        self.dirty = True

    def _adopt(self, conn: Connection, now: float) -> None:
        assert self.session is not None
        self.conn = conn
        if self.runner is not None:
            self.runner.add_selectable(conn, self.dirty_now, "iccp connection")
        conn.send(self.session.connected(now))
        self.session.sent(now)
        self.dirty = True

    def _drop_connection(self, why: str) -> None:
        if self.conn is not None:
            self.conn.close(why)
            if self.runner is not None:
                self.runner.remove_selectable(self.conn)
            self.conn = None
        self.dirty = True
        if self.session is not None and self.session.lost(why):
            log.warning("iccpd.session_down domain=%s reason=%s", self.session.domain.domain, why)
        self.announced_macs, self.announced_arps, self.announced_intfs, self.synced = {}, {}, None, False

    def _receive(self, now: float) -> None:
        s, conn = self.session, self.conn
        assert s is not None
        if conn is None:
            return
        lines = conn.messages()
        self.dirty = self.dirty or bool(lines)
        for line in lines:
            try:
                if s.received(p.decode(line), now):
                    log.info("iccpd.session_up domain=%s role=%s peer_mac=%s", s.domain.domain, s.role, s.peer_mac)
            except p.ProtocolError as exc:
                conn.send([p.Message("refused", {"reason": str(exc)})])
                self._drop_connection(str(exc))
                return
        if conn.closed:
            self._drop_connection(conn.closed)
            return
        if s.due(now)[1]:
            self._drop_connection(f"nothing heard for {s.domain.session_timeout} s")

    def _send(self, now: float, seen: Seen | None) -> None:
        """News (when ``seen`` was looked at), else a heartbeat when one is due."""
        s, conn = self.session, self.conn
        assert s is not None
        if conn is None:
            return
        out = self._news(seen) if s.up and seen is not None else []
        if s.due(now)[0] and not out:
            out = [p.Message("heartbeat")]
        if out and conn.send(out):
            s.sent(now)

    def seen(self) -> Seen:
        oper = {k: r.get("oper_status") or r.get("netdev_oper_status") or DOWN
                for k, r in self.mirror.rows(STATE_DB, "PORT_TABLE").items()}
        lags = self.mirror.rows(STATE_DB, "LAG_TABLE")
        oper.update({k: r.get("oper_status", DOWN) for k, r in lags.items()})
        local = {}
        for key, row in self.mirror.rows(STATE_DB, "FDB_TABLE").items():
            vlan, _, mac = key.partition(":")
            if mac and row.get("port"):
                local[(vlan, mac.upper())] = (row["port"], row.get("type", "dynamic"))
        local.update(self.held_local)
        vlan_ifs = frozenset(k for k in self.mirror.rows(CONFIG_DB, "VLAN_INTERFACE") if "|" not in k)
        unique = frozenset(self.mirror.rows(CONFIG_DB, "MCLAG_UNIQUE_IP"))
        arps = {}
        for key, row in self.mirror.rows(CONFIG_DB, "NEIGH").items():
            intf, _, ip = key.partition("|")
            if intf.startswith("Vlan") and ip and row.get("neigh"):
                arps[(intf, ip)] = (row["neigh"].lower(), row.get("family", "IPv6" if ":" in ip else "IPv4"))
        return Seen(oper, frozenset(lags), vlan_ifs, unique, local, arps)

    def _news(self, seen: Seen) -> list[p.Message]:
        """What changed here since it was last told to the peer."""
        s = self.session
        assert s is not None
        out = []
        intfs = {name: UP if seen.oper.get(name) == UP else DOWN for name in sorted(s.domain.interfaces)}
        if intfs != self.announced_intfs:
            out.append(p.Message("interfaces", {"states": intfs}))
            self.announced_intfs = intfs
        mine = {k: v for k, v in seen.local_macs.items() if v[0] != s.domain.peer_link}
        full, self.synced = not self.synced, True
        added = [(v, m, *row) for (v, m), row in mine.items() if self.announced_macs.get((v, m)) != row]
        gone = [(v, m, *row) for (v, m), row in self.announced_macs.items() if (v, m) not in mine]
        if added or full:
            out.append(p.macs("add", added, full=full))
        if gone:
            out.append(p.macs("del", gone))
        self.announced_macs = mine
        out += self._arp_news(seen, full)
        return out

    def _arp_news(self, seen: Seen, full: bool) -> list[p.Message]:
        out = []
        added = [(i, a, *row) for (i, a), row in seen.local_arps.items() if self.announced_arps.get((i, a)) != row]
        gone = [(i, a, *row) for (i, a), row in self.announced_arps.items() if (i, a) not in seen.local_arps]
        if added or full:
            out.append(p.arps("add", added, full=full))
        if gone:
            out.append(p.arps("del", gone))
        self.announced_arps = dict(seen.local_arps)
        return out

    # -- writing ---------------------------------------------------------------------------------
    def _write(self, seen: Seen) -> None:
        s = self.session
        if s is not None:
            moved = {(k.partition(":")[0], k.partition(":")[2]) for k in peer_fdb(s, seen)}
            self.held_local = {k: v for k, v in seen.local_macs.items() if k in moved and
                               v[0] in s.domain.interfaces and seen.oper.get(v[0]) != UP}
            appl, state = appl_rows(s, seen), state_rows(s, seen)
        else:
            self.held_local, appl, state = {}, {}, {}
        self._apply_appl(appl, seen)
        self._apply_state(state)

    def _apply_appl(self, rows: Rows, seen: Seen) -> None:
        sets, gone = changes(self.written_appl, rows)
        for (table, key), row in sets.items():
            self.producers[table].set(key, row)
        for table, key in gone:
            if table in OWNED_APPL:
                self.producers[table].delete(key)
            elif table in RESTORE and (key in seen.lags or key.startswith("Ethernet")):
                self.producers[table].set(key, RESTORE[table])
            elif table == "INTF_TABLE" and key in seen.vlan_interfaces and self.own_mac():
                self.producers[table].set(key, {"mac_addr": self.own_mac().lower()})
        self.written_appl = dict(rows)

    def _apply_state(self, rows: Rows) -> None:
        sets, gone = changes(self.written_state, rows)
        for (table, key), row in sets.items():
            self.state[table].set(key, row)
        for table, key in gone:
            self.state[table].delete(key)
        self.written_state = dict(rows)

    def close(self) -> None:
        self._drop_connection("iccpd stopping")
        for conn, _ in self.pending:
            conn.close("iccpd stopping")
        if self.listener is not None:
            self.listener.close()


__all__ = ["Iccpd", "RowKey", "domain_from"]
