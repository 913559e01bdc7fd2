"""``python -m nos.api.rest --redis URL [--host H] [--port N | --fd N] [--published-on H] [--run-dir
DIR] [--config-dir DIR] [--auth-file PATH] [--tls-cert F --tls-key F [--tls-ca F]] [--max-body SIZE]
[--max-depth N]``: the REST server.

With ``--fd`` (from ``nos up``) it serves on an inherited, already-listening socket. That socket is
wrapped with its real family (``socket.socket(fileno=)`` detects it): uvicorn's own ``fd=`` wraps it as
AF_UNIX, so asyncio would not set TCP_NODELAY on accepted connections, and Nagle's algorithm with
delayed ACKs would add up to 40 ms to a response written in two parts (head, then body). asyncio and
uvloop (which uvicorn uses when it is installed, with httptools) set TCP_NODELAY on every accepted TCP
connection; this keeps it so.

Before serving, a non-loopback address without credentials is refused (exit 2, the message says why);
one with credentials requires them for the life of the process (``nos.api.auth``). In a container the
listener is on all of the container's addresses while docker publishes its port somewhere else:
``--published-on HOST`` names that address, and the rule is applied to it instead. ``--config-dir``
is the only directory ``config-save`` and ``config-reload`` may name files in (default: the run
directory; ``nos.api.rest.config_dir``).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn

from nos.api.auth import FILE_NAME, Authenticator, AuthError, ListenerRefused
from nos.api.rest.app import create_app
from nos.api.rest.limits import MAX_BODY, BodyLimits, parse_size
from nos.api.tls import TlsError, TlsFiles
from nos.config.limits import MAX_DEPTH
from nos.daemon.logs import setup_logging
from nos.db.connector import Databases

log = logging.getLogger("nos.api.rest")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="nos-rest", description="The switch's REST API server.")
    parser.add_argument("--redis", default=os.environ.get("NOS_REDIS"), help="the switch's Redis URL")
    parser.add_argument("--host", default="127.0.0.1")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--port", type=int, default=8000)
    where.add_argument("--fd", type=int, help="serve on an already-bound listening socket (from nos up)")
    parser.add_argument("--run-dir", type=Path, help="where the saved config_db.json and checkpoints live")
    parser.add_argument("--config-dir", type=Path,
                        help="the only directory config-save and config-reload may name files in (default: --run-dir)")
    parser.add_argument("--auth-file", type=Path, help=f"credentials (default: <run dir>/{FILE_NAME})")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--tls-ca", help="require client certificates signed by this CA (mutual TLS)")
    parser.add_argument("--published-on", metavar="HOST",
                        help="the address this listener is reached at from beyond its network namespace (a "
                             "container's published address): the credentials rule applies to it, not to --host")
    parser.add_argument("--daemons", default="", help="comma list of daemons whose heartbeat readiness needs")
    parser.add_argument("--log-level", default=os.environ.get("NOS_LOG_LEVEL", "INFO"))
    parser.add_argument("--max-body", type=_size, default=os.environ.get("NOS_REST_MAX_BODY", str(MAX_BODY)),
                        help=f"largest request body read, bytes or with K/M/G (default {MAX_BODY >> 20}M; "
                             "larger: 413)")
    parser.add_argument("--max-depth", type=_depth, default=os.environ.get("NOS_REST_MAX_DEPTH", str(MAX_DEPTH)),
                        help=f"deepest JSON nesting of a body (default {MAX_DEPTH}; deeper: 400)")
    return parser.parse_args(argv)


def _size(text: str) -> int:
    try:
        size = parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if size < 1:
        raise argparse.ArgumentTypeError("must be at least 1 byte")
    return size


def _depth(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a positive number of levels: {text!r}")
    return int(text)


def inherited_socket(fd: int) -> socket.socket:
    """The listening socket behind ``fd``, with its real address family (see the module docstring)."""
    sock = socket.socket(fileno=fd)
    sock.setblocking(False)
    return sock


def listen_host(sock: socket.socket | None, host: str) -> str:
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        return str(sock.getsockname()[0])
    return host


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.redis:
        print("nos-rest: no Redis given: pass --redis URL or set NOS_REDIS", file=sys.stderr)
        return 2
    setup_logging(args.log_level)
    auth_file = args.auth_file or (args.run_dir / FILE_NAME if args.run_dir else None)
    try:
        tls = TlsFiles.from_flags(args.tls_cert, args.tls_key, args.tls_ca)
        auth = Authenticator(auth_file)
        sock = inherited_socket(args.fd) if args.fd is not None else None
        auth.check_listener(args.published_on or listen_host(sock, args.host))
    except (TlsError, AuthError, ListenerRefused, OSError) as exc:
        print(f"nos-rest: {exc}", file=sys.stderr)
        return 2
    daemons = tuple(d for d in args.daemons.split(",") if d)
    limits = BodyLimits(args.max_body, args.max_depth)
    app = create_app(Databases(args.redis), daemons, run_dir=args.run_dir, auth=auth, config_dir=args.config_dir,
                     limits=limits)
    app.state.ctx.cdb.warm()  # CONFIG_DB into the write path's cache now, not on the first write
    kwargs: dict[str, Any] = tls.uvicorn_kwargs() if tls else {}
    if sock is None:
        kwargs |= {"host": args.host, "port": args.port}
    # proxy_headers off: nothing sits in front of the switch's API, so X-Forwarded-* are not trusted (and
    # uvicorn's ProxyHeadersMiddleware is one layer less on every request)
    config = uvicorn.Config(app, log_level=args.log_level.lower(), access_log=False, log_config=None,
                            proxy_headers=False, **kwargs)
    log.info("rest.start listen=%s tls=%s credentials=%s max_body=%d max_depth=%d",
             "fd" if sock else f"{args.host}:{args.port}", "mutual" if tls and tls.mutual else bool(tls),
             "required" if auth.required else "none (loopback)", limits.max_bytes, limits.max_depth)
    gc.collect()
    gc.freeze()  # the startup heap (FastAPI, pydantic, the schema, the config cache: a 40+ ms full collection)
    #               out of the GC's walks
    uvicorn.Server(config).run(sockets=[sock] if sock is not None else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
