"""Consumer side of the state-table benchmark, run as its own process.

Prints ``ready`` once subscribed, then pops until ``--count`` keys arrived and prints the
monotonic time of the last pop (CLOCK_MONOTONIC is system-wide, so the parent can compare).
"""

from __future__ import annotations

import argparse
import sys
import time

from nos.db import ConsumerStateTable, Select
from nos.db.connector import Databases


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--redis", required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--count", type=int, required=True)
    args = parser.parse_args()
    dbs = Databases(args.redis)
    consumer = ConsumerStateTable(dbs["APPL_DB"], args.table)
    select = Select()
    select.add(consumer)
    print("ready", flush=True)
    got = 0
    while got < args.count:
        if select.select(timeout=10.0):
            got += len(consumer.pops())
        else:
            print(f"timeout after {got} keys", flush=True)
            return 1
    print(f"done {time.monotonic():.9f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
