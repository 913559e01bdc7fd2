"""The shared entry point of every daemon: ``python -m <daemon> --redis URL [--log-level L]``.

Each daemon supplies ``build(dbs, runner)`` that wires its consumers; this module connects to
Redis (a clear one-line error if it cannot), sets up logging and runs the loop.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from collections.abc import Callable, Sequence

from nos.daemon.errors import DaemonFatal
from nos.daemon.logs import setup_logging
from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import EXIT_FATAL, Runner
from nos.db import Databases
from nos.db.errors import DbError
from nos.schema.dbconfig import STATE_DB

log = logging.getLogger(__name__)

Build = Callable[[Databases, Runner], None]

# The collector's thresholds in the daemons (Python's are 700, 10, 10). A daemon handling a burst (a
# routing table, a config reload) allocates millions of short-lived containers; at 700 allocations a
# young collection runs thousands of times a second, and the survivors of each are walked again by the
# older generations. At 10,000 young collections run 14 times less often and a pass stays short (0.2 ms
# for 10,000 young containers here; 100,000 would be 3.7 ms, a pause on every daemon a change crosses).
# Long-lived state is moved out of the collector's sight anyway (gc.freeze in RouteOrch and syncd).
# Route benchmark, 2026-11-30: 17.6-19.3K routes/s with Python's thresholds (4 runs), 19.0-20.0K with
# these (3 runs); orchagent's CPU per 100,000 routes ~4% lower.
GC_THRESHOLDS = (10_000, 10, 10)


def parse_args(name: str, argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=name, description=f"nos daemon {name}")
    parser.add_argument("--redis", default=os.environ.get("NOS_REDIS"),
                        help="Redis URL of the switch (unix:///path/redis.sock or redis://host:port); "
                             "default $NOS_REDIS")
    parser.add_argument("--log-level", default=os.environ.get("NOS_LOG_LEVEL", "INFO"))
    parser.add_argument("--strict", action="store_true",
                        help="re-raise unexpected exceptions instead of reporting them (tests)")
    return parser.parse_args(argv)


def daemon_main(name: str, build: Build, argv: Sequence[str] | None = None) -> int:
    args = parse_args(name, argv)
    setup_logging(args.log_level)
    if not args.redis:
        print(f"{name}: no Redis given: pass --redis URL or set NOS_REDIS", file=sys.stderr)
        return 2
    gc.set_threshold(*GC_THRESHOLDS)
    dbs = Databases(args.redis)
    try:
        dbs[STATE_DB].ping()
        reporter = StateDbReporter(dbs, name)
        dbs.bad_keys.publisher = reporter  # keys the readers skip as not rows: in nos show errors
        runner = Runner(name, strict=args.strict, reporter=reporter)
        build(dbs, runner)
        return runner.run()
    except DbError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    except DaemonFatal as exc:  # while building: e.g. syncd never answered the switch's creation
        log.error("daemon.fatal name=%s error=%s (exiting: a restart reconciles)", name, exc)
        return EXIT_FATAL
    finally:
        dbs.close()
