"""``python -m nos.api.rest --redis URL [--host H] [--port N | --fd N]``: the REST server."""

from __future__ import annotations

import argparse
import os
import sys

import uvicorn

from nos.api.rest.app import create_app
from nos.daemon.logs import setup_logging
from nos.db.connector import Databases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nos-rest")
    parser.add_argument("--redis", default=os.environ.get("NOS_REDIS"))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--fd", type=int, help="serve on an already-bound listening socket (from nos up)")
    parser.add_argument("--daemons", default="", help="comma list of daemons whose heartbeat readiness needs")
    parser.add_argument("--log-level", default=os.environ.get("NOS_LOG_LEVEL", "INFO"))
    args = parser.parse_args(argv)
    if not args.redis:
        print("nos-rest: no Redis given: pass --redis URL or set NOS_REDIS", file=sys.stderr)
        return 2
    setup_logging(args.log_level)
    daemons = tuple(d for d in args.daemons.split(",") if d)
    app = create_app(Databases(args.redis), daemons)
    kwargs = {"fd": args.fd} if args.fd is not None else {"host": args.host, "port": args.port}
    uvicorn.run(app, log_level=args.log_level.lower(), access_log=False, **kwargs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
