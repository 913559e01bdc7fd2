"""The switch's Redis TCP endpoint: a password-gated forwarder to its unix socket.

Redis itself listens only on the unix socket (``<run dir>/redis.sock``, mode 700: its owner's
processes, no password), which is what the daemons, ``nos redis-cli``, SONiC's tools and the
conformance runner use. Redis cannot ask for a password on TCP alone (``requirepass`` and ACLs apply to
every connection, and this redis-server 6.2 has no TLS), so the TCP port (``redis_tcp`` in
``endpoints.json``, 127.0.0.1:6379 by default) is this forwarder: until a client authenticates it
answers every command ``-NOAUTH Authentication required.``; ``AUTH <password>``, ``AUTH default
<password>`` or ``HELLO 2|3 AUTH default <password> [SETNAME n]`` (the password in
``<run dir>/redis.pass``, mode 600) opens a connection to the unix socket, and from then on bytes are
spliced both ways untouched (pub/sub, pipelines, MONITOR, blocking commands all work). A wrong
password gets ``-WRONGPASS``. After the splice the forwarder no longer reads commands: a second AUTH
goes to Redis, which has no password and says so.

Runnable alone (docker-compose can place it): ``python -m nos.runtime.redis_guard --listen
127.0.0.1:6379 --unix /run/nos/redis.sock --password-file /run/nos/redis.pass``; the supervisor passes
a socket it bound instead (``--fd``), so the port stays the same across restarts of the forwarder.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import logging
import os
import secrets
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import hiredis

log = logging.getLogger(__name__)

PREAUTH_LIMIT = 64 * 1024   # bytes a client may send before it authenticates
PREAUTH_ARGS = 64           # arguments of one command before authentication (AUTH / HELLO need <= 7)
PREAUTH_TIMEOUT_S = 60.0    # an unauthenticated connection is closed after this long
OK = b"+OK\r\n"
NOAUTH = b"-NOAUTH Authentication required.\r\n"
NOAUTH_HELLO = (b"-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
                b"AUTH <user> <pass> option can be used to authenticate the client and select the RESP "
                b"protocol version at the same time\r\n")
WRONGPASS = b"-WRONGPASS invalid username-password pair or user is disabled.\r\n"
AUTH_ARITY = b"-ERR wrong number of arguments for 'auth' command\r\n"
UNREACHABLE = b"-ERR the switch's Redis is not answering on its unix socket (restarting?)\r\n"


class GuardProtocolError(ValueError):
    """Raised by ``parse_command`` for bytes that are not a Redis command (or too big before AUTH)."""


# -- the password file ------------------------------------------------------------------------------
def ensure_password_file(path: Path) -> bool:
    """Make sure ``path`` holds a password only its owner can read; returns True when a new one was
    made (none yet, empty, or readable by others: then it may be known, so it is replaced)."""
    try:
        info = path.stat()
        if info.st_uid == os.getuid() and not info.st_mode & 0o077 and path.read_text().strip():
            return False
    except FileNotFoundError:
        pass
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_urlsafe(24) + "\n")
    os.replace(tmp, path)
    return True


def read_password_file(path: Path) -> bytes:
    password = path.read_bytes().strip()
    if not password:
        raise ValueError(f"{path} is empty")
    return password


# -- pure: commands before authentication ----------------------------------------------------------
def _number(raw: bytes | bytearray, what: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise GuardProtocolError(f"invalid {what} {bytes(raw)[:20]!r}") from None


def _bulk(buf: bytes | bytearray, pos: int) -> tuple[bytes, int] | None:
    """The bulk string at ``pos`` and where the next starts, or None while it is incomplete."""
    if len(buf) <= pos:
        return None
    if buf[pos:pos + 1] != b"$":
        raise GuardProtocolError(f"expected '$', got {bytes(buf[pos:pos + 1])!r}")
    end = buf.find(b"\r\n", pos)
    if end < 0:
        return None
    size = _number(buf[pos + 1:end], "bulk length")
    if not 0 <= size <= PREAUTH_LIMIT:
        raise GuardProtocolError("invalid bulk length before authentication")
    start, stop = end + 2, end + 2 + size
    if len(buf) < stop + 2:
        return None
    if buf[stop:stop + 2] != b"\r\n":
        raise GuardProtocolError("bulk string not followed by CRLF")
    return bytes(buf[start:stop]), stop + 2


def parse_command(buf: bytes | bytearray) -> tuple[list[bytes], int] | None:
    """The first command in ``buf`` and the bytes it takes, or None while it is incomplete. Redis'
    two forms: a RESP array of bulk strings, or an inline line (split at spaces, no quoting)."""
    if not buf:
        return None
    if buf[:1] != b"*":
        end = buf.find(b"\n")
        return None if end < 0 else (bytes(buf[:end]).rstrip(b"\r").split(), end + 1)
    end = buf.find(b"\r\n")
    if end < 0:
        return None
    count = _number(buf[1:end], "multibulk length")
    if count > PREAUTH_ARGS:
        raise GuardProtocolError("too many arguments before authentication")
    pos, args = end + 2, []
    for _ in range(max(count, 0)):
        found = _bulk(buf, pos)
        if found is None:
            return None
        arg, pos = found
        args.append(arg)
    return args, pos


@dataclass(frozen=True)
class Verdict:
    """What to do with one command of a client that has not authenticated yet."""

    reply: bytes = b""           # to the client at once
    authenticated: bool = False  # then connect to Redis, send it ``forward``, and the client ``welcome``
    forward: bytes = b""
    welcome: bytes = b""
    close: bool = False


def _credentials_ok(user: bytes | None, given: bytes, password: bytes) -> bool:
    return (user is None or user == b"default") and hmac.compare_digest(given, password)


def decide(args: Sequence[bytes], password: bytes) -> Verdict:
    """The answer to one command before authentication (pure)."""
    if not args:
        return Verdict()
    name = args[0].lower()
    if name == b"auth":
        if len(args) not in (2, 3):
            return Verdict(reply=AUTH_ARITY)
        user, given = (None, args[1]) if len(args) == 2 else (args[1], args[2])
        ok = _credentials_ok(user, given, password)
        return Verdict(authenticated=True, welcome=OK) if ok else Verdict(reply=WRONGPASS)
    if name == b"hello":
        return _hello(list(args[1:]), password)
    if name == b"quit":
        return Verdict(reply=OK, close=True)
    return Verdict(reply=NOAUTH)


def _hello(options: list[bytes], password: bytes) -> Verdict:
    """``HELLO [protover [AUTH user pass] [SETNAME name]]``: authenticated by its AUTH option, then sent
    on to Redis without it (Redis has no password and would refuse the option)."""
    lowered = [option.lower() for option in options]
    if b"auth" not in lowered:
        return Verdict(reply=NOAUTH_HELLO)
    at = lowered.index(b"auth")
    if len(options) < at + 3:
        return Verdict(reply=b"-ERR Syntax error in HELLO option 'auth'\r\n")
    if not _credentials_ok(options[at + 1], options[at + 2], password):
        return Verdict(reply=WRONGPASS)
    rest = options[:at] + options[at + 3:]
    return Verdict(authenticated=True, forward=hiredis.pack_command(cast(Any, (b"HELLO", *rest))))


# -- the forwarder --------------------------------------------------------------------------------
class _Upstream(asyncio.Protocol):
    """The connection to Redis' unix socket of one authenticated client."""

    def __init__(self, client: _Client) -> None:
        self.client = client
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        assert self.client.transport is not None
        self.client.transport.write(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.client.transport is not None:
            self.client.transport.close()

    def pause_writing(self) -> None:  # Redis reads slower than the client sends
        if self.client.transport is not None:
            self.client.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.client.transport is not None:
            self.client.transport.resume_reading()


class _Client(asyncio.Protocol):
    """One TCP client: commands are judged until it authenticates, then bytes are spliced to Redis."""

    def __init__(self, unix_path: str, password: bytes) -> None:
        self.unix_path = unix_path
        self.password = password
        self.transport: asyncio.Transport | None = None
        self.upstream: _Upstream | None = None
        self.buffer = bytearray()
        self.connecting = False
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.timer = asyncio.get_running_loop().call_later(PREAUTH_TIMEOUT_S, self._close)

    def data_received(self, data: bytes) -> None:
        if self.upstream is not None and self.upstream.transport is not None:
            self.upstream.transport.write(data)
            return
        self.buffer += data
        if not self.connecting:
            self._judge()

    def _judge(self) -> None:
        while not self.connecting:
            try:
                parsed = parse_command(self.buffer)
            except GuardProtocolError as exc:
                self._refuse(f"-ERR Protocol error: {exc}\r\n".encode())
                return
            if parsed is None:
                if len(self.buffer) > PREAUTH_LIMIT:
                    self._refuse(b"-ERR Protocol error: too big before authentication\r\n")
                return
            args, used = parsed
            del self.buffer[:used]
            verdict = decide(args, self.password)
            self._write(verdict.reply)
            if verdict.close:
                self._close()
                return
            if verdict.authenticated:
                self.connecting = True
                asyncio.get_running_loop().create_task(self._splice(verdict))

    async def _splice(self, verdict: Verdict) -> None:
        loop = asyncio.get_running_loop()
        try:
            _, upstream = await loop.create_unix_connection(lambda: _Upstream(self), self.unix_path)
        except OSError as exc:
            log.warning("guard.unreachable unix=%s error=%s", self.unix_path, exc)
            self._refuse(UNREACHABLE)
            return
        if self.transport is None or self.transport.is_closing():
            upstream.transport.close()  # type: ignore[union-attr]
            return
        if self.timer is not None:
            self.timer.cancel()
        self.upstream = upstream
        self._write(verdict.welcome)
        pending, self.buffer = bytes(self.buffer), bytearray()
        assert upstream.transport is not None
        upstream.transport.write(verdict.forward + pending)

    def _write(self, data: bytes) -> None:
        if data and self.transport is not None:
            self.transport.write(data)

    def _refuse(self, reply: bytes) -> None:
        self._write(reply)
        self._close()

    def _close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.upstream is not None and self.upstream.transport is not None:
            self.upstream.transport.close()
        self.transport = None

    def pause_writing(self) -> None:  # the client reads slower than Redis answers
        if self.upstream is not None and self.upstream.transport is not None:
            self.upstream.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.upstream is not None and self.upstream.transport is not None:
            self.upstream.transport.resume_reading()


async def serve(sock: socket.socket, unix_path: str, password: bytes, stop: asyncio.Event | None = None) -> None:
    """Forward connections accepted on ``sock`` until ``stop`` is set (forever without one)."""
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Client(unix_path, password), sock=sock)
    log.info("guard.listening address=%s unix=%s", sock.getsockname(), unix_path)
    async with server:
        if stop is None:
            await server.serve_forever()
        else:
            await stop.wait()


def _listening_socket(args: argparse.Namespace) -> socket.socket:
    if args.fd is not None:
        return socket.socket(fileno=args.fd)
    host, _, port = args.listen.rpartition(":")
    sock = socket.create_server((host.strip("[]") or "127.0.0.1", int(port)), reuse_port=False)
    sock.setblocking(False)
    return sock


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nos.runtime.redis_guard", description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--listen", help="HOST:PORT to listen on (e.g. 127.0.0.1:6379)")
    where.add_argument("--fd", type=int, help="a listening socket inherited from the supervisor")
    parser.add_argument("--unix", required=True, help="Redis' unix socket to forward to")
    parser.add_argument("--password-file", required=True, type=Path, help="the password (first line)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    try:
        password = read_password_file(args.password_file)
        sock = _listening_socket(args)
    except (OSError, ValueError) as exc:
        print(f"redis_guard: {exc}", file=sys.stderr)
        return 2
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency where it builds
        runner = asyncio.run
    else:
        runner = uvloop.run
    try:
        runner(serve(sock, args.unix, password))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
