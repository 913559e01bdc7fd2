"""The listening sockets the supervisor binds for its children (REST, the Redis TCP guard), and how
their addresses and TLS files are recorded for ``nos status``."""

from __future__ import annotations

import socket
from pathlib import Path

from nos.api.tls import TlsFiles
from nos.runtime.redis_server import port_is_free


class BootError(RuntimeError):
    """Raised when the switch cannot boot; the message says what failed and where to look."""


def display_host(bind: str) -> str:
    """The address clients on this host use for a listener bound to ``bind``."""
    if bind in ("", "0.0.0.0", "::", "[::]"):
        return "127.0.0.1"
    return f"[{bind}]" if ":" in bind and not bind.startswith("[") else bind


def free_or_any(port: int | None, default: int, host: str) -> int:
    """The port to ask for: the one given, else ``default`` when free, else 0 (any)."""
    if port is not None:
        return port
    try:
        return default if port_is_free(default, host) else 0
    except OSError:  # not an IPv4 address: let the bind pick
        return 0


def listen_socket(port: int | None, default: int, what: str, host: str = "127.0.0.1") -> socket.socket:
    """A bound, listening TCP socket on ``host`` for a server child to inherit. Without a port given, the
    default is tried and any free port taken if another process got the default in the meantime."""
    chosen = free_or_any(port, default, host)
    try:
        family = socket.getaddrinfo(host.strip("[]"), chosen, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as exc:
        raise BootError(f"--bind {host}: not an address of this host ({exc.strerror})") from exc
    attempts = [chosen, 0] if port is None and chosen else [chosen]
    for attempt in attempts:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host.strip("[]"), attempt))
        except OSError as exc:
            sock.close()
            if attempt == attempts[-1]:
                raise BootError(f"{what} port {attempt} on {host} is not available ({exc.strerror}); "
                                "use 0 to pick a free one") from exc
            continue
        sock.listen(128)
        sock.set_inheritable(True)
        return sock
    raise AssertionError("unreachable: the last attempt raises")


def tls_record(tls: TlsFiles | None) -> dict[str, str] | None:
    """The TLS files as boot.json records them (paths only), for ``nos status``."""
    if tls is None:
        return None
    record = {"cert": str(tls.cert), "key": str(tls.key)}
    return record | ({"ca": str(tls.ca)} if tls.ca is not None else {})


def tls_from_record(record: object) -> TlsFiles | None:
    if not isinstance(record, dict) or "cert" not in record or "key" not in record:
        return None
    ca = record.get("ca")
    return TlsFiles(Path(record["cert"]), Path(record["key"]), Path(ca) if ca else None)
