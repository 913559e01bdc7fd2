"""The ICCP-lite session with the peer, as pure state: time comes in, messages go out.

* Roles (iccp_csm.h): the peer with the larger IP address is standby (it listens), the smaller is active
  (it connects). The standby adopts the active's system MAC while the session is up; alone (session
  down) each uses its own and acts as active.
* The session is up once both hellos are exchanged and consistent (same domain, each one's source_ip
  the other's peer_ip); it goes down when nothing came for ``session_timeout`` seconds, when the
  connection closes, or on a protocol error. A heartbeat goes out every ``keepalive`` seconds.
* What the peer said of its MCLAG interfaces, MACs and ARP/ND entries is kept while the session is up,
  and forgotten when it goes down (its MACs are no longer reachable through it).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from iccpd import protocol as p

UP, DOWN = "up", "down"
ACTIVE, STANDBY = "active", "standby"
MacKey = tuple[str, str]          # (Vlan<id>, MAC)
MacRow = tuple[str, str]          # (port, type)
ArpKey = tuple[str, str]          # (VLAN interface, IP)
ArpRow = tuple[str, str]          # (MAC, family)


@dataclass(frozen=True)
class Domain:
    """An MCLAG_DOMAIN row with its MCLAG_INTERFACE members (CLI defaults for unset timers)."""

    domain: str
    source_ip: str
    peer_ip: str
    peer_link: str = ""
    keepalive: int = 1
    session_timeout: int = 15
    interfaces: frozenset[str] = frozenset()


def role_of(source_ip: str, peer_ip: str) -> str:
    try:
        mine, theirs = int(ipaddress.ip_address(source_ip)), int(ipaddress.ip_address(peer_ip))
    except ValueError:
        return STANDBY if source_ip > peer_ip else ACTIVE
    return STANDBY if mine > theirs else ACTIVE


@dataclass
class Session:
    domain: Domain
    own_mac: str
    state: str = DOWN
    sent_hello: bool = False
    peer: dict[str, object] = field(default_factory=dict)       # the peer's hello
    last_heard: float = 0.0
    last_sent: float = 0.0
    remote_interfaces: dict[str, str] = field(default_factory=dict)
    remote_macs: dict[MacKey, MacRow] = field(default_factory=dict)
    remote_arps: dict[ArpKey, ArpRow] = field(default_factory=dict)
    ups: int = 0                                                 # times the session came up
    problem: str = ""

    @property
    def up(self) -> bool:
        return self.state == UP

    @property
    def role(self) -> str:
        return role_of(self.domain.source_ip, self.domain.peer_ip) if self.up else ACTIVE

    @property
    def system_mac(self) -> str:
        """The MAC this switch presents (LACP system id, L3 MAC): the active's while up."""
        peer_mac = str(self.peer.get("system_mac") or "")
        return peer_mac if self.up and self.role == STANDBY and peer_mac else self.own_mac

    @property
    def peer_mac(self) -> str:
        return str(self.peer.get("system_mac") or "") if self.up else ""

    def connected(self, now: float) -> list[p.Message]:
        """A connection to the peer is open: say hello."""
        self.sent_hello, self.peer, self.last_heard, self.last_sent = True, {}, now, now
        d = self.domain
        return [p.hello(d.domain, d.source_ip, d.peer_ip, self.own_mac, d.keepalive, d.session_timeout)]

    def received(self, msg: p.Message, now: float) -> bool:
        """Take one message; True when the session just came up. Raises ProtocolError (close it)."""
        self.last_heard = now
        if msg.kind == "refused":
            raise p.ProtocolError(f"the peer refused the session: {msg.body.get('reason')}")
        if msg.kind == "hello":
            return self._hello(msg.body)
        if not self.up:
            raise p.ProtocolError(f"{msg.kind} before hello")
        if msg.kind == "interfaces":
            states = msg.body.get("states")
            if not isinstance(states, dict):
                raise p.ProtocolError("interfaces without states")
            self.remote_interfaces = {str(k): UP if v == UP else DOWN for k, v in states.items()}
        elif msg.kind == "macs":
            self._entries(msg.body, self.remote_macs)
        elif msg.kind == "arps":
            self._entries(msg.body, self.remote_arps)
        return False

    def check_hello(self, body: dict[str, object]) -> str:
        """Why a hello is not this session's peer's ("" when it is)."""
        return self._inconsistent(body)

    def _hello(self, body: dict[str, object]) -> bool:
        why = self._inconsistent(body)
        if why:
            raise p.ProtocolError(why)
        self.peer = dict(body)
        if self.sent_hello and not self.up:
            self.state, self.problem = UP, ""
            self.ups += 1
            return True
        return False

    @staticmethod
    def _entries(body: dict[str, object], table: dict[tuple[str, str], tuple[str, str]]) -> None:
        """A ``macs`` or ``arps`` message into ``table`` ((a, b) -> (c, d) of its four-string entries)."""
        entries = p.mac_entries(body)
        if body.get("full"):
            table.clear()
        for a, b, c, d in entries:
            if body.get("op") == "del":
                table.pop((a, b), None)
            else:
                table[(a, b)] = (c, d)

    def _inconsistent(self, hello: dict[str, object]) -> str:
        d = self.domain
        if str(hello.get("domain")) != d.domain:
            return f"domain {hello.get('domain')} is not {d.domain}"
        if hello.get("source_ip") != d.peer_ip or hello.get("peer_ip") != d.source_ip:
            return (f"the peer is {hello.get('source_ip')} (peer_ip {hello.get('peer_ip')}), expected {d.peer_ip} "
                    f"(peer_ip {d.source_ip})")
        return ""

    def due(self, now: float) -> tuple[bool, bool]:
        """(a heartbeat is due, the session timed out)."""
        heartbeat = self.sent_hello and now - self.last_sent >= self.domain.keepalive
        timed_out = self.sent_hello and now - self.last_heard > self.domain.session_timeout
        return heartbeat, timed_out

    def sent(self, now: float) -> None:
        self.last_sent = now

    def lost(self, why: str) -> bool:
        """The connection is gone; True when the session was up."""
        was_up = self.up
        self.state, self.sent_hello, self.peer, self.problem = DOWN, False, {}, why
        self.remote_interfaces, self.remote_macs, self.remote_arps = {}, {}, {}
        return was_up
