"""``python -m nos.api.gnmi --redis URL [--host H] [--port N] [--published-on H] [--run-dir DIR] [--auth-file F]
[--tls-cert F --tls-key F [--tls-ca F]]``: the gNMI server of one switch.

``--port 0`` picks a free port (``--port-fallback``: any free port if ``--port`` is taken). The bound
address is printed (``gnmi.listening address=...``) and, with ``--run-dir``, written to
``<run dir>/gnmi.json`` (``{"pid", "host", "port", "address", "mode", "unix"}``), which is how
``nos up`` learns it. Exit status 2: the flags cannot be used (a non-loopback
``--host`` without credentials, an unusable credentials file, incomplete TLS files, a port in use);
the message says which. A non-loopback ``--host`` makes credentials required for the server's life
(``nos.api.auth``); in a container, ``--published-on HOST`` (the address docker publishes the port at)
is what the rule is applied to instead.

Latency settings of this process (a server, not a library; tests and clients that import the package
keep gRPC's and Python's defaults):

* gRPC's EventEngine endpoints are turned off (``GRPC_EXPERIMENTS``, unless the environment sets it):
  with them every socket read and write of the server hops to the engine's own threads before the
  completion queue sees it; without them the thread that waits on the queue polls the sockets
  itself. Measured on two cores, one Capabilities call interleaved with a default server: ~0.05 ms
  (~8-10 %) faster at p50 and p90. Experiment names change between grpcio releases: an unknown one
  is logged by gRPC and ignored.
* Once serving, CONFIG_DB is read into the Set cache and everything alive is moved out of the
  collector's reach (``gc.freeze``): a full collection then walks only what came later, not the
  ~57k objects of gRPC, protobuf, the schema and the rest (a ~20 ms pause on the test machine, which
  would land on whichever RPC triggered it).
"""

from __future__ import annotations

import os

os.environ.setdefault("GRPC_EXPERIMENTS", "-event_engine_listener,-event_engine_for_all_other_endpoints")

# isort: split
import argparse
import dataclasses
import gc
import signal
import sys
import threading
from pathlib import Path
from typing import NoReturn

from nos.api.auth import AuthError, ListenerRefused
from nos.api.gnmi.server import BindError, GnmiServer, ServerOptions
from nos.api.tls import TlsError, TlsFiles
from nos.daemon.logs import setup_logging
from nos.runtime.rundir import RunDir

PROG = "nos-gnmi"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description="gNMI server of one switch")
    parser.add_argument("--redis", default=os.environ.get("NOS_REDIS"), help="Redis URL of the switch")
    parser.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="listen port (default 8080; 0 = any)")
    parser.add_argument("--port-fallback", action="store_true",
                        help="if --port is taken, listen on any free port instead (nos up's default port)")
    parser.add_argument("--published-on", metavar="HOST",
                        help="the address this listener is reached at from beyond its network namespace (a "
                             "container's published address): the credentials rule applies to it, not to --host")
    parser.add_argument("--run-dir", type=Path, help="run directory: gnmi.json, gnmi.sock, credentials.json")
    parser.add_argument("--auth-file", type=Path, help="credentials file (default <run dir>/credentials.json)")
    parser.add_argument("--tls-cert", help="server certificate (PEM)")
    parser.add_argument("--tls-key", help="server private key (PEM)")
    parser.add_argument("--tls-ca", help="CA of client certificates: mutual TLS")
    parser.add_argument("--log-level", default=os.environ.get("NOS_LOG_LEVEL", "INFO"))
    return parser.parse_args(argv)


def options_from(args: argparse.Namespace) -> ServerOptions:
    """The server options, or SystemExit(2) naming what is wrong with the flags."""
    if not args.redis:
        _refuse("no Redis given: pass --redis URL or set NOS_REDIS")
    if not 0 <= args.port <= 65535:
        _refuse(f"--port {args.port}: a port is 0..65535")
    try:
        tls = TlsFiles.from_flags(args.tls_cert, args.tls_key, args.tls_ca)
    except TlsError as error:
        _refuse(str(error))
    return ServerOptions(args.redis, args.host, args.port, args.run_dir, args.auth_file, tls,
                         published_on=args.published_on)


def server_of(options: ServerOptions) -> GnmiServer:
    """The server, or SystemExit(2) when its listener or credentials file cannot be used."""
    try:
        return GnmiServer(options)
    except (ListenerRefused, AuthError) as error:
        _refuse(str(error))


def _refuse(message: str) -> NoReturn:
    print(f"{PROG}: {message}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    setup_logging(args.log_level)
    options = options_from(args)
    server = server_of(options)
    if options.run_dir is not None:
        RunDir(options.run_dir).path.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()  # handlers first: gnmi.json (written by start) tells a supervisor it may signal
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        port = server.start()
    except BindError as error:
        server.stop(0)
        if not (args.port_fallback and options.port):
            _refuse(str(error))
        server = server_of(dataclasses.replace(options, port=0))
        port = server.start()
    server.service.cdb.warm()  # CONFIG_DB into the Set path's cache now, not on the first Set
    gc.collect()
    gc.freeze()
    print(f"gnmi.listening address={args.host}:{port} mode={server.mode}", flush=True)
    while not stop.wait(1.0):
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
