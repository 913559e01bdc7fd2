"""What ``test_forkserver`` runs by fork: ``python -m tests.integration.nos.runtime.forked_child OUT [FD]``
writes what it was started with to OUT (JSON), prints a line, writes to FD when given, exits with
status 3 (or sleeps when OUT ends in .sleep)."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import signal
import sys
import time


def _open(fd: int) -> bool:
    try:
        fcntl.fcntl(fd, fcntl.F_GETFD)
    except OSError:
        return False
    return True


if __name__ == "__main__":
    out = sys.argv[1]
    fds = sorted(n for n in map(int, os.listdir("/proc/self/fd")) if _open(n))  # not the listing's own
    record = {"argv": sys.argv, "cwd": os.getcwd(), "env": os.environ.get("FORKED_CHILD_ENV"), "ppid": os.getppid(),
              "fds": fds, "handlers": len(logging.getLogger().handlers),
              "sigint": signal.getsignal(signal.SIGINT) is signal.default_int_handler, "name": __name__}
    if len(sys.argv) > 2:
        os.write(int(sys.argv[2]), b"through the passed socket")
    with open(out, "w") as f:
        json.dump(record, f)
    print("hello from the child", flush=True)
    if out.endswith(".sleep"):
        time.sleep(60)
    sys.exit(3)
