"""ICCP-lite: what the two peers say to each other (a subset of RFC 7275's ICCP as SONiC's iccpd uses it),
one JSON object per line over TCP port 8888.

* ``hello`` {domain, source_ip, peer_ip, system_mac, keepalive, session_timeout}: first message each way;
  the session is up once both sides have sent it and each one's source_ip is the other's peer_ip and the
  domains match (iccpd's consistency check); a mismatch is a ``refused`` {reason} and a close.
* ``heartbeat`` {}: every keepalive interval; any message counts as a sign of life.
* ``interfaces`` {states: {PortChannel: up|down}}: the sender's MCLAG interfaces, whole each time.
* ``macs`` {op: add|del, entries: [[vlan, mac, port, type], ...]}: MACs the sender learnt (mac in upper
  case with colons, port the sender's interface, type dynamic|static); ``full`` true on the first batch
  after the session comes up (the receiver forgets what it had from the peer before).
* ``arps`` {op, entries: [[interface, ip, mac, family], ...], full}: the sender's ARP/ND entries on its
  VLAN interfaces, the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ICCP_TCP_PORT = 8888
MAX_LINE = 4 << 20            # a bigger line is a protocol error (a peer gone mad), not a memory exhaustion
KINDS = ("hello", "heartbeat", "interfaces", "macs", "arps", "refused")


class ProtocolError(ValueError):
    """A message that is not ICCP-lite."""


@dataclass(frozen=True)
class Message:
    kind: str
    body: dict[str, Any] = field(default_factory=dict)

    def encode(self) -> bytes:
        return (json.dumps({"kind": self.kind, **self.body}, separators=(",", ":")) + "\n").encode()


def decode(line: bytes) -> Message:
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"not JSON: {line[:80]!r}") from exc
    if not isinstance(doc, dict) or doc.get("kind") not in KINDS:
        raise ProtocolError(f"not an ICCP-lite message: {line[:80]!r}")
    kind = doc.pop("kind")
    return Message(kind, doc)


class LineBuffer:
    """Bytes in, complete lines out."""

    def __init__(self) -> None:
        self.data = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        self.data += chunk
        *lines, self.data = self.data.split(b"\n")
        if len(self.data) > MAX_LINE:
            raise ProtocolError(f"a line longer than {MAX_LINE} bytes")
        return [line for line in lines if line.strip()]


def hello(domain: str, source_ip: str, peer_ip: str, system_mac: str, keepalive: int, timeout: int) -> Message:
    return Message("hello", {"domain": domain, "source_ip": source_ip, "peer_ip": peer_ip, "system_mac": system_mac,
                             "keepalive": keepalive, "session_timeout": timeout})


def macs(op: str, entries: list[tuple[str, str, str, str]], full: bool = False) -> Message:
    return Message("macs", {"op": op, "entries": [list(e) for e in entries], "full": full})


def arps(op: str, entries: list[tuple[str, str, str, str]], full: bool = False) -> Message:
    return Message("arps", {"op": op, "entries": [list(e) for e in entries], "full": full})


def mac_entries(body: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """The ``entries`` of a ``macs`` or ``arps`` message (four strings each); raises ProtocolError."""
    entries = body.get("entries")
    if not isinstance(entries, list):
        raise ProtocolError("macs without entries")
    out = []
    for item in entries:
        if not (isinstance(item, list) and len(item) == 4 and all(isinstance(v, str) for v in item)):
            raise ProtocolError(f"bad entry {str(item)[:80]}")
        out.append((item[0], item[1], item[2], item[3]))
    return out
