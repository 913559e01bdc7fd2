"""The TCP side of ICCP-lite: a listening socket and a connection, each a selectable for the daemon's
loop (``fileno``/``read_messages``/``has_work``). Reads never block; a send waits at most ``SEND_TIMEOUT_S``
(the peer is on the same host or one hop away: a peer that cannot take a heartbeat for that long is lost)."""

from __future__ import annotations

import logging
import socket

from iccpd import protocol as p

log = logging.getLogger(__name__)

SEND_TIMEOUT_S = 2.0
CONNECT_TIMEOUT_S = 0.5


class Listener:
    """Accepts the peer's connections on (address, port)."""

    def __init__(self, address: str, port: int) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((address, port))
        self.sock.listen(4)
        self.sock.setblocking(False)
        self.accepted: list[Connection] = []

    def fileno(self) -> int:
        return self.sock.fileno()

    def read_messages(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                log.warning("iccpd.accept_failed error=%s", exc)
                return
            self.accepted.append(Connection(conn))

    def has_work(self) -> bool:
        return bool(self.accepted)

    def close(self) -> None:
        self.sock.close()
        for conn in self.accepted:
            conn.close()


class Connection:
    """One ICCP-lite connection: messages in (``messages``), messages out (``send``)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        self.buffer = p.LineBuffer()
        self.lines: list[bytes] = []
        self.closed = ""          # why it closed ("" = open)

    def fileno(self) -> int:
        return self.sock.fileno() if not self.closed else -1

    def read_messages(self) -> None:
        while not self.closed:
            try:
                chunk = self.sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                self.close(f"receive failed: {exc}")
                return
            if not chunk:
                self.close("closed by the peer")
                return
            try:
                self.lines += self.buffer.feed(chunk)
            except p.ProtocolError as exc:
                self.close(str(exc))

    def has_work(self) -> bool:
        return bool(self.lines) or bool(self.closed)

    def messages(self) -> list[bytes]:
        lines, self.lines = self.lines, []
        return lines

    def send(self, messages: list[p.Message]) -> bool:
        if self.closed or not messages:
            return not self.closed
        try:
            self.sock.settimeout(SEND_TIMEOUT_S)      # sendall waits this long at most, then reads never block
            self.sock.sendall(b"".join(m.encode() for m in messages))
            self.sock.setblocking(False)
            return True
        except OSError as exc:
            self.close(f"send failed: {exc}")
            return False

    def close(self, why: str = "closed") -> None:
        if not self.closed:
            self.closed = why
            try:
                self.sock.close()
            except OSError:
                pass


def connect(address: str, port: int) -> Connection | None:
    """A connection to the peer, or None (not listening yet, unreachable)."""
    try:
        sock = socket.create_connection((address, port), timeout=CONNECT_TIMEOUT_S)
    except OSError:
        return None
    return Connection(sock)
